"""Every package folder ships: pyproject.toml lists each folder with an ``__init__.py`` under
harness/, plugins/ and leaderboard/ (a missing one installs from a checkout but not from a wheel)."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, from PyPI (a dev dependency there)
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]


def listed_and_present() -> tuple[set[str], set[str]]:
    """The packages pyproject.toml lists, and the package folders on disk, by import name."""
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    present = set()
    for name, folder in setuptools["package-dir"].items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                present.add(".".join([name, *init.parent.relative_to(root).parts]))
    return set(setuptools["packages"]), present


def test_every_package_folder_is_listed():
    listed, present = listed_and_present()
    assert present - listed == set(), "add to [tool.setuptools] packages in pyproject.toml"
    assert listed - present == set(), "listed but not on disk"
