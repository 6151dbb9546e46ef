"""One step of the night (:class:`Step`), and ``vlc-harness ARGV`` run in this process with its output
teed (:func:`cli`)."""

from __future__ import annotations

import contextlib
import io
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Step:
    """One step of the night: its exit code, what it printed, and the lines the summary shows."""

    name: str
    code: int = 0
    output: str = ""
    lines: list[str] = field(default_factory=list)
    skipped: bool = False
    crashed: bool = False


def cli(name: str, argv: list[str], show_stdout: bool = False) -> Step:
    """``vlc-harness ARGV`` in this process (the tests' network guard covers it), its output teed;
    the summary shows what it printed on stderr (``show_stdout``: on stdout too)."""
    from vlc_harness.cli import main

    step = Step(name)
    out, err = _Tee(sys.stdout), _Tee(sys.stderr)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            step.code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception:  # a crash is a failed step, named with its traceback, never a pass
            traceback.print_exc(file=err.stream)  # in the log, not in the summary
            step.code, step.crashed = 1, True
            step.lines.append(f"crashed: {traceback.format_exc().strip().splitlines()[-1]}")
    step.output = out.text()
    shown = (step.output if show_stdout else "") + err.text()
    step.lines += [line for line in shown.splitlines() if line.strip()]
    return step


class _Tee(io.TextIOBase):
    """Writes through to a stream and keeps a copy."""

    def __init__(self, stream: Any) -> None:
        self.stream, self.copy = stream, io.StringIO()

    def write(self, text: str) -> int:
        self.stream.write(text)
        return self.copy.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def text(self) -> str:
        return self.copy.getvalue()
