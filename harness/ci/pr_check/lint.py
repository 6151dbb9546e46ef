"""The PR check's ``lint`` step: ruff (check and format), the type check (mypy, through
``scripts/typecheck.py``) and the import contracts (import-linter) over the repository, each command
run from the checkout's own environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.summary import Section, code

BIN = Path(sys.executable).parent
"""The environment's scripts (``lint-imports`` has no ``python -m`` form)."""
COMMANDS: tuple[tuple[str, list[str], tuple[str, str, str] | None], ...] = (
    ("ruff check", [sys.executable, "-m", "ruff", "check", "--output-format", "concise", "."], None),
    ("ruff format --check", [sys.executable, "-m", "ruff", "format", "--check", "."], None),
    (
        "python scripts/typecheck.py",
        [sys.executable, "scripts/typecheck.py"],
        ("pyproject.toml", "[tool.mypy]", "mypy configuration"),
    ),
    (
        "lint-imports",
        [str(BIN / "lint-imports"), "--no-cache"],
        ("pyproject.toml", "[tool.importlinter]", "import contracts"),
    ),
    (
        "lint-imports --config import-cycles.toml",
        [str(BIN / "lint-imports"), "--no-cache", "--config", "import-cycles.toml"],
        ("import-cycles.toml", "[tool.importlinter]", "import contracts"),
    ),
)
"""Each check by the name the summary shows, its command line (run in the checkout) and, for a check the
checkout opts into, the file, the table that declares it and what that table holds (the type check and
the import contracts run only where the checkout declares them)."""


def step_lint(ctx: Context) -> Section:
    """Every command of :data:`COMMANDS`; the step fails when one does, showing its output."""
    section = Section("Lint (ruff, mypy, import contracts)")
    for name, argv, declared in COMMANDS:
        if declared is not None and declared[1] not in _read(ctx.repo / declared[0]):
            section.lines.append(f"`{name}`: no {declared[2]} in {declared[0]}")
            continue
        out = subprocess.run(argv, cwd=ctx.repo, capture_output=True, text=True)
        if out.returncode:
            section.fail(f"`{name}` failed:")
            section.lines += code(out.stdout + out.stderr)
        else:
            section.lines.append(f"`{name}`: clean")
    return section


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""
