"""The PR check's ``lint`` step: ruff (check and format) and the import contracts (import-linter) over the
repository, each command run from the checkout's own environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.summary import Section, code

BIN = Path(sys.executable).parent
"""The environment's scripts (``lint-imports`` has no ``python -m`` form)."""
COMMANDS: tuple[tuple[str, list[str], str | None], ...] = (
    ("ruff check", [sys.executable, "-m", "ruff", "check", "--output-format", "concise", "."], None),
    ("ruff format --check", [sys.executable, "-m", "ruff", "format", "--check", "."], None),
    ("lint-imports", [str(BIN / "lint-imports"), "--no-cache"], "pyproject.toml"),
    (
        "lint-imports --config import-cycles.toml",
        [str(BIN / "lint-imports"), "--no-cache", "--config", "import-cycles.toml"],
        "import-cycles.toml",
    ),
)
"""Each check by the name the summary shows, its command line (run in the checkout) and the file holding
its configuration (import contracts: checked only where the checkout declares them)."""


def step_lint(ctx: Context) -> Section:
    """Every command of :data:`COMMANDS`; the step fails when one does, showing its output."""
    section = Section("Lint (ruff, import contracts)")
    for name, argv, config in COMMANDS:
        if config is not None and "[tool.importlinter]" not in _read(ctx.repo / config):
            section.lines.append(f"`{name}`: no import contracts in {config}")
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
