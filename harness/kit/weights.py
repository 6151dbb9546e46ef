"""Identifying weights: a resolved Hugging Face Hub revision, or the sha256 of a local file.

Used by model plugins in :meth:`~vlc_harness.models.Model.identify`. Network access is short and
optional: offline (``HF_HUB_OFFLINE=1`` or no route), a hub repo is identified by the revision
already in the local cache, and weights that are neither cached nor reachable raise
:class:`~vlc_harness.errors.WeightsUnavailable`, which makes the cell ``unavailable``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from vlc_harness.errors import WeightsUnavailable
from vlc_harness.hashing import sha256_file, sha256_tree

HUB_TIMEOUT_S = 10.0


def hub_offline() -> bool:
    """True when the Hugging Face Hub must not be contacted."""
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")


def file_identity(path: str | Path) -> str:
    """``sha256:<hex>`` of a local weights file (cached by path, size and mtime)."""
    return f"sha256:{sha256_file(Path(path))}"


def cached_revision(repo_id: str, filenames: Sequence[str], revision: str | None = None) -> str | None:
    """The commit of the first of ``filenames`` present in the local hub cache, if any."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    for name in filenames:
        found = try_to_load_from_cache(repo_id, name, revision=revision)
        if isinstance(found, str):
            return Path(found).parent.name  # .../snapshots/<commit>/<file>
    return None


def hub_identity(
    repo_id: str, filenames: Sequence[str], timeout: float = HUB_TIMEOUT_S, revision: str | None = None
) -> str:
    """``hf:<repo>@<commit>`` for a hub repository, resolved online or from the local cache.

    ``revision`` (a branch, tag or commit) pins what is resolved; a full 40-character commit is
    taken as is.
    """
    if revision is not None and len(revision) == 40 and all(c in "0123456789abcdef" for c in revision):
        return f"hf:{repo_id}@{revision}"
    reason = "HF_HUB_OFFLINE is set"
    if not hub_offline():
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
                raise WeightsUnavailable(f"Hugging Face repository {repo_id} does not exist or is gated") from None
            except Exception as exc:  # no route, DNS, timeout, proxy: all mean "not now"
                reason = f"huggingface.co is unreachable ({type(exc).__name__})"
    cached = cached_revision(repo_id, filenames, revision)
    if cached:
        return f"hf:{repo_id}@{cached}"
    wanted = " or ".join(filenames) or "its weights"
    raise WeightsUnavailable(f"{repo_id} ({wanted}) is not in the local Hugging Face cache and {reason}")


def dir_identity(folder: str | Path) -> str:
    """sha256 over the names and sha256 of the files in a local checkpoint folder (recursive)."""
    return sha256_tree(Path(folder))


HF_WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "config.json")


def checkpoint_identity(checkpoint: str, revision: str | None = None) -> str:
    """Identity of a transformers checkpoint: ``local-dir:<hash>`` for a folder, else the hub's.

    A name that is neither an existing folder nor a hub repo id raises a clear error.
    """
    path = Path(checkpoint).expanduser()
    if path.is_dir():
        return "local-dir:" + dir_identity(path)
    if checkpoint.count("/") != 1 or checkpoint.startswith(("/", ".", "~")):
        raise WeightsUnavailable(f"{checkpoint} is neither a local checkpoint folder nor a hub repo id (org/name)")
    return hub_identity(checkpoint, HF_WEIGHT_FILES, revision=revision)


def pinned_revision(identity: str) -> str | None:
    """The commit to load for a hub identity (``hf:<repo>@<commit>``); ``None`` for local folders."""
    return identity.rsplit("@", 1)[1] if identity.startswith("hf:") and "@" in identity else None


def checkpoint_config(checkpoint: str, identity: str) -> dict:
    """The ``config.json`` of a checkpoint folder, or of the identified hub commit (from the cache
    when offline), without importing transformers."""
    import json

    path = Path(checkpoint).expanduser()
    if path.is_dir():
        file = path / "config.json"
    else:
        from huggingface_hub import hf_hub_download

        file = Path(hf_hub_download(checkpoint, "config.json", revision=pinned_revision(identity)))
    return json.loads(file.read_text(encoding="utf-8"))
