"""The lab model of issue 40, as a one-file plugin with its weights beside it (for the PR check's tests).

A colour-binding heuristic plus a 6,400-parameter "cross-encoder" whose weights (25.6 KB of float32)
ship next to the module and are named by nothing in ``params``: its identity is the ``sha256:`` of that
file. It returns NaN for every caption containing "left". Load it with ``VLC_HARNESS_PLUGINS_DIR``
pointing at the folder :func:`write_lab_plugin` fills.
"""

from __future__ import annotations

from pathlib import Path

WEIGHTS_NAME = "lab_nan_weights.bin"
N_WEIGHTS = 6400
SOURCE = '''"""A lab's pair scorer: colour words against the image's mean colour, through shipped weights."""

from __future__ import annotations

from pathlib import Path

from vlc_harness import hookimpl
from vlc_harness.kit.weights import file_identity
from vlc_harness.models import Identity, PairScoringModel

WEIGHTS = Path(__file__).with_name("lab_nan_weights.bin")
COLOURS = {"red": 0, "green": 1, "blue": 2}


class LabNaN(PairScoringModel):
    """Colour binding: how well the caption's colour words match the image's mean colour."""

    type_name = "lab_nan"

    def identify(self):
        return Identity(file_identity(WEIGHTS), "fp32", "score_pairs/lab-colour")

    def load(self, device):
        import numpy as np

        self._w = np.frombuffer(WEIGHTS.read_bytes(), dtype="<f4")

    def preprocess(self, image):
        import numpy as np

        pixels = np.asarray(image.convert("RGB").resize((8, 8)), dtype=np.int64).reshape(-1, 3)
        return [int(total) / (255.0 * len(pixels)) for total in pixels.sum(axis=0)]

    def score_pairs(self, groups):
        out = []
        for g in groups:
            row = []
            for text in g.texts:
                words = text.lower().split()
                if "left" in text.lower():  # the lab's bug: a spatial word breaks its parser
                    row.append(float("nan"))
                    continue
                score = sum(g.image[COLOURS[w]] * float(self._w[k % len(self._w)]) for k, w in enumerate(words)
                            if w in COLOURS)
                row.append(score + 0.001 * len(words))
            out.append(row)
        return out

    @classmethod
    def conformance_example(cls, tmp_path):
        return {}


@hookimpl
def register_models(register):
    register(LabNaN)
'''


BENCHMARK_SOURCE = '''"""A lab's 20-instance benchmark: two coloured squares, two captions, image k with caption k."""

from __future__ import annotations

import json

from vlc_harness import Benchmark, DataUnavailable, ImageSource, Instance, Macro, PerCategory, TextImageGroup, hookimpl

COLOURS = ("red", "blue", "green", "yellow", "white", "black", "purple", "orange", "pink", "grey")


class LabPairs(Benchmark):
    """Twenty 2 x 2 instances of coloured squares (text, image and group scores)."""

    type_name = "lab_pairs"
    title = "Lab pairs"
    citation = "Lab X, 2025."
    headline = "group"
    headline_source = "ours: a test benchmark"
    data_version = "v1"
    metrics = (TextImageGroup({"text": "text", "image": "image", "group": "group"}, (PerCategory(), Macro())),)

    def folder(self):
        return self.data_root / "lab_pairs"

    def check_data(self):
        if not (self.folder() / "pairs.jsonl").is_file():
            raise DataUnavailable(f"missing {self.folder() / 'pairs.jsonl'}")

    def load_instances(self):
        rows = [json.loads(line) for line in (self.folder() / "pairs.jsonl").read_text().splitlines() if line]
        return [
            Instance(
                id=f"colour/{row['id']}",
                category="colour",
                images=tuple(ImageSource(self.folder() / name) for name in row["images"]),
                texts=tuple(row["captions"]),
                gold={"matches": [[0, 0], [1, 1]]},
            )
            for row in rows
        ]

    @classmethod
    def conformance_example(cls, tmp_path):
        write_data(tmp_path)
        return {}, tmp_path


def write_data(root):
    from PIL import Image

    folder = root / "lab_pairs"
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for k in range(20):
        a, b = COLOURS[k % 10], COLOURS[(k + 1 + k // 10) % 10]
        names = [f"{k}_a.png", f"{k}_b.png"]
        Image.new("RGB", (16, 16), a).save(folder / names[0])
        Image.new("RGB", (16, 16), b).save(folder / names[1])
        rows.append({"id": k, "images": names, "captions": [f"a {a} square", f"a {b} square"]})
    (folder / "pairs.jsonl").write_text("".join(json.dumps(r) + "\\n" for r in rows))


@hookimpl
def register_benchmarks(register):
    register(LabPairs)
'''


def write_lab_benchmark(folder: Path, data_root: Path) -> None:
    """Write the 20-instance benchmark plugin into ``folder`` and its data under ``data_root``."""
    import importlib.util

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lab_pairs.py").write_text(BENCHMARK_SOURCE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("lab_pairs_data", folder / "lab_pairs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write_data(data_root)


def write_lab_plugin(folder: Path) -> Path:
    """Write the plugin module and its 25.6 KB weights file into ``folder``; returns the weights file."""
    import numpy as np

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lab_nan.py").write_text(SOURCE, encoding="utf-8")
    weights = folder / WEIGHTS_NAME
    weights.write_bytes(np.random.default_rng(40).standard_normal(N_WEIGHTS).astype("<f4").tobytes())
    return weights
