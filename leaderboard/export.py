"""A board bundle's content made from the store, the registry and the plugins (``vlc-harness board export``,
and ``render`` from the store, which renders it without writing it).

This is the one place the board meets plugin code: each benchmark's declaration and card, each model
type's class, and the benchmarks' data (instances, gold marks, captions, thumbnails). What it finds is
written as data (:mod:`vlc_leaderboard.bundle_codec`), so that rendering needs none of it. Only what
the pages read leaves the store: a cell's error is cut to its first line, and its provenance to the
protocol, weights, device, dtype, data files and prompt the model pages show, local paths redacted as
the pages redact them; a run keeps its harness version, commit and package versions (no host, command
line or data root).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vlc_harness.results import CellRecord
from vlc_leaderboard.board import assemble_board, board_facts
from vlc_leaderboard.board_data import BoardData, board_data
from vlc_leaderboard.bundle_codec import SCHEMA, VERSION, dump, encode_cell, encode_facts, encode_instances
from vlc_leaderboard.fanout import fan_out
from vlc_leaderboard.instances import (
    BenchmarkInstances,
    ImageEntry,
    browsed_columns,
    gather_column,
    load_instances,
    published_cells,
)
from vlc_leaderboard.outcome_records import cell_outcomes, first_line, outcome_record
from vlc_leaderboard.public import redact_paths

if TYPE_CHECKING:
    from vlc_harness.registry import Registry
    from vlc_harness.results import StoredResults

PROVENANCE_KEYS = ("harness_version", "git_sha", "registry_digest")
RUN_KEYS = ("harness_version", "git_sha", "packages")


@dataclass
class Export:
    """A bundle's content: its document (``bundle.json``), each cell's replicates and outcome records (by the
    cell's place in the document), the thumbnails, and what the export says about the registry."""

    doc: dict[str, Any]
    replicates: dict[int, dict[tuple[str, str], np.ndarray]]
    records: Callable[[int], Iterator[dict[str, Any]]]
    """Cell ``k``'s outcome records (:mod:`vlc_leaderboard.outcome_records`), read from the store when asked: a
    bundle writes each as a line (:func:`~vlc_leaderboard.outcome_records.record_line`)."""
    thumbnails: dict[str, bytes]
    notes: list[str] = field(default_factory=list)
    """Lines for the person exporting: the models of the store that no registry entry publishes."""
    warnings: list[str] = field(default_factory=list)
    """Lines for stderr: a registry with no benchmark."""
    after_fork: Callable[[], None] | None = None
    """What a process forked from this one runs before it reads records: the store's connections dropped."""


def export_board(
    results: StoredResults,
    registry: Registry,
    plugins: Any,
    data_root: Path | None,
    include_adhoc: bool,
    stale: set[int],
    provenance: Mapping[str, Any],
    instances_of: Callable[[Any], Any] | None = None,
    jobs: int = 1,
) -> Export:
    """Everything render reads of ``results`` under ``registry``: see the module docstring. ``stale``: the
    ids of the cells whose metrics older metric code computed; ``provenance``: this process's.
    ``instances_of`` loads a column's benchmark copy and instances (default: its data under ``data_root``,
    :func:`~vlc_leaderboard.instances.load_instances`; bench/site_size.py gives synthetic ones). ``jobs``: worker
    processes for the per-benchmark work (:func:`~vlc_leaderboard.fanout.fan_out`; 1: all in this process)."""
    stored = results.cells(include_incomplete=True, with_replicates=True)
    facts = board_facts(stored, registry, plugins, include_adhoc=include_adhoc)
    facts.cells = [public_cell(c) for c in facts.cells]
    runs = {c.run_id: results.run(c.run_id) for c in facts.cells if c.run_id is not None}
    doc: dict[str, Any] = {"schema": SCHEMA, "version": VERSION, "include_adhoc": include_adhoc}
    doc["provenance"] = {k: provenance.get(k) for k in PROVENANCE_KEYS}
    doc |= encode_facts(facts)
    doc["runs"] = {str(k): {key: run[key] for key in RUN_KEYS if key in run} for k, run in sorted(runs.items())}
    cells = [encode_cell(c) | {"stale": c.id in stale} for c in facts.cells]
    board = assemble_board(facts)  # after encoding: it fills the facts' columns and rows in place
    published = {id(cv.cell) for row in board.rows for cv in row.cells.values() if cv.published and cv.cell}
    replicates = {}
    for k, (cell, cell_doc) in enumerate(zip(facts.cells, cells)):
        keys = sorted(cell.replicates or {})
        samples = {len(np.asarray(cell.replicates[key]).ravel()) for key in keys} if cell.replicates else set()
        if len(samples) > 1:
            raise ValueError(f"cell {cell.model_id} x {cell.benchmark_id} holds replicates of several lengths")
        cell_doc["replicates"] = {"keys": [list(key) for key in keys], "samples": samples.pop()} if keys else None
        if keys:
            assert cell.replicates is not None
            replicates[k] = {key: np.asarray(cell.replicates[key], dtype=np.float64) for key in keys}
        cell_doc["outcomes"] = id(cell) in published
    doc["cells"] = cells
    loaded: dict[str, Any] = {}

    def load(col: Any) -> Any:
        if col.id not in loaded:
            if instances_of is not None:
                loaded[col.id] = instances_of(col)
            else:
                loaded[col.id] = load_instances(col.benchmark, data_root) if data_root is not None else None
        return loaded[col.id]

    captions: dict[str, dict[str, list[str]] | None] = {}  # per benchmark, made once for all its cells

    def gather(col: Any) -> tuple[BenchmarkInstances, dict[str, bytes], dict[str, list[str]] | None]:
        assert data_root is not None
        data = gather_column(board, col, results, data_root, load)
        made: dict[str, bytes] = {}
        data.images = [[_thumbnailed(e, made) for e in row] for row in data.images]
        return data, made, _captions(col, load)

    # each benchmark in a worker of its own (vlc_leaderboard.fanout), the largest first: its data loaded, its
    # published cells' outcomes read and reduced to verdict letters, its thumbnails made
    browsed = browsed_columns(board) if data_root is not None else []
    weights = [sum(c.n_instances or 0 for c in published_cells(board, col.id).values()) for col in browsed]
    instances: dict[str, BenchmarkInstances] = {}
    thumbnails: dict[str, bytes] = {}
    for col, (data, made, texts) in zip(browsed, fan_out(gather, browsed, jobs, results.after_fork, weights)):
        instances[col.id], captions[col.id] = data, texts
        thumbnails |= made
    doc["instances"] = encode_instances(instances)
    doc["thumbnails"] = sorted(thumbnails)
    columns = {col.id: col for col in board.benchmarks}

    def records(k: int) -> Iterator[dict[str, Any]]:
        cell = facts.cells[k]
        col = columns.get(cell.benchmark_id)
        if col is not None and col.id not in captions:
            captions[col.id] = _captions(col, load)
        texts = captions[col.id] if col is not None else None
        return (outcome_record(o, texts) for o in results.instance_outcomes(cell))

    export = Export(doc, replicates, records, thumbnails, after_fork=results.after_fork)
    if not registry.benchmarks:
        export.warnings.append(
            "no benchmark in that registry, so the board has no column: pass the published registry first "
            "(--registry PATH/TO/vlc-harness/registry.yaml --registry yours.yaml) or add a benchmark entry"
        )
    elif not include_adhoc:
        adhoc = sorted({c.model_id for c in stored if c.model_id not in registry.models})
        if adhoc:
            export.notes.append(
                f"not published (no registry entry; --include-adhoc publishes them): {len(adhoc)} models"
            )
    return export


def public_cell(cell: CellRecord) -> CellRecord:
    """``cell`` with only what the pages read: its error's first line and the provenance the model page shows,
    local paths redacted as the pages redact them."""
    prov = cell.provenance or {}
    found = prov.get("model")
    model: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    kept: dict[str, Any] = {}
    shown: dict[str, Any] = {}
    if "protocol" in model:
        shown["protocol"] = str(model["protocol"])
    if "weights" in model:
        shown["weights"] = redact_paths(str(model["weights"]))
    details = model.get("details")
    if isinstance(details, Mapping) and details.get("prompt"):
        shown["details"] = {key: str(details[key]) for key in ("prompt", "answer", "scoring") if details.get(key)}
    if shown:
        kept["model"] = shown
    for key in ("device", "dtype"):
        if key in prov:
            kept[key] = str(prov[key])
    if prov.get("data_files"):
        kept["data_files"] = {redact_paths(str(k)): str(v) for k, v in prov["data_files"].items()}
    error = redact_paths(first_line(cell.error)) if cell.error else cell.error
    return dataclasses.replace(cell, error=error, provenance=kept)


def _thumbnailed(entry: ImageEntry, thumbnails: dict[str, bytes]) -> ImageEntry:
    """``entry`` naming its thumbnail (made now, its bytes kept in ``thumbnails``) instead of its file."""
    if entry.source is None:
        return entry
    from vlc_leaderboard.thumbnails import thumbnail

    name, png = thumbnail(entry.source)
    thumbnails[name] = png
    return dataclasses.replace(entry, source=None, thumbnail=name)


def _captions(col: Any, load: Callable[[Any], Any]) -> dict[str, list[str]] | None:
    """Instance texts by id, only where the data license allows publishing them and the data is here."""
    bench = col.benchmark
    if bench is None or not bench.captions_redistributable:
        return None
    found = load(col)
    return None if found is None else {inst.id: list(inst.texts) for inst in found[1]}


def in_memory(export: Export) -> BoardData:
    """The board data of an export, read back as render reads a bundle: the document through JSON; each
    record as the dict its line would read back to (a record holds only JSON's own types, the store's
    decoded JSON and strings, so a JSON round trip per record would change nothing but the time), and its
    line as the bundle would hold it."""
    doc = json.loads(dump(export.doc))
    replicates, thumbnails = (lambda k: export.replicates[k]), export.thumbnails
    return board_data(doc, replicates, lambda k: cell_outcomes(export.records(k)), thumbnails, export.after_fork)
