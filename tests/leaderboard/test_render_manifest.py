"""``render`` publishes a site only when it keeps every published value.

Every site and release carries ``manifest.json``; ``render --out SITE`` builds beside SITE, compares
the manifests and swaps the new site in, or exits 5 leaving SITE byte for byte as it was. A render
that finds nothing new rewrites every file but the index's "last checked" line identically.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from vlc_harness.errors import UserError
from vlc_leaderboard.site_manifest import FILE, refusals

REFUSED = 5
"""render's exit status for a refused site (``vlc-harness`` turns a ``UserError`` into 2; the in-process
runner used here sees the exception itself)."""


@pytest.fixture(scope="module")
def board_store(tmp_path_factory):
    """Two random models on the SugarCrepe sample (published) and on a BiVLC with no data (unavailable)."""
    from tests.conftest import SUGARCREPE_SAMPLE, sugarcrepe_filenames
    from vlc_harness.testing import write_standin_images

    tmp = tmp_path_factory.mktemp("render-manifest")
    root = tmp / "data"
    shutil.copytree(SUGARCREPE_SAMPLE, root / "sugarcrepe")
    write_standin_images(sugarcrepe_filenames(root / "sugarcrepe"), root / "coco" / "val2017")
    registry = tmp / "board.yaml"
    registry.write_text(
        "models:\n"
        "  - {id: alpha, type: random, params: {seed: 1}, meta: {display_name: Alpha, family: baseline}}\n"
        "  - {id: beta, type: random, params: {seed: 2}, meta: {display_name: Beta, family: baseline}}\n"
        "benchmarks:\n"
        "  - {id: sugarcrepe, type: sugarcrepe, params: {version: custom}}\n"
        "  - {id: bivlc, type: bivlc, params: {version: custom}}\n"
    )
    store = tmp / "store.sqlite"
    result = cli(
        "run",
        "--executor",
        "inprocess",
        "--all",
        "--registry",
        str(registry),
        "--data-root",
        str(root),
        "--store",
        f"sqlite:///{store}",
    )
    assert result.exit_code == 0, result.output
    return {"registry": registry, "store": store, "root": root, "tmp": tmp}


def copy_store(source: Path, target: Path) -> None:
    """A SQLite store copied whole, its write-ahead log included (copying the file alone loses what the
    log holds until a connection checkpoints it: the copy then depended on which test ran first)."""
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def cli(*args: str):
    """``vlc-harness ARGS`` in this process (so a monkeypatched clock or page writer applies)."""
    from click.testing import CliRunner

    from vlc_harness.cli import build_cli

    return CliRunner().invoke(build_cli(), [*args, "--no-progress"] if args[0] == "run" else list(args))


def render(setup: dict, site: Path, *extra: str, registry: Path | None = None, store: Path | None = None):
    """``vlc-harness render`` of the fixture's store into ``site``."""
    return cli(
        "render",
        "--registry",
        str(registry or setup["registry"]),
        "--store",
        f"sqlite:///{store or setup['store']}",
        "--out",
        str(site),
        *extra,
    )


def snapshot(site: Path) -> dict[str, bytes]:
    """Every file under ``site`` by relative path, with its bytes."""
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def leftovers(site: Path) -> list[str]:
    """Staging or set-aside folders left beside ``site``."""
    return sorted(p.name for p in site.parent.iterdir() if p.name.startswith(f".{site.name}."))


def published_site(setup: dict, tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """A first render into an empty folder, and its files."""
    site = tmp_path / "site"
    site.mkdir()
    first = render(setup, site)
    assert first.exit_code == 0, first.output
    assert "no manifest.json yet: nothing to compare" in first.output
    return site, snapshot(site)


def edit_manifest(site: Path, change) -> None:
    """Rewrite the published manifest's cells through ``change(cell)`` (what an older site published)."""
    data = json.loads((site / FILE).read_text())
    for cell in data["cells"]:
        change(cell)
    (site / FILE).write_text(json.dumps(data))


def test_first_render_writes_a_manifest_of_every_cell(board_store, tmp_path):
    site, files = published_site(board_store, tmp_path)
    manifest = json.loads(files[FILE])
    assert manifest["schema"] == 1
    cells = manifest["cells"]
    assert [(c["benchmark"], c["model"]) for c in cells] == sorted((c["benchmark"], c["model"]) for c in cells)
    by_key = {(c["model"], c["benchmark"]): c for c in cells}
    assert set(by_key) == {(m, b) for m in ("alpha", "beta") for b in ("sugarcrepe", "bivlc")}
    for model in ("alpha", "beta"):
        published, missing = by_key[(model, "sugarcrepe")], by_key[(model, "bivlc")]
        assert isinstance(published["value"], float) and published["metric"] == "i2t_accuracy_macro"
        assert len(published["model_fingerprint"]) == 64 and len(published["benchmark_fingerprint"]) == 64
        assert published["data_version"].startswith("custom")
        assert missing["value"] is None  # unavailable: listed, no number
    assert by_key[("alpha", "sugarcrepe")]["model_fingerprint"] != by_key[("beta", "sugarcrepe")]["model_fingerprint"]
    # the same benchmark, instances and metric code: one benchmark fingerprint for both models
    assert (
        by_key[("alpha", "sugarcrepe")]["benchmark_fingerprint"]
        == by_key[("beta", "sugarcrepe")]["benchmark_fingerprint"]
    )
    index = files["index.html"].decode()
    value = 100 * by_key[("alpha", "sugarcrepe")]["value"]
    assert f"{value:.1f}" in index
    assert leftovers(site) == []


def test_a_published_cell_disappearing_is_refused_and_the_site_kept(board_store, tmp_path):
    site, files = published_site(board_store, tmp_path)
    smaller = tmp_path / "smaller.yaml"
    smaller.write_text(board_store["registry"].read_text().replace("  - {id: beta,", "  - {id: gone,"))
    refused = render(board_store, site, registry=smaller)
    assert refused.exit_code == REFUSED, refused.output
    assert "lost: beta x sugarcrepe (i2t_accuracy_macro " in refused.output
    assert "render refused" in refused.output and "--allow-shrink" in refused.output
    assert "beta x bivlc" not in refused.output  # it had no number to lose
    assert snapshot(site) == files
    assert leftovers(site) == []


def test_allow_shrink_publishes_the_smaller_site_and_says_what_it_allowed(board_store, tmp_path):
    site, _ = published_site(board_store, tmp_path)
    smaller = tmp_path / "smaller.yaml"
    smaller.write_text(board_store["registry"].read_text().replace("  - {id: beta,", "  - {id: gone,"))
    allowed = render(board_store, site, "--allow-shrink", registry=smaller)
    assert allowed.exit_code == 0, allowed.output
    assert "--allow-shrink: publishing despite 1 refused cells" in allowed.output
    assert "lost: beta x sugarcrepe" in allowed.output
    models = {c["model"] for c in json.loads((site / FILE).read_text())["cells"]}
    assert models == {"alpha"}
    assert not (site / "models" / "beta.html").exists()  # the site is rebuilt whole: no stale page stays
    assert leftovers(site) == []


def test_a_value_changed_under_the_same_fingerprints_is_refused(board_store, tmp_path):
    site, _ = published_site(board_store, tmp_path)

    def older_value(cell):
        if cell["model"] == "alpha" and cell["value"] is not None:
            cell["value"] += 0.125

    edit_manifest(site, older_value)
    before = snapshot(site)
    refused = render(board_store, site)
    assert refused.exit_code == REFUSED, refused.output
    assert "changed: alpha x sugarcrepe (i2t_accuracy_macro" in refused.output
    assert "same model and benchmark fingerprints and data version" in refused.output
    assert snapshot(site) == before


@pytest.mark.parametrize("key", ["model_fingerprint", "benchmark_fingerprint", "data_version"])
def test_a_value_changed_with_a_new_key_is_accepted(board_store, tmp_path, key):
    site, files = published_site(board_store, tmp_path)

    def older_cell(cell):
        if cell["model"] == "alpha" and cell["value"] is not None:
            cell["value"] += 0.125
            cell[key] = "an older " + key

    edit_manifest(site, older_cell)
    accepted = render(board_store, site)
    assert accepted.exit_code == 0, accepted.output
    assert "nothing lost, 0 new values, 1 changed with a new fingerprint or data version" in accepted.output
    assert (site / FILE).read_bytes() == files[FILE]


def test_a_crash_while_building_leaves_the_published_site_intact(board_store, tmp_path, monkeypatch):
    import vlc_leaderboard.site_files as site_files

    site, files = published_site(board_store, tmp_path)
    real = site_files.render_page

    def failing(env, template, path, context):
        if template == "model.html":
            raise RuntimeError("disk full while writing a model page")
        return real(env, template, path, context)

    monkeypatch.setattr(site_files, "render_page", failing)
    crashed = render(board_store, site)
    assert crashed.exit_code != 0
    assert isinstance(crashed.exception, RuntimeError)
    assert snapshot(site) == files
    assert leftovers(site) == []


def test_a_folder_that_is_not_a_site_is_never_replaced(board_store, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text("mine")
    refused = render(board_store, folder)
    assert isinstance(refused.exception, UserError) and "holds no rendered site" in str(refused.exception)
    assert (folder / "todo.txt").read_text() == "mine" and len(list(folder.iterdir())) == 1


def test_unreadable_published_manifest_is_refused(board_store, tmp_path):
    site, _ = published_site(board_store, tmp_path)
    (site / FILE).write_text("{not json")
    refused = render(board_store, site)
    assert refused.exit_code == REFUSED and "unreadable published manifest" in refused.output
    assert (site / FILE).read_text() == "{not json"


def test_a_night_with_nothing_new_changes_only_the_last_checked_line(board_store, tmp_path, monkeypatch):
    """Render, run the grid again (every cell reused, the unavailable ones stored anew), render with a
    later clock: every file is byte-identical but index.html, which differs in its "last checked" line."""
    import vlc_leaderboard.render as render_module

    store = tmp_path / "store.sqlite"
    copy_store(board_store["store"], store)
    site = tmp_path / "site"
    monkeypatch.setattr(render_module, "wall_clock", lambda: dt.datetime(2026, 1, 2, 3, 4, tzinfo=dt.timezone.utc))
    assert render(board_store, site, store=store).exit_code == 0
    first = snapshot(site)
    again = cli(
        "run", "--executor", "inprocess", "--all", "--registry", str(board_store["registry"]),
        "--data-root", str(board_store["root"]), "--store", f"sqlite:///{store}",
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    monkeypatch.setattr(render_module, "wall_clock", lambda: dt.datetime(2027, 5, 6, 7, 8, tzinfo=dt.timezone.utc))
    assert render(board_store, site, store=store).exit_code == 0
    second = snapshot(site)
    assert sorted(first) == sorted(second)
    differing = [name for name in first if first[name] != second[name]]
    assert differing == ["index.html"]
    old, new = first["index.html"].decode().splitlines(), second["index.html"].decode().splitlines()
    changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    assert len(changed) == 1
    assert "Last checked 2026-01-02 03:04 UTC" in changed[0][0] and "Last checked 2027-05-06 07:08 UTC" in changed[0][1]
    model_page = second["models/alpha.html"].decode()
    assert "Last updated" in model_page and "Last checked" not in model_page
    assert "2027" not in model_page and "2026-01-02" not in model_page


def test_last_updated_is_the_newest_published_cells_completion(board_store, tmp_path):
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry
    from vlc_harness.results import StoredResults
    from vlc_harness.store import open_store
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.site import last_updated

    store = open_store(f"sqlite:///{board_store['store']}")
    try:
        cells = StoredResults(store).cells(include_incomplete=True)
    finally:
        store.close()
    board = build_board(cells, load_registry([board_store["registry"]], get_plugins()), get_plugins())
    newest = max(c.created_at for c in cells if c.status == "ok")
    assert last_updated(board) == dt.datetime.fromisoformat(newest).strftime("%Y-%m-%d %H:%M UTC")
    site, files = published_site(board_store, tmp_path)
    assert f"Last updated {last_updated(board)}" in files["benchmarks/sugarcrepe.html"].decode()


def test_a_release_carries_its_manifest_and_fingerprints_and_is_kept(board_store, tmp_path):
    site, _ = published_site(board_store, tmp_path)
    frozen = render(board_store, site, "--release", "2026-01")
    assert frozen.exit_code == 0, frozen.output
    release = site / "releases" / "2026-01"
    assert (release / FILE).read_bytes() == (site / FILE).read_bytes()
    summary = json.loads((release / "release.json").read_text())
    cell = summary["cells"]["alpha|sugarcrepe"]
    published = {(c["model"], c["benchmark"]): c for c in json.loads((site / FILE).read_text())["cells"]}
    expected = published[("alpha", "sugarcrepe")]
    assert {k: cell[k] for k in ("model_fingerprint", "benchmark_fingerprint", "data_version", "value")} == {
        k: expected[k] for k in ("model_fingerprint", "benchmark_fingerprint", "data_version", "value")
    }
    kept = snapshot(release)
    assert render(board_store, site).exit_code == 0  # the next render carries the release over unchanged
    assert snapshot(release) == kept
    again = render(board_store, site, "--release", "2026-01")
    assert isinstance(again.exception, UserError) and "releases are never changed" in str(again.exception)
    assert snapshot(release) == kept and leftovers(site) == []


def test_refusals_compare_values_by_what_keys_them():
    keys = {"model_fingerprint": "m", "benchmark_fingerprint": "b", "data_version": "v", "metric": "acc"}
    old = {"cells": [{"model": "x", "benchmark": "y", "value": 0.5, **keys}]}
    assert refusals(old, old) == []
    assert refusals(old, {"cells": [{"model": "x", "benchmark": "y", "value": 0.5 + 1e-12, **keys}]}) == []
    [lost] = refusals(old, {"cells": [{"model": "x", "benchmark": "y", "value": None, **keys}]})
    assert lost.kind == "lost" and lost.line() == "lost: x x y (acc 0.5000 no longer published)"
    assert refusals(old, {"cells": []})[0].kind == "lost"
    [changed] = refusals(old, {"cells": [{"model": "x", "benchmark": "y", "value": 0.499, **keys}]})
    assert changed.kind == "changed" and "0.5000 -> 0.4990" in changed.line()
    moved = {**keys, "data_version": "v2"}
    assert refusals(old, {"cells": [{"model": "x", "benchmark": "y", "value": 0.4, **moved}]}) == []
    unpublished = {"cells": [{"model": "x", "benchmark": "y", "value": None, **keys}]}
    assert refusals(unpublished, {"cells": []}) == []


@pytest.mark.subprocess
def test_the_command_exits_5_and_renders_the_same_bytes_under_any_hash_seed(board_store, tmp_path):
    """As CI runs it: ``python -m vlc_harness render`` in its own process, under two hash seeds."""
    import os
    import subprocess
    import sys

    def command(site: Path, seed: str, registry: Path) -> subprocess.CompletedProcess:
        argv = [sys.executable, "-m", "vlc_harness", "render", "--registry", str(registry)]
        argv += ["--store", f"sqlite:///{board_store['store']}", "--out", str(site)]
        return subprocess.run(argv, capture_output=True, text=True, env=os.environ | {"PYTHONHASHSEED": seed})

    one, two = tmp_path / "one", tmp_path / "two"
    for site, seed in ((one, "1"), (two, "2")):
        done = command(site, seed, board_store["registry"])
        assert done.returncode == 0, done.stderr
    first, second = snapshot(one), snapshot(two)
    assert sorted(first) == sorted(second)
    assert [name for name in first if first[name] != second[name]] in ([], ["index.html"])

    def without_checked(page: bytes) -> list[str]:
        return [line for line in page.decode().splitlines() if "Last checked" not in line]

    assert without_checked(first["index.html"]) == without_checked(second["index.html"])
    smaller = tmp_path / "smaller.yaml"
    smaller.write_text(board_store["registry"].read_text().replace("  - {id: beta,", "  - {id: gone,"))
    refused = command(one, "3", smaller)
    assert refused.returncode == REFUSED, refused.stderr
    assert "lost: beta x sugarcrepe" in refused.stderr
    assert snapshot(one) == first


def test_at_most_20_refused_cells_are_named_then_counted(tmp_path, capsys):
    from vlc_leaderboard.render import _check_manifest

    keys = {"model_fingerprint": "m", "benchmark_fingerprint": "b", "data_version": "v", "metric": "acc"}
    cells = [{"model": f"m{i:02d}", "benchmark": "y", "value": 0.5, **keys} for i in range(25)]
    (tmp_path / FILE).write_text(json.dumps({"schema": 1, "cells": cells}))
    with pytest.raises(SystemExit) as stopped:
        _check_manifest(tmp_path, {"schema": 1, "cells": []}, allow_shrink=False)
    assert stopped.value.code == REFUSED
    err = capsys.readouterr().err.splitlines()
    named = [line for line in err if line.startswith("  lost: ")]
    assert len(named) == 20 and named[0] == "  lost: m00 x y (acc 0.5000 no longer published)"
    assert "  ... and 5 more" in err and "(25 cells)" in err[0]


def test_a_registry_without_benchmarks_says_what_to_add(board_store, tmp_path):
    models_only = tmp_path / "mine.yaml"
    models_only.write_text("models:\n  - {id: alpha, type: random, params: {seed: 1}}\n")
    result = render(board_store, tmp_path / "site", registry=models_only)
    assert result.exit_code == 0, result.output
    assert "no benchmark in that registry" in result.output
    assert "no registry entry" not in result.output  # the models are not the cause
