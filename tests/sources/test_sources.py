"""The benchmark data sources (vlc_harness.sources), each once: the data version each names, what each
checks, what each fetches; the image folder and the card as a benchmark composes them."""

from __future__ import annotations

import gc
import hashlib
import json
import sys
import types
from pathlib import Path

import pytest

from tests.plugins.benchmarks.hf_standins import StandInSplit, stand_in_datasets
from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard
from vlc_harness.datafetch import FetchError
from vlc_harness.datafiles import UNPINNED, DataFile, ImageArchive
from vlc_harness.errors import DataUnavailable, InputError
from vlc_harness.params import NoParams
from vlc_harness.sources import (
    HfExport,
    HfSplit,
    ImageFolder,
    PinnedFiles,
    RowsFile,
    Sources,
    UnpinnedFiles,
    file_digest,
    files_digest,
    gc_paused,
)

PNG = b"\x89PNG\r\n\x1a\n-a"
JPEG = b"\xff\xd8\xff-b"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def downloads(monkeypatch):
    """``download`` answering from a dict of URL -> bytes (checking a pinned sha256 as the real one does)."""
    import vlc_harness.datafetch

    served: dict[str, bytes] = {}
    asked: list[str] = []

    def download(url, dest, sha256=None, progress=True):
        asked.append(url)
        data = served[url]
        if sha256 is not None and sha(data) != sha256:
            raise FetchError(f"{url}: sha256 differs")
        Path(dest).parent.mkdir(parents=True, exist_ok=True)
        Path(dest).write_bytes(data)
        return str(dest)

    monkeypatch.setattr(vlc_harness.datafetch, "download", download)
    return served, asked


# -- digests -------------------------------------------------------------------------------------


def test_digests_name_files_by_content(tmp_path):
    (tmp_path / "a").write_bytes(b"one")
    assert file_digest(tmp_path / "a") == sha(b"one")[:12] and file_digest(tmp_path / "b") == "missing"
    files = [("a", tmp_path / "a"), ("b", tmp_path / "b")]
    assert files_digest(files) == sha(b"aoneb")[:12]
    assert files_digest(files, missing=b"-", seed=b"s") == sha(b"saoneb-")[:12]


# -- PinnedFiles -----------------------------------------------------------------------------------


def pinned(root: Path, version: str, **options) -> PinnedFiles:
    files = {
        "x": DataFile("d/x.json", sha(b"[1]"), "https://example.org/x.json"),
        "y": DataFile("d/y.json", UNPINNED, "https://example.org/y.json"),
    }
    return PinnedFiles(root, "Demo", files, version, **options)


def test_pinned_files_check_fetch_and_name_the_version(tmp_path, downloads):
    served, asked = downloads
    served["https://example.org/x.json"] = b"[1]"
    source = pinned(tmp_path, "v1", suffix="-all")
    assert source.data_version == "v1-all" and [f.relpath for f in source.data_files()] == ["d/x.json", "d/y.json"]
    with pytest.raises(DataUnavailable, match="https://example.org/x.json"):
        source.check()
    assert source.fetch(progress=False) == [f"fetched  {tmp_path / 'd/x.json'}"]  # the unpinned one is not fetched
    assert asked == ["https://example.org/x.json"]
    with pytest.raises(DataUnavailable, match="missing .*y.json .*get https://example.org/y.json"):
        source.check()
    (tmp_path / "d/y.json").write_text("anything")  # unpinned: presence is enough
    source.check()
    (tmp_path / "d/x.json").write_text("[2]")
    with pytest.raises(DataUnavailable, match="x.json has sha256"):
        source.check()


def test_custom_reads_what_is_present_named_by_its_content(tmp_path, downloads):
    source = pinned(tmp_path, "custom", missing=b"-", seed=b"s", noun="demo file")
    assert source.data_files() == [] and source.fetch(progress=False) == []
    with pytest.raises(DataUnavailable, match=r"Demo \(custom\): no demo file under .*d"):
        source.check()
    (tmp_path / "d").mkdir()
    (tmp_path / "d/x.json").write_text("[9]")
    source.check()
    assert source.present() == ["x"] and source.data_version == f"custom-{sha(b'sx[9]y-')[:12]}"
    with pytest.raises(DataUnavailable, match=r"Demo \(custom\): missing .*y.json"):
        pinned(tmp_path, "custom", custom_needs="all").check()


# -- UnpinnedFiles ------------------------------------------------------------------------------


def test_unpinned_files_are_named_by_content_and_fetched_once_as_json(tmp_path, downloads):
    served, asked = downloads
    url = "https://example.org/a.json"
    one = UnpinnedFiles(tmp_path, "Demo", {"a": "d/a.json"}, "upstream", hint="gdown it", urls={"a": url})
    assert one.data_version == "upstream-missing"
    assert one.data_files() == [DataFile("d/a.json", UNPINNED, url)]
    with pytest.raises(DataUnavailable, match="Demo data is not ready: missing .*a.json; gdown it"):
        one.check()
    served[url] = b"<html>confirm</html>"
    with pytest.raises(FetchError, match="did not return the JSON file.*gdown it"):
        one.fetch(progress=False)
    assert not (tmp_path / "d/a.json").exists()
    served[url] = b'{"k": 1}'
    assert one.fetch(progress=False)[0].startswith("fetched") and one.fetch(progress=False)[0].startswith("present")
    assert len(asked) == 2 and one.data_version == f"upstream-{sha(served[url])[:12]}"
    one.check()
    custom = UnpinnedFiles(tmp_path, "Demo", {"a": "d/a.json"}, "custom", urls={"a": url}, version="custom")
    assert custom.data_files() == [] and custom.fetch(progress=False) == []


def test_unpinned_files_any_of_several_named_together(tmp_path):
    files = {"a": "a.json", "b": "b.json"}
    both = UnpinnedFiles(tmp_path, "Demo", files, "v", needs="any", digest="names", hint="h")
    with pytest.raises(DataUnavailable, match="missing .*a.json; h"):
        both.check()
    (tmp_path / "b.json").write_text("[]")
    both.check()
    assert both.data_version == f"v-{sha(b'a-b[]')[:12]}"
    with pytest.raises(DataUnavailable, match="a.json"):
        UnpinnedFiles(tmp_path, "Demo", files, "v", digest="names").check()


# -- RowsFile and HfExport ---------------------------------------------------------------------


def test_rows_file_checks_its_rows_and_names_its_images(tmp_path):
    (tmp_path / "r").mkdir()
    rows = [{"id": 1, "image_0": "ex_1"}, {"id": 2, "image_0": "ex_2.jpg"}]
    (tmp_path / "r/rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n")
    source = RowsFile(tmp_path, "Demo", "r/rows.jsonl", "v", images="r/img", refer="stem", suffix=".png", key="id")
    assert source.data_version == f"v-{file_digest(tmp_path / 'r/rows.jsonl')}" and source.rows() == rows
    assert source.image(rows[0], "image_0") == tmp_path / "r/img/ex_1.png"
    assert source.image(rows[1], "image_0") == tmp_path / "r/img/ex_2.jpg"
    source.check()
    counted = RowsFile(tmp_path, "Demo", "r/rows.jsonl", "v", count=3, noun="examples", hint="get them")
    with pytest.raises(DataUnavailable, match="rows.jsonl has 2 examples, expected 3; get them"):
        counted.check()
    judged = RowsFile(tmp_path, "Demo", "r/rows.jsonl", "v", expect=lambda rows: "is odd" if len(rows) % 2 else "")
    judged.check()
    with pytest.raises(InputError, match="rows.jsonl, line 1, field 'caption': expected a value, found nothing"):
        RowsFile(tmp_path, "Demo", "r/rows.jsonl", "v", fields=("id", "caption")).rows()
    (tmp_path / "r/list.json").write_text(json.dumps([{"id": 1, "image_0": "x.png"}, {"id": 1}]))
    listed = RowsFile(tmp_path, "Demo", "r/list.json", "v", layout="json", refer="path", key="id")
    with pytest.raises(InputError, match="list.json, example 1, field 'id': expected an id of its own"):
        listed.rows()
    assert listed.image({"image_0": "images/x.png"}, "image_0") == tmp_path / "r/images/x.png"
    with pytest.raises(DataUnavailable, match="missing .*absent.jsonl"):
        RowsFile(tmp_path, "Demo", "r/absent.jsonl", "v").check()


def exported(tmp_path: Path, **options) -> HfExport:
    hf = HfSplit("org/demo", "test", "0123456789abcdef", images=("image_0", "image_1"), gated="accept its terms")
    stem = lambda row, k: f"{row['id']}_{k}"  # noqa: E731
    return HfExport(tmp_path, "Demo", "demo/rows.jsonl", "hf", hf, stem, images="demo/images", **options)


def test_hf_export_writes_rows_and_image_bytes_as_stored(tmp_path, monkeypatch):
    rows = [
        {"id": 7, "text": "a", "extra": 1, "image_0": {"bytes": PNG, "path": None}, "image_1": {"bytes": JPEG}},
        {"id": 8, "text": "b", "extra": 2, "image_0": {"bytes": PNG, "path": None}, "image_1": {"bytes": PNG}},
    ]
    calls: list = []
    load = lambda name, split, revision: calls.append((name, split, revision)) or StandInSplit(rows)  # noqa: E731
    monkeypatch.setitem(sys.modules, "datasets", stand_in_datasets(load_dataset=load))
    source = exported(tmp_path, fields=("id", "text", "image_0", "image_1"), noun="examples")
    lines = source.fetch(progress=False)
    assert calls == [("org/demo", "test", "0123456789abcdef")] and "(2 examples) and 4 images" in lines[0]
    assert "from org/demo@0123456" in lines[0]
    written = (tmp_path / "demo/rows.jsonl").read_text()
    assert written.splitlines()[0] == '{"id": 7, "text": "a", "image_0": "7_0.png", "image_1": "7_1.jpg"}'
    assert (tmp_path / "demo/images/7_1.jpg").read_bytes() == JPEG
    assert source.fetch(progress=False) == [f"present  {tmp_path / 'demo/rows.jsonl'} and 4 images"] and len(calls) == 1
    source.check()
    assert source.data_version == f"hf-{sha(written.encode())[:12]}"
    assert exported(tmp_path, version="custom").fetch(progress=False) == []

    everything = exported(tmp_path / "all", keep_all=True, layout="json", refer="path")
    everything.fetch(progress=False)
    listed = json.loads((tmp_path / "all/demo/rows.jsonl").read_text())
    assert listed[1] == {"id": 8, "text": "b", "extra": 2, "image_0": "images/8_0.png", "image_1": "images/8_1.png"}
    rows[0]["image_0"] = {"bytes": b"GIF89a"}
    with pytest.raises(FetchError, match="row 0 image_0: an image that is neither PNG nor JPEG"):
        exported(tmp_path / "gif").fetch(progress=False)


def test_hf_split_loading_says_what_went_wrong(tmp_path, monkeypatch):
    split = HfSplit("org/demo", "test", images=("image",), gated="accept its terms")

    def refuse(name, split):
        raise ConnectionError("gated")

    monkeypatch.setitem(sys.modules, "datasets", stand_in_datasets(load_dataset=refuse))
    with pytest.raises(FetchError, match=r"cannot load org/demo \(test\): ConnectionError: gated. accept its terms"):
        split.load("Demo", progress=False)
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(FetchError, match=r"Demo comes from .* pip install 'vlc-harness\[data\]'"):
        split.load("Demo")
    hub = types.ModuleType("huggingface_hub")
    hub.snapshot_download = lambda repo, repo_type, revision, local_dir: local_dir
    opened: list = []
    disk = stand_in_datasets(load_from_disk=lambda path: opened.append(path) or {"test": StandInSplit([])})
    monkeypatch.setitem(sys.modules, "huggingface_hub", hub)
    monkeypatch.setitem(sys.modules, "datasets", disk)
    HfSplit("org/demo", "test", "abc", on_disk="data").load("Demo", False, tmp_path / "snap")
    assert opened == [str(tmp_path / "snap" / "data")]


# -- Sources, ImageFolder and the card, as a benchmark composes them -----------------------------


class Composed(Benchmark):
    """A benchmark whose data comes from two sources and an image folder."""

    type_name = "composed"
    card = BenchmarkCard(title="Composed", citation="Nobody, 2026.", headline="acc", headline_source="ours: a test")

    def data_source(self) -> Sources:
        first = UnpinnedFiles(self.data_root, self.title, {"a": "a.json"}, "v", hint="get a")
        second = pinned(self.data_root, "custom")
        return Sources(first, second)

    def image_folder(self) -> ImageFolder:
        archive = ImageArchive("https://example.org/images.zip", "images", "images/0.png")
        return ImageFolder(self.data_root / "images", "unzip images.zip", (archive,), manual=True)


def test_a_benchmark_takes_its_data_and_images_from_its_sources(tmp_path, monkeypatch):
    import vlc_harness.datafetch

    bench = Composed(NoParams(), tmp_path)
    assert bench.data_version == "v-missing" and bench.data_files() == []
    with pytest.raises(DataUnavailable, match="get a"):
        bench.check_data()
    (tmp_path / "a.json").write_text("[]")
    with pytest.raises(DataUnavailable, match=r"Demo \(custom\)"):  # the second source is checked too
        bench.check_data()
    assert bench.image_dir() == tmp_path / "images" and bench.image_hint() == "unzip images.zip"
    monkeypatch.setattr(vlc_harness.datafetch, "fetch_archive", lambda root, archive, progress: f"got {archive.url}")
    lines = bench.fetch(images=True, progress=False)
    assert lines == ["got https://example.org/images.zip", "images: not downloadable here; unzip images.zip"]


def test_a_card_becomes_the_class_attributes_and_refuses_to_be_set_twice():
    assert Composed.title == "Composed" and Composed.headline == "acc" and Composed.gap_metrics is None

    class Child(Composed):
        title = "Child"

    assert Child.title == "Child" and Child.citation == "Nobody, 2026."
    with pytest.raises(TypeError, match="sets title both in its card and as an attribute"):

        class Twice(Benchmark):
            card = BenchmarkCard(title="a", citation="b", headline="c", headline_source="d")
            title = "e"

    with pytest.raises(TypeError):
        BenchmarkCard(title="a", citation="b", headline="c", headline_source="d", licence="MIT")  # type: ignore[call-arg]


def test_the_kit_still_offers_the_export_helpers():
    from vlc_harness.kit import exports

    assert exports.short_sha256 is file_digest and callable(exports.read_jsonl) and callable(exports.present)


def test_gc_paused_stops_collections_for_its_block_and_restores_the_state_it_found():
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block found it off and leaves it so
        raise RuntimeError("a loader's error")
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # a caller that turned it off keeps it off
    finally:
        gc.enable()
