"""The import names cannot collide: a wheel and an sdist install and run beside distributions
that own the top-level names ``harness``, ``plugins`` and ``leaderboard``.

Everything is built and installed offline: the wheel and sdist with the installed setuptools, the
colliding distributions as local stand-ins (PyPI's ``harness`` 0.1.0 and ``leaderboard`` 3.7.3 own
those top-level packages; a stand-in owns the same names, which is what can collide). The fresh
virtualenv sees this environment's dependencies through a path entry, not its editable install.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from tests.conftest import dependency_paths

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: int = 600) -> str:
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout


def _standin_wheel(folder: Path, name: str, package: str) -> Path:
    """A local distribution owning the top-level package ``package`` (what PyPI's ``name`` owns)."""
    src = folder / f"{name}-src"
    (src / package).mkdir(parents=True)
    (src / package / "__init__.py").write_text(f'OWNER = "{name}"\n')
    (src / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""
            [build-system]
            requires = ["setuptools"]
            build-backend = "setuptools.build_meta"
            [project]
            name = "{name}"
            version = "0.0.0"
            [tool.setuptools]
            packages = ["{package}"]
            """
        )
    )
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(folder), "."], src)
    return next(folder.glob(f"{name}-0.0.0-*.whl"))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Our wheel and sdist, and stand-in wheels for the names they must not collide with."""
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), "."], REPO)
    code = f"from setuptools.build_meta import build_sdist; print(build_sdist({str(dist)!r}))"
    sdist = dist / _run([sys.executable, "-c", code], REPO).strip().splitlines()[-1]
    return {
        "wheel": next(dist.glob("vlc_harness-*.whl")),
        "sdist": sdist,
        "standins": [_standin_wheel(dist, n, p) for n, p in (("leaderboard", "leaderboard"), ("harness", "harness"))],
    }


def _venv(root: Path) -> tuple[Path, dict[str, str]]:
    """A fresh virtualenv that reaches this environment's dependencies (not its editable install)."""
    _run([sys.executable, "-m", "venv", "--without-pip", str(root)], root.parent)
    python = root / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], root).strip())
    (site / "deps.pth").write_text(dependency_paths())  # path entries: the .pth files there are not run
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{root / 'bin'}{os.pathsep}{env['PATH']}", HF_HUB_OFFLINE="1")
    return python, env


def _install(python: Path, env: dict[str, str], *wheels: Path) -> None:
    cmd = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q"]
    cmd.append("--no-build-isolation")  # an sdist builds with the setuptools this environment has
    _run([*cmd, *map(str, wheels)], python.parent, env)


def test_the_wheel_marks_each_package_typed(built):
    """PEP 561: type checkers read an installed package's annotations only beside its ``py.typed``."""
    with zipfile.ZipFile(built["wheel"]) as wheel:
        names = set(wheel.namelist())
    assert {f"{p}/py.typed" for p in ("vlc_harness", "vlc_harness_builtins", "vlc_leaderboard")} <= names


@pytest.mark.parametrize("form", ["wheel", "sdist"])
def test_it_installs_and_runs_beside_distributions_owning_its_folder_names(form, built, tmp_path):
    python, env = _venv(tmp_path / "venv")
    _install(python, env, *built["standins"], built[form])
    work = tmp_path / "work"  # never the repository: its folders must not be what gets imported
    work.mkdir()
    probe = (
        "import json, harness, leaderboard, vlc_harness, vlc_harness_builtins, vlc_leaderboard;"
        "print(json.dumps({m.__name__: m.__file__ for m in (harness, leaderboard, vlc_harness, vlc_leaderboard)}))"
    )
    where = json.loads(_run([str(python), "-c", probe], work, env).strip().splitlines()[-1])
    venv = str(tmp_path / "venv")
    assert all(path.startswith(venv) for path in where.values()), where
    owners = _run(
        [str(python), "-c", "import harness, leaderboard; print(harness.OWNER, leaderboard.OWNER)"], work, env
    )
    assert owners.split() == ["harness", "leaderboard"]  # theirs, untouched by ours
    # the quickstart grid, offline (its model needing a download is unavailable, the run exits 0)
    store, data = f"sqlite:///{work / 'store.sqlite'}", work / "data"
    registry = REPO / "examples" / "quickstart.yaml"
    run = [str(python), "-m", "vlc_harness", "run", "--all", "--registry", str(registry), "--store", store]
    out = _run([*run, "--data-root", str(data), "--no-progress", "--limit", "3"], work, env)
    assert "random x shapes" in out
    _run(
        [
            str(tmp_path / "venv" / "bin" / "vlc-harness"),
            "render",
            "--registry",
            str(registry),
            "--store",
            store,
            "--out",
            str(work / "site"),
        ],
        work,
        env,
    )
    assert (work / "site" / "index.html").is_file()
    # the shipped pytest plugin's conformance checks, from the installed package
    conformance = [
        str(python),
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--pyargs",
        "vlc_harness.testing.conformance",
    ]
    _run([*conformance, "--vlc-types", "random,sugarcrepe,shapes"], work, env, timeout=900)
