"""What a run did, for the person reading it: cells without a number grouped by reason, and the
cells won, changed or lost against the store's state before the run (``vlc-harness run --summary``).

A grid of 70 models x 19 benchmarks with no data has 1,330 cells and 19 reasons: one line per
(benchmark, reason), not one per cell. A *lost* cell is a (model id, benchmark id) whose newest
stored cell with a number (``ok`` or ``partial``) predates the run, and which this run recorded as
``unavailable`` or ``failed``: the board would lose it. It stays lost, night after night, until
the cell is computed again or dropped on purpose (``vlc-harness cache forget -m ID``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from vlc_harness.reasons import Reason, label_of
from vlc_harness.run.fixes import fixes_for
from vlc_harness.status import Status
from vlc_harness.store import CellRecord, Store

SCHEMA = 1
"""The version of the ``--summary`` JSON."""

Pair = tuple[str, str]
"""(model id, benchmark id)."""


@dataclass(frozen=True)
class ReasonGroup:
    """Cells without a number that share a reason: several models on one benchmark, or one model
    on every benchmark it was asked for."""

    models: tuple[str, ...]
    benchmarks: tuple[str, ...]
    status: str
    code: str | None
    message: str
    """The first line of the cells' error (the full text stays in the store and in ``show``)."""

    @property
    def label(self) -> str:
        """The reason code in a few words (the status when the cell has no code)."""
        return label_of(self.code, self.status)

    def line(self) -> str:
        """``67 models x sugarcrepe: data not ready (missing ...)``, with the fix where one is known."""
        models = _names(self.models, "models")
        benchmarks = _names(self.benchmarks, "benchmarks")
        text = f"{self.status:<11} {models} x {benchmarks}: {self.label}"
        if self.message:
            text += f" ({self.message})"
        if self.code == Reason.DATA_MISSING and len(self.benchmarks) == 1:
            text += f": `vlc-harness data fetch -b {self.benchmarks[0]}`"
        elif self.code == Reason.MODEL_DATA_MISSING:
            text += ": the data the model is built from (its fit files) is missing, not the benchmark's"
        return text

    def as_json(self) -> dict[str, Any]:
        """The group as the summary JSON holds it."""
        return {
            "models": list(self.models),
            "benchmarks": list(self.benchmarks),
            "cells": len(self.models) * len(self.benchmarks),
            "status": self.status,
            "code": self.code,
            "label": self.label,
            "message": self.message,
            "line": self.line(),
        }


def _names(ids: tuple[str, ...], plural: str) -> str:
    return ", ".join(ids) if len(ids) <= 3 else f"{len(ids)} {plural}"


def first_line(text: str | None) -> str:
    """The first non-empty line of a cell's error ('' when it has none)."""
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def group_reasons(cells: Iterable[CellRecord]) -> list[ReasonGroup]:
    """The cells without a number, grouped: a model whose every cell (two or more) has the same
    reason is one group; the others by (benchmark, status, code, first line of the error). Models
    first (by id), then benchmarks in grid order, the larger group first."""
    cells = list(cells)
    per_model: dict[str, list[CellRecord]] = defaultdict(list)
    for cell in cells:
        per_model[cell.model_id].append(cell)
    groups: list[ReasonGroup] = []
    whole: set[str] = set()
    for model_id in sorted(per_model):
        own = per_model[model_id]
        keys = {_key(c) for c in own}
        if len(own) >= 2 and len(keys) == 1 and not own[0].status.has_number:
            whole.add(model_id)
            status, code, message = keys.pop()
            groups.append(ReasonGroup((model_id,), tuple(c.benchmark_id for c in own), status, code, message))
    by_benchmark: dict[tuple[str, str, str | None, str], list[str]] = defaultdict(list)
    for cell in cells:
        if not cell.status.has_number and cell.model_id not in whole:
            by_benchmark[(cell.benchmark_id, *_key(cell))].append(cell.model_id)
    order = {b: k for k, b in enumerate(dict.fromkeys(c.benchmark_id for c in cells))}
    ranked = sorted(by_benchmark.items(), key=lambda item: (order[item[0][0]], -len(item[1]), item[0][1:]))
    for (benchmark_id, status, code, message), models in ranked:
        groups.append(ReasonGroup(tuple(models), (benchmark_id,), status, code, message))
    return groups


def _key(cell: CellRecord) -> tuple[str, str | None, str]:
    return cell.status, cell.reason_code, first_line(cell.error)


def previous_cells(store: Store, model_ids: Iterable[str], benchmark_ids: Iterable[str]) -> dict[Pair, CellRecord]:
    """The store's state before a run: the newest stored cell with a number (``ok`` or
    ``partial``) of each (model id, benchmark id) of the grid, whatever its fingerprint."""
    wanted = set(benchmark_ids)
    found: dict[Pair, CellRecord] = {}
    for model_id in dict.fromkeys(model_ids):
        for cell in store.model_cells(model_id):  # in the order they were saved: the newest wins
            if cell.model_id == model_id and cell.benchmark_id in wanted and cell.status.has_number:
                found[(model_id, cell.benchmark_id)] = cell
    return found


def lost_cells(previous: Mapping[Pair, CellRecord], cells: Iterable[CellRecord]) -> list[CellRecord]:
    """This run's ``unavailable`` or ``failed`` cells whose (model, benchmark) had a number before it."""
    return [c for c in cells if c.status.loses_a_number and (c.model_id, c.benchmark_id) in previous]


def headline(cell: CellRecord) -> tuple[str | None, float | None]:
    """The cell's headline metric and its overall value (``None, None`` when it has none)."""
    for m in cell.metrics:
        if m.get("headline") and m.get("category", "all") == "all":
            value = m.get("value")
            return m.get("metric"), float(value) if value is not None else None
    return None, None


def cell_view(cell: CellRecord) -> dict[str, Any]:
    """What the summary says of one cell: status, fingerprint, data version, headline, reason."""
    metric, value = headline(cell)
    view: dict[str, Any] = {
        "status": cell.status,
        "fingerprint": cell.fingerprint,
        "data_version": cell.data_version,
        "metric": metric,
        "value": value,
    }
    if not cell.status.has_number:
        view.update(code=cell.reason_code, message=first_line(cell.error))
    return view


@dataclass
class Changes:
    """The cells of a run against the store's state before it (:func:`previous_cells`)."""

    new: list[CellRecord]
    """A number where the store had none."""
    changed: list[tuple[CellRecord, CellRecord]]
    """(before, after): another fingerprint, data version, status or headline value."""
    lost: list[tuple[CellRecord, CellRecord]]
    """(before, now): a number before, ``unavailable`` or ``failed`` now."""


def compare(previous: Mapping[Pair, CellRecord], cells: Iterable[CellRecord]) -> Changes:
    """New, changed and lost cells of a run (a stored cell reused as it is is neither)."""
    out = Changes([], [], [])
    for cell in cells:
        before = previous.get((cell.model_id, cell.benchmark_id))
        if cell.status.loses_a_number and before is not None:
            out.lost.append((before, cell))
        elif cell.status.has_number and before is None:
            out.new.append(cell)
        elif cell.status.has_number and before is not None and _differs(before, cell):
            out.changed.append((before, cell))
    return out


def _differs(before: CellRecord, after: CellRecord) -> bool:
    fields = ("status", "fingerprint", "data_version", "metric", "value")
    old, new = cell_view(before), cell_view(after)
    return any(old[f] != new[f] for f in fields)


def lost_line(before: CellRecord, now: CellRecord) -> str:
    """``model x benchmark: was ok (metric=0.8123), now unavailable: data not ready (...)``."""
    metric, value = headline(before)
    was = f"{before.status} ({metric}={value:.4f})" if metric and value is not None else before.status
    label = label_of(now.reason_code, now.status)
    why = first_line(now.error)
    return f"{now.model_id} x {now.benchmark_id}: was {was}, now {now.status}: {label}" + (f" ({why})" if why else "")


def exit_reason(code: int, cells: list[CellRecord], changes: Changes, strict: bool = False) -> str:
    """One paragraph saying why a run exits with ``code`` (:meth:`~vlc_harness.run.RunReport.exit_code`),
    naming the other conditions that apply too."""
    n = len(cells)
    statuses = Counter(c.status for c in cells)
    computed = statuses[Status.OK] + statuses[Status.PARTIAL]
    failed = statuses[Status.FAILED] + (statuses[Status.UNAVAILABLE] if strict else 0)
    sentences: list[str] = []
    if changes.lost:
        shown = "; ".join(f"{now.model_id} x {now.benchmark_id} (now {now.status})" for _, now in changes.lost[:5])
        more = f"; and {len(changes.lost) - 5} more" if len(changes.lost) > 5 else ""
        sentences.append(
            f"{len(changes.lost)} cell(s) that had a number in the store before this run are now unavailable or "
            f"failed: {shown}{more}. Publishing this grid would drop them from the board (`vlc-harness render` "
            "refuses, exit 5, unless --allow-shrink): fix the cause and run again, or drop them on purpose with "
            "`vlc-harness cache forget -m ID`."
        )
    if not computed:
        sentences.append(
            f"Nothing could be computed: all {n} cells of the grid are unavailable, failed or skipped "
            f"({_top_reasons(cells)}). {fixes_for(cells)}, then run again; `vlc-harness plan` says what each "
            "cell needs."
        )
    if failed:
        what = "failed or are unavailable (--strict)" if strict and statuses[Status.UNAVAILABLE] else "failed"
        sentences.append(
            f"{failed} of {n} cells {what} ({_top_reasons(c for c in cells if c.status.loses_a_number)}); "
            "the others are recorded, and a rerun computes only what is missing."
        )
    if not sentences:
        return f"Exit 0: {computed} of {n} cells have a number; none failed and none that had one was lost."
    return f"Exit {code}: " + " Also: ".join(sentences)


def _top_reasons(cells: Iterable[CellRecord], k: int = 3) -> str:
    counts = Counter(label_of(c.reason_code, c.status) for c in cells)
    top = ", ".join(f"{label}: {n}" for label, n in counts.most_common(k))
    rest = sum(counts.values()) - sum(n for _, n in counts.most_common(k))
    return top + (f", other reasons: {rest}" if rest else "")


def run_summary(
    cells: list[CellRecord],
    changes: Changes,
    code: int,
    strict: bool = False,
    model_seconds: Mapping[str, float] | None = None,
    timings: Mapping[str, float] | None = None,
    run_id: int | None = None,
) -> dict[str, Any]:
    """The ``--summary`` JSON (schema 1): counts per status, per model and per benchmark, the
    grouped reasons, new, changed and lost cells, seconds per model, the exit code and why."""
    per_model: dict[str, Counter[str]] = defaultdict(Counter)
    per_benchmark: dict[str, Counter[str]] = defaultdict(Counter)
    for cell in cells:
        per_model[cell.model_id][cell.status] += 1
        per_benchmark[cell.benchmark_id][cell.status] += 1

    def pair(cell: CellRecord) -> dict[str, Any]:
        return {"model": cell.model_id, "benchmark": cell.benchmark_id}

    return {
        "schema": SCHEMA,
        "run_id": run_id,
        "exit_code": code,
        "exit_reason": exit_reason(code, cells, changes, strict),
        "strict": strict,
        "cells": len(cells),
        "statuses": dict(sorted(Counter(c.status for c in cells).items())),
        "stored": sum(1 for c in cells if c.reused),
        "models": {m: dict(sorted(n.items())) for m, n in sorted(per_model.items())},
        "benchmarks": {b: dict(sorted(n.items())) for b, n in sorted(per_benchmark.items())},
        "reasons": [g.as_json() for g in group_reasons(cells)],
        "new": [pair(c) | cell_view(c) for c in _sorted(changes.new)],
        "changed": [
            pair(a) | {"before": cell_view(b), "after": cell_view(a)} for b, a in _sorted_pairs(changes.changed)
        ],
        "lost": [
            pair(n) | {"before": cell_view(b), "now": cell_view(n), "line": lost_line(b, n)}
            for b, n in _sorted_pairs(changes.lost)
        ],
        "seconds_per_model": dict(sorted((model_seconds or {}).items())),
        "timings": dict(timings or {}),
    }


def _sorted(cells: list[CellRecord]) -> list[CellRecord]:
    return sorted(cells, key=lambda c: (c.benchmark_id, c.model_id))


def _sorted_pairs(pairs: list[tuple[CellRecord, CellRecord]]) -> list[tuple[CellRecord, CellRecord]]:
    return sorted(pairs, key=lambda p: (p[1].benchmark_id, p[1].model_id))
