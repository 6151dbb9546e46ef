"""The reproductions of issue 38's first two findings, each failing on the code before the fix.

One bad SugarCrepe annotation stopped the whole grid (a caption that is an int: ``TypeError '<' not supported
between str and int`` in the protocol's sort); malformed JSON did not name its file (``JSONDecodeError ...
(char 344)``), a record without a file name was ``KeyError: 'filename'``, a file that is a list of numbers
``'int' object has no attribute 'isdigit'``. A precomputed scores file with an int where an object belongs,
``1e400`` or bytes that are not UTF-8 failed with ``TypeError``, ``OverflowError`` and ``UnicodeDecodeError``,
naming neither file nor line. Each is now one sentence naming the file, the record and the field, and only
the cells that read the file fail.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlc_harness.plugins import get_plugins
from vlc_harness.registry import parse_inline_benchmark
from vlc_harness.run.prepare import PreparedBenchmark, prepare

SC = "sugarcrepe:version=custom"


def load(root: Path) -> PreparedBenchmark:
    plugins = get_plugins()
    return prepare(parse_inline_benchmark(SC, plugins), plugins.benchmarks, root, None)


def rewrite(root: Path, subset: str, change) -> Path:  # noqa: ANN001
    path = root / "sugarcrepe" / f"{subset}.json"
    path.write_text(change(json.loads(path.read_text())))
    return path


def first_key(records: dict) -> str:
    return sorted(records, key=int)[0]


def test_an_int_caption_fails_sugarcrepes_cells_and_the_grid_runs(vlc_run, sample_root):
    def int_caption(records: dict) -> str:
        records[first_key(records)]["caption"] = 7
        return json.dumps(records)

    path = rewrite(sample_root, "swap_obj", int_caption)
    out = vlc_run("-m", "random", "-m", "random:seed=3", "-b", SC, "-b", "shapes:n_scenes=6", data_root=sample_root)
    assert out.exit_code == 1, out.output  # a cell failed; nothing was lost (the store was empty)
    cells = {(c.model_id, c.benchmark_id): c for c in vlc_run.store().latest_cells()}
    assert {k: c.status for k, c in cells.items()} == {
        ("random", SC): "failed",
        ("random:seed=3", SC): "failed",
        ("random", "shapes:n_scenes=6"): "ok",
        ("random:seed=3", "shapes:n_scenes=6"): "ok",
    }
    failed = cells[("random", SC)]
    assert failed.error == f"{path}, case '0', field 'caption': expected a string, found the number 7."
    assert failed.reason_code == "input_malformed"
    assert "Traceback" not in out.output and "TypeError" not in out.output


def test_malformed_json_names_its_file_line_and_column(sample_root):
    path = rewrite(sample_root, "replace_rel", lambda records: json.dumps(records, indent=1)[:344])
    prepared = load(sample_root)
    assert prepared.load_error is not None and prepared.load_error.startswith(f"{path}, line ")
    assert "column" in prepared.load_error and "expected valid JSON" in prepared.load_error
    assert getattr(prepared, "load_code", None) == "input_malformed"


def test_a_case_without_a_file_name_names_the_case_and_the_field(sample_root):
    def no_filename(records: dict) -> str:
        del records[first_key(records)]["filename"]
        return json.dumps(records)

    path = rewrite(sample_root, "add_att", no_filename)
    assert load(sample_root).load_error == (
        f"{path}, case '0', field 'filename': expected a file name (a relative path, each part at most 255 "
        "bytes), found nothing: the field is absent."
    )


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ([1, 2], "the file: expected a JSON object of cases keyed by id, found a list of 2 items."),
        ({"0": {"filename": ["a.jpg"], "caption": "c", "negative_caption": "n"}}, "case '0', field 'filename'"),
        ({"0": {"filename": "a.jpg", "caption": "c", "negative_caption": None}}, "field 'negative_caption'"),
    ],
)
def test_a_file_of_another_shape_names_what_was_expected(sample_root, content, said):
    path = rewrite(sample_root, "swap_att", lambda records: json.dumps(content))
    prepared = load(sample_root)
    assert prepared.load_error is not None and prepared.load_error.startswith(f"{path}, ")
    assert said in prepared.load_error


# -- precomputed scores files ---------------------------------------------------------------------------


@pytest.fixture
def scores(tmp_path, sample_root) -> tuple[Path, list[dict]]:
    prepared = load(sample_root)
    lines = [
        {"benchmark": SC, "version": prepared.data_version, "instance": inst.id, "image": i, "text": j, "score": 0.25}
        for inst in prepared.instances
        for i, j in inst.needed_pairs()
    ]
    return tmp_path / "scores.jsonl", lines


def write(path: Path, lines: list, raw: bytes = b"") -> None:
    path.write_bytes("".join(json.dumps(x) + "\n" for x in lines).encode() + raw)


def line(**raw: str) -> bytes:
    """A scores line with some fields written as raw JSON text (``1e400`` cannot be dumped)."""
    fields = {"benchmark": '"b"', "version": '"v"', "instance": '"i"', "image": "0", "text": "0", "score": "1"} | raw
    return ("{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}\n").encode()


@pytest.mark.parametrize(
    ("bad", "field", "expected"),
    [
        (b"7\n", "the record", "a JSON object"),
        (line(benchmark="5"), "benchmark", "a string"),
        (line(image="1e400"), "image", "a non-negative integer"),
        (line(score="1e400"), "score", "a finite number"),
        (line(benchmark='"cafe"').replace(b"cafe", b"caf\xe9"), "the text", "UTF-8 text"),
    ],
)
def test_a_malformed_scores_line_is_named_by_file_line_and_field(scores, bad, field, expected):
    from vlc_harness_builtins.models.precomputed import read_scores

    path, lines = scores
    write(path, lines[:3], bad)
    with pytest.raises(Exception) as info:
        read_scores(path)
    error = info.value
    assert type(error).__name__ == "InputError", f"{type(error).__name__}: {error}"
    assert (error.file, error.field, error.expected) == (str(path), field, expected)
    assert error.record.startswith("line 4")


def test_a_malformed_scores_file_fails_the_models_cells_in_one_sentence(vlc_run, sample_root, scores):
    path, lines = scores
    write(path, lines[:3], line(image="1e400"))
    out = vlc_run("-m", f"precomputed:path={path}", "-m", "random", "-b", SC, data_root=sample_root)
    assert out.exit_code == 1, out.output
    cells = {c.model_id: c for c in vlc_run.store().latest_cells()}
    cell = cells[f"precomputed:path={path}"]
    assert (cell.status, cell.reason_code) == ("failed", "input_malformed")
    sentence = f"{path}, line 4, field 'image': expected a non-negative integer, found a number too large to read"
    assert sentence in cell.error and "Traceback" not in cell.error and "\n" not in cell.error
    assert cells["random"].status == "ok"
