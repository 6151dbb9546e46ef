"""Devices and worker slots: one worker per visible GPU, or ``--workers N`` on the CPU.

Counting GPUs must not import torch in the main process, so it reads ``CUDA_VISIBLE_DEVICES``
or asks ``nvidia-smi``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys


def resolve_device(requested: str) -> str:
    """Turn ``auto`` into ``cuda`` or ``cpu``; other names pass through.

    ``cpu`` without importing torch when no GPU is visible (importing it costs a model that never
    uses it 0.5 GB and seconds); else torch's own answer.
    """
    if requested != "auto":
        return requested
    if "torch" not in sys.modules and not visible_gpus():
        return "cpu"
    try:
        import torch
    except ImportError:
        return "cpu"
    return "cuda" if torch.cuda.is_available() else "cpu"


def visible_gpus() -> int:
    """How many CUDA devices this process may use (0 when none or unknown)."""
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return len([d for d in env.split(",") if d.strip() and d.strip() != "-1"])
    if shutil.which("nvidia-smi") is None:
        return 0
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(1 for line in out.stdout.splitlines() if line.startswith("GPU "))


def worker_slots(workers: int | None = None) -> list[str]:
    """The device of each worker slot.

    Default: one slot per visible GPU (``cuda:0``, ``cuda:1``, ...), else one ``auto`` slot.
    ``workers``: that many slots, spread round-robin over the GPUs, or all on the CPU.
    """
    gpus = visible_gpus()
    if workers is None:
        return [f"cuda:{i}" for i in range(gpus)] or ["auto"]
    if gpus:
        return [f"cuda:{i % gpus}" for i in range(workers)]
    return ["cpu"] * workers


def cpu_threads_per_worker(slots: list[str]) -> int | None:
    """Intra-op threads for each CPU worker so that CPU workers share the cores, not fight over them."""
    cpu_slots = sum(1 for s in slots if s in ("cpu", "auto"))
    if cpu_slots <= 1:
        return None
    return max(1, (os.cpu_count() or 1) // cpu_slots)
