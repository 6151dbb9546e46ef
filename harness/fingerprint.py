"""Model fingerprints: the hash of everything that changes a model's scores."""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from typing import Any

from vlc_harness.models import Identity
from vlc_harness.types import canonical_json


def fingerprint_content(
    model_type: str, params: dict[str, Any], identity: Identity, scoring_version: str
) -> dict[str, Any]:
    """What the fingerprint hashes: type, normalised params, weights, dtype, protocol, scoring version.

    ``run`` options (batch size, device, prices, secret names) are deliberately absent.
    """
    return {
        "type": model_type,
        "params": params,
        "weights": identity.weights,
        "dtype": identity.dtype,
        "protocol": identity.protocol,
        "scoring_version": scoring_version,
    }


def model_fingerprint(content: dict[str, Any]) -> str:
    """sha256 hex of the canonical JSON of :func:`fingerprint_content`."""
    return hashlib.sha256(canonical_json(content).encode()).hexdigest()


def identity_record(content: dict[str, Any], identity: Identity) -> dict[str, Any]:
    """The JSON stored with a model row: the fingerprinted content plus unhashed details."""
    return {**content, "details": asdict(identity)["details"]}
