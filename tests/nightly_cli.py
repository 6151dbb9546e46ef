"""``vlc-harness ci nightly`` as the nightly tests run it: this test's registry, store, data root and site
under one folder, the job summary (JSON) and its Markdown read back."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def run_night(
    vlc_cli: Callable[..., Any],
    folder: Path,
    registry: Path,
    *options: str,
    name: str = "night",
    data_root: Path | None = None,
    state: Path | None = None,
) -> tuple[int, dict[str, Any], str]:
    """Run the nightly on ``registry`` and return its exit code, summary and Markdown (``folder/NAME.json``,
    ``.md``). The store and site live in ``state`` (default ``folder``), the data in ``data_root`` (default
    ``folder/data``); ``options`` are appended (``--no-install``, ``--steps``, ``--deadline-at``...)."""
    state = folder if state is None else state
    summary, markdown = folder / f"{name}.json", folder / f"{name}.md"
    code = vlc_cli(
        "ci",
        "nightly",
        *("--registry", str(registry), "--store", f"sqlite:///{state / 'store.sqlite'}"),
        *("--data-root", str(data_root or folder / "data"), "--site", str(state / "site")),
        *("--summary", str(summary), "--markdown", str(markdown), *options),
    ).exit_code
    return code, json.loads(summary.read_text()), markdown.read_text()


def write_registry(path: Path, models: list[dict[str, Any]], benchmarks: list[dict[str, Any]]) -> Path:
    """A registry file of these entries at ``path`` (what each nightly test runs on)."""
    import yaml

    path.write_text(yaml.safe_dump({"models": models, "benchmarks": benchmarks}), encoding="utf-8")
    return path
