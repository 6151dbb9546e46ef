"""The import names cannot collide: a wheel and an sdist install and run beside distributions
that own the top-level names ``harness``, ``plugins`` and ``leaderboard``.

Everything is built and installed offline: the wheel and sdist with the installed setuptools, once per
test run for every xdist worker (tests/once.py), and the colliding distributions as local stand-ins
(PyPI's ``harness`` 0.1.0 and ``leaderboard`` 3.7.3 own those top-level packages; a stand-in owns the same
names, which is what can collide), written as wheels directly. The fresh virtualenv sees this
environment's dependencies through a path entry, not its editable install. The wheel runs the quickstart,
the render and the shipped conformance checks; the sdist installs exactly the wheel's files (each path and
its sha256, from the two RECORD files), so it runs the same program.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.conftest import dependency_paths
from tests.once import built_once

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
NOT_FROM_THE_WHEEL = ("INSTALLER", "REQUESTED", "RECORD", "direct_url.json")
"""The files of an installed distribution's ``.dist-info`` that pip writes itself (not the wheel's)."""


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: int = 600) -> str:
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout


def _record_hash(data: bytes) -> str:
    """A file's hash as a wheel's RECORD writes it (PEP 376/427: urlsafe base64, no padding)."""
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _standin_wheel(folder: Path, name: str, package: str) -> Path:
    """A local wheel owning the top-level package ``package`` (what PyPI's ``name`` owns), written directly."""
    info = f"{name}-0.0.0.dist-info"
    files = {
        f"{package}/__init__.py": f'OWNER = "{name}"\n',
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.0.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: vlc-harness-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/top_level.txt": f"{package}\n",
    }
    record = "".join(f"{path},{_record_hash(text.encode())},{len(text.encode())}\n" for path, text in files.items())
    wheel = folder / f"{name}-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in {**files, f"{info}/RECORD": record + f"{info}/RECORD,,\n"}.items():
            archive.writestr(path, text)
    return wheel


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Our wheel and sdist, and stand-in wheels for the names they must not collide with (built once per run)."""

    def build(dist: Path) -> dict[str, str]:
        pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist)]
        _run([*pip_wheel, "."], REPO)
        code = f"from setuptools.build_meta import build_sdist; print(build_sdist({str(dist)!r}))"
        sdist = dist / _run([sys.executable, "-c", code], REPO).strip().splitlines()[-1]
        return {
            "wheel": str(next(dist.glob("vlc_harness-*.whl"))),
            "sdist": str(sdist),
            **{f"standin-{n}": str(_standin_wheel(dist, n, n)) for n in ("leaderboard", "harness")},
        }

    return {key: Path(path) for key, path in built_once(tmp_path_factory, "dist", build).items()}


def _venv(root: Path) -> tuple[Path, dict[str, str]]:
    """A fresh virtualenv that reaches this environment's dependencies (not its editable install)."""
    _run([sys.executable, "-m", "venv", "--without-pip", str(root)], root.parent)
    python = root / "bin" / "python"
    site = Path(sysconfig.get_path("purelib", vars={"base": str(root), "platbase": str(root)}))
    (site / "deps.pth").write_text(dependency_paths())  # path entries: the .pth files there are not run
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{root / 'bin'}{os.pathsep}{env['PATH']}", HF_HUB_OFFLINE="1")
    return python, env


def _install_beside_standins(built: dict[str, Path], form: str, tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    """Our ``form`` (wheel or sdist) and the stand-ins, installed in a fresh virtualenv: its python, environment
    and a work folder outside the repository (whose folders must not be what gets imported)."""
    python, env = _venv(tmp_path / "venv")
    cmd = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q"]
    cmd.append("--no-build-isolation")  # an sdist builds with the setuptools this environment has
    _run([*cmd, str(built["standin-leaderboard"]), str(built["standin-harness"]), str(built[form])], tmp_path, env)
    work = tmp_path / "work"
    work.mkdir()
    return python, env, work


PROBE = """
import importlib.metadata as m, json, harness, leaderboard, vlc_harness, vlc_harness_builtins, vlc_leaderboard
files = [[str(f), f.hash.value if f.hash else None] for f in m.distribution("vlc-harness").files]
print(json.dumps({
    "where": {
        x.__name__: x.__file__ for x in (harness, leaderboard, vlc_harness, vlc_harness_builtins, vlc_leaderboard)
    },
    "owners": [harness.OWNER, leaderboard.OWNER],
    "files": files,
}))
"""
"""What the fresh virtualenv imports under each name, the stand-ins' owners, and vlc-harness's installed files."""


def _probe(python: Path, env: dict[str, str], work: Path, venv: Path) -> dict:
    """Run :data:`PROBE` and check that every name imports from the virtualenv and the stand-ins are theirs."""
    probed = json.loads(_run([str(python), "-c", PROBE], work, env).strip().splitlines()[-1])
    assert all(path.startswith(str(venv)) for path in probed["where"].values()), probed["where"]
    assert probed["owners"] == ["harness", "leaderboard"]  # theirs, untouched by ours
    return probed


def test_the_wheel_marks_each_package_typed(built):
    """PEP 561: type checkers read an installed package's annotations only beside its ``py.typed``."""
    with zipfile.ZipFile(built["wheel"]) as wheel:
        names = set(wheel.namelist())
    assert {f"{p}/py.typed" for p in ("vlc_harness", "vlc_harness_builtins", "vlc_leaderboard")} <= names


def test_it_installs_and_runs_beside_distributions_owning_its_folder_names(built, tmp_path):
    python, env, work = _install_beside_standins(built, "wheel", tmp_path)
    _probe(python, env, work, tmp_path / "venv")
    # the quickstart grid, offline (its model needing a download is unavailable, the run exits 0)
    store, data = f"sqlite:///{work / 'store.sqlite'}", work / "data"
    registry = REPO / "examples" / "quickstart.yaml"
    run = [str(python), "-m", "vlc_harness", "run", "--all", "--registry", str(registry), "--store", store]
    out = _run([*run, "--data-root", str(data), "--no-progress", "--limit", "3"], work, env)
    assert "random x shapes" in out
    vlc = str(tmp_path / "venv" / "bin" / "vlc-harness")
    _run([vlc, "render", "--registry", str(registry), "--store", store, "--out", str(work / "site")], work, env)
    assert (work / "site" / "index.html").is_file()
    # the shipped pytest plugin's conformance checks, from the installed package
    conformance = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs"]
    conformance += ["vlc_harness.testing.conformance", "--vlc-types", "random,sugarcrepe,shapes"]
    _run(conformance, work, env, timeout=900)


def _wheel_files(wheel: Path) -> set[tuple[str, str]]:
    """Each file a wheel installs (its RECORD, less the RECORD itself) with its hash."""
    with zipfile.ZipFile(wheel) as archive:
        (record,) = [n for n in archive.namelist() if n.endswith(".dist-info/RECORD")]
        rows = list(csv.reader(io.StringIO(archive.read(record).decode())))
    return {(path, digest) for path, digest, *_ in rows if path != record}


def test_the_sdist_installs_the_wheels_files_beside_distributions_owning_its_folder_names(built, tmp_path):
    """The sdist installs beside the stand-ins, imports from the virtualenv, and puts there exactly the wheel's
    files, byte for byte: what the wheel's test runs (quickstart, render, conformance) is then the same program."""
    python, env, work = _install_beside_standins(built, "sdist", tmp_path)
    probed = _probe(python, env, work, tmp_path / "venv")
    installed = {
        (path, f"sha256={digest}")
        for path, digest in probed["files"]
        if not path.startswith("..")  # the console scripts pip writes from entry_points.txt (compared below)
        and not path.endswith(".pyc")  # pip's bytecode of the installed modules
        and not (".dist-info/" in path and path.rsplit("/", 1)[-1] in NOT_FROM_THE_WHEEL)
    }
    expected = _wheel_files(built["wheel"])
    assert installed == expected, (sorted(installed - expected)[:20], sorted(expected - installed)[:20])
    assert any(path.endswith(".dist-info/entry_points.txt") for path, _ in installed)
    assert (tmp_path / "venv" / "bin" / "vlc-harness").is_file()
