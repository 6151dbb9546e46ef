"""The PR check's ``lint`` step: ruff (check and format), the type check (mypy, through
``scripts/typecheck.py``), the import contracts (import-linter) and the generated files
(``vlc-harness dev generate --check``) over the repository, each command run from the checkout's own
environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.summary import Section, code

BIN = Path(sys.executable).parent
"""The environment's scripts (``lint-imports`` has no ``python -m`` form)."""
COMMANDS: tuple[tuple[str, list[str], str, str], ...] = (
    ("ruff check", [sys.executable, "-m", "ruff", "check", "--output-format", "concise", "."], "", ""),
    ("ruff format --check", [sys.executable, "-m", "ruff", "format", "--check", "."], "", ""),
    ("python scripts/typecheck.py", [sys.executable, "scripts/typecheck.py"], "pyproject.toml", "[tool.mypy]"),
    ("lint-imports", [str(BIN / "lint-imports"), "--no-cache"], "pyproject.toml", "[tool.importlinter]"),
    (
        "lint-imports --config import-cycles.toml",
        [str(BIN / "lint-imports"), "--no-cache", "--config", "import-cycles.toml"],
        "import-cycles.toml",
        "[tool.importlinter]",
    ),
    (
        "vlc-harness dev generate --check",
        [sys.executable, "-m", "vlc_harness", "dev", "generate", "--check", "--root", "."],
        "pyproject.toml",
        'name = "vlc-harness"',
    ),
)
"""Each check by the name the summary shows, its command line (run in the checkout), and the file and the
text in it that the check needs (the type check and import contracts where the checkout declares them; the
generated files in a vlc-harness checkout; nothing: always run)."""
WHAT = {
    "[tool.mypy]": "no mypy configuration",
    "[tool.importlinter]": "no import contracts",
    'name = "vlc-harness"': "not the vlc-harness repository",
}


def step_lint(ctx: Context) -> Section:
    """Every command of :data:`COMMANDS`; the step fails when one does, showing its output."""
    section = Section("Lint (ruff, mypy, import contracts)")
    for name, argv, config, marker in COMMANDS:
        if config and marker not in _read(ctx.repo / config):
            section.lines.append(f"`{name}`: {WHAT[marker]} in {config}")
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
