"""constraints.txt pins the scoring stack, runs record it, and the installed stack is the pinned one."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest

from vlc_harness.provenance import PACKAGES
from vlc_harness.testing import in_ci

CONSTRAINTS = Path(__file__).resolve().parents[2] / "constraints.txt"
NOT_SCORING = {
    "t2v-metrics",
    "lazy-loader",
    "import-linter",
    "grimp",
    "packaging",
    "uv",
    "mypy",
    "types-pyyaml",
    "types-tqdm",
    "pytest-xdist",
    "execnet",
    "hypothesis",
}
"""Pinned but part of no score: t2v_metrics for the tests (installed with --no-deps, never imported), the
lazy exports of ``vlc_harness``, the import-contract linter with its graph builder, the lock's reader
(packaging) and writer (uv), the type checker with its stubs, the suite's parallel runner
(pytest-xdist, execnet) and hypothesis (the input readers' fuzz test)."""
SCORING_STACK = {
    "torch",
    "torchvision",
    "numpy",
    "pillow",
    "open-clip-torch",
    "timm",
    "ftfy",
    "regex",
    "transformers",
    "tokenizers",
    "huggingface-hub",
    "sentencepiece",
    "safetensors",
}
"""What issue 25 names as changing a score (and torch, torchvision, numpy): each must be pinned."""


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins() -> dict[str, str]:
    out = {}
    for raw in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][0-9A-Za-z.+!-]*)", line)
        assert match, f"constraints.txt: {raw!r} is not an exact name==version pin"
        name = normalize(match.group(1))
        assert name not in out, f"constraints.txt pins {name} twice"
        out[name] = match.group(2)
    return out


def test_the_scoring_stack_is_pinned_exactly() -> None:
    missing = SCORING_STACK - set(pins())
    assert not missing, f"constraints.txt does not pin {sorted(missing)}"


def test_runs_record_every_pinned_package() -> None:
    recorded = {normalize(p) for p in PACKAGES}
    unrecorded = set(pins()) - NOT_SCORING - recorded
    assert not unrecorded, f"provenance.PACKAGES does not record {sorted(unrecorded)}"


@pytest.mark.parametrize("name", sorted(pins()))
def test_installed_version_is_the_pinned_one(name: str) -> None:
    try:
        installed = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        if in_ci():
            pytest.fail(f"{name} is pinned in constraints.txt but not installed by the README's test command")
        pytest.skip(f"{name} is not installed here")
    assert installed == pins()[name], f"{name} {installed} is installed, constraints.txt pins {pins()[name]}"
