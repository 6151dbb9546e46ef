"""A store filled by every scoring protocol over five generated benchmarks, for the board bundle's tests.

Models: the seeded random baseline and pixel-reading pair scores (``score_pairs``), a caption-length
blind model (``score_texts``), a position-biased chooser that abstains and fails on some questions
(``choose``), a hashing embedder with text-text scores (``embed``), a submitted scores file that holds
only BiVLC's scores (its other cells fail, naming a local folder) and an open_clip entry whose package
or weights are missing here (``unavailable``); one ad-hoc partial cell besides. Benchmarks: shapes
(thumbnails: its images are redistributable), SugarCrepe (COCO links), BiVLC (two images), NaturalBench
(questions) and SugarCrepe++ (text-text scores), each its generated conformance example.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

LOCAL_PLUGINS = Path(__file__).resolve().parents[1] / "local_plugins"
BENCHMARKS = ("shapes", "sugarcrepe", "bivlc", "naturalbench", "sugarcrepe_pp")
PLANTED = "planted-secret-folder"
"""The folder a submitted scores file lies in: named by its failed cells, never published."""

EMBED_PLUGIN = '''
"""A deterministic embedder: image vectors from the mean colour, text vectors from the text's hash."""

import hashlib

import numpy as np

from vlc_harness import hookimpl
from vlc_harness.models import EmbeddingModel, Identity


class HashEmbed(EmbeddingModel):
    type_name = "test_bundle_embed"

    def identify(self):
        return Identity("none", "fp64", "embed/hash")

    def preprocess(self, image):
        return np.asarray(image, dtype=np.float64).mean(axis=(0, 1))

    def embed_images(self, batch):
        return np.array([np.resize(x, 8) for x in batch], dtype=np.float64)

    def embed_texts(self, texts):
        out = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little")
            out.append(np.random.default_rng(seed).normal(size=8))
        return np.stack(out)


@hookimpl
def register_models(register):
    register(HashEmbed)
'''


def plugins_dir(tmp: Path) -> Path:
    """A plugins folder with the misbehaving test models and the hashing embedder."""
    folder = tmp / "plugins"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(LOCAL_PLUGINS / "faulty_models.py", folder / "faulty_models.py")
    (folder / "bundle_embed.py").write_text(EMBED_PLUGIN, encoding="utf-8")
    return folder


def data_root(tmp: Path) -> tuple[Path, dict[str, dict[str, Any]]]:
    """Every benchmark's conformance example under one data root; each benchmark's params."""
    from vlc_harness.plugins import get_plugins
    from vlc_harness.testing.examples import example_for

    root = tmp / "data"
    params = {}
    for name in BENCHMARKS:
        cls = get_plugins().benchmarks.get(name).cls
        given, example = example_for(cls, tmp / "examples" / name)
        shutil.copytree(example, root, dirs_exist_ok=True)
        params[name] = given
    return root, params


def registry_text(params: dict[str, dict[str, Any]], scores: Path) -> str:
    """The registry: every protocol's model on every benchmark."""
    models = [
        {
            "id": "random",
            "type": "random",
            "params": {"seed": 3},
            "meta": {"display_name": "Random", "family": "baseline"},
        },
        {
            "id": "pixels",
            "type": "test_pixels",
            "meta": {"display_name": "Pixel mean <b>&", "family": "pairs", "parameters_m": 1, "open_weights": True},
        },
        {"id": "length", "type": "test_length", "meta": {"display_name": "Caption length", "family": "blind"}},
        {"id": "first", "type": "test_first", "meta": {"display_name": "Always (1)", "family": "chooser"}},
        {"id": "embed", "type": "test_bundle_embed", "meta": {"display_name": "Hash embed", "family": "embed"}},
        {
            "id": "submitted",
            "type": "precomputed",
            "params": {"path": f"./{PLANTED}/{scores.name}"},
            "meta": {"display_name": "Submitted scores", "family": "lab", "submitted": True},
        },
        {"id": "absent", "type": "open_clip", "params": {"arch": "ViT-B-32", "pretrained": "openai"}},
    ]
    benchmarks = [{"id": name, "type": name, "params": params[name]} for name in BENCHMARKS]
    benchmarks[0]["meta"] = {"note": '<script>alert("note")</script>'}
    return json.dumps({"models": models, "benchmarks": benchmarks}, indent=1)


def build(tmp: Path, cli: Any) -> dict[str, Any]:
    """Fill a store under ``tmp`` with ``cli`` (``vlc-harness`` in-process, with ``VLC_HARNESS_PLUGINS_DIR``
    set to :func:`plugins_dir`'s folder and the plugins reloaded); returns its registry, store URL and data root."""
    from vlc_harness.plugins import get_plugins
    from vlc_harness.testing.examples import example_for

    root, params = data_root(tmp)
    bivlc = get_plugins().benchmarks.get("bivlc").cls
    given, example = example_for(bivlc, tmp / "examples" / "bivlc-scores")
    from vlc_harness.params import build as build_params

    bench = bivlc(build_params(bivlc.Params, given), example)
    lines = []
    for inst in bench.load_instances():
        for i, j in inst.needed_pairs():
            record = {"benchmark": "bivlc", "version": bench.data_version, "instance": inst.id, "image": i, "text": j}
            image = hashlib.sha256(inst.images[i].path.read_bytes()).digest()[0] / 256  # one score per (image, text)
            lines.append(json.dumps(record | {"score": image + 0.01 * len(inst.texts[j])}))
    scores = tmp / PLANTED / "lab-scores.jsonl"
    scores.parent.mkdir(parents=True)
    scores.write_text("\n".join(lines) + "\n", encoding="utf-8")
    registry = tmp / "registry.yaml"
    registry.write_text(registry_text(params, scores), encoding="utf-8")
    url = f"sqlite:///{tmp / 'store.sqlite'}"
    common = ["--data-root", str(root), "--store", url, "--no-progress"]
    out = cli("run", "--all", "--executor", "inprocess", "--registry", str(registry), *common)
    assert out.exit_code in (0, 1), out.output  # 1: the submitted file's other cells failed
    out = cli(
        "run",
        "-m",
        "random:seed=9",
        "-b",
        "shapes:seed=0,n_scenes=6,image_size=32",
        "--limit",
        "1",
        "--executor",
        "inprocess",
        *common,
    )
    assert out.exit_code == 0, out.output
    return {"registry": registry, "url": url, "data": root, "tmp": tmp}


@contextlib.contextmanager
def plugins_loaded(folder: Path) -> Iterator[None]:
    """The plugin set with the test models of ``folder`` loaded (``VLC_HARNESS_PLUGINS_DIR``), then as before."""
    from vlc_harness.plugins import ENV_DIR, get_plugins

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENV_DIR, str(folder))
        get_plugins(reload=True)
        try:
            yield
        finally:
            patch.undo()
            get_plugins(reload=True)


def cli(*args: Any) -> Any:
    """``vlc-harness ARGS`` in this process (click's result)."""
    from click.testing import CliRunner

    from vlc_harness.cli import build_cli

    return CliRunner().invoke(build_cli(), [str(a) for a in args], catch_exceptions=False)


def store_args(built: dict[str, Any]) -> list[str]:
    """``--registry``, ``--store`` and ``--data-root`` of a built store."""
    return ["--registry", str(built["registry"]), "--store", built["url"], "--data-root", str(built["data"])]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path, with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
