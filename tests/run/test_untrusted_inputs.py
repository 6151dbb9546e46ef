"""Inputs nobody should trust: pickled checkpoints that run code, broken and oversized images,
odd captions. Each fails its own cell or instance with the reason; nothing else is affected."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest

from vlc_harness.store import open_store


class _RunsCode:
    """Unpickling this would create a file: the attack a checkpoint pickle can carry."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def _cell(url: str, model: str):
    store = open_store(url)
    try:
        return next(c for c in store.latest_cells() if c.model_id == model)
    finally:
        store.close()


def test_a_checkpoint_pickle_carrying_code_is_refused(vlc_run, tmp_path, sample_root, tiny_clip):
    import torch

    marker = tmp_path / "pwned"
    evil = tmp_path / "evil.pt"
    state = torch.load(tiny_clip["checkpoint"], weights_only=True)
    torch.save({"state_dict": state, "payload": _RunsCode(marker)}, evil)
    spec = f"open_clip:arch=@{tiny_clip['config']},pretrained={evil}"
    out = vlc_run("-m", spec, "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert out.exit_code == 3  # its one cell failed: nothing computed
    assert "refusing to load" in _cell(vlc_run.store_url, spec).error
    assert not marker.exists()


def _png_claiming(width: int, height: int) -> bytes:
    """A valid 1x1 PNG whose header claims ``width`` x ``height`` (a decompression bomb's header)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b"")
    )


def test_broken_and_oversized_images_fail_only_their_instances(vlc_run, sample_root, faulty):
    swap = json.loads((sample_root / "sugarcrepe" / "swap_obj.json").read_text())
    folder = sample_root / "coco" / "val2017"
    truncated = folder / swap["0"]["filename"]
    truncated.write_bytes(truncated.read_bytes()[: len(truncated.read_bytes()) // 2])
    empty = folder / swap["1"]["filename"]
    empty.write_bytes(b"")
    bomb = folder / swap["2"]["filename"]
    bomb.write_bytes(_png_claiming(30_000, 30_000))
    url = vlc_run.store_url
    out = vlc_run("-m", "test_pixels", "-m", "random", "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert out.exit_code == 1
    cell = _cell(url, "test_pixels")
    assert cell.status == "failed" and cell.n_failed == 3 and cell.n_scored == 25
    store = open_store(url)
    errors = {o.instance_id: o.error for o in store.outcomes(cell.id) if o.error}
    store.close()
    assert "swap_obj/0" in errors and "swap_obj/1" in errors
    assert "decompression bomb" in errors["swap_obj/2"]
    assert _cell(url, "random").status == "ok"  # reads no pixels: the same files do not affect it


@pytest.mark.parametrize("caption", ["", "   ", "caf\u00e9 \u2014 \u00fcber \U0001f600", "a" * 5000])
def test_odd_captions_are_scored(vlc_run, sample_root, tiny_spec, caption):
    path = sample_root / "sugarcrepe" / "add_att.json"
    data = json.loads(path.read_text())
    data[next(iter(data))]["negative_caption"] = caption
    path.write_text(json.dumps(data))
    out = vlc_run("-m", tiny_spec, "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert out.exit_code == 0, out.output
    assert _cell(vlc_run.store_url, tiny_spec).status == "ok"


def test_annotations_that_are_not_utf8_are_one_clear_error(vlc_run, sample_root):
    path = sample_root / "sugarcrepe" / "add_att.json"
    path.write_bytes(path.read_bytes().replace(b'"caption": "', b'"caption": "\xff\xfe', 1))
    out = vlc_run("-m", "random", "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert out.exit_code == 3  # its one cell failed: nothing computed
    assert "add_att.json, line " in out.output and "expected UTF-8 text, found the byte 0xff" in out.output
