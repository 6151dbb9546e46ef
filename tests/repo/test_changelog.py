"""The version moves with the changelog: pyproject's version is the top entry's."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]


def entries() -> list[tuple[str, str]]:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    return re.findall(r"^## (\d+\.\d+\.\d+) \(([^)]*)\)$", text, re.M)


def test_the_version_is_the_top_changelog_entry():
    version = Version(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"])
    top, when = entries()[0]
    assert version.base_version == top, f"pyproject.toml says {version}, CHANGELOG.md's top entry is {top}"
    if when == "unreleased":
        assert version.is_devrelease or version.is_prerelease, f"{version} is a release, the changelog says unreleased"
    else:
        assert str(version) == top, f"a released entry ({top}, {when}) needs exactly version {top}"


def test_entries_are_newest_first_and_released_ones_are_dated():
    found = entries()
    versions = [Version(v) for v, _ in found]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    for version, when in found[1:]:
        assert re.match(r"\d{4}-\d{2}-\d{2}, commit [0-9a-f]{7,40}$", when), (version, when)
