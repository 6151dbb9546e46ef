"""The board bundle (issue 37, item 1): everything render reads, as one versioned, schema-checked file.

"Everything render reads" is held here: a site rendered from the bundle, in a process that loads no plugin,
is the site rendered from the store, every file byte for byte under a fixed clock (a release frozen, then the
live site; and with --include-adhoc), over a store every scoring protocol filled. The bundle is checked
against its schema (the shipped JSON Schema, by the package's own checker and by jsonschema alike), its
members against its document, and its size against its limits; it holds no local path, host name or
command line.
"""

from __future__ import annotations

import copy
import json
import socket
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.leaderboard.bundle_store import PLANTED, cli, plugins_loaded, snapshot, store_args
from vlc_leaderboard.board_data import BundleError
from vlc_leaderboard.bundle import DOCUMENT, Limits, check_document, open_bundle, schema, write_bundle

FIRST, SECOND = 1767322800, 1767409200
"""2026-01-02 and 2026-01-03, 03:00 UTC: the render clock ($SOURCE_DATE_EPOCH) of the release and of the live site."""


def render_bundle(bundle: Path, out: Path, epoch: int, *extra: str) -> subprocess.CompletedProcess[str]:
    """``python -m vlc_leaderboard.render_bundle`` in a process of its own, under a fixed clock."""
    import os

    env = os.environ | {"SOURCE_DATE_EPOCH": str(epoch)}
    argv = [sys.executable, "-m", "vlc_leaderboard.render_bundle", "--bundle", str(bundle), "--out", str(out), *extra]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)


def document(bundle: Path) -> dict[str, Any]:
    with zipfile.ZipFile(bundle) as zf:
        return json.loads(zf.read(DOCUMENT))


def rewrite(bundle: Path, out: Path, change: Any) -> Path:
    """A copy of ``bundle`` at ``out`` with ``change(name, data) -> data | None`` applied to each member
    (``None``: left out); ``change`` may add members by returning a dict of them for ``"+"``."""
    with zipfile.ZipFile(bundle) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = change(info.filename, src.read(info))
            if data is not None:
                dst.writestr(info.filename, data)
        for name, data in (change("+", b"") or {}).items():
            dst.writestr(name, data)
    return out


@pytest.mark.subprocess
def test_render_from_the_bundle_is_render_from_the_store_byte_for_byte(board_bundle, tmp_path, monkeypatch):
    store_site, bundle_site = tmp_path / "from-store", tmp_path / "from-bundle"
    with plugins_loaded(board_bundle["plugins"]):
        for epoch, extra in ((FIRST, ["--release", "r1"]), (SECOND, [])):
            monkeypatch.setenv("SOURCE_DATE_EPOCH", str(epoch))
            out = cli("render", "--out", store_site, *extra, *store_args(board_bundle))
            assert out.exit_code == 0, out.output
        out = cli("render", "--out", tmp_path / "adhoc-store", "--include-adhoc", *store_args(board_bundle))
        assert out.exit_code == 0, out.output
    for epoch, extra in ((FIRST, ["--release", "r1"]), (SECOND, [])):
        done = render_bundle(board_bundle["bundle"], bundle_site, epoch, *extra)
        assert done.returncode == 0, done.stderr
    done = render_bundle(board_bundle["adhoc_bundle"], tmp_path / "adhoc-bundle", SECOND)
    assert done.returncode == 0, done.stderr

    expected, got = snapshot(store_site), snapshot(bundle_site)
    assert sorted(got) == sorted(expected)
    assert [name for name in expected if got[name] != expected[name]] == []
    assert snapshot(tmp_path / "adhoc-bundle") == snapshot(tmp_path / "adhoc-store")
    # what the store gave: every protocol, a frozen release, thumbnails, questions, text-text scores, downloads
    assert {"releases/r1/index.html", "downloads/leaderboard.json", "cite.bib"} <= set(got)
    assert any(name.startswith("data/instances/shapes/img/") for name in got)
    shard = got["data/instances/sugarcrepe/shard-0.js"].decode()
    assert '"q":' in shard  # the chooser's questions
    assert '"x":' in got["data/instances/sugarcrepe_pp/models/embed/shard-0.js"].decode()  # text-text scores
    assert "Submitted scores" in got["index.html"].decode() and "status-unavailable" in got["index.html"].decode()


def test_the_bundle_holds_no_local_path_host_or_command_line(board_bundle):
    tmp = str(board_bundle["tmp"])
    with zipfile.ZipFile(board_bundle["bundle"]) as zf:
        for name in zf.namelist():
            text = zf.read(name).decode("utf-8", errors="replace")
            assert tmp not in text and PLANTED not in text, name
            assert socket.gethostname() not in text, name
    doc = document(board_bundle["bundle"])
    assert set(doc["provenance"]) == {"harness_version", "git_sha", "registry_digest"}
    assert all(set(run) <= {"harness_version", "git_sha", "packages"} for run in doc["runs"].values())
    failed = [c for c in doc["cells"] if c["model_id"] == "submitted" and c["status"] == "failed"]
    assert failed and all("<local folder>/lab-scores.jsonl" in c["error"] for c in failed)  # redacted, one line


def test_the_bundle_is_its_schema_s_and_the_checker_agrees_with_jsonschema(board_bundle):
    jsonschema = pytest.importorskip("jsonschema")
    from vlc_leaderboard.json_schema import SchemaError, check

    jsonschema.Draft202012Validator.check_schema(schema())
    validator = jsonschema.Draft202012Validator(schema())
    doc = document(board_bundle["bundle"])
    validator.validate(doc)
    check_document(doc)
    broken = []
    for path, value in (
        (["cells", 0, "status"], "great"),
        (["cells", 0, "error"], "two\nlines"),
        (["rows", 0, "kind"], "wizard"),
        (["columns", 0, "specs", 0, "higher_is_better"], "yes"),
        (["instances", "shapes", "models", "random"], "RX"),
        (["thumbnails"], ["../../etc/passwd"]),
        (["provenance", "host"], "builder-7"),
        (["runs", "1", "argv"], ["vlc-harness", "run"]),
        (["version"], 1),
    ):
        mutated = copy.deepcopy(doc)
        target = mutated
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        assert not validator.is_valid(mutated), path
        with pytest.raises(SchemaError):
            check(mutated, schema())
        broken.append(path)
    assert len(broken) == 9


@pytest.mark.subprocess
def test_a_bundle_is_refused_unless_its_members_are_its_document_s(board_bundle, tmp_path):
    bundle = board_bundle["bundle"]
    with open_bundle(bundle) as data:
        assert data.facts.cells and data.instances
    doc = document(bundle)
    thumb = f"thumbnails/{doc['thumbnails'][0]}"
    first_outcomes = next(f"outcomes/{k}.jsonl" for k, c in enumerate(doc["cells"]) if c["outcomes"])
    cases = {
        "extra": (lambda n, d: {"evil.js": b"alert(1)"} if n == "+" else d, "do not match its document"),
        "missing": (lambda n, d: None if n == thumb else d, "do not match its document"),
        "thumbnail": (
            lambda n, d: b"\x89PNG\r\n\x1a\n<svg onload=x>" if n == thumb else d,
            "not the PNG its name says",
        ),
        "record": (lambda n, d: b'{"instance": 1, "category": "x"}\n' if n == first_outcomes else d, "wrong shape"),
        "short keys": (lambda n, d: b'{"i": "a", "c": "x"}\n' if n == first_outcomes else d, "not an outcome record"),
        "version": (
            lambda n, d: json.dumps(doc | {"version": 99}).encode() if n == DOCUMENT else d,
            "version 99",
        ),
        "not a zip": (None, "not a zip file"),
    }
    for name, (change, message) in cases.items():
        path = tmp_path / f"{name.replace(' ', '-')}.zip"
        if change is None:
            path.write_text("hello")
        else:
            rewrite(bundle, path, change)
        with pytest.raises(BundleError, match=message):
            with open_bundle(path) as data:
                for k, cell in enumerate(data.facts.cells):
                    if doc["cells"][k]["outcomes"]:
                        data.outcomes(cell)
                for thumbnail in data.thumbnails:
                    data.thumbnails[thumbnail]
        done = render_bundle(path, tmp_path / f"site-{name}", FIRST)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith("Error: ") and not (tmp_path / f"site-{name}").exists()


def test_the_bundle_is_bounded_when_written_and_read(board_bundle, tmp_path):
    from vlc_harness.results import StoredResults
    from vlc_harness.store import open_store

    with pytest.raises(BundleError, match="over its 4096"):  # a cell's replicates
        with open_bundle(board_bundle["bundle"], Limits(member_bytes=4096)):
            pass
    with pytest.raises(BundleError, match="over"):
        with open_bundle(board_bundle["bundle"], Limits(total_bytes=10_000)):
            pass
    with pytest.raises(BundleError, match="holds .* bytes, over its 100"):
        with open_bundle(board_bundle["bundle"], Limits(document_bytes=100)):
            pass
    with plugins_loaded(board_bundle["plugins"]):
        from vlc_harness.plugins import get_plugins
        from vlc_harness.registry import load_registry
        from vlc_leaderboard.export import export_board

        store = open_store(board_bundle["url"])
        try:
            registry = load_registry([board_bundle["registry"]], get_plugins())
            export = export_board(StoredResults(store), registry, get_plugins(), board_bundle["data"], False, set(), {})
            with pytest.raises(BundleError, match="over the bundle's limits"):
                write_bundle(export, tmp_path / "small.zip", Limits(member_bytes=4096))
        finally:
            store.close()
    assert not list(tmp_path.glob("*small.zip*"))  # nothing left behind


@pytest.mark.subprocess
def test_render_refuses_store_options_with_a_bundle_and_a_stale_cell_in_it(board_bundle, tmp_path):
    out = cli("render", "--bundle", board_bundle["bundle"], "--registry", board_bundle["registry"], "--out", tmp_path)
    assert out.exit_code == 2 and "a bundle holds what its export read" in out.output
    doc = document(board_bundle["bundle"])
    stale = next(k for k, c in enumerate(doc["cells"]) if c["outcomes"])
    doc["cells"][stale]["stale"] = True
    path = rewrite(
        board_bundle["bundle"], tmp_path / "stale.zip", lambda n, d: json.dumps(doc).encode() if n == DOCUMENT else d
    )
    done = render_bundle(path, tmp_path / "site", FIRST)
    assert done.returncode == 2 and "hold metrics computed by older metric code" in done.stderr
