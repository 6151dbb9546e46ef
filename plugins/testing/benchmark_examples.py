"""The conformance example of every built-in benchmark type: ``(params, data_root)`` of a tiny
generated copy of its data, built under ``tmp_path`` by the ``data_*`` writers (stand-in images,
invented captions; nothing from a dataset).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from vlc_harness_builtins.testing import (
    data_aro,
    data_bivlc,
    data_colorswap,
    data_eqben,
    data_hard_positives,
    data_mmvp_vlm,
    data_naturalbench,
    data_seetrue,
    data_shapes,
    data_sugarcrepe,
    data_sugarcrepe_pp,
    data_valse,
    data_vismin,
    data_vl_checklist,
    data_whatsup,
    data_winoground,
)

Example = tuple[dict[str, Any], Path]


def aro_vg_relation(cls: type, tmp_path: Path) -> Example:
    """Generated relation cases (one symmetric relation among them) and stand-in images."""
    root = tmp_path / "aro_vgr_example"
    data_aro.write_vg_example(root, relation=True)
    return {"version": "custom"}, root


def aro_vg_attribution(cls: type, tmp_path: Path) -> Example:
    """Generated attribution cases (one pair above the 25-case threshold) and stand-in images."""
    root = tmp_path / "aro_vga_example"
    data_aro.write_vg_example(root, relation=False)
    return {"version": "custom"}, root


def aro_order(cls: Any, tmp_path: Path) -> Example:
    """Generated captions with a tag table (no spaCy needed) and stand-in images (COCO- or Flickr30k-Order)."""
    root = tmp_path / f"{cls.type_name}_example"
    image = data_aro.ORDER_IMAGES[cls.type_name]
    return data_aro.write_order_example(root, cls.annotation_file, image, cls.Params().images_dir), root


def bivlc(cls: type, tmp_path: Path) -> Example:
    """Two generated instances per subset, with stand-in images (full mode)."""
    root = tmp_path / "bivlc_example"
    data_bivlc.write_example(root, per_subset=2)
    return {"version": "custom"}, root


def colorswap(cls: type, tmp_path: Path) -> Example:
    """Six generated examples (invented captions) with stand-in images."""
    root = tmp_path / "colorswap_example"
    data_colorswap.write_example(root, 6)
    return {"version": "custom"}, root


def eqben(cls: type, tmp_path: Path) -> Example:
    """Two generated examples per subset (invented captions, stand-in images, one .npy frame pair)."""
    root = tmp_path / "eqben_example"
    data_eqben.write_example(root, per_subset=2)
    return {"version": "custom"}, root


def hard_positives(cls: type, tmp_path: Path) -> Example:
    """Generated REPLACE and SWAP cases in the upstream schemas, with stand-in images."""
    root = tmp_path / "hard_positives_example"
    data_hard_positives.write_example(root)
    return {"version": "custom"}, root


def mmvp_vlm(cls: type, tmp_path: Path) -> Example:
    """Two generated patterns of 15 pairs (invented statements) and stand-in images."""
    root = tmp_path / "mmvp_vlm_example"
    data_mmvp_vlm.write_example(root, patterns=2)
    return {"version": "custom"}, root


def naturalbench(cls: type, tmp_path: Path) -> Example:
    """Four generated groups (invented questions) with stand-in images."""
    root = tmp_path / "naturalbench_example"
    data_naturalbench.write_example(root, 4)
    return {"version": "custom"}, root


def seetrue(cls: type, tmp_path: Path) -> Example:
    """Three generated sources of 4 pairs each (both labels), stand-in images; nothing from SeeTRUE."""
    root = tmp_path / "seetrue_example"
    return data_seetrue.write_example(root), root


def shapes(cls: type, tmp_path: Path) -> Example:
    """Six scenes of 32 px: every kind, a few instances each."""
    return data_shapes.write_example(tmp_path / "shapes_example")


def sugarcrepe(cls: type, tmp_path: Path) -> Example:
    """Two generated cases per subset (synthetic captions) and stand-in images."""
    root = tmp_path / "sugarcrepe_example"
    return data_sugarcrepe.write_example(root), root


def sugarcrepe_pp(cls: type, tmp_path: Path) -> Example:
    """Two generated cases per subset (invented captions) and stand-in images."""
    root = tmp_path / "sugarcrepe_pp_example"
    data_sugarcrepe_pp.write_example(root, per_subset=2)
    return {"version": "custom"}, root


def valse(cls: type, tmp_path: Path) -> Example:
    """Three generated samples per instrument (one not valid) with stand-in images."""
    root = tmp_path / "valse_example"
    data_valse.write_example(root)
    return {"version": "custom"}, root


def vismin(cls: type, tmp_path: Path) -> Example:
    """Two generated samples per category (invented captions) with stand-in images."""
    root = tmp_path / "vismin_example"
    data_vismin.write_example(root, per_category=2)
    return {"version": "custom"}, root


def vl_checklist(cls: type, tmp_path: Path) -> Example:
    """Two generated items in each of six corpus files, stand-in images; nothing from VL-CheckList."""
    root = tmp_path / "vl_checklist_example"
    return data_vl_checklist.write_example(root), root


def whatsup(cls: type, tmp_path: Path) -> Example:
    """Generated items for all six subsets (invented objects) with stand-in images."""
    root = tmp_path / "whatsup_example"
    data_whatsup.write_example(root)
    return {"version": "custom"}, root


def winoground(cls: type, tmp_path: Path) -> Example:
    """Six generated examples (synthetic captions, stand-in images) and generated tags."""
    root = tmp_path / "winoground_example"
    data_winoground.write_example(root, 6)
    return {"version": "custom"}, root


BENCHMARK_EXAMPLES: dict[str, Callable[[Any, Path], Example]] = {
    "aro_coco_order": aro_order,
    "aro_flickr30k_order": aro_order,
    "aro_vg_attribution": aro_vg_attribution,
    "aro_vg_relation": aro_vg_relation,
    "bivlc": bivlc,
    "colorswap": colorswap,
    "eqben": eqben,
    "hard_positives": hard_positives,
    "mmvp_vlm": mmvp_vlm,
    "naturalbench": naturalbench,
    "seetrue": seetrue,
    "shapes": shapes,
    "sugarcrepe": sugarcrepe,
    "sugarcrepe_pp": sugarcrepe_pp,
    "valse": valse,
    "vismin": vismin,
    "whatsup": whatsup,
    "winoground": winoground,
    "vl_checklist": vl_checklist,
}
"""Benchmark type name -> its example, called with the class and the test's temporary folder."""
