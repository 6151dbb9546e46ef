"""GPU time, estimated: the inputs a job makes a model compute, times a per-family cost (``vlc-harness plan``'s
GPU column, :mod:`vlc_harness.planview`, and what a run stopped by its deadline leaves,
:mod:`vlc_harness.run.deadline`; outside both packages, so that each may use it).

An ``embed`` model encodes each unique image and each unique text once (text-text pairs read the
same text vectors); a ``score_pairs`` model scores each (image, text) pair; an image-blind model
scores each text; a ``choose`` model scores each option of each question. The seconds per image,
text and pair come from the cost table beside this module (``gpu_costs.yaml``): a throughput
measured on a named device where the entry matches a measured row, else that measurement scaled
by the entry's parameter count (``meta.parameters_m``), labelled as an estimate. Paid API models,
and the types the table lists as running no network on a device, cost no GPU time; an entry
with no parameter count gets no number rather than a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlc_harness.models import Model
    from vlc_harness.registry import ModelEntry
    from vlc_harness.run.jobs import Job

COST_TABLE = Path(__file__).parent / "planview" / "gpu_costs.yaml"

UNKNOWN = "unknown"
"""What a number rests on when there is none (as :data:`vlc_harness.planview.identity.UNKNOWN`)."""

MEASURED, ESTIMATED, NO_GPU = "measured", "estimated", "none"
"""What a number rests on: a measured throughput, a parameter-count estimate, no GPU work, or nothing."""


@dataclass(frozen=True)
class Inputs:
    """What a job makes a model compute: unique images and texts (``embed``), or scored pairs."""

    images: int = 0
    texts: int = 0
    pairs: int = 0


@dataclass(frozen=True)
class Rate:
    """One model's seconds per image, per text and per (image, text) pair, and what they rest on."""

    image_s: float
    text_s: float
    kind: str
    basis: str

    @property
    def pair_s(self) -> float:
        """A pair model reads the image and the text together: the two encodings' cost."""
        return self.image_s + self.text_s


@dataclass(frozen=True)
class GpuEstimate:
    """Estimated GPU seconds (``None``: no number can be given) and what they rest on."""

    seconds: float | None
    kind: str
    """``measured``, ``estimated``, ``none`` (no GPU work) or ``unknown``."""
    basis: str
    """In words: ``measured on NVIDIA H100 80GB HBM3 (...)``, ``estimated from 428M parameters (...)``."""


def job_inputs(job: Job, protocol: str) -> Inputs:
    """The unique inputs an ``embed`` job encodes, or the pairs, texts or options another protocol scores."""
    if protocol == "embed":
        texts = {t for task in job.tasks for t in task.texts}
        texts.update(t for pair in job.text_pairs for t in pair)
        return Inputs(images=len(job.tasks), texts=len(texts))
    if protocol == "score_texts":
        return Inputs(texts=len(job.blind_texts))
    if protocol == "choose":
        return Inputs(pairs=sum(len(q.texts) for q in job.questions))
    return Inputs(pairs=sum(len(task.texts) for task in job.tasks))


def seconds_for(inputs: Inputs, rate: Rate) -> float:
    """GPU seconds of ``inputs`` at ``rate``."""
    return inputs.images * rate.image_s + inputs.texts * rate.text_s + inputs.pairs * rate.pair_s


@dataclass(frozen=True)
class CostTable:
    """The cost table: measured rows, the row estimates scale from, and types that need no GPU."""

    measured: tuple[dict[str, Any], ...]
    estimate_from: dict[str, Any]
    no_gpu: dict[str, str]

    @classmethod
    def read(cls, path: Path = COST_TABLE) -> CostTable:
        """The table from a YAML file (:data:`COST_TABLE` by default)."""
        from vlc_harness.safe_yaml import read_yaml_file

        data = read_yaml_file(path)  # a pull request can edit the table: bounded like a registry
        rows = tuple(data["measured"])
        base = next((r for r in rows if r["id"] == data["estimate_from"]), None)
        if base is None:
            raise ValueError(f"{path}: estimate_from names no measured row: {data['estimate_from']!r}")
        return cls(rows, base, dict(data.get("no_gpu") or {}))

    def rate(self, entry: ModelEntry, cls: type[Model]) -> Rate | GpuEstimate:
        """The entry's rate, or the estimate it gets without one (no GPU work, or unknown)."""
        if cls.paid_requests:
            return GpuEstimate(0.0, NO_GPU, "no GPU: paid API requests (see the cost column)")
        if entry.type in self.no_gpu:
            return GpuEstimate(0.0, NO_GPU, f"no GPU: {self.no_gpu[entry.type]}")
        params = entry.params_dict()
        for row in self.measured:
            if entry.type in row["types"] and all(params.get(k) in v for k, v in row.get("params", {}).items()):
                return Rate(1 / row["images_per_s"], 1 / row["texts_per_s"], MEASURED, _measured_basis(row))
        size = entry.meta.get("parameters_m")
        if not size:
            return GpuEstimate(None, UNKNOWN, "no parameter count: the entry has no meta.parameters_m")
        base = self.estimate_from
        scale = float(size) / base["parameters_m"]
        basis = (
            f"estimated from {_millions(size)} parameters "
            f"(scaled from {_what(base)} measured on {base['device']}, {_millions(base['parameters_m'])})"
        )
        return Rate(scale / base["images_per_s"], scale / base["texts_per_s"], ESTIMATED, basis)

    def estimate(self, entry: ModelEntry, cls: type[Model], protocol: str, job: Job) -> GpuEstimate:
        """GPU seconds of ``job`` for this entry (0 when the job is empty: stored cells cost nothing)."""
        rate = self.rate(entry, cls)
        if isinstance(rate, GpuEstimate):
            return GpuEstimate(rate.seconds if job.n_pairs else 0.0, rate.kind, rate.basis)
        return GpuEstimate(seconds_for(job_inputs(job, protocol), rate), rate.kind, rate.basis)


@cache
def cost_table() -> CostTable:
    """The cost table beside this module, read once."""
    return CostTable.read()


def _what(row: dict[str, Any]) -> str:
    arch = "/".join(row.get("params", {}).get("arch", [])[:1])
    return f"{row['types'][0]} {arch} {row['precision']}".replace("  ", " ")


def _measured_basis(row: dict[str, Any]) -> str:
    return (
        f"measured on {row['device']} ({_what(row)}, batch {row['batch_size']}: "
        f"{row['images_per_s']:,} images/s, {row['texts_per_s']:,} texts/s)"
    )


def _millions(size: float) -> str:
    return f"{size / 1000:.1f}B" if size >= 1000 else f"{size:g}M"


def duration(seconds: float | None) -> str:
    """``42 s``, ``12.5 min``, ``3.2 h``, or ``unknown``."""
    if seconds is None:
        return UNKNOWN
    if seconds < 60:
        return f"{seconds:.0f} s" if seconds >= 1 or seconds == 0 else f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


__all__ = ["CostTable", "GpuEstimate", "Inputs", "Rate", "cost_table", "duration", "job_inputs", "seconds_for"]
