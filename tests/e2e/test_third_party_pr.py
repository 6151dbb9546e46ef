"""A third party's model lands by pull request, played offline end to end (issue 30).

The lab scaffolds an embedding model (``vlc-harness new model my-clip --protocol embed``), builds
its wheel and serves it from a local folder index (``PIP_NO_INDEX=1 PIP_FIND_LINKS=DIR``: pip's
own offline route). Its pull request, in a temporary git repository, adds a registry entry and a
``plugins:`` pin with the wheel's sha256. CI is played in a fresh side virtualenv (as in
tests/e2e/test_packaging.py: ``--without-pip``, this environment's packages through a path entry,
the harness checkout through its editable finder): ``vlc-harness plugins install`` then each step
of ``vlc-harness ci pr-check`` as ``.github/workflows/pr.yml`` runs them. The nightly is played in a
second fresh virtualenv, on the merged registry: ``vlc-harness ci nightly`` with its own install step
(a hashed lock, the harness checkout ``--no-deps --no-build-isolation``, then ``vlc-harness plugins
install``), offline through pip's environment (``PIP_NO_INDEX``, ``PIP_FIND_LINKS``), which publishes the
lab's row on the site. The real lock (lock/nightly.txt) needs PyPI; the night here is given the lock of
its offline world (``--lock``): the one wheel its index holds, by its sha256 (the harness's own
dependencies are this environment's already).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI (a dev dependency there)
    import tomli as tomllib

import pytest

from tests.conftest import commit, copy_code, dependency_paths, git

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
BENCH = "benchmarks:\n  - {id: shapes-mini, type: shapes, params: {n_scenes: 10}}\n"
"""The base registry's one benchmark: generated, nothing to download."""
CONFORMANCE = "✅ Conformance of added or changed types: passed"
PLAN = "✅ Plan against base: passed"
SMOKE = "✅ CPU smoke run (--limit 5, shapes:n_scenes=50): passed"
TIMES: dict[str, float] = {}
"""Seconds each step took (printed at the end: docs/third_party.md quotes them)."""


def _run(cmd: list[str], cwd: Path, env: dict[str, str], step: str, ok: tuple[int, ...] = (0,)) -> str:
    started = time.monotonic()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    TIMES[step] = TIMES.get(step, 0.0) + time.monotonic() - started
    assert out.returncode in ok, (
        f"{step}: {' '.join(map(str, cmd))} exited {out.returncode}:\n{out.stdout[-4000:]}\n{out.stderr[-4000:]}"
    )
    return out.stdout


def _installed(python: Path, env: dict[str, str], *names: str) -> list[str | None]:
    """The version of each distribution of ``names`` installed in the side virtualenv's own site-packages
    (``None``: not there), read by one interpreter."""
    code = (
        "import importlib.metadata as m, json, sysconfig; site = sysconfig.get_paths()['purelib']; "
        "found = {d.metadata['Name']: d.version for d in m.distributions(path=[site])}; "
        f"print(json.dumps([found.get(name) for name in {list(names)!r}]))"
    )
    out = subprocess.run([str(python), "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _side_venv(root: Path, index: Path) -> tuple[Path, dict[str, str]]:
    """A fresh virtualenv seeing this environment's packages (a path entry) and the harness checkout
    (its editable finder), whose pip reads the local folder index only."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    python = root / "bin" / "python"
    probe = [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
    site = Path(subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip())
    ours = Path(sysconfig.get_paths()["purelib"])
    (site / "deps.pth").write_text(dependency_paths())  # path entries: the .pth files there are not run ...
    for finder in ours.glob("__editable__.vlc_harness-*.pth"):  # ... so the checkout's finder is named here
        shutil.copy(finder, site / f"zz-{finder.name}")  # after deps.pth, which puts the finder module on the path
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_INDEX_URL")}
    env.update(
        PATH=f"{root / 'bin'}{os.pathsep}{env['PATH']}",
        HF_HUB_OFFLINE="1",
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(index),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        CUDA_VISIBLE_DEVICES="",
    )
    return python, env


def _wheel(tmp_path: Path) -> tuple[Path, str]:
    """The scaffolded package, built into the local index: the index folder and the wheel's sha256."""
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    lab = tmp_path / "lab"
    lab.mkdir()
    vlc = [sys.executable, "-m", "vlc_harness"]
    _run([*vlc, "new", "model", "my-clip", "--protocol", "embed"], lab, env, "scaffold")
    index = tmp_path / "index"
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q"]
    _run([*pip_wheel, "-w", str(index), str(lab / "vlc-my-clip")], lab, env, "build the wheel")
    (wheel,) = index.glob("vlc_my_clip-0.1.0-*.whl")
    return index, hashlib.sha256(wheel.read_bytes()).hexdigest()


def _repository(tmp_path: Path, sha256: str) -> Path:
    """vlc-harness with a base branch and the lab's pull request: an entry and its package's pin."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    copy_code(repo)  # plan --diff evaluates the base by its own code
    (repo / "registry.yaml").write_text("models:\n  - {id: random, type: random}\n" + BENCH)
    commit(repo, "base")
    git(repo, "branch", "base")
    git(repo, "checkout", "-q", "-b", "lab-pr")
    (repo / "registry.yaml").write_text(
        "models:\n  - {id: random, type: random}\n"
        "  - id: my-clip\n    type: my_clip\n"
        '    meta: {display_name: "My Clip", source: "My Lab", license: MIT, homepage: "https://example.org"}\n'
        + BENCH
        + "plugins:\n  - package: vlc-my-clip\n    pin: vlc-my-clip==0.1.0\n"
        f"    hashes: ['sha256:{sha256}']\n    models: [my_clip]\n"
    )
    commit(repo, "Add My Clip")
    return repo


def _sections(summary: str) -> dict[str, str]:
    """The summary's sections by title line (mark, title and verdict)."""
    return {s.split("\n", 1)[0]: s for s in summary.split("## ")[1:]}


def test_a_labs_package_lands_by_pull_request_and_reaches_the_board(tmp_path):
    index, sha256 = _wheel(tmp_path)
    repo = _repository(tmp_path, sha256)

    # -- the PR check, in CI's fresh environment -------------------------------------------------
    python, env = _side_venv(tmp_path / "ci", index)
    registry = str(repo / "registry.yaml")
    out = _run(
        [str(python), "-m", "vlc_harness", "plugins", "install", "--registry", registry], repo, env, "plugins install"
    )
    assert "installed vlc-my-clip==0.1.0" in out
    out = _run(
        [str(python), "-m", "vlc_harness", "plugins", "check", "--registry", registry], repo, env, "plugins check"
    )
    assert "vlc-my-clip" in out
    data = tmp_path / "data"
    summary = tmp_path / "summary.md"
    check = [str(python), "-m", "vlc_harness", "ci", "pr-check", "--repo", str(repo), "--summary", str(summary)]
    check += ["--data-root", str(data)]
    env["PR_CHECK_PLAN_FILE"] = str(tmp_path / "plan.json")
    _run([*check, "registry"], repo, env, "pr_check registry")
    for step in ("conformance", "plan", "smoke"):
        _run([*check, "--base", "base", step], repo, env, f"pr_check {step}")
    sections = _sections(summary.read_text())
    assert set(sections) == {
        "✅ Registry validation: passed",
        CONFORMANCE,
        PLAN,
        SMOKE,
    }, summary.read_text()
    conformance = sections[CONFORMANCE]
    assert "Package `vlc-my-clip`, newly named or re-pinned in `plugins:`, provides `my_clip`." in conformance
    assert "Types: `my_clip` (" in conformance and "| failed |" not in conformance
    assert "| `test_model_example_scores[my_clip]` | passed |" in conformance
    plan = sections[PLAN]
    assert "1 added; 0 removed." in plan and "| `my-clip` | `shapes-mini` | added | new model |" in plan
    assert "| `my-clip` | 0.0 MB (no weights to download) | ok | partial " in sections[SMOKE]

    # -- merged; the nightly, in another fresh environment ---------------------------------------
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--ff-only", "lab-pr")
    python, env = _side_venv(tmp_path / "nightly", index)
    lock = tmp_path / "nightly-lock.txt"
    lock.write_text(
        "#    uv pip compile pyproject.toml --output-file nightly-lock.txt\n"
        f"vlc-my-clip==0.1.0 \\\n    --hash=sha256:{sha256}\n"
    )
    assert _installed(python, env, "vlc-my-clip", "vlc-harness") == [None, None]
    site, night = tmp_path / "site", tmp_path / "night.json"
    nightly = [str(python), "-m", "vlc_harness", "ci", "nightly", "--registry", registry]
    nightly += ["--site", str(site), "--data-root", str(data), "--store", f"sqlite:///{tmp_path / 'store.sqlite'}"]
    nightly += ["--lock", str(lock)]
    _run([*nightly, "--summary", str(night), "--markdown", str(tmp_path / "night.md")], repo, env, "nightly")
    payload = json.loads(night.read_text())
    assert payload["exit_code"] == 0, (tmp_path / "night.md").read_text()
    install = payload["steps"]["install"]
    assert not install["skipped"] and install["exit_code"] == 0
    hashed = f"{python} -m pip install --no-deps --require-hashes --only-binary :all: -r {lock}"
    assert install["lines"][0] == f"ok: `{hashed}`"
    assert install["lines"][1] == f"ok: `{python} -m pip install --no-deps --no-build-isolation -e {REPO}`"
    plugins = payload["steps"]["plugins"]  # the registry's pins, installed by a step of their own
    assert not plugins["skipped"] and plugins["exit_code"] == 0 and "installed vlc-my-clip==0.1.0" in plugins["lines"]
    version = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert _installed(python, env, "vlc-my-clip", "vlc-harness") == ["0.1.0", version]
    assert "My Clip" in (site / "index.html").read_text()
    rows = (site / "downloads" / "leaderboard.csv").read_text().splitlines()
    assert any(row.startswith("my-clip,My Clip,model,") and ",shapes-mini," in row for row in rows)
    print("\n" + "\n".join(f"{step}: {seconds:.1f} s" for step, seconds in TIMES.items()))
