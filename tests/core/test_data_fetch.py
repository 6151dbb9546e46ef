"""data fetch / data verify against a local HTTP mirror (never the network)."""

from __future__ import annotations

import http.server
import io
import threading
import zipfile
from pathlib import Path

import pytest

from vlc_harness.testing import standin_image

HEAD = "0047054b243992f0fad63d6f64f7544862daf846"
PREFIX = "6e45274de98440ad8ff4207bddba0afcc1a4526f"


class Mirror:
    """Serves <host>/<path> like a mirror of raw.githubusercontent.com and images.cocodataset.org."""

    def __init__(self, routes: dict[str, bytes]):
        self.routes = routes
        self.requests: list[str] = []
        mirror = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                mirror.requests.append(self.path)
                body = mirror.routes.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self):
        self.server.shutdown()


@pytest.fixture
def mirror(shared_data, monkeypatch):
    routes = {}
    for path in (shared_data / "sugarcrepe").glob("*.json"):
        routes[f"/raw.githubusercontent.com/RAIVNLab/sugar-crepe/{HEAD}/data/{path.name}"] = path.read_bytes()
    routes[f"/raw.githubusercontent.com/RAIVNLab/sugar-crepe/{PREFIX}/data/swap_obj.json"] = (
        shared_data / "sugarcrepe" / "prev_6e45274" / "swap_obj.json"
    ).read_bytes()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name in ("000000000139.jpg", "000000000724.jpg", "000000000785.jpg"):
            image = io.BytesIO()
            standin_image(name).save(image, format="JPEG")
            zf.writestr(f"val2017/{name}", image.getvalue())
    routes["/images.cocodataset.org/zips/val2017.zip"] = buffer.getvalue()
    server = Mirror(routes)
    monkeypatch.setenv("VLC_HARNESS_DATA_MIRROR", server.url)
    yield server
    server.close()


def test_fetch_then_verify(vlc_cli, tmp_path, mirror):
    root = tmp_path / "data"
    out = vlc_cli("data", "fetch", "-b", "sugarcrepe", "--data-root", str(root), "--no-progress")
    assert out.exit_code == 0, out.output
    assert out.output.count("fetched") == 7
    assert (root / "sugarcrepe" / "prev_6e45274" / "swap_obj.json").is_file()
    again = vlc_cli("data", "fetch", "-b", "sugarcrepe", "--data-root", str(root), "--no-progress")
    assert again.output.count("present") == 7 and len(mirror.requests) == 7  # nothing downloaded twice
    verify = vlc_cli("data", "verify", "-b", "sugarcrepe", "--data-root", str(root))
    assert verify.exit_code == 1  # annotations ok, images missing
    assert "paper-7512, 7512 instances, annotations ok, images 0/1561 present" in verify.output
    assert "data fetch -b sugarcrepe --images" in verify.output
    images = vlc_cli("data", "fetch", "-b", "sugarcrepe", "--images", "--data-root", str(root), "--no-progress")
    assert images.exit_code == 0, images.output
    assert (root / "coco" / "val2017" / "000000000139.jpg").is_file()
    assert not (root / "downloads").exists()
    verify = vlc_cli("data", "verify", "-b", "sugarcrepe", "--data-root", str(root))
    assert "images 2/1561 present" in verify.output


def test_an_altered_download_is_refused_and_not_saved(vlc_cli, tmp_path, mirror):
    key = f"/raw.githubusercontent.com/RAIVNLab/sugar-crepe/{HEAD}/data/add_att.json"
    mirror.routes[key] = mirror.routes[key].replace(b"a", b"o", 1)
    root = tmp_path / "data"
    out = vlc_cli("data", "fetch", "-b", "sugarcrepe:version=upstream-7511", "--data-root", str(root), "--no-progress")
    assert out.exit_code == 1
    assert "add_att.json has sha256" in out.output and "not saved" in out.output
    assert not (root / "sugarcrepe" / "add_att.json").exists()
    assert not list(root.rglob("*.partial"))


def test_an_unreachable_host_is_one_clear_line(vlc_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("VLC_HARNESS_DATA_MIRROR", "http://127.0.0.1:9")
    out = vlc_cli("data", "fetch", "-b", "sugarcrepe", "--data-root", str(tmp_path), "--no-progress")
    assert out.exit_code == 1
    (line,) = [x for x in out.stdout.splitlines() if x]
    assert line.startswith("sugarcrepe: failed: cannot download http://127.0.0.1:9/raw.githubusercontent.com/")
    assert not list(Path(tmp_path).rglob("*.json"))
