"""What ``run`` says about scoring stacks: the off-pin check before anything runs (one line, or the
refusal of ``--require-pinned``), and, after the run, one line per model that was recomputed only
because its stack changed (``clip recomputed: transformers 5.24.0 -> 5.25.0``, ``plugin source
changed``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from vlc_harness.errors import UserError
from vlc_harness.registry import ModelEntry
from vlc_harness.stack import Deviation, StackSource, grid_off_pin, off_pin_line, stack_change
from vlc_harness.store import CellRecord

REFUSED = (
    "refused (--require-pinned): the scores would not be the pinned stack's. Install the pins "
    "(pip install -c constraints.txt ..., or the nightly's lock), or run without --require-pinned on a "
    "machine of your own"
)


def check_pins(
    plugins: Any, models: Iterable[ModelEntry], stacks: StackSource, require: bool
) -> tuple[list[Deviation], str | None]:
    """The grid's off-pin distributions and the line that says so (``None`` when on the pins). With
    ``require``, a grid that cannot be checked (no ``constraints.txt``) is a usage error."""
    if require and stacks.constraints is None:
        raise UserError(
            "--require-pinned: no constraints.txt to check the installed versions against",
            hint="run from the checkout, or set VLC_HARNESS_CONSTRAINTS=PATH",
        )
    classes = [plugins.models.get(m.type).cls for m in models if not m.unavailable]
    deviations = grid_off_pin(classes, stacks)
    return deviations, off_pin_line(deviations, stacks.constraints) if deviations else None


def recomputed_lines(previous: Mapping[tuple[str, str], CellRecord], cells: Iterable[CellRecord]) -> list[str]:
    """One line per model whose cells this run computed under a new fingerprint when nothing but its
    scoring stack changed since its previous cells (``previous``: the store's state before the run)."""
    found: dict[str, str] = {}
    for cell in cells:
        if cell.reused or not cell.status.has_number or cell.model_id in found:
            continue
        before = previous.get((cell.model_id, cell.benchmark_id))
        if before is None or before.fingerprint == cell.fingerprint:
            continue
        old, new = before.provenance.get("model"), cell.provenance.get("model")
        if isinstance(old, dict) and isinstance(new, dict) and _rest(old) == _rest(new):
            found[cell.model_id] = stack_change(old.get("stack"), new.get("stack") or {})
    return [f"{model} recomputed: {why}" for model, why in found.items()]


def _rest(record: dict[str, Any]) -> dict[str, Any]:
    """An identity record without its stack and its unhashed details."""
    return {k: v for k, v in record.items() if k not in ("stack", "details")}


__all__ = ["REFUSED", "check_pins", "recomputed_lines"]
