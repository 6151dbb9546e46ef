"""docs/third_party.md's offline recipe works in a brand-new virtualenv (issue 40, item 7).

Unlike tests/e2e/test_third_party_pr.py, nothing here sees this environment's packages: the virtualenv
is ``python -m venv`` without ``--system-site-packages``, and pip reads one folder of wheels and no
configuration (``PIP_CONFIG_FILE`` is the null device, ``PIP_NO_INDEX=1``). The folder is the wheelhouse
``.ci/run`` fills while the package index is reachable (``~/.cache/vlc-harness/wheelhouse``, or
``VLC_HARNESS_WHEELHOUSE``); when it is absent the test runs ``.ci/run``'s own ``pip download`` line, and
under ``CI=true`` a wheelhouse that cannot be built fails the test. The commands are read from the doc:
the lab's (the walk-through table's scaffold, build and first check, section 2's install and tests),
then the offline recipe's block of section 5, whose night installs the lab's pin and publishes a board
of types that need no extras (``random``, the scaffolded plugin, ``shapes``).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import copy_code
from vlc_harness.testing import in_ci

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "third_party.md"
pytestmark = pytest.mark.subprocess
TIMES: dict[str, float] = {}
"""Seconds each command took (printed at the end: docs/third_party.md quotes them)."""


def recipe(doc: str) -> list[str]:
    """The offline recipe's command lines (section 5's marked block)."""
    block = doc.split("<!-- offline-recipe:begin -->", 1)[1].split("<!-- offline-recipe:end -->", 1)[0]
    return [line for line in block.split("```bash\n", 1)[1].split("```", 1)[0].splitlines() if line.strip()]


def table_command(doc: str, step: str) -> str:
    """The command of the walk-through table's row ``step``."""
    row = next(line for line in doc.splitlines() if line.startswith(f"| {step} |"))
    return row.split("`", 2)[1]


def section_commands(doc: str, heading: str) -> list[tuple[str, str]]:
    """The first bash block under ``heading``: each line's command and the output its comment shows."""
    block = doc.split(f"\n{heading}\n", 1)[1].split("```bash\n", 1)[1].split("\n```", 1)[0]
    return [(f"{line}  #".split("  #")[0].strip(), f"{line}  #".split("  #")[1].strip()) for line in block.splitlines()]


def wheelhouse() -> Path:
    """The folder of wheels, built by ``.ci/run``'s ``pip download`` line when absent."""
    folder = Path(os.environ.get("VLC_HARNESS_WHEELHOUSE", Path.home() / ".cache" / "vlc-harness" / "wheelhouse"))
    if folder.is_dir() and any(folder.glob("*.whl")):
        return folder
    line = next(line for line in (REPO / ".ci" / "run").read_text().splitlines() if " -m pip download " in line)
    args = shlex.split(line.split(" -m pip download ", 1)[1].replace('"$WHEELHOUSE"', shlex.quote(str(folder))))
    out = subprocess.run(
        [sys.executable, "-m", "pip", "download", *args], cwd=REPO, capture_output=True, text=True, timeout=900
    )
    if out.returncode == 0:
        return folder
    message = f"no wheelhouse at {folder}, and `pip download` could not build it (run .ci/run online):\n{out.stderr}"
    if in_ci():
        pytest.fail(f"{message}\n(CI=true: a missing wheelhouse is a failure, not a skip)")
    pytest.skip(message)


def sh(command: str, cwd: Path, env: dict[str, str], step: str) -> str:
    """Run one documented command line in bash; its output, or a failure naming the step."""
    started = time.monotonic()
    out = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    TIMES[step] = TIMES.get(step, 0.0) + time.monotonic() - started
    assert out.returncode == 0, (
        f"{step}: `{command}` exited {out.returncode}:\n{out.stdout[-4000:]}\n{out.stderr[-4000:]}"
    )
    return out.stdout


def fresh_env(home: Path) -> dict[str, str]:
    """The environment of a machine with no network and no pip configuration: the parent's variables
    without pip's, a virtualenv's or Python's path, and a home of its own (the store, the data)."""
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VLC_HARNESS_")) and k not in drop}
    ours = str(Path(sys.prefix) / "bin")  # this environment's scripts (pytest, vlc-harness) must not answer
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != ours)
    env.update(HOME=str(home), PIP_CONFIG_FILE=os.devnull, HF_HUB_OFFLINE="1", CUDA_VISIBLE_DEVICES="")
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", XDG_CACHE_HOME=str(home / ".cache"))
    env.update(XDG_DATA_HOME=str(home / ".local" / "share"))
    return env


def run_line(line: str, cwd: Path, env: dict[str, str], folders: str) -> None:
    """One line of the recipe: the virtualenv (by this interpreter), an ``export``, or a command."""
    if line.startswith("python3 -m venv "):
        venv_line, activate = line.split(" && ")
        assert activate == ". .venv/bin/activate", line
        venv = cwd / shlex.split(venv_line)[-1]
        sh(f"{shlex.quote(sys.executable)} -m venv {venv}", cwd, env, "venv")
        env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}")
    elif line.startswith("export "):
        for pair in shlex.split(line)[1:]:
            name, value = pair.split("=", 1)
            env[name] = folders if value == "/path/to/wheels" else value
    else:
        sh(line, cwd, env, line.split(" --", 1)[0])


def checkout(root: Path) -> Path:
    """A copy of this checkout as the recipe needs it (the packages, their metadata, constraints, locks)."""
    root.mkdir()
    copy_code(root)
    for name in ("README.md", "constraints.txt"):
        shutil.copy(REPO / name, root / name)
    shutil.copytree(REPO / "lock", root / "lock")
    return root


def probe(env: dict[str, str], code: str) -> str:
    """What ``code`` prints in the recipe's virtualenv."""
    return subprocess.run(["python", "-c", code], env=env, capture_output=True, text=True, check=True).stdout.strip()


def test_the_offline_recipe_works_in_a_brand_new_virtualenv(tmp_path):
    doc = DOC.read_text(encoding="utf-8")
    wheels = wheelhouse()
    env = fresh_env(tmp_path / "home")
    repo, lab = checkout(tmp_path / "vlc-harness"), tmp_path / "lab"
    lab.mkdir()
    lines = recipe(doc)
    assert lines[-1].startswith("vlc-harness ci nightly "), lines
    dist = lab / "vlc-my-clip" / "dist"
    for line in lines[:-1]:  # the virtualenv and the harness, offline from the wheelhouse (and the lab's wheels)
        run_line(line, repo, env, f"{wheels} {dist}")
    assert env["PIP_NO_INDEX"] == "1"
    venv = Path(env["VIRTUAL_ENV"])
    assert "include-system-site-packages = false" in (venv / "pyvenv.cfg").read_text()
    # one interpreter: where sqlalchemy comes from, the harness's licence field and setuptools' version
    code = "import importlib.metadata as m, sqlalchemy, setuptools; print(sqlalchemy.__file__); "
    code += "print(m.metadata('vlc-harness')['License-Expression']); print(setuptools.__version__)"
    sqlalchemy, licence, setuptools = probe(env, code).splitlines()
    assert sqlalchemy.startswith(str(venv)), sqlalchemy
    # the isolated build took the wheelhouse's setuptools: only 77 or later writes a PEP 639 licence
    assert licence == "MIT" and int(setuptools.split(".")[0]) >= 77, (licence, setuptools)

    # -- the lab: scaffold, tests, a first check, the wheel (the page's walk-through) ---------------------
    sh(table_command(doc, "scaffold"), lab, env, "scaffold")
    package = lab / "vlc-my-clip"
    (install_and_test, _), (plugins, shown) = section_commands(doc, "## 2. Tests")
    sh(install_and_test, lab, env, "install and test")
    listed = sh(plugins, package, env, "plugins")
    assert shown.split() in [line.split() for line in listed.splitlines()], listed  # the doc shows its line
    out = sh(table_command(doc, "first check"), package, env, "first check")
    assert re.search(r"partial +my_clip x shapes +group_score=", out), out
    sh(table_command(doc, "build the wheel"), package, env, "build the wheel")
    (wheel,) = dist.glob("vlc_my_clip-0.1.0-*.whl")
    sha256 = hashlib.sha256(wheel.read_bytes()).hexdigest()
    sh("pip uninstall -q -y vlc-my-clip", package, env, "uninstall")  # the runner never had the lab's checkout

    # -- the merged registry's night, offline ---------------------------------------------------------
    (repo / "registry.yaml").write_text(
        "models:\n  - {id: random, type: random}\n"
        "  - id: my-clip\n    type: my_clip\n"
        '    meta: {display_name: "My Clip", source: "My Lab", license: MIT, homepage: "https://example.org"}\n'
        "benchmarks:\n  - {id: shapes-mini, type: shapes, params: {n_scenes: 10}}\n"
        "plugins:\n  - package: vlc-my-clip\n    pin: vlc-my-clip==0.1.0\n"
        f"    hashes: ['sha256:{sha256}']\n    models: [my_clip]\n"
    )
    (repo / "offline-lock.txt").write_text(f"vlc-my-clip==0.1.0 \\\n    --hash=sha256:{sha256}\n")
    out = sh(lines[-1], repo, env, "nightly")
    assert "## Nightly leaderboard: exit 0" in out, out
    assert f"--no-build-isolation -e {repo}`" in out, out
    assert "### plugins: exit 0" in out and "installed vlc-my-clip==0.1.0" in out, out  # the pin, its own step
    assert probe(env, "import vlc_my_clip; print(vlc_my_clip.__file__)").startswith(str(venv))
    rows = (repo / "site" / "downloads" / "leaderboard.csv").read_text().splitlines()
    assert any(row.startswith("my-clip,My Clip,model,") and ",shapes-mini," in row for row in rows), rows
    assert any(row.startswith("random,") and ",shapes-mini," in row for row in rows), rows
    print("\n" + "\n".join(f"{step}: {seconds:.1f} s" for step, seconds in TIMES.items()))
