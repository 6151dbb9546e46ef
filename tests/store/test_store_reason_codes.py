"""Schema 5: each cell's reason code is stored with it; a schema-4 cell gets one derived, once, from
its stored text by the migration (the one place a cell's text is matched), so that the board words
it exactly as the board of schema 4 did; on both backends."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from vlc_harness.reasons import Reason
from vlc_harness.store import CellRecord, open_store, schema
from vlc_harness.store.migrations import legacy_reason_code

# the board's sentences before reason codes (leaderboard/public.py at 1f81e18), copied as readers saw them
WEIGHTS = "Not evaluated: the model's weights could not be downloaded when this board was built."
DATA = "Not evaluated: the benchmark's data files were not present when this board was built."
# was "The submitted scores file has no scores ...": "submitted" is said only of a submitted entry now (issue 41)
SCORES = "The model's scores file has no score for some of this benchmark's pairs, so no number is published."
API = "Not evaluated: this API model was not queried for this board."
MEMORY = "The evaluation ran out of memory."
STALLED = "The evaluation stopped making progress and was stopped."
VERSIONS = "Not evaluated: the software versions on the build machine cannot run this model."
INSTANCES = "Some instances could not be scored, so no number is published."
FAILED = "The evaluation failed on the machine that built this board."
UNAVAILABLE = (
    "Not evaluated: the model's weights or the benchmark's data could not be had on the machine that built this board."
)
SKIPPED = "Not applicable: this model's way of scoring does not apply to this benchmark."
PARTIAL = "Only part of the benchmark was scored (a limited or interrupted run), so no number is published."

# (status, stored text as schema-4 runs wrote it, --limit) -> code derived, and the old board's sentence
OLD_CELLS = [
    (
        "unavailable",
        "timm/vit_base_patch32_clip_224.openai (open_clip_model.safetensors) is not in the local Hugging Face "
        "cache and HF_HUB_OFFLINE is set",
        None,
        Reason.WEIGHTS_MISSING,
        WEIGHTS,
    ),
    (
        "unavailable",
        "SugarCrepe data is not ready under /data: missing /data/sugarcrepe/add_att.json (get https://raw.x/y)",
        None,
        Reason.DATA_MISSING,
        DATA,
    ),
    (
        "failed",
        "28 of 28 instances failed, e.g. add_att/0: /home/u/blip.jsonl has no score for sugarcrepe (custom) "
        "instance add_att/0 image 0 text 0",
        None,
        Reason.SCORES_MISSING,
        SCORES,
    ),
    (
        "partial",
        "14 requests failed (counted as abstentions, not stored; a rerun asks them again), e.g. add_att/0: "
        "HTTP 401: Incorrect API key provided: ***",
        1,
        Reason.AUTH,
        API,
    ),
    (
        "failed",
        "m: OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\nTraceback ...",
        None,
        Reason.OUT_OF_MEMORY,
        MEMORY,
    ),
    ("failed", "m: no progress for 900 s; worker killed", None, Reason.TIMEOUT, STALLED),
    ("unavailable", "this model requires transformers >= 4.50", None, Reason.VERSION_TOO_OLD, VERSIONS),
    (
        "failed",
        "3 of 28 instances failed, e.g. swap_obj/0: missing image /d/coco/val2017/1.jpg",
        None,
        Reason.INSTANCES_FAILED,
        INSTANCES,
    ),
    ("failed", "m: worker died from SIGSEGV (exit code -11)", None, Reason.OTHER, FAILED),
    # the old patterns read "boom" as OOM: readers saw the memory sentence, and an old cell keeps it
    ("failed", "m: ValueError: boom", None, Reason.OUT_OF_MEMORY, MEMORY),
    # only the first line counts, as the board read only that
    ("failed", "m: ValueError: bad shape\nHF_HUB_OFFLINE is set; CUDA out of memory", None, Reason.OTHER, FAILED),
    (
        "unavailable",
        "shapes_clip weights /w/shapes.safetensors are missing (train: x.py)",
        None,
        Reason.OTHER,
        UNAVAILABLE,
    ),
    (
        "skipped",
        "m answers multiple-choice questions; shapes declares no multiple-choice form",
        None,
        Reason.NOT_APPLICABLE,
        SKIPPED,
    ),
    ("partial", None, 1, Reason.LIMITED, PARTIAL),
    (
        "partial",
        "2 requests failed (counted as abstentions, not stored; a rerun asks them again), e.g. x: HTTP 503 after 3 "
        "retries",
        None,
        Reason.REQUEST_FAILED,
        PARTIAL,
    ),
]


def _as_schema_4(url: str) -> list[int]:
    """A store as the schema-4 harness left it: one cell per case (and an ok one), no reason codes."""
    store = open_store(url)
    ids = []
    for k, (status, error, limit, _, _) in enumerate([*OLD_CELLS, ("ok", None, None, None, None)]):
        record = CellRecord(f"m{k}", "sugarcrepe", "sugarcrepe", status, fingerprint="f" * 64, manifest_hash="h")
        record.error, record.instance_limit = error, limit
        record.reason_code = Reason.WORKER_ERROR  # dropped below: schema 4 had no such column
        ids.append(store.save_cell(record, []))
    with store.engine.begin() as conn:
        conn.execute(text("ALTER TABLE cells DROP COLUMN reason_code"))
        conn.execute(text("UPDATE schema_info SET value='4' WHERE key='schema_version'"))
    store.close()
    return ids


def test_the_schema_4_to_5_step_derives_each_old_cells_code_from_its_text(store_url):
    from vlc_leaderboard.public import public_reason

    ids = _as_schema_4(store_url)
    store = open_store(store_url)
    try:
        assert store.info()["schema_version"] == str(schema.SCHEMA_VERSION) == "6"
        cells = {c.id: c for c in store.latest_cells()}
        for cell_id, (status, error, _, code, sentence) in zip(ids, OLD_CELLS):
            cell = cells[cell_id]
            assert (cell.status, cell.error) == (status, error)  # the text is kept as it was
            assert cell.reason_code == code, error
            assert public_reason(cell.status, cell.reason_code) == sentence, error  # readers see what they saw
        assert cells[ids[-1]].reason_code is None  # an ok cell has no reason
    finally:
        store.close()


def test_the_derivation_runs_once_and_never_touches_a_cell_that_has_a_code(tmp_path):
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    ids = _as_schema_4(url)
    open_store(url).close()
    store = open_store(url)
    with store.engine.begin() as conn:  # as if the harness of schema 5 had decided otherwise
        conn.execute(text("UPDATE cells SET reason_code='timeout' WHERE id=:id"), {"id": ids[0]})
    store.close()
    store = open_store(url)  # a second open runs no migration
    assert {c.id: c.reason_code for c in store.latest_cells()}[ids[0]] == Reason.TIMEOUT
    store.close()


def test_every_derived_code_is_a_known_code():
    for status, error, limit, code, _ in OLD_CELLS:
        assert legacy_reason_code(status, error, limit) == code in set(Reason)


def test_a_new_cell_stores_its_code_and_reads_it_back(vlc_store):
    record = CellRecord("m", "b", "sugarcrepe", "failed", fingerprint="a" * 64, manifest_hash="h", error="x")
    record.reason_code = Reason.OUT_OF_MEMORY
    vlc_store.save_cell(record, [])
    (back,) = vlc_store.latest_cells()
    assert back.reason_code == Reason.OUT_OF_MEMORY


@pytest.mark.parametrize("code", sorted(Reason))
def test_codes_are_short_names_that_fit_the_column(code):
    assert code.isidentifier() and code.islower() and len(code) <= schema.cells.c.reason_code.type.length
