"""The night's fetch step: ``vlc-harness data fetch --images``, then every pinned file checked; one
missing or altered fails the night, and is named."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from vlc_harness.ci.nightly.steps import Step, cli
from vlc_harness.exit_codes import ExitCode

if TYPE_CHECKING:
    from vlc_harness.registry import Registry


def pinned_problems(registry: Registry, data_root: Path) -> dict[str, list[str]]:
    """Per benchmark id: each pinned file (a sha256 in its data files) missing or altered under ``data_root``."""
    from vlc_harness.datafiles import UNPINNED
    from vlc_harness.hashing import sha256_file
    from vlc_harness.plugins import get_plugins

    plugins = get_plugins()
    out: dict[str, list[str]] = {}
    for entry in registry.benchmarks.values():
        if entry.unavailable:  # its plugin package is not installed: no data files to know of
            continue
        bench = plugins.benchmarks.get(entry.type).cls(entry.params, data_root)
        for f in bench.data_files():
            path = data_root / f.relpath
            if f.sha256 == UNPINNED:
                continue
            if not path.is_file():
                out.setdefault(entry.id, []).append(f"missing {f.relpath} ({f.url})")
            elif sha256_file(path) != f.sha256:
                out.setdefault(entry.id, []).append(f"{f.relpath} is not the pinned file ({f.url})")
    return out


def fetch(registry: Registry, common: list[str], data_root: Path) -> Step:
    """``data fetch --images``, then the pinned files checked: one missing fails the night (1)."""
    step = cli("fetch", ["data", "fetch", *common, "--images", "--no-progress"])
    if step.code == 2:
        return step
    failed = [line for line in step.output.splitlines() if ": failed: " in line]
    skipped = [line for line in step.output.splitlines() if ": skipped: " in line]
    problems = pinned_problems(registry, data_root)
    step.code = (
        ExitCode.FAILED if problems or step.crashed else ExitCode.OK
    )  # `data fetch` exits 1 for unpinned files too
    for bench_id, missing in sorted(problems.items()):
        step.lines.append(f"pinned, not fetched (fails the night): {bench_id}: " + "; ".join(missing))
    for line in failed:
        if line.split(":", 1)[0] not in problems:
            step.lines.append(f"not fetched (unpinned or manual-only, reported): {line}")
    step.lines += [f"not fetched (its plugin package is not installed, reported): {line}" for line in skipped]
    return step
