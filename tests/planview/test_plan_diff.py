"""``vlc-harness plan --diff REF``: REF's own ``plan --format json``, run in a worktree with REF's
packages, compared with this checkout's."""

from __future__ import annotations

import ast
import io
import json
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from tests.conftest import commit, copy_code, git
from vlc_harness.planview.document import PLAN_SCHEMA
from vlc_harness.planview.revision import package_dirs

pytestmark = pytest.mark.subprocess  # plan --diff runs in its own interpreter, in a git worktree

REPO = Path(__file__).resolve().parents[2]
SC = "{id: sc, type: sugarcrepe, params: {version: custom}}"
BUILTIN_NAMES = ("vlc_harness_builtins", "vlc_leaderboard")
PLANTED = "planted by the base's plan code"


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


@pytest.fixture(scope="module")
def code_repo(tmp_path_factory) -> Path:
    """A repository with this checkout's code at HEAD and three base revisions: ``old-plugin`` (the
    random baseline's scoring version), ``old-plan`` (the plan code: a planted data version) and
    ``no-schema`` (as before plan schema 1: a document without its schema number, from a plan that
    knows no ``--as-diff-base``)."""
    repo = tmp_path_factory.mktemp("code") / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    copy_code(repo)
    (repo / "registry.yaml").write_text(
        registry(["{id: random, type: random}", "{id: blind, type: blind_harper}"], [SC])
    )
    plugin = repo / "plugins" / "models" / "random_baseline.py"
    planview = repo / "harness" / "planview"
    plants = {
        "old-plugin": [(plugin, '    type_name = "random"\n', '    type_name = "random"\n    scoring_version = "0"\n')],
        "old-plan": [(planview / "identity.py", "= benchmark.data_version", f"= {PLANTED!r}")],
        "no-schema": [
            (planview / "document.py", '        "schema": PLAN_SCHEMA,\n', ""),
            (planview / "command.py", "    envvar=AS_BASE_ENV,\n", ""),
        ],
    }
    for tag, edits in plants.items():
        originals = {path: path.read_text() for path, _, _ in edits}
        for path, old, new in edits:
            assert path.read_text().count(old) == 1, (path, old)
            path.write_text(path.read_text().replace(old, new))
        commit(repo, tag)
        git(repo, "tag", tag)
        for path, text in originals.items():
            path.write_text(text)
    commit(repo, "head: this checkout's code")
    return repo


def _diff(repo: Path, data_root: Path, ref: str) -> dict:
    out = plan(repo, data_root, "--all", "--diff", ref, "--format", "json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["diff"]


def test_the_other_revision_is_fingerprinted_by_its_own_plugin_code(code_repo, sample_root):
    """A PR that changes a plugin's scoring code changes that type's cells, though no registry line changed."""
    diff = _diff(code_repo, sample_root, "old-plugin")
    assert diff["error"] is None, diff["error"]
    assert diff["cells"] == [
        {"model": "random", "benchmark": "sc", "change": "changed", "why": ["model params or scoring code"]}
    ]


def test_the_other_revision_s_plan_is_printed_by_its_own_plan_code(code_repo, sample_root):
    """No file of this checkout runs against REF: REF's plan code (here planting a data version) makes its document."""
    diff = _diff(code_repo, sample_root, "old-plan")
    assert diff["error"] is None, diff["error"]
    assert diff["cells"] == [
        {"model": m, "benchmark": "sc", "change": "changed", "why": ["data version"]} for m in ("random", "blind")
    ]
    assert _diff(code_repo, sample_root, "HEAD")["cells"] == []  # the same code on both sides: nothing changed


def test_a_base_whose_plan_predates_the_schema_is_one_clear_error(code_repo, sample_root):
    diff = _diff(code_repo, sample_root, "no-schema")
    expected = f"no-schema's plan --format json has no schema: it predates plan schema {PLAN_SCHEMA}"
    assert (diff["error"], diff["cells"], diff["removed"]) == (expected, [], [])
    assert git(code_repo, "worktree", "list").count("\n") == 1


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
    (repo / "pyproject.toml").write_text('[tool.setuptools]\npackage-dir = { vlc_harness = "harness" }\n')
    (repo / "harness" / "__init__.py").write_text("raise RuntimeError('a harness too old for this')\n")
    (repo / "registry.yaml").write_text(registry(["{id: random, type: random}"], [SC]))
    commit(repo, "base")
    out = plan(repo, sample_root, "--all", "--diff", "HEAD")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1].endswith("?")
    assert "the grid of HEAD could not be evaluated: " in out.stdout and "a harness too old for this" in out.stdout


def test_import_names_come_from_the_revision_s_pyproject(tmp_path):
    assert package_dirs(tmp_path) == {}  # no pyproject.toml: a repository of registry files only
    (tmp_path / "pyproject.toml").write_text('[tool.setuptools]\npackage-dir = { "" = "src", lab = "code/lab" }\n')
    assert package_dirs(tmp_path) == {"": tmp_path / "src", "lab": tmp_path / "code" / "lab"}
    (tmp_path / "pyproject.toml").write_text('[tool.setuptools]\npackage-dir = { "lab.sub" = "x" }\n')
    with pytest.raises(ValueError, match=r"subpackages \(lab.sub\)"):
        package_dirs(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.setuptools\n")
    with pytest.raises(ValueError, match="does not parse"):
        package_dirs(tmp_path)
    ours = package_dirs(REPO)
    assert ours and all(folder.is_dir() for folder in ours.values())


def builtin_names(root: Path) -> list[str]:
    """Where a ``.py`` file under ``root`` names a built-in package's import name in code or a comment
    (docstrings may mention them)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        texts = [
            (node.lineno, node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
        ]
        texts += [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                  if tok.type == tokenize.COMMENT]  # fmt: skip
        found += [f"{path.relative_to(root)}:{line}" for line, text in texts if any(n in text for n in BUILTIN_NAMES)]
    return found


def test_the_core_names_no_built_in_package(tmp_path):
    """The import-name mapping comes from the revision's pyproject.toml, not from a table in the core."""
    assert builtin_names(REPO / "harness") == []
    planted = tmp_path / "harness"
    planted.mkdir()
    (planted / "table.py").write_text('"""Mentions vlc_leaderboard."""\nNAMES = {"vlc_harness_builtins": "plugins"}\n')
    (planted / "note.py").write_text("X = 1  # like vlc_leaderboard\n")
    assert builtin_names(planted) == ["note.py:1", "table.py:2"]
