"""No traceback in anything published (issue 38, item 6): ``downloads/leaderboard.json`` gives an
unpublished cell's reason text (its first line, local folders redacted) and its reason code; the
full text stays in the store and ``vlc-harness show --partial``."""

from __future__ import annotations

import gzip
import json

import pytest


@pytest.mark.slow  # over a second: the full suite's
def test_a_worker_traceback_is_never_published(faulty, vlc_run, vlc_cli, sample_root, tmp_path):
    registry = tmp_path / "registry.yaml"
    registry.write_text(
        "models:\n"
        "  - {id: buggy, type: test_raises}\n"
        "  - {id: fine, type: random, params: {seed: 1}}\n"
        "benchmarks:\n"
        "  - {id: sugarcrepe, type: sugarcrepe, params: {version: custom}}\n"
    )
    run = vlc_run("--all", "--registry", str(registry), data_root=sample_root)
    assert run.exit_code == 1, run.output
    store = vlc_run.store()
    try:
        (stored,) = [c for c in store.latest_cells(include_incomplete=True) if c.model_id == "buggy"]
    finally:
        store.close()
    assert 'File "' in stored.error and "\n" in stored.error  # the plant: the store keeps the traceback
    shown = vlc_cli("show", "--partial", "--store", vlc_run.store_url)
    assert "the plugin's own bug" in shown.output
    site = tmp_path / "site"
    out = vlc_cli("render", "--registry", str(registry), "--store", vlc_run.store_url, "--out", str(site))
    assert out.exit_code == 0, out.output
    data = json.loads((site / "downloads" / "leaderboard.json").read_text())
    (entry,) = [c for c in data["unpublished"] if c["model"] == "buggy"]
    assert entry["error"] == stored.error.splitlines()[0] and "\n" not in entry["error"]
    assert entry["reason_code"] == stored.reason_code == "worker_error"
    published = (".json", ".jsonl.gz", ".js", ".html", ".csv")
    for path in (p for p in site.rglob("*") if p.is_file() and p.name.endswith(published)):
        raw = path.read_bytes()
        text = (gzip.decompress(raw) if path.name.endswith(".gz") else raw).decode("utf-8", errors="replace")
        assert "Traceback" not in text and 'File "' not in text, path
