"""Model fingerprints: the hash of everything that changes a model's scores, the scoring stack included."""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from pathlib import Path
from typing import Any

from vlc_harness.hashing import sha256_file, sha256_tree
from vlc_harness.models import Identity
from vlc_harness.specs import PATH_PREFIXES
from vlc_harness.types import canonical_json


def fingerprint_content(
    model_type: str, params: dict[str, Any], identity: Identity, scoring_version: str, stack: dict[str, Any]
) -> dict[str, Any]:
    """What the fingerprint hashes: type, normalised params, weights, dtype, protocol, scoring version
    and the scoring stack.

    ``run`` options (batch size, device, prices, secret names) are deliberately absent, and a
    local file or folder in the params counts by its content (:func:`content_addressed`). ``stack``
    is :func:`vlc_harness.stack.model_stack`: the public versions of the distributions the type
    declares can change its scores and, for a third-party type, its own distribution (pin and hashes,
    or a digest of its source).
    """
    return {
        "type": model_type,
        "params": content_addressed(params),
        "weights": identity.weights,
        "dtype": identity.dtype,
        "protocol": identity.protocol,
        "scoring_version": scoring_version,
        "stack": stack,
    }


def content_addressed(value: Any, base: Path | None = None) -> Any:
    """``value`` with every local path replaced by its content: a file by ``sha256:<hex>``, a
    folder by ``sha256-tree:<hex>`` (a ``local-dir:`` prefix is kept).

    So one checkpoint named by a relative path, an absolute path or a copy elsewhere is one model,
    and a checkpoint overwritten in place is a new one. Paths are absolute after registry loading;
    ``base`` resolves relative ones (a store migration reading v0.1 params, which were relative to
    the folder the run started in). Strings that name nothing on disk are kept as given.
    """
    if isinstance(value, dict):
        return {k: content_addressed(v, base) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [content_addressed(v, base) for v in value]
    if not isinstance(value, str):
        return value
    prefix = next((p for p in PATH_PREFIXES if value.startswith(p)), "")
    rest = value[len(prefix) :]
    if not rest or "\n" in rest or len(rest) > 4096:
        return value
    path = Path(rest).expanduser()
    if not path.is_absolute():
        if base is None or not (rest.startswith(("./", "../")) or "/" in rest or path.suffix):
            return value
        path = base / path
    try:
        if path.is_file():
            return f"{prefix}sha256:{sha256_file(path)}"
        if path.is_dir():
            return f"{prefix}sha256-tree:{sha256_tree(path)}"
    except OSError:
        return value
    return value


def model_fingerprint(content: dict[str, Any]) -> str:
    """sha256 hex of the canonical JSON of :func:`fingerprint_content`."""
    return hashlib.sha256(canonical_json(content).encode()).hexdigest()


def identity_record(content: dict[str, Any], identity: Identity) -> dict[str, Any]:
    """The JSON stored with a model row: the fingerprinted content plus unhashed details."""
    return {**content, "details": asdict(identity)["details"]}
