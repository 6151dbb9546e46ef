"""Every registry model entry names the upstream evaluation it reproduces, and docs/models.md's table
is the one vlc_harness.models_table generates from registry.yaml (``vlc-harness dev generate``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vlc_harness import models_table as script
from vlc_harness.generated import COMMAND

REPO = Path(__file__).resolve().parents[2]
REGISTRY = REPO / "registry.yaml"
COMMIT = re.compile(r"@[0-9a-f]{7,40}\b")
RELEASE = re.compile(r"\b(t2v_metrics|transformers|open_clip_torch) (\d+(?:\.\d+)+)\b")
MAX_CHARS = 200


def pins() -> dict[str, str]:
    out = {}
    for line in (REPO / "constraints.txt").read_text().splitlines():
        name, sep, version = line.partition("==")
        if sep and not line.startswith("#"):
            out[name.strip().lower().replace("-", "_")] = version.strip()
    return out


def test_the_docs_table_is_the_one_the_registry_generates():
    doc = (REPO / "docs" / "models.md").read_text()
    generated = script.with_table(doc, script.table(script.model_entries(REGISTRY)))
    assert generated == doc, f"docs/models.md's table is out of date with registry.yaml: run {COMMAND}"
    section = doc.split(script.BEGIN, 1)[1].split(script.END, 1)[0]
    assert section.count("\n| `") == len(script.model_entries(REGISTRY)), "one row per model entry"


def test_every_model_entry_names_what_it_reproduces_and_cites_a_commit_or_the_pinned_release():
    entries = script.model_entries(REGISTRY)
    pinned = pins()
    assert len(entries) >= 70
    for entry in entries:
        meta = entry.get("meta") or {}
        where = entry["id"]
        reproduces, differs = meta.get("reproduces"), meta.get("differs")
        assert isinstance(reproduces, str) and reproduces.strip(), f"{where}: meta.reproduces is missing"
        for key, text in (("reproduces", reproduces), ("differs", differs)):
            if text is not None:
                assert isinstance(text, str) and "\n" not in text and len(text) <= MAX_CHARS, f"{where}: {key}"
        if reproduces.startswith("ours: "):
            assert not meta.get("paper_match"), f"{where}: paper rows come from an upstream evaluation"
            continue
        releases = RELEASE.findall(reproduces)
        assert COMMIT.search(reproduces) or releases, f"{where}: name the commit (@abc1234) or the PyPI release"
        for package, version in releases:
            assert pinned.get(package) == version, f"{where}: cites {package} {version}, constraints.txt pins another"


def test_an_entry_whose_paper_loaded_it_otherwise_says_how_it_differs():
    for entry in script.model_entries(REGISTRY):
        meta = entry.get("meta") or {}
        if meta.get("paper_params"):
            assert "paper_params" in (meta.get("differs") or ""), entry["id"]


def test_t2v_metrics_entries_cite_the_t2v_metrics_files_they_mirror():
    for entry in script.model_entries(REGISTRY):
        params = entry.get("params") or {}
        if params.get("prompt") == "t2v_metrics" or entry["type"] == "clip_flant5":
            assert entry["meta"]["reproduces"].startswith("t2v_metrics 3.0 (PyPI) "), entry["id"]


def test_cells_escape_what_markdown_would_read_as_markup():
    assert script.cell("a | b") == "a \\| b"
    assert script.cell("over Yes</s>") == "over Yes&lt;/s>"
    assert script.cell("model_zoo/__init__.py and quick_gelu") == "model_zoo/\\_\\_init\\_\\_.py and quick_gelu"
    assert script.cell("x *y*") == "x \\*y\\*"


def test_yaml_anchors_are_resolved_and_a_missing_marker_is_an_error(tmp_path):
    registry = tmp_path / "r.yaml"
    registry.write_text(
        "models:\n"
        '  - {id: a, type: open_clip, meta: {reproduces: &up "org/repo eval.py @0123abc", differs: "x"}}\n'
        "  - {id: b, type: open_clip, meta: {reproduces: *up}}\n"
    )
    table = script.table(script.model_entries(registry))
    assert table.splitlines()[2:] == [
        "| `a` | `open_clip` | org/repo eval.py @0123abc | x |",
        "| `b` | `open_clip` | org/repo eval.py @0123abc |  |",
    ]
    with pytest.raises(ValueError, match="models-table:begin"):
        script.with_table("# no markers\n", table)
