"""The Hugging Face repositories an open_clip model reads besides its weights; a helper, no hooks.

An open_clip model whose text tower comes from transformers (``text_cfg.hf_model_name``: LAION's
roberta and xlm-roberta towers) builds that tower from its repository's ``config.json``, and one
with a Hugging Face tokenizer (``text_cfg.hf_tokenizer_name``: those towers, SigLIP 2's Gemma
tokenizer, MetaCLIP 2 worldwide's ``facebook/xlm-v-base``) loads the tokenizer from its
repository. :func:`check_text_repos` checks both in ``identify()`` (online: the repository exists;
offline: its files are in the local cache), so a missing one makes the cells ``unavailable``,
naming what to download, instead of failing in ``load()``. Nothing here imports open_clip or
torch: a named architecture's config is read from open_clip's bundled JSON file.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from vlc_harness.errors import WeightsUnavailable
from vlc_harness.kit.weights import hub_identity, tokenizer_identity

HF_HUB = "hf-hub:"
LOCAL_DIR = "local-dir:"
OPEN_CLIP_CONFIG = "open_clip_config.json"


def bundled_config(name: str) -> dict[str, Any] | None:
    """open_clip's config of a model name: from open_clip itself when it is already imported (it
    also knows configs added at run time), else from its bundled ``model_configs/<name>.json``."""
    if "open_clip" in sys.modules:
        return sys.modules["open_clip"].get_model_config(name)
    try:
        spec = importlib.util.find_spec("open_clip")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        file = Path(folder) / "model_configs" / f"{name}.json"
        if file.is_file():
            return json.loads(file.read_text(encoding="utf-8"))
    return None


def hub_config(repo: str, commit: str | None) -> dict[str, Any] | None:
    """The ``model_cfg`` of a hub repository's ``open_clip_config.json`` when it is cached."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    found = try_to_load_from_cache(repo, OPEN_CLIP_CONFIG, revision=commit)
    if not isinstance(found, str):
        return None
    config = json.loads(Path(found).read_text(encoding="utf-8"))
    return config.get("model_cfg", config)


def model_config(arch: str | dict[str, Any], commit: str | None = None) -> dict[str, Any] | None:
    """The model config of ``arch``: an inline dict, a ``local-dir:`` folder's, a cached
    ``hf-hub:`` repository's (at ``commit``), or a named architecture's."""
    if isinstance(arch, dict):
        return arch
    if arch.startswith(LOCAL_DIR):
        file = Path(arch[len(LOCAL_DIR) :]) / OPEN_CLIP_CONFIG
        config = json.loads(file.read_text(encoding="utf-8")) if file.is_file() else {}
        return config.get("model_cfg", config)
    if arch.startswith(HF_HUB):
        return hub_config(arch[len(HF_HUB) :], commit)
    return bundled_config(arch)


def text_repos(arch: str | dict[str, Any], config: dict[str, Any] | None) -> list[tuple[str, str]]:
    """``(what, repository)`` for each Hugging Face repository the text tower and tokenizer read,
    as open_clip's ``create_model`` and ``get_tokenizer`` resolve them."""
    text = (config or {}).get("text_cfg", {})
    name = arch if isinstance(arch, str) else ""
    out = []
    if text.get("hf_model_name"):
        out.append(("text tower config", str(text["hf_model_name"])))
    # a hub model whose config cannot be read falls back to its own repository as the tokenizer;
    # a local folder's tokenizer is the folder itself
    tokenizer = text.get("hf_tokenizer_name") or (name[len(HF_HUB) :] if name.startswith(HF_HUB) and not config else "")
    if tokenizer and not name.startswith(LOCAL_DIR):
        out.append(("tokenizer", str(tokenizer)))
    return out


def check_text_repos(arch: str | dict[str, Any], commit: str | None = None) -> None:
    """Raise :class:`WeightsUnavailable` when a repository the model's text side reads cannot be
    had here (``commit``: the identified commit of an ``hf-hub:`` architecture)."""
    for what, repo in text_repos(arch, model_config(arch, commit)):
        if Path(repo).expanduser().is_dir():
            continue
        try:
            if what == "tokenizer":
                tokenizer_identity(repo)
            else:
                hub_identity(repo, ["config.json"])
        except WeightsUnavailable as exc:
            name = arch if isinstance(arch, str) else "the inline config"
            raise WeightsUnavailable(f"{name} needs the {what} {repo}: {exc}", exc.code) from None
