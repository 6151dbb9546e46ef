"""Paper-reported values next to ours: a model's ``meta.paper_match`` rows for its index metrics.

A paper's row is shown only where its data version is unstated or the cell's; it is compared with
our 95% interval (and flagged when outside) only where the paper states the cell's data version.
None are shown where the paper loaded the model otherwise than the board (``meta.paper_params``).
"""

from __future__ import annotations

from vlc_harness.verify import board_paper_match
from vlc_leaderboard.columns import BenchmarkColumn
from vlc_leaderboard.rows import CellView, PaperValue, Row


def reported_values(row: Row, col: BenchmarkColumn, cv: CellView) -> dict[str, PaperValue]:
    """The paper's values for this model's index metrics, next to ours, by metric (none where the
    paper loaded the model otherwise: ``meta.paper_params``)."""
    out: dict[str, PaperValue] = {}
    match = board_paper_match(row.meta)
    if not match or not cv.published or cv.cell is None:
        return out
    version = cv.cell.data_version
    for mc in col.metrics:
        refs = [
            r
            for r in col.references
            if r.matches == match
            and r.metric == mc.metric
            and r.category == "all"
            and (not r.data_version or r.data_version == version)
        ]
        if not refs:
            continue
        ref = next((r for r in refs if r.data_version == version), refs[0])
        ours = cv.values.get(mc.metric)
        compared = bool(ref.data_version) and ref.data_version == version
        ci = ours.ci95 if ours is not None else None
        outside = compared and ci is not None and not (ci[0] <= ref.value <= ci[1])
        diff = None if ours is None else ours.value - ref.value
        out[mc.metric] = PaperValue(
            ref.value, ref.source, ref.table, ref.citation, ref.data_version, compared, outside, diff
        )
    return out
