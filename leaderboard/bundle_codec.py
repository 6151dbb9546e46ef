"""The board's facts as JSON and back: columns, rows, cells, runs and the instance browser's data.

What is written is what the board reads, no more (:mod:`vlc_leaderboard.bundle` says which fields and
why); :func:`decode` rebuilds the objects :func:`vlc_leaderboard.board.assemble_board` and the pages
read, with no plugin, registry or store. A column keeps its card facts and declaration-derived values
(specs, the papers' rows, human values, the drilldown), never its benchmark object.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Callable, Mapping
from typing import Any

from vlc_harness.overlap import Pool
from vlc_harness.results import CellRecord
from vlc_harness.types import MetricSpec, ReferenceRow
from vlc_leaderboard.board import BoardFacts
from vlc_leaderboard.columns import BenchmarkColumn, CardFacts, MetricColumn
from vlc_leaderboard.declared import Drill
from vlc_leaderboard.instances import BenchmarkInstances, ImageEntry, ModelInstances
from vlc_leaderboard.rows import Row

CELL_FIELDS = (
    "id",
    "model_id",
    "benchmark_id",
    "benchmark_type",
    "status",
    "fingerprint",
    "data_version",
    "manifest_hash",
    "complete",
    "error",
    "reason_code",
    "metrics",
    "provenance",
    "run_id",
    "created_at",
    "metrics_version",
    "inputs_hash",
)
"""The fields of a stored cell the board reads (the replicates travel beside them, as float64 bytes)."""


SCHEMA = "vlc-harness board bundle"
VERSION = 2
"""The bundle format's version: a reader refuses any other (``bundle.schema.json`` describes this one). 2: the
outcome records are the scores downloads' lines (long keys, ``json.dumps``), no longer short-keyed compact JSON."""


def dump(doc: Mapping[str, Any]) -> str:
    """A bundle's document as its file holds it (UTF-8 JSON; ``NaN`` where a value is not a number)."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


class CodecError(ValueError):
    """A value the bundle cannot carry as JSON, or a document that does not decode."""


def plain(value: Any, where: str = "meta") -> Any:
    """``value`` as JSON data: mappings with string keys, lists, strings, numbers, booleans and null; a date
    as the text the pages print for it. Anything else is refused, naming where it is."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (dt.date, dt.datetime)):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): plain(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, f"{where}[{k}]") for k, v in enumerate(value)]
    raise CodecError(f"{where} holds a {type(value).__name__}, which a board bundle cannot carry")


def encode_facts(facts: BoardFacts) -> dict[str, Any]:
    """The registry's ids, the columns and the rows (the cells are encoded one by one: :func:`encode_cell`)."""
    return {
        "registry": {"models": list(facts.registry_models), "benchmarks": list(facts.registry_benchmarks)},
        "columns": [_column(c) for c in facts.columns],
        "rows": [
            {"id": r.id, "name": r.name, "kind": r.kind, "meta": plain(r.meta, f"model {r.id}: meta")}
            for r in facts.rows
        ],
    }


def _column(col: BenchmarkColumn) -> dict[str, Any]:
    card = col.card
    return {
        "id": col.id,
        "type": col.type,
        "title": col.title,
        "data_version": col.data_version,
        "metrics": [dataclasses.asdict(m) for m in col.metrics],
        "gap": list(col.gap) if col.gap else None,
        "human_gap": col.human_gap,
        "note": col.note,
        "specs": [dataclasses.asdict(s) for s in col.specs.values()],
        "references": [dataclasses.asdict(r) for r in col.references],
        "humans": [[m, c, v] for (m, c), v in col.humans.items()],
        "derived": sorted([m, c] for m, c in col.derived),
        "drill": None
        if col.drill is None
        else dataclasses.asdict(col.drill) | {"categories": list(col.drill.categories)},
        "card": None if card is None else _card(card),
    }


def _card(card: CardFacts) -> dict[str, Any]:
    return {
        "citation": card.citation,
        "homepage": card.homepage,
        "license": card.license,
        "bibtex": card.bibtex,
        "image_pools": list(card.image_pools),
        "own_pools": {
            k: {"title": p.title, "part_of": list(p.part_of), "source": p.source} for k, p in card.own_pools.items()
        },
        "headline_origin": card.headline_origin,
    }


def encode_cell(cell: CellRecord) -> dict[str, Any]:
    """A cell's fields the board reads (its replicates aside)."""
    out = {name: getattr(cell, name) for name in CELL_FIELDS}
    out["status"] = str(cell.status.value)
    out["metrics"] = plain(cell.metrics, f"cell {cell.model_id} x {cell.benchmark_id}: metrics")
    out["provenance"] = plain(cell.provenance, f"cell {cell.model_id} x {cell.benchmark_id}: provenance")
    return out


def decode_facts(doc: Mapping[str, Any], cells: list[CellRecord]) -> BoardFacts:
    """The facts of a decoded document, over ``cells`` (decoded by :func:`decode_cell`)."""
    rows = [Row(r["id"], r["name"], r["kind"], dict(r["meta"])) for r in doc["rows"]]
    columns = [_decode_column(c) for c in doc["columns"]]
    registry = doc["registry"]
    return BoardFacts(cells, list(registry["models"]), list(registry["benchmarks"]), columns, rows)


def _decode_column(c: Mapping[str, Any]) -> BenchmarkColumn:
    card = c["card"]
    drill = c["drill"]
    return BenchmarkColumn(
        c["id"],
        c["type"],
        c["title"],
        c["data_version"],
        [MetricColumn(**m) for m in c["metrics"]],
        (c["gap"][0], c["gap"][1]) if c["gap"] else None,
        c["human_gap"],
        c["note"],
        card=None
        if card is None
        else CardFacts(**(card | {"image_pools": tuple(card["image_pools"]), "own_pools": _pools(card["own_pools"])})),
        specs={s["id"]: MetricSpec(**s) for s in c["specs"]},
        references=[ReferenceRow(**r) for r in c["references"]],
        humans={(m, cat): v for m, cat, v in c["humans"]},
        derived={(m, cat) for m, cat in c["derived"]},
        drill=None if drill is None else Drill(drill["metric"], tuple(drill["categories"]), drill["unit"]),
    )


def _pools(pools: Mapping[str, Any]) -> Mapping[str, Pool]:
    return {k: Pool(p["title"], tuple(p["part_of"]), p["source"]) for k, p in pools.items()}


def decode_cell(doc: Mapping[str, Any], replicates: Callable[[], dict[tuple[str, str], Any]] | None) -> CellRecord:
    """A cell from its document; ``replicates`` reads its replicates (``None``: it has none)."""
    fields = {name: doc[name] for name in CELL_FIELDS}
    return CellRecord(**fields, replicates=replicates() if replicates is not None else None)


def encode_instances(instances: Mapping[str, BenchmarkInstances]) -> dict[str, Any]:
    """The instance browser's data per benchmark, without the models' scores (those are in the cells' records)."""
    out = {}
    for bench_id, data in instances.items():
        if data.missing:
            out[bench_id] = {"benchmark": data.benchmark, "missing": data.missing}
            continue
        if any(e.source is not None for row in data.images for e in row):
            raise CodecError(f"{bench_id}: an image still names its file; its thumbnail must be made first")
        encoded: dict[str, Any] = {
            "benchmark": data.benchmark,
            "metric": data.metric,
            "tie_rule": data.tie_rule,
            "ids": data.ids,
            "categories": data.categories,
            "captions": data.captions,
            "roles": data.roles,
            "gold": data.gold,
            "images": [[[e.name, e.link, e.role, e.thumbnail] for e in row] for row in data.images],
            "questions": data.questions,
            "models": {m: model.verdicts for m, model in data.models.items()},
            "missing": "",
        }
        out[bench_id] = encoded
    return out


def decode_instances(doc: Mapping[str, Any]) -> dict[str, BenchmarkInstances]:
    """The instance browser's data per benchmark (each model's verdicts; its scores filled in later)."""
    out = {}
    for bench_id, d in doc.items():
        if d["missing"]:
            out[bench_id] = BenchmarkInstances(d["benchmark"], missing=d["missing"])
            continue
        data = BenchmarkInstances(d["benchmark"], d["metric"], d["tie_rule"], list(d["ids"]), list(d["categories"]))
        data.captions = d["captions"]
        data.roles, data.gold, data.questions = d["roles"], d["gold"], d["questions"]
        data.images = [[ImageEntry(n, link, role, thumbnail=t) for n, link, role, t in row] for row in d["images"]]
        data.models = {m: ModelInstances(v) for m, v in d["models"].items()}
        out[bench_id] = data
    return out
