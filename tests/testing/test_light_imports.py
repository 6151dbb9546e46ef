"""The import-is-light check (vlc_harness.testing.light_imports) answers for every module as a fresh
interpreter would, with one interpreter when all are light: a planted heavy import is still named,
a light module imported after it is still cleared, and a module that cannot be imported still fails."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from vlc_harness.testing import light_imports

pytestmark = pytest.mark.subprocess  # fresh interpreters are the point

LIGHT = "import json\n\nclass X:\n    pass\n"
HEAVY = (  # as `import torch` would, without the seconds
    "import sys, types\n\nsys.modules.setdefault('torch', types.ModuleType('torch'))\n\nclass X:\n    pass\n"
)


def plugin(tmp_path: Path, name: str, source: str) -> dict[str, str]:
    """A locator of class X in a module file no interpreter can import by name (loaded by its file)."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return {"module": f"vlc_light_{name}", "qualname": "X", "file": str(path)}


@pytest.fixture
def interpreters(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The command lines of the interpreters the check starts (its cache emptied first)."""
    light_imports._together.cache_clear()
    started: list[list[str]] = []
    run = subprocess.run

    def counting(argv, *args, **kwargs):
        started.append(argv)
        return run(argv, *args, **kwargs)

    monkeypatch.setattr(light_imports.subprocess, "run", counting)
    yield started
    light_imports._together.cache_clear()


def test_light_modules_are_cleared_by_one_interpreter(tmp_path, interpreters):
    mods = [plugin(tmp_path, f"light{k}", LIGHT) for k in range(4)]
    assert [light_imports.heavy_imports(m, mods) for m in mods] == [[]] * 4
    assert len(interpreters) == 1


def test_a_heavy_module_is_named_and_a_light_one_after_it_is_checked_alone(tmp_path, interpreters):
    first, heavy, after = (
        plugin(tmp_path, "first", LIGHT),
        plugin(tmp_path, "heavy", HEAVY),
        plugin(tmp_path, "after", LIGHT),
    )
    mods = [first, heavy, after]
    assert light_imports.heavy_imports(first, mods) == []
    assert light_imports.heavy_imports(heavy, mods) == ["torch"]
    assert light_imports.heavy_imports(after, mods) == []  # torch was there before it: an interpreter of its own
    assert len(interpreters) == 2


def test_a_module_that_cannot_be_imported_fails_and_the_others_still_pass(tmp_path, interpreters):
    good, broken = plugin(tmp_path, "good", LIGHT), plugin(tmp_path, "broken", "raise RuntimeError('no')\n")
    mods = [broken, good]
    assert light_imports.heavy_imports(good, mods) == []
    with pytest.raises(AssertionError, match="RuntimeError: no"):
        light_imports.heavy_imports(broken, mods)
