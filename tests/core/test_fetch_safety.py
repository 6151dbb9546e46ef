"""Downloads are checked (issue 38, item 6): an archive member that climbs out of its folder is
refused by path, not by string prefix (``../images-evil/x`` shares the prefix ``.../images``); an
archive comes over https (COCO's are declared http://), is checked against its published sha256
(a ``PinnedArchive``) or, where none is published, recorded on first download (trust on first use,
in the data root's ``SHA256SUMS``) and verified on every later one. Against a local mirror only
(cocodataset.org cannot be reached from the machines this runs on)."""

from __future__ import annotations

import hashlib
import http.server
import io
import shutil
import threading
import zipfile
from pathlib import Path

import pytest

from vlc_harness.datafetch import FetchError, fetch_archive
from vlc_harness.datafiles import ImageArchive, PinnedArchive
from vlc_harness.testing import standin_image


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def _jpeg(name: str) -> bytes:
    out = io.BytesIO()
    standin_image(name).save(out, format="JPEG")
    return out.getvalue()


@pytest.fixture
def mirror(monkeypatch):
    """A local mirror (``VLC_HARNESS_DATA_MIRROR``) serving ``routes[path]``; ``hits`` counts requests."""
    routes: dict[str, bytes] = {}
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            hits.append(self.path)
            body = routes.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    monkeypatch.setenv("VLC_HARNESS_DATA_MIRROR", f"http://127.0.0.1:{server.server_address[1]}")
    yield routes, hits
    server.shutdown()


# -- archive members ----------------------------------------------------------------------------------
def test_a_member_climbing_into_a_sibling_folder_is_refused(tmp_path, mirror):
    routes, _ = mirror
    routes["/example.org/evil.zip"] = _zip({"val2017/a.jpg": b"a", "../coco-evil/x.jpg": b"x"})
    archive = ImageArchive("https://example.org/evil.zip", "coco", "coco/val2017/a.jpg")
    with pytest.raises(FetchError, match=r"unsafe path '\.\./coco-evil/x\.jpg'"):
        fetch_archive(tmp_path, archive, progress=False)
    assert not (tmp_path / "coco" / "val2017").exists() and not (tmp_path / "coco-evil").exists()


def test_seetrue_refuses_a_member_climbing_into_a_sibling_folder(tmp_path):
    from vlc_harness.params import build
    from vlc_harness_builtins.benchmarks.seetrue import SAMPLE_IMAGE, SeeTrue

    bench = SeeTrue(build(SeeTrue.Params, {}), tmp_path)
    evil = tmp_path / "evil.zip"
    evil.write_bytes(_zip({f"images/{SAMPLE_IMAGE}": b"png", "../seetrue-evil/x.png": b"x"}))
    with pytest.raises(FetchError, match=r"unsafe path '\.\./seetrue-evil/x\.png'"):
        bench._fetch_images(lambda name, folder: evil)
    assert not (tmp_path / "seetrue" / "images").exists() and not (tmp_path / "seetrue-evil").exists()


# -- COCO over https, trust on first use ----------------------------------------------------------------
COCO_PATH = "/images.cocodataset.org/zips/val2017.zip"


def test_coco_is_fetched_over_https(tmp_path, monkeypatch):
    """COCO's archives are declared with http:// URLs (the benchmarks' cards keep them as they are);
    the download asks for https://."""
    import vlc_harness.datafetch
    from vlc_harness_builtins.benchmarks.aro_order import COCO_VAL2014
    from vlc_harness_builtins.benchmarks.coco import val2017_archives

    asked: list[str] = []

    def offline(url, dest, sha256=None, progress=True):
        asked.append(url)
        raise FetchError(f"cannot download {url}: offline (test)")

    monkeypatch.setattr(vlc_harness.datafetch, "download", offline)
    (val2017,) = val2017_archives("coco/val2017")
    val2014 = ImageArchive(COCO_VAL2014, "coco", "coco/val2014/COCO_val2014_000000391895.jpg")
    for archive in (val2017, val2014):
        with pytest.raises(FetchError):
            fetch_archive(tmp_path, archive, progress=False)
    assert asked == [
        "https://images.cocodataset.org/zips/val2017.zip",
        "https://images.cocodataset.org/zips/val2014.zip",
    ]
    assert not isinstance(val2017, PinnedArchive)  # cocodataset.org publishes no checksum: trust on first use


def test_an_unpinned_archive_is_recorded_on_first_download_and_verified_after(tmp_path, mirror):
    from vlc_harness_builtins.benchmarks.coco import val2017_archives

    routes, hits = mirror
    first = _zip({"val2017/000000000139.jpg": _jpeg("000000000139.jpg")})
    routes[COCO_PATH] = first
    (archive,) = val2017_archives("coco/val2017")
    line = fetch_archive(tmp_path, archive, progress=False)
    digest = hashlib.sha256(first).hexdigest()
    assert "fetched" in line and digest in line and "first download" in line, line
    assert (tmp_path / "SHA256SUMS").read_text() == f"{digest}  ./downloads/val2017.zip\n"
    assert (tmp_path / "coco" / "val2017" / "000000000139.jpg").is_file()

    # the upstream file changes (or a mirror serves another): refused, nothing extracted, nothing kept
    shutil.rmtree(tmp_path / "coco")
    routes[COCO_PATH] = _zip({"val2017/000000000139.jpg": b"not the image"})
    with pytest.raises(FetchError, match=f"expected {digest}; not saved .*recorded on first download.*SHA256SUMS"):
        fetch_archive(tmp_path, archive, progress=False)
    assert not (tmp_path / "coco").exists() and not list(tmp_path.rglob("*.partial"))
    assert not (tmp_path / "downloads" / "val2017.zip").exists()

    # the recorded archive again: verified and extracted
    routes[COCO_PATH] = first
    assert "verified" in fetch_archive(tmp_path, archive, progress=False)
    assert (tmp_path / "coco" / "val2017" / "000000000139.jpg").is_file()
    assert len(hits) == 3


def test_a_pinned_archive_is_verified_against_its_pin(tmp_path, mirror):
    routes, _ = mirror
    body = _zip({"imgs/a.jpg": b"a"})
    routes["/example.org/a.zip"] = body
    wrong = PinnedArchive("https://example.org/a.zip", "x", "x/imgs/a.jpg", sha256="0" * 64)
    with pytest.raises(FetchError, match="expected 0{64}; not saved .*published checksum"):
        fetch_archive(tmp_path, wrong, progress=False)
    right = PinnedArchive("https://example.org/a.zip", "x", "x/imgs/a.jpg", sha256=hashlib.sha256(body).hexdigest())
    assert "fetched" in fetch_archive(tmp_path, right, progress=False)
    assert not (tmp_path / "SHA256SUMS").exists()  # a pinned archive needs no record


def test_an_archive_already_in_downloads_is_checked_too(tmp_path, mirror):
    routes, hits = mirror
    body = _zip({"imgs/a.jpg": b"a"})
    archive = PinnedArchive("https://example.org/a.zip", "x", "x/imgs/a.jpg", sha256=hashlib.sha256(body).hexdigest())
    (tmp_path / "downloads").mkdir()
    (tmp_path / "downloads" / "a.zip").write_bytes(_zip({"imgs/a.jpg": b"tampered"}))
    with pytest.raises(FetchError, match="downloads/a.zip has sha256"):
        fetch_archive(tmp_path, archive, progress=False)
    assert not (tmp_path / "x").exists() and hits == []
    assert Path(tmp_path / "downloads" / "a.zip").exists()  # kept for inspection, never extracted
