"""``vlc-harness plugins install`` runs no build code from a pull request (issue 37, item 3), played by an
attacker, offline: a package index on 127.0.0.1 serves a plugin published as an sdist whose in-tree build
backend writes a marker file from ``prepare_metadata_for_build_wheel`` and imports an unhashed build
dependency, itself writing a marker at import. The registry pins the sdist by its true sha256. Both markers
must stay unwritten, the build dependency must never be fetched, and the refusal says to publish a wheel.

Before ``--only-binary :all:`` pip checked the sdist's hash, fetched the build dependency from the index
without a hash, and ran both (the two markers were written)."""

from __future__ import annotations

import hashlib
import http.server
import io
import os
import subprocess
import sys
import tarfile
import threading
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MARK = (
    "import os, pathlib\ndef mark(name):\n    pathlib.Path(os.environ['VLC_ATTACK_MARKERS'], name).write_text('ran')\n"
)
BACKEND = (
    MARK + "import evil_build_dep  # noqa: F401 (its import is its attack)\n"
    "def get_requires_for_build_wheel(config_settings=None):\n    return []\n"
    "def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):\n"
    "    mark('sdist-build-code')\n    raise SystemExit('the build code ran')\n"
    "def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):\n"
    "    mark('sdist-build-code')\n    raise SystemExit('the build code ran')\n"
)
PYPROJECT = '[build-system]\nrequires = ["evil-build-dep"]\nbuild-backend = "backend"\nbackend-path = ["."]\n'


def sdist(name: str, version: str) -> bytes:
    """An sdist whose in-tree build backend writes a marker and imports ``evil_build_dep``."""
    buffer = io.BytesIO()
    top = f"{name.replace('-', '_')}-{version}"
    files = {
        "PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        "pyproject.toml": PYPROJECT,
        "backend.py": BACKEND,
    }
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def wheel(name: str, version: str, module: str, code: str) -> bytes:
    """A pure-Python wheel holding one module."""
    dist = f"{name.replace('-', '_')}-{version}.dist-info"
    files = {
        f"{module}.py": code,
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist}/RECORD": "",
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for path, text in files.items():
            zf.writestr(path, text)
    return buffer.getvalue()


class Index:
    """A PEP 503 package index on 127.0.0.1 that records every path asked of it."""

    def __init__(self, projects: dict[str, dict[str, bytes]]) -> None:
        routes: dict[str, bytes] = {}
        for project, files in projects.items():
            links = "".join(
                f'<a href="/files/{f}#sha256={hashlib.sha256(b).hexdigest()}">{f}</a>\n' for f, b in files.items()
            )
            routes[f"/simple/{project}/"] = f"<html><body>\n{links}</body></html>".encode()
            routes.update({f"/files/{f}": b for f, b in files.items()})
        self.asked: list[str] = []
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the http.server API)
                index.asked.append(self.path)
                body = routes.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/html" if self.path.endswith("/") else "application/octet-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple/"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()


def pip_env(markers: Path) -> dict[str, str]:
    """This environment without pip's configuration (no other index, no find-links, no global constraints)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", VLC_ATTACK_MARKERS=str(markers))
    return env


BUILD_DEP = wheel("evil-build-dep", "0.1", "evil_build_dep", MARK + "mark('build-dependency-code')\n")
HARMLESS = wheel("vlc-evil", "0.1.0", "vlc_evil", "")
EVIL = sdist("vlc-evil", "0.1.0")


@pytest.mark.parametrize(
    "published",
    [
        pytest.param({"vlc_evil-0.1.0.tar.gz": EVIL}, id="sdist-only"),
        pytest.param({"vlc_evil-0.1.0.tar.gz": EVIL, "vlc_evil-0.1.0-py3-none-any.whl": HARMLESS}, id="sdist-hash"),
    ],
)
@pytest.mark.subprocess
def test_a_hashed_sdist_is_refused_and_no_build_code_runs(tmp_path, published):
    index = Index({"vlc-evil": published, "evil-build-dep": {"evil_build_dep-0.1-py3-none-any.whl": BUILD_DEP}})
    try:
        markers, target = tmp_path / "markers", tmp_path / "target"
        markers.mkdir()
        sha = hashlib.sha256(EVIL).hexdigest()
        registry = tmp_path / "registry.yaml"
        registry.write_text(
            f"plugins:\n  - {{package: vlc-evil, pin: vlc-evil==0.1.0, hashes: ['sha256:{sha}'], models: [evil]}}\n"
        )
        cmd = [sys.executable, "-m", "vlc_harness", "plugins", "install", "--registry", str(registry)]
        cmd += ["--constraints", str(REPO / "constraints.txt"), f"--pip-option=--index-url={index.url}"]
        cmd += [f"--pip-option=--target={target}"]  # never into this environment, even when the attack worked
        out = subprocess.run(cmd, env=pip_env(markers), capture_output=True, text=True, timeout=300, cwd=tmp_path)
    finally:
        index.server.shutdown()
    assert sorted(p.name for p in markers.iterdir()) == [], out.stdout + out.stderr
    assert not any("evil-build-dep" in path or "evil_build_dep" in path for path in index.asked), index.asked
    assert "/files/vlc_evil-0.1.0.tar.gz" not in index.asked
    assert out.returncode == 1 and not list(target.glob("vlc_evil*"))
    assert "vlc-evil==0.1.0" in out.stderr and "publish a wheel" in out.stderr, out.stderr
