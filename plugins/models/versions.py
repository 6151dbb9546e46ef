"""Installed-version gates shared by the model plugins (no hooks: a helper module).

A model that the installed ``open_clip_torch``, ``timm`` or ``transformers`` does not know yet
must give ``unavailable`` cells that say which version it needs, never a failed run or a score
from something else. The versions are read with :mod:`importlib.metadata`, so that
``identify()`` imports no framework.

Minimums (checked against the packages' release history; see docs/models.md):

* open_clip_torch: EVA02 ``2.20.0``, DFN5B tags ``2.24.0``, SigLIP 2 ``2.31.0`` (its gopt tower
  needs timm ``1.0.15``), PE-Core ``3.0.0``, MetaCLIP 2 worldwide ``3.1.0``, MobileCLIP2
  ``3.2.0`` (S3/S4 need timm ``1.0.20`` for ``fastvit_mci3``/``mci4``).
* transformers: LLaVA-OneVision ``4.45.0``, SigLIP 2 (``Siglip2Model``) ``4.50.0``, InternVL (``-hf``
  checkpoints) ``4.52.1``. Where our scorers call an interface newer than the family itself, the gate
  is that interface's first release, read from the published wheels' modelling files: Qwen2-VL and
  Qwen2.5-VL ``5.3.0`` (M-RoPE's ``get_rope_index(mm_token_type_ids=...)``; the families arrived in
  4.45.0 and 4.49.0), Qwen3-VL ``5.24.0`` (the DeepStack runner passes ``cache=`` to
  ``Qwen3VLTextModel.forward``, which took ``past_key_values`` up to 5.23.0; the family arrived in 4.57.0).
  The t2v_metrics recipes (VQAScore's ``prompt: t2v_metrics``) and CLIP-FlanT5 load their image
  processor with ``backend="pil"``, which transformers reads from ``5.4.0`` (:data:`PIL_BACKEND`).

Where each minimum was read (wheel, file and line): :data:`GATE_SOURCES` (transformers) and
:data:`OPEN_CLIP_SOURCES` (open_clip_torch, timm).
"""

from __future__ import annotations

import difflib
import importlib.metadata
import importlib.util
import re
from pathlib import Path

from vlc_harness.errors import WeightsUnavailable
from vlc_harness.reasons import Reason

OPEN_CLIP_REQUIREMENTS: tuple[tuple[str, str, str, dict[str, str]], ...] = (
    # (model-name pattern, pretrained-tag pattern, what, {distribution: minimum}); the first match applies
    (r"^EVA02-", "", "EVA-02 CLIP", {"open_clip_torch": "2.20.0"}),
    (r"^ViT-H-14(-378)?(-quickgelu)?$", r"^dfn5b$", "DFN5B", {"open_clip_torch": "2.24.0"}),
    (r"^ViT-gopt-16-SigLIP2", "", "SigLIP 2 gopt", {"open_clip_torch": "2.31.0", "timm": "1.0.15"}),
    (r"-SigLIP2(-\d+)?$", "", "SigLIP 2", {"open_clip_torch": "2.31.0"}),
    (r"^PE-Core-", "", "Perception Encoder PE-Core", {"open_clip_torch": "3.0.0", "timm": "1.0.17"}),
    (r"-worldwide", "", "MetaCLIP 2 worldwide", {"open_clip_torch": "3.1.0"}),
    (r"^MobileCLIP2-S[34]$", "", "MobileCLIP2 S3/S4", {"open_clip_torch": "3.2.0", "timm": "1.0.20"}),
    (r"^MobileCLIP2-", "", "MobileCLIP2", {"open_clip_torch": "3.2.0"}),
)
"""open_clip model names (and tags) and the package versions that first know them."""

TRANSFORMERS_REQUIREMENTS: dict[str, tuple[str, str]] = {
    "llava_onevision": ("LLaVA-OneVision", "4.45.0"),
    "qwen2_vl": ("Qwen2-VL (M-RoPE with mm_token_type_ids)", "5.3.0"),
    "qwen2_5_vl": ("Qwen2.5-VL (M-RoPE with mm_token_type_ids)", "5.3.0"),
    "siglip2": ("SigLIP 2 (Siglip2Model)", "4.50.0"),
    "internvl": ("InternVL (-hf checkpoints)", "4.52.1"),
    "qwen3_vl": ("Qwen3-VL (text model taking cache=)", "5.24.0"),
}
"""transformers ``model_type`` and the version that first knows it."""

GATE_SOURCES: dict[str, tuple[str, str]] = {
    # gate: (the wheel read, the file and line that first has the interface); the release before lacks it
    "llava_onevision": (
        "transformers-4.45.0-py3-none-any.whl",
        'models/auto/configuration_auto.py:154 ("llava_onevision", "LlavaOnevisionConfig"); not in 4.44.2',
    ),
    "siglip2": (
        "transformers-4.50.0-py3-none-any.whl",
        'models/auto/configuration_auto.py:280 ("siglip2", "Siglip2Config"); not in 4.49.0',
    ),
    "internvl": (
        "transformers-4.52.1-py3-none-any.whl",
        'models/auto/configuration_auto.py:170 ("internvl", "InternVLConfig"); 4.52.0 (same line) is yanked',
    ),
    "qwen2_vl": (
        "transformers-5.3.0-py3-none-any.whl",
        "models/qwen2_vl/modeling_qwen2_vl.py:1050-1053 get_rope_index(self, input_ids, mm_token_type_ids, ...); "
        "5.2.0's (line 993) takes no mm_token_type_ids",
    ),
    "qwen2_5_vl": (
        "transformers-5.3.0-py3-none-any.whl",
        "models/qwen2_5_vl/modeling_qwen2_5_vl.py:1077-1080 get_rope_index(self, input_ids, mm_token_type_ids, ...); "
        "5.2.0's (line 1019) takes no mm_token_type_ids",
    ),
    "qwen3_vl": (
        "transformers-5.24.0-py3-none-any.whl",
        "models/qwen3_vl/modeling_qwen3_vl.py:756-761 Qwen3VLTextModel.forward(..., cache: Cache | None = None, ...); "
        "5.23.0's (line 755) takes past_key_values",
    ),
    "pil_backend": (
        "transformers-5.4.0-py3-none-any.whl",
        'models/auto/image_processing_auto.py:655 backend_kwarg = kwargs.pop("backend", None) (resolved by '
        "_resolve_backend, line 419); 5.3.0's from_pretrained (lines 486-563) reads only use_fast",
    ),
}
"""Where each transformers minimum was read: the PyPI wheel and the file (under ``transformers/``) and
line that first has what our code calls (tests/plugins/models/test_version_gates.py checks each on the
installed release with :mod:`inspect`)."""

OPEN_CLIP_SOURCES: dict[str, tuple[str, ...]] = {
    # OPEN_CLIP_REQUIREMENTS' ``what``: the wheels read (file, line) for each minimum; the release before lacks it
    "EVA-02 CLIP": ("open_clip_torch-2.20.0-py3-none-any.whl: open_clip/model_configs/EVA02-B-16.json; not in 2.19.0",),
    "DFN5B": ("open_clip_torch-2.24.0-py3-none-any.whl: open_clip/pretrained.py:235 dfn5b=_pcfg(; not in 2.23.0",),
    "SigLIP 2 gopt": (
        "open_clip_torch-2.31.0-py3-none-any.whl: open_clip/model_configs/ViT-gopt-16-SigLIP2-256.json "
        '("timm_model_name": "vit_giantopt_patch16_siglip_256"); not in 2.30.0',
        "timm-1.0.15-py3-none-any.whl: timm/models/vision_transformer.py:3384 def vit_giantopt_patch16_siglip_256; "
        "not in 1.0.14",
    ),
    "SigLIP 2": (
        "open_clip_torch-2.31.0-py3-none-any.whl: open_clip/model_configs/ViT-B-16-SigLIP2.json; not in 2.30.0",
    ),
    "Perception Encoder PE-Core": (
        "open_clip_torch-3.0.0-py3-none-any.whl: open_clip/model_configs/PE-Core-B-16.json; not in 2.32.0",
        "open_clip_torch-3.0.0-py3-none-any.whl: METADATA Requires-Dist: timm>=1.0.17 (timm-1.0.17-py3-none-any.whl "
        "timm/models/eva.py:1803 def vit_pe_core_base_patch16_224; 1.0.16 defines it too, line 1642)",
    ),
    "MetaCLIP 2 worldwide": (
        "open_clip_torch-3.1.0-py3-none-any.whl: open_clip/model_configs/ViT-H-14-worldwide-378.json; not in 3.0.0",
    ),
    "MobileCLIP2 S3/S4": (
        "open_clip_torch-3.2.0-py3-none-any.whl: open_clip/model_configs/MobileCLIP2-S3.json; not in 3.1.0",
        "timm-1.0.20-py3-none-any.whl: timm/models/fastvit.py:1688 def fastvit_mci3; not in 1.0.19",
    ),
    "MobileCLIP2": (
        "open_clip_torch-3.2.0-py3-none-any.whl: open_clip/model_configs/MobileCLIP2-S0.json; not in 3.1.0",
    ),
}
"""Where each open_clip and timm minimum was read (the PyPI wheels), by ``OPEN_CLIP_REQUIREMENTS``' ``what``."""

PIL_BACKEND = ("the PIL image processor (AutoImageProcessor backend='pil')", "5.4.0")
"""What needs the first transformers 5 release whose ``AutoImageProcessor.from_pretrained`` reads
``backend=`` (``GATE_SOURCES["pil_backend"]``); 5.0 to 5.3 drop the keyword without an error."""


def version_tuple(version: str) -> tuple[int, ...]:
    """The leading numeric release of a version string: ``'2.31.0.dev1+cu12'`` -> ``(2, 31, 0)``."""
    parts = []
    for part in version.split("+")[0].split("."):
        match = re.match(r"\d+", part)
        if match is None:
            break
        parts.append(int(match.group()))
        if match.group() != part:
            break
    return tuple(parts)


def installed(distribution: str) -> str | None:
    """The installed version of a distribution, or ``None``."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def require(requirements: dict[str, str], what: str) -> None:
    """Raise :class:`WeightsUnavailable` naming every distribution below its minimum version."""
    missing = []
    for dist, minimum in requirements.items():
        have = installed(dist)
        if have is None or version_tuple(have) < version_tuple(minimum):
            missing.append(f"{dist}>={minimum} (installed: {have or 'none'})")
    if missing:
        raise WeightsUnavailable(f"{what} needs {', '.join(missing)}; upgrade to run it", Reason.VERSION_TOO_OLD)


def require_pil_backend() -> None:
    """Check that the installed transformers reads the ``backend="pil"`` keyword the t2v_metrics inputs
    and CLIP-FlanT5 pass to ``AutoImageProcessor.from_pretrained`` (:data:`PIL_BACKEND`): transformers
    5.0 to 5.3 drop it silently and resize with the torchvision backend. A 4.x release takes
    ``use_fast=False`` instead (``pil_image_processor``); a missing transformers is left to the loader."""
    have = installed("transformers")
    if have is not None and (5,) <= version_tuple(have) < version_tuple(PIL_BACKEND[1]):
        require({"transformers": PIL_BACKEND[1]}, PIL_BACKEND[0])


def require_open_clip_model(name: str, tag: str | None = None) -> None:
    """Check that the installed open_clip (and timm) know the model ``name`` (with pretrained ``tag``)."""
    for pattern, tag_pattern, what, requirements in OPEN_CLIP_REQUIREMENTS:
        if re.search(pattern, name) and (not tag_pattern or re.search(tag_pattern, tag or "")):
            require(requirements, f"{what} ({name}{'/' + tag if tag else ''})")
            return


def require_transformers_model(model_type: str) -> None:
    """Check that the installed transformers knows ``model_type`` (a no-op for older families)."""
    if model_type in TRANSFORMERS_REQUIREMENTS:
        what, minimum = TRANSFORMERS_REQUIREMENTS[model_type]
        require({"transformers": minimum}, what)


def open_clip_model_names() -> set[str] | None:
    """The model names of the installed open_clip's bundled configs (read from its package folder,
    without importing it), or ``None`` when open_clip is not installed."""
    try:
        spec = importlib.util.find_spec("open_clip")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folders = [Path(p) / "model_configs" for p in spec.submodule_search_locations]
    return {f.stem for folder in folders for f in folder.glob("*.json")}


def check_open_clip_name(name: str) -> None:
    """Raise ``ValueError`` for a model name the installed open_clip does not know, unless a newer
    open_clip knows it (then the cells are ``unavailable``, naming the version, as before)."""
    known = open_clip_model_names()
    if not known or name in known:
        return
    try:
        require_open_clip_model(name)
    except WeightsUnavailable:
        return
    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise ValueError(
        f'arch {name!r} is not an open_clip model name{hint} (`python -c "import open_clip; '
        f"print(open_clip.list_models())\"` lists them; an inline config is `arch: '@config.json'`)"
    )
