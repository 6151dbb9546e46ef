"""Device selection for a worker: ``auto`` means the first CUDA device when there is one."""

from __future__ import annotations


def resolve_device(requested: str) -> str:
    """Turn ``auto`` into ``cuda`` or ``cpu``; other names pass through."""
    if requested != "auto":
        return requested
    try:
        import torch
    except ImportError:
        return "cpu"
    return "cuda" if torch.cuda.is_available() else "cpu"
