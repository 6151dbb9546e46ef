"""The night's install step: the extras, no-deps packages, spaCy models and plugin packages the
registry's entries need, installed into this environment from the harness checkout."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

from vlc_harness.ci.nightly.steps import Step

CHECKOUT = Path(__file__).resolve().parents[3]
"""The checkout this package runs from (``harness/ci/nightly/install.py``: an editable install, as the
workflow's): the install step installs it with extras under its ``constraints.txt``."""
TYPE_EXTRAS: dict[str, tuple[str, ...]] = {
    # models (plugins/models): the packages each type's load() imports
    "open_clip": ("openclip",),
    "open_clip_tuned": ("openclip",),
    "shapes_clip": ("openclip",),
    "hf_contrastive": ("hf",),
    "blip_itm": ("hf",),
    "captioning_likelihood": ("hf",),
    "clip_flant5": ("hf",),
    "vqascore": ("hf",),
    "vqascore_internvl": ("hf",),
    "vqascore_llava_onevision": ("hf",),
    "vqascore_qwen_vl": ("hf",),
    "vqa_likelihood": ("hf",),
    "t2v_metrics": ("hf",),
    "blind_causal_lm": ("hf",),
    "blind_classifier": ("hf",),
    "blind_vera": ("hf",),
    "blind_minilm_centroid": ("blind",),
    "blind_harper": ("blind",),
    "openai_choice": ("api",),
    "openai_logprob": ("api",),
    "random": (),
    "precomputed": (),
    # benchmarks (plugins/benchmarks): `data fetch` from the Hugging Face hub, spaCy tagging
    "bivlc": ("data",),
    "colorswap": ("data",),
    "mmvp_vlm": ("data",),
    "naturalbench": ("data",),
    "seetrue": ("data",),
    "vismin": ("data",),
    "winoground": ("data",),
    "aro_coco_order": ("aro",),
    "aro_flickr30k_order": ("aro",),
    "aro_vg_attribution": (),
    "aro_vg_relation": (),
    "eqben": (),
    "hard_positives": (),
    "shapes": (),
    "sugarcrepe": (),
    "sugarcrepe_pp": (),
    "valse": (),
    "vl_checklist": (),
    "whatsup": (),
}
"""pyproject.toml's optional-dependency extras each built-in type needs (a type not listed is a
third party's: its plugin package brings what it needs)."""
NO_DEPS = {"t2v_metrics": "t2v_metrics"}
"""Types whose package installs without its dependencies (it pins old ones; CONTRIBUTING)."""
SPACY_TYPES = frozenset({"aro_coco_order", "aro_flickr30k_order"})
"""Benchmark types that tag with spaCy (their ``tagger`` param names the model)."""


def install_commands(registry: Any, registry_path: Path | None = None) -> list[list[str]]:
    """The commands that install what the registry's entries need (run from the repository root): the
    extras of its types, their no-deps packages, spaCy's model, and the plugin packages its ``plugins:``
    section pins (``vlc-harness plugins install``: hashes required, no dependencies, under the constraints)."""
    types = [e.type for e in registry.models.values()] + [e.type for e in registry.benchmarks.values()]
    extras = sorted({x for t in types for x in TYPE_EXTRAS.get(t, ())})
    pip = [sys.executable, "-m", "pip", "install", "-c", str(CHECKOUT / "constraints.txt")]
    commands = [[*pip, "-e", f"{CHECKOUT}[{','.join(extras)}]" if extras else str(CHECKOUT)]]
    no_deps = sorted({NO_DEPS[t] for t in types if t in NO_DEPS})
    if no_deps:
        commands.append([*pip, "--no-deps", *no_deps])
    models = sorted({_spacy_model(e.params) for e in registry.benchmarks.values() if e.type in SPACY_TYPES} - {None})
    commands += [[sys.executable, "-m", "spacy", "download", m] for m in models]
    if getattr(registry, "packages", None) and registry_path is not None:
        commands.append([sys.executable, "-m", "vlc_harness", "plugins", "install", "--registry", str(registry_path)])
    return commands


def _spacy_model(params: Any) -> str | None:
    tagger = str(getattr(params, "tagger", "spacy"))
    if not tagger.startswith("spacy"):
        return None  # a table of tags read from a file
    return tagger.partition(":")[2] or "en_core_web_sm"


def install(registry: Any, enabled: bool, registry_path: Path | None = None) -> Step:
    """Run :func:`install_commands` (``enabled`` false: name them only)."""
    step = Step("install", skipped=not enabled)
    for cmd in install_commands(registry, registry_path):
        shown = " ".join(cmd)
        if not enabled:
            step.lines.append(f"skipped (--no-install): `{shown}`")
            continue
        done = subprocess.run(cmd, cwd=CHECKOUT)
        step.lines.append(f"{'ok' if done.returncode == 0 else f'failed (exit {done.returncode})'}: `{shown}`")
        if done.returncode:
            step.code = 1
            break
    importlib.invalidate_caches()
    return step
