"""A first night longer than its deadline ends "partial, continuing" (issue 40, item 6): the night exits 8,
which the deploy job accepts; the complete cells are published and the unfinished ones are not recorded; the
second night finishes the grid computing no pair twice (the slow model logs every pair it scores).

The first night's deadline (6 s) comes long after the fast model's cells (in-process, about a second) and long
before the slow model's end (about 40 batches of 0.5 s); the second night's slow model sleeps no more."""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from pathlib import Path

import pytest

from tests.nightly_cli import run_night, write_registry
from vlc_harness.exit_codes import PUBLISHED, ExitCode

NOW = dt.datetime(2026, 5, 1, 6, 30, tzinfo=dt.timezone.utc)
SHAPES = {"n_scenes": 6, "image_size": 32}


@pytest.fixture
def night(tmp_path, monkeypatch, vlc_cli, faulty):
    """``night(name, *options)``: ``ci nightly`` on this test's registry, store, data and site; the models run
    in this process (``VLC_HARNESS_EXECUTOR``), the slow one logging each pair it scores."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(NOW.timestamp())))  # the render's clock (its own process)
    monkeypatch.setenv("VLC_HARNESS_EXECUTOR", "inprocess")
    monkeypatch.setenv("TEST_SLOW_SLEEP", "0.5")
    monkeypatch.setenv("TEST_SLOW_LOG", str(tmp_path / "scored.log"))
    registry = write_registry(
        tmp_path / "registry.yaml",
        [
            {"id": "random", "type": "random", "params": {"seed": 0}},
            {"id": "slow", "type": "test_slow", "run": {"batch_size": 4}},
        ],
        [
            {"id": "shapes-a", "type": "shapes", "params": {"seed": 0, **SHAPES}},
            {"id": "shapes-b", "type": "shapes", "params": {"seed": 1, **SHAPES}},
        ],
    )

    def run(name: str, *options: str) -> tuple[int, dict, str]:
        return run_night(vlc_cli, tmp_path, registry, "--no-install", *options, name=name)

    return run


def scored(tmp_path: Path) -> list[tuple[str, str]]:
    log = tmp_path / "scored.log"  # none when the deadline came before the slow model's first batch
    return [tuple(json.loads(line)[:2]) for line in log.read_text().splitlines()] if log.is_file() else []


def published(tmp_path: Path) -> set[tuple[str, str]]:
    manifest = json.loads((tmp_path / "site" / "manifest.json").read_text())
    return {(c["model"], c["benchmark"]) for c in manifest["cells"] if c.get("value") is not None}


def test_a_night_past_its_deadline_publishes_its_complete_cells_and_the_next_finishes(night, tmp_path, monkeypatch):
    code, first, markdown = night("night1", "--deadline", "6s")
    assert code == ExitCode.DEADLINE and code in PUBLISHED, markdown
    assert first["published"] is True and first["stopped_by"] is None
    assert first["steps"]["run"]["exit_code"] == 8 and first["steps"]["render"]["exit_code"] == 0
    assert markdown.startswith("## Nightly leaderboard: exit 8 (partial, continuing: the complete cells are published")
    run = first["run"]
    left = run["remaining"]
    assert left["cells"] >= 1 and set(left["models"]) == {"slow"} and left["pairs"] > 0
    assert "**Remaining**: The deadline stopped the run:" in markdown
    complete = {(c["model"], c["benchmark"]) for c in run["new"]}
    assert {("random", "shapes-a"), ("random", "shapes-b")} <= complete  # the fast model ran first
    assert published(tmp_path) == complete  # the complete cells, and only they, are on the site
    assert run["statuses"] == {"ok": len(complete)}  # an unfinished cell is not recorded, never "failed"
    tonight = scored(tmp_path)  # the slow model's pairs, its batch in flight at the deadline included

    monkeypatch.setenv("TEST_SLOW_SLEEP", "0")  # no deadline to reach tonight: the slow model need not be slow
    code, second, markdown = night("night2", "--deadline", "1h")
    assert code == 0, markdown
    assert second["run"]["remaining"] is None and second["run"]["statuses"] == {"ok": 4}
    assert published(tmp_path) == {(m, b) for m in ("random", "slow") for b in ("shapes-a", "shapes-b")}
    both = scored(tmp_path)
    assert not [pair for pair, n in Counter(both).items() if n > 1]  # no pair computed twice
    assert second["run"]["computed_pairs"] == len(both) - len(tonight) == left["pairs"]
    assert run["computed_pairs"] == len(both) + len(tonight)  # random needs the grid's pairs, as the slow model
