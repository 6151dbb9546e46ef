"""The PR check's ``lint`` step: ``ruff check`` and ``ruff format --check`` over the repository."""

from __future__ import annotations

import subprocess
import sys

from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.summary import Section, code


def step_lint(ctx: Context) -> Section:
    """ruff check and ruff format --check over the repository."""
    section = Section("Lint (ruff)")
    for argv in (["check", "--output-format", "concise", "."], ["format", "--check", "."]):
        out = subprocess.run([sys.executable, "-m", "ruff", *argv], cwd=ctx.repo, capture_output=True, text=True)
        name = "ruff " + " ".join(a for a in argv if a != "concise" and a != "--output-format")
        if out.returncode:
            section.fail(f"`{name}` failed:")
            section.lines += code(out.stdout + out.stderr)
        else:
            section.lines.append(f"`{name}`: clean")
    return section
