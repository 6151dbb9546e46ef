"""Identifying weights: a resolved Hugging Face Hub revision, or the sha256 of a local file.

Used by model plugins in :meth:`~harness.models.Model.identify`. Network access is short and
optional: offline (``HF_HUB_OFFLINE=1`` or no route), a hub repo is identified by the revision
already in the local cache, and weights that are neither cached nor reachable raise
:class:`~harness.errors.WeightsUnavailable`, which makes the cell ``unavailable``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from harness.errors import WeightsUnavailable
from harness.hashing import sha256_file

HUB_TIMEOUT_S = 10.0


def hub_offline() -> bool:
    """True when the Hugging Face Hub must not be contacted."""
    return os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")


def file_identity(path: str | Path) -> str:
    """``sha256:<hex>`` of a local weights file (cached by path, size and mtime)."""
    return f"sha256:{sha256_file(Path(path))}"


def cached_revision(repo_id: str, filenames: Sequence[str]) -> str | None:
    """The commit of the first of ``filenames`` present in the local hub cache, if any."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    for name in filenames:
        found = try_to_load_from_cache(repo_id, name)
        if isinstance(found, str):
            return Path(found).parent.name  # .../snapshots/<commit>/<file>
    return None


def hub_identity(repo_id: str, filenames: Sequence[str], timeout: float = HUB_TIMEOUT_S) -> str:
    """``hf:<repo>@<commit>`` for a hub repository, resolved online or from the local cache."""
    reason = "HF_HUB_OFFLINE is set"
    if not hub_offline():
        try:
            from huggingface_hub import HfApi
            from huggingface_hub.errors import RepositoryNotFoundError
        except ImportError:
            reason = "huggingface_hub is not installed"
        else:
            try:
                info = HfApi().model_info(repo_id, timeout=timeout)
                if info.sha:
                    return f"hf:{repo_id}@{info.sha}"
            except RepositoryNotFoundError:
                raise WeightsUnavailable(f"Hugging Face repository {repo_id} does not exist or is gated") from None
            except Exception as exc:  # no route, DNS, timeout, proxy: all mean "not now"
                reason = f"huggingface.co is unreachable ({type(exc).__name__})"
    revision = cached_revision(repo_id, filenames)
    if revision:
        return f"hf:{repo_id}@{revision}"
    wanted = " or ".join(filenames) or "its weights"
    raise WeightsUnavailable(f"{repo_id} ({wanted}) is not in the local Hugging Face cache and {reason}")
