"""Identifying weights: a resolved Hugging Face Hub revision, or the sha256 of a local file.

Used by model plugins in :meth:`~vlc_harness.models.Model.identify`. Network access is short and
optional: offline (``HF_HUB_OFFLINE=1`` or no route), a hub repo is identified by the revision
already in the local cache, and weights that are neither cached nor reachable raise
:class:`~vlc_harness.errors.WeightsUnavailable`, which makes the cell ``unavailable``.

Offline, identification checks every file the model will read from the cache, not just one: the
weights (with every shard a ``*.index.json`` names), the ``config.json`` beside them, and the
tokenizer of another repository (:func:`tokenizer_identity`), so that a partial cache gives an
``unavailable`` cell naming what to download instead of a failure in ``load()``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from vlc_harness.errors import WeightsUnavailable
from vlc_harness.hashing import sha256_file, sha256_tree
from vlc_harness.reasons import Reason

HUB_TIMEOUT_S = 10.0
TOKENIZER_VOCAB_FILES = (
    "tokenizer.json",
    "sentencepiece.bpe.model",
    "spiece.model",
    "tokenizer.model",
    "vocab.json",
    "vocab.txt",
)
"""A tokenizer's vocabulary: one of these files (a fast tokenizer keeps everything in ``tokenizer.json``)."""
TOKENIZER_NEEDS = (("config.json",),)
"""What ``AutoTokenizer`` reads besides the vocabulary: transformers 5 loads a hub repository's
``config.json`` before the tokenizer's own files, so offline it must be cached."""


def hub_offline() -> bool:
    """True when the Hugging Face Hub must not be contacted."""
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")


def file_identity(path: str | Path) -> str:
    """``sha256:<hex>`` of a local weights file (cached by path, size and mtime)."""
    return f"sha256:{sha256_file(Path(path))}"


def cached_revision(repo_id: str, filenames: Sequence[str], revision: str | None = None) -> str | None:
    """The commit of the first of ``filenames`` present in the local hub cache, if any."""
    found = _cached_file(repo_id, filenames, revision)
    return _in_snapshot(found)[0] if found else None


def _cached_file(repo_id: str, filenames: Sequence[str], revision: str | None) -> str | None:
    """The cached path of the first of ``filenames`` present at ``revision`` (default: main)."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    for name in filenames:
        found = try_to_load_from_cache(repo_id, name, revision=revision)
        if isinstance(found, str):
            return found
    return None


def _in_snapshot(cached: str) -> tuple[str, str]:
    """(commit, path inside the snapshot) of a cached file (``.../snapshots/<commit>/<path>``)."""
    parts = Path(cached).parts
    at = len(parts) - 1 - parts[::-1].index("snapshots")
    return parts[at + 1], "/".join(parts[at + 2 :])


def _missing_in_cache(repo_id: str, found: str, needs: Sequence[Sequence[str]]) -> list[str]:
    """What the snapshot holding ``found`` lacks: each group of ``needs`` none of whose files is
    there, and each shard that ``found`` names when it is a weights index (``*.index.json``)."""
    commit, inside = _in_snapshot(found)
    missing = [" or ".join(group) for group in needs if _cached_file(repo_id, group, commit) is None]
    if inside.endswith(".index.json"):
        folder = inside.rpartition("/")[0]
        index = json.loads(Path(found).read_text(encoding="utf-8"))
        shards = sorted({f"{folder}/{s}" if folder else s for s in index.get("weight_map", {}).values()})
        missing += [s for s in shards if _cached_file(repo_id, [s], commit) is None]
    return missing


def _is_commit(revision: str | None) -> bool:
    """True for a full 40-character commit hash."""
    return revision is not None and len(revision) == 40 and all(c in "0123456789abcdef" for c in revision)


def hub_identity(
    repo_id: str,
    filenames: Sequence[str],
    timeout: float = HUB_TIMEOUT_S,
    revision: str | None = None,
    needs: Sequence[Sequence[str]] = (),
) -> str:
    """``hf:<repo>@<commit>`` for a hub repository, resolved online or from the local cache.

    ``filenames`` are the weights (the first one cached identifies the commit); ``needs`` are the
    other files the model reads from the same commit, each a group of alternatives. Offline, the
    cached snapshot must hold one file of every group (and every shard of a weights index), else
    :class:`~vlc_harness.errors.WeightsUnavailable` names what is missing. ``revision`` (a branch,
    tag or commit) pins what is resolved; a full 40-character commit is taken as is online.
    """
    reason = "HF_HUB_OFFLINE is set"
    if not hub_offline():
        if _is_commit(revision):
            return f"hf:{repo_id}@{revision}"
        try:
            from huggingface_hub import HfApi
            from huggingface_hub.errors import RepositoryNotFoundError
        except ImportError:
            reason = "huggingface_hub is not installed"
        else:
            try:
                info = HfApi().model_info(repo_id, revision=revision, timeout=timeout)
                if info.sha:
                    return f"hf:{repo_id}@{info.sha}"
            except RepositoryNotFoundError:
                raise WeightsUnavailable(
                    f"Hugging Face repository {repo_id} does not exist or is gated", Reason.GATED
                ) from None
            except Exception as exc:  # no route, DNS, timeout, proxy: all mean "not now"
                reason = f"huggingface.co is unreachable ({type(exc).__name__})"
    found = _cached_file(repo_id, filenames, revision)
    if found is None:
        wanted = " or ".join(filenames) or "its weights"
        raise WeightsUnavailable(f"{repo_id} ({wanted}) is not in the local Hugging Face cache and {reason}")
    commit = _in_snapshot(found)[0]
    missing = _missing_in_cache(repo_id, found, needs)
    if missing:
        raise WeightsUnavailable(
            f"{repo_id}@{commit[:12]} in the local Hugging Face cache lacks {', '.join(missing)} and {reason}; "
            f"download the repository (huggingface-cli download {repo_id})"
        )
    return f"hf:{repo_id}@{commit}"


def tokenizer_identity(name: str) -> str:
    """``hf:<repo>@<commit>`` of a tokenizer repository (a vocabulary file and the repository's
    ``config.json``, checked as :func:`hub_identity` checks weights), or ``local-dir:<hash>`` of a folder."""
    path = Path(name).expanduser()
    if path.is_dir():
        return "local-dir:" + dir_identity(path)
    return hub_identity(name, TOKENIZER_VOCAB_FILES, needs=TOKENIZER_NEEDS)


def dir_identity(folder: str | Path) -> str:
    """sha256 over the names and sha256 of the files in a local checkpoint folder (recursive)."""
    return sha256_tree(Path(folder))


HF_WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
"""A transformers checkpoint's weights (one of them; an index brings its shards)."""
HF_CONFIG_FILES = (("config.json",),)
"""What a transformers checkpoint needs beside its weights."""


def checkpoint_identity(checkpoint: str, revision: str | None = None) -> str:
    """Identity of a transformers checkpoint: ``local-dir:<hash>`` for a folder, else the hub's.

    A name that is neither an existing folder nor a hub repo id raises a clear error.
    """
    path = Path(checkpoint).expanduser()
    if path.is_dir():
        return "local-dir:" + dir_identity(path)
    if checkpoint.count("/") != 1 or checkpoint.startswith(("/", ".", "~")):
        raise WeightsUnavailable(f"{checkpoint} is neither a local checkpoint folder nor a hub repo id (org/name)")
    return hub_identity(checkpoint, HF_WEIGHT_FILES, revision=revision, needs=HF_CONFIG_FILES)


def pinned_revision(identity: str) -> str | None:
    """The commit to load for a hub identity (``hf:<repo>@<commit>``); ``None`` for local folders."""
    return identity.rsplit("@", 1)[1] if identity.startswith("hf:") and "@" in identity else None


def checkpoint_config(checkpoint: str, identity: str) -> dict:
    """The ``config.json`` of a checkpoint folder, or of the identified hub commit (from the cache
    when offline), without importing transformers."""
    path = Path(checkpoint).expanduser()
    if path.is_dir():
        file = path / "config.json"
    else:
        from huggingface_hub import hf_hub_download

        file = Path(hf_hub_download(checkpoint, "config.json", revision=pinned_revision(identity)))
    return json.loads(file.read_text(encoding="utf-8"))
