"""``vlc-harness plan --diff REF``: another revision's grid, evaluated by its own code in a worktree."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import commit, git

pytestmark = pytest.mark.subprocess  # plan --diff runs in its own interpreter, in a git worktree

REPO = Path(__file__).resolve().parents[2]
SC = "{id: sc, type: sugarcrepe, params: {version: custom}}"


def registry(models: list[str], benchmarks: list[str]) -> str:
    return (
        "models:\n"
        + "".join(f"  - {m}\n" for m in models)
        + "benchmarks:\n"
        + "".join(f"  - {b}\n" for b in benchmarks)
    )


def plan(repo: Path, data_root: Path, *args: str) -> subprocess.CompletedProcess:
    argv = ["plan", "--registry", "registry.yaml", "--data-root", str(data_root)]
    argv += ["--store", f"sqlite:///{repo.parent / 'store.sqlite'}", *args]
    return subprocess.run(
        [sys.executable, "-m", "vlc_harness", *argv], cwd=repo, capture_output=True, text=True, timeout=300
    )


def test_added_changed_and_removed_cells_and_the_worktree_is_removed(tmp_path, sample_root):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    base_models = [
        "{id: random, type: random}",
        "{id: tuned, type: random, params: {seed: 5}}",
        "{id: gone, type: random}",
    ]
    (repo / "registry.yaml").write_text(registry(base_models, [SC]))
    commit(repo, "base")
    git(repo, "tag", "base")
    head_models = [
        "{id: random, type: random}",
        "{id: tuned, type: random, params: {seed: 6}}",
        "{id: fresh, type: random}",
    ]
    shapes = "{id: tiny-shapes, type: shapes, params: {n_scenes: 4}}"
    (repo / "registry.yaml").write_text(registry(head_models, [SC, shapes]))
    commit(repo, "head")

    out = plan(repo, sample_root, "--all", "--diff", "base", "--format", "json")
    assert out.returncode == 0, out.stderr
    diff = json.loads(out.stdout)["diff"]
    assert diff["ref"] == "base" and diff["error"] is None
    assert diff["commit"] == git(repo, "rev-parse", "base").strip()
    changes = {(c["model"], c["benchmark"]): (c["change"], c["why"]) for c in diff["cells"]}
    assert changes == {
        ("tuned", "sc"): ("changed", ["model params or scoring code"]),
        ("fresh", "sc"): ("added", ["new model"]),
        ("random", "tiny-shapes"): ("added", ["new benchmark"]),
        ("tuned", "tiny-shapes"): ("added", ["new benchmark"]),
        ("fresh", "tiny-shapes"): ("added", ["new model", "new benchmark"]),
    }  # random x sc is unchanged
    assert diff["removed"] == [{"model": "gone", "benchmark": "sc"}]
    assert git(repo, "worktree", "list").count("\n") == 1  # the temporary worktree is gone

    table = plan(repo, sample_root, "-m", "tuned", "-m", "random", "-b", "sc", "--diff", "base")
    assert table.returncode == 0, table.stderr
    header, tuned, same = table.stdout.splitlines()[:3]
    assert header.endswith("vs base")
    assert tuned.endswith("changed: model params or scoring code") and same.endswith("unchanged")
    assert "vs base (" in table.stdout and "1 changed" in table.stdout


def test_the_other_revision_is_fingerprinted_by_its_own_plugin_code(tmp_path, sample_root):
    """A PR that changes a plugin's scoring code changes that type's cells, though no registry line changed."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("harness", "plugins", "leaderboard"):
        shutil.copytree(REPO / folder, repo / folder, ignore=ignore)
    source = repo / "plugins" / "models" / "random_baseline.py"
    original = source.read_text()
    source.write_text(
        original.replace('    type_name = "random"\n', '    type_name = "random"\n    scoring_version = "0"\n')
    )
    (repo / "registry.yaml").write_text(
        registry(["{id: random, type: random}", "{id: blind, type: blind_harper}"], [SC])
    )
    commit(repo, "base: an older random baseline")
    source.write_text(original)  # what this checkout (the installed code) runs
    commit(repo, "head")

    out = plan(repo, sample_root, "--all", "--diff", "HEAD~1", "--format", "json")
    assert out.returncode == 0, out.stderr
    diff = json.loads(out.stdout)["diff"]
    assert diff["error"] is None, diff["error"]
    assert diff["cells"] == [
        {"model": "random", "benchmark": "sc", "change": "changed", "why": ["model params or scoring code"]}
    ]


def test_an_unknown_revision_is_a_usage_error(tmp_path, sample_root):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "registry.yaml").write_text(registry(["{id: random, type: random}"], [SC]))
    commit(repo, "base")
    out = plan(repo, sample_root, "--all", "--diff", "no-such-branch")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "unknown git revision 'no-such-branch'" in out.stderr


def test_a_revision_whose_code_cannot_evaluate_its_grid_says_so(tmp_path, sample_root):
    repo = tmp_path / "repo"
    (repo / "harness").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "harness" / "__init__.py").write_text("raise RuntimeError('a harness too old for this')\n")
    (repo / "registry.yaml").write_text(registry(["{id: random, type: random}"], [SC]))
    commit(repo, "base")
    out = plan(repo, sample_root, "--all", "--diff", "HEAD")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1].endswith("?")
    assert "the grid of HEAD could not be evaluated: " in out.stdout and "a harness too old for this" in out.stdout
