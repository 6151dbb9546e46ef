"""The packages are typed (``py.typed``) and mypy-clean: ``python scripts/typecheck.py`` (CONTRIBUTING.md).

The configuration is ``[tool.mypy]`` in pyproject.toml; the script links each import name to its
folder (``[tool.setuptools] package-dir``) so that mypy finds the packages it checks. A tiny
synthetic repository with a planted error shows the script, and the PR check's lint step that runs
it, catch one; the slow tier runs it over this repository.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.pr_check.lint import step_lint

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "typecheck.py"
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
PACKAGE_DIRS: dict[str, str] = PYPROJECT["tool"]["setuptools"]["package-dir"]
MYPY = PYPROJECT["tool"]["mypy"]


def typecheck(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python scripts/typecheck.py ARGS`` as CI runs it (the repository's own copy of the script)."""
    command = [sys.executable, str(repo / "scripts" / "typecheck.py"), *args]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=900)


def test_each_package_ships_py_typed_as_package_data() -> None:
    package_data = PYPROJECT["tool"]["setuptools"]["package-data"]
    assert set(PACKAGE_DIRS) == {"vlc_harness", "vlc_harness_builtins", "vlc_leaderboard"}
    for name, folder in PACKAGE_DIRS.items():
        assert (REPO / folder / "py.typed").is_file(), f"{folder}/py.typed is missing"
        assert "py.typed" in package_data.get(name, []), f"[tool.setuptools.package-data] {name} lacks py.typed"


def test_mypy_checks_every_module_and_names_each_untyped_import() -> None:
    assert MYPY["check_untyped_defs"] and MYPY["warn_unused_ignores"] and MYPY["warn_redundant_casts"]
    assert "ignore-without-code" in MYPY["enable_error_code"]  # every `# type: ignore[code]` says what it hides
    assert "exclude" not in MYPY and "files" not in MYPY  # the script names the packages; nothing is left out
    assert "ignore_missing_imports" not in MYPY, "name each untyped module in [[tool.mypy.overrides]]"
    imported = _imported_modules()
    for override in MYPY.get("overrides", []):
        if override.get("follow_imports") == "skip":  # a package not analysed: itself and its submodules
            assert set(override) == {"module", "follow_imports"}, override
            roots = {module.removesuffix(".*") for module in override["module"]}
            assert {f"{root}{tail}" for root in roots for tail in ("", ".*")} == set(override["module"]), override
            assert roots <= {m.split(".")[0] for m in imported}, f"{roots}: not imported by the packages"
            continue
        assert override.get("ignore_missing_imports"), override
        for module in override["module"]:
            assert "*" not in module, f"{module}: name the modules, not a pattern"
            assert module in imported, f"{module} is not imported by the packages: take it off the overrides"


def _imported_modules() -> set[str]:
    """Every module the packages import by an absolute ``import``/``from`` (inside functions too)."""
    out: set[str] = set()
    for folder in PACKAGE_DIRS.values():
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    out.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    out.add(node.module)
    return out


def _tiny_repo(root: Path, body: str) -> Path:
    """A repository whose import names differ from its folders (``tiny_core`` in ``core/``, importing
    ``tiny_extra`` from ``extra/``), with this repository's script and mypy settings."""
    (root / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, root / "scripts" / "typecheck.py")
    (root / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [tool.setuptools]
            package-dir = { tiny_core = "core", tiny_extra = "extra" }

            [tool.mypy]
            check_untyped_defs = true
            warn_unused_ignores = true
            """
        ),
        encoding="utf-8",
    )
    for folder in ("core", "extra"):
        (root / folder).mkdir()
        (root / folder / "__init__.py").write_text('"""A package."""\n', encoding="utf-8")
    (root / "extra" / "values.py").write_text('"""Values."""\n\nLIMIT: int = 3\n', encoding="utf-8")
    (root / "core" / "use.py").write_text(body, encoding="utf-8")
    return root


CLEAN = '"""Uses."""\n\nfrom tiny_extra.values import LIMIT\n\n\ndef doubled() -> int:\n    return 2 * LIMIT\n'
PLANTED = CLEAN.replace("return 2 * LIMIT", 'return "two" * LIMIT')


@pytest.mark.subprocess
def test_the_script_finds_packages_by_import_name_and_reports_repository_paths(tmp_path: Path) -> None:
    repo = _tiny_repo(tmp_path / "repo", CLEAN)
    cache = ("--cache-dir", str(tmp_path / "cache"))
    clean = typecheck(repo, *cache)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Success: no issues found in 4 source files" in clean.stdout
    (repo / "core" / "use.py").write_text(PLANTED, encoding="utf-8")
    planted = typecheck(repo, *cache)
    assert planted.returncode == 1
    assert 'core/use.py:7: error: Incompatible return value type (got "str", expected "int")' in planted.stdout
    assert "vlc-typecheck-links" not in planted.stdout  # the links' paths are written as the repository's


@pytest.mark.subprocess
def test_the_pr_checks_lint_step_runs_the_type_check(tmp_path: Path) -> None:
    repo = _tiny_repo(tmp_path / "repo", PLANTED)
    ctx = Context(repo=repo, base=None, registry=repo / "registry.yaml", data_root=tmp_path, work=tmp_path)
    section = step_lint(ctx)
    assert section.verdict == "failed" and any("core/use.py:7: error" in line for line in section.lines)
    assert "`python scripts/typecheck.py` failed:" in section.lines
    (repo / "core" / "use.py").write_text(CLEAN, encoding="utf-8")
    assert "`python scripts/typecheck.py`: clean" in step_lint(ctx).lines


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_packages_are_mypy_clean(tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = tmp_path_factory.getbasetemp() / "mypy-cache"
    out = typecheck(REPO, "--cache-dir", str(cache))
    assert out.returncode == 0, f"python scripts/typecheck.py found errors:\n{out.stdout}{out.stderr}"
    assert "Success: no issues found" in out.stdout
