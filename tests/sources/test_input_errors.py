"""The one input error and the shared readers (issue 38, item 1): every malformed file is an
:class:`~vlc_harness.errors.InputError` whose one sentence names the file, the record, the field and what
was expected; an absent or unreadable file stays :class:`~vlc_harness.errors.DataUnavailable`."""

from __future__ import annotations

import json
import pickle

import pytest

from vlc_harness.errors import DataUnavailable, InputError, reason_of
from vlc_harness.reasons import Reason, public_reason
from vlc_harness.sources import read_csv, read_json, read_json_object, read_json_records, read_jsonl
from vlc_harness.sources.fields import ID, NAME, NUMBER, TEXT, WORDS, Malformed, at, list_of, one_of, require

CASE = {"filename": NAME, "caption": TEXT}


def test_the_error_carries_file_record_field_and_expected_in_one_sentence(tmp_path):
    error = InputError(tmp_path / "a.json", "record 3", "caption", "a string", "the number 7")
    assert (error.file, error.record, error.field, error.expected, error.found) == (
        str(tmp_path / "a.json"),
        "record 3",
        "caption",
        "a string",
        "the number 7",
    )
    assert str(error) == f"{tmp_path / 'a.json'}, record 3, field 'caption': expected a string, found the number 7."
    assert reason_of(error) == Reason.INPUT_MALFORMED == error.code
    again = pickle.loads(pickle.dumps(error))  # a worker's error crosses a process boundary
    assert (type(again), str(again), again.field, again.code) == (InputError, str(error), "caption", error.code)
    whole = InputError("b.json", "the file", "the file", "a JSON list", "an object")
    assert str(whole) == "b.json, the file: expected a JSON list, found an object."
    assert public_reason("failed", Reason.INPUT_MALFORMED).startswith("Not evaluated: an input file")
    assert Reason.INPUT_MALFORMED.label == "input file malformed"


def test_invalid_json_names_the_file_line_and_column(tmp_path):
    path = tmp_path / "swap_obj.json"
    path.write_text('{"0": {"filename": "a.jpg",\n "caption": "a dog}}')
    with pytest.raises(InputError) as info:
        read_json(path, "SugarCrepe")
    error = info.value
    assert (error.file, error.record, error.field, error.expected) == (
        str(path),
        "line 2 column 13",
        "the JSON text",
        "valid JSON",
    )
    assert "swap_obj.json, line 2 column 13, the JSON text: expected valid JSON, found unterminated string" in str(
        error
    )


@pytest.mark.parametrize(
    ("content", "record", "found"),
    [
        (b"", "the file", "an empty file"),
        (b" \n\t\n", "the file", "an empty file"),
        (b'{"a": 1,\n "b": 2\xff}', "line 2 byte 8", "the byte 0xff"),
        (b'{"a": 1, "a": 2}', "the file", "'a' twice"),
        (b"[" + b"1" * 5000 + b"]", "the file", "exceeds the limit (4300 digits) for integer string conversion"),
        (b"[" * 5000 + b"]" * 5000, "the file", "nesting too deep"),
    ],
)
def test_empty_undecodable_repeated_and_unreadably_large_json_is_an_input_error(tmp_path, content, record, found):
    path = tmp_path / "x.json"
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        read_json(path, "Demo")
    assert info.value.record == record and info.value.found.startswith(found)


def test_an_absent_or_unreadable_file_is_unavailable_not_malformed(tmp_path):
    with pytest.raises(DataUnavailable, match="absent.json"):
        read_json(tmp_path / "absent.json", "Demo")
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(DataUnavailable, match="folder.json"):
        read_json(tmp_path / "folder.json", "Demo")


def test_records_are_checked_against_the_schema_field_by_field(tmp_path):
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"0": {"filename": "a.jpg", "caption": "a cat"}, "1": {"filename": "b.jpg"}}))
    with pytest.raises(InputError) as info:
        read_json_object(path, "Demo", CASE, item="case")
    assert (info.value.record, info.value.field, info.value.found) == (
        "case '1'",
        "caption",
        "nothing: the field is absent",
    )
    path.write_text(json.dumps({"0": {"filename": ["a.jpg"], "caption": "a cat"}}))
    with pytest.raises(
        InputError, match=r"case '0', field 'filename': expected a file name .*, found a list of 1 item\."
    ):
        read_json_object(path, "Demo", CASE, item="case")
    path.write_text(json.dumps([1, 2]))
    with pytest.raises(InputError, match="the file: expected a JSON object of cases keyed by id, found a list of 2"):
        read_json_object(path, "Demo", CASE, item="case")
    path.write_text(
        json.dumps([{"filename": "a.jpg", "caption": "x", "id": 1}, {"filename": "b", "caption": "y", "id": "1"}])
    )
    with pytest.raises(
        InputError, match=r"record 1, field 'id': expected an id of its own \(Demo\), found '1', as record 0"
    ):
        read_json_records(path, "Demo", {**CASE, "id": ID}, key="id")
    assert [r["id"] for r in read_json_records(path, "Demo", CASE)] == [1, "1"]  # fields not read are not checked


def test_kinds_refuse_what_a_loader_cannot_use():
    assert NUMBER.accepts(3) and NUMBER.accepts(2.5) and not NUMBER.accepts(float("inf"))
    assert not NUMBER.accepts(float("nan")) and not NUMBER.accepts(True) and not NUMBER.accepts("3")
    assert NAME.accepts("VG_100K/1.jpg") and not NAME.accepts("") and not NAME.accepts("/etc/passwd")
    assert not NAME.accepts("a\0b") and not NAME.accepts(3)
    assert WORDS.accepts("a dog") and not WORDS.accepts("  ")
    assert ID.accepts(0) and ID.accepts("x") and not ID.accepts("") and not ID.accepts(None) and not ID.accepts(False)
    assert list_of(TEXT, 2).accepts(["a", "b"]) and not list_of(TEXT, 2).accepts(["a"])
    assert one_of("0", "1").accepts("1") and not one_of("0", "1").accepts(1)
    with pytest.raises(Malformed, match="the record: expected a JSON object, found the number 4"):
        require(4, CASE)
    with pytest.raises(InputError, match="f.json, row 2, field 'x'"):
        with at("f.json", "row 2"):
            NUMBER.check("x", float("inf"))


def test_json_lines_name_the_line_and_a_check_speaks_in_its_own_words(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": 1, "caption": "a"}\n\n{"id": 2, "caption": 3}\n')
    with pytest.raises(
        InputError, match=r"rows.jsonl, line 3, field 'caption': expected a string, found the number 3\."
    ):
        read_jsonl(path, "Demo", {"id": ID, "caption": TEXT})
    path.write_text('{"id": 1, "caption": "a"}\n{"id": 2, "caption": "b"\n')
    with pytest.raises(
        InputError, match=r"line 2 column 25, the JSON text: expected valid JSON, found expecting .,. delimiter"
    ):
        read_jsonl(path, "Demo")

    def check(row: dict) -> dict:
        raise ValueError("the caption must rhyme")

    path.write_text('{"id": 1, "caption": "a"}\n')
    with pytest.raises(
        InputError, match="line 1, the record: expected a record its benchmark accepts, found the caption"
    ):
        read_jsonl(path, "Demo", check=check)


def test_csv_rows_have_the_header_columns(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text("image,label\na.png,1\nb.png,0,extra\n")
    with pytest.raises(InputError, match=r"rows.csv, line 3, the record: expected 2 columns, as the header, found 3"):
        read_csv(path, "Demo", ("image", "label"))
    path.write_text("image,label\na.png\n")
    with pytest.raises(InputError, match=r"line 2, field 'label': expected 2 columns, as the header, found a shorter"):
        read_csv(path, "Demo")
    path.write_text("image\na.png\n")
    with pytest.raises(InputError, match=r"line 1 \(the header\), field 'label': expected a column of that name"):
        read_csv(path, "Demo", ("image", "label"))
    path.write_text("image\n" + "x" * 200_000 + "\n")
    with pytest.raises(InputError, match="line 2, the record: expected a CSV row, found field larger than field limit"):
        read_csv(path, "Demo")
    path.write_bytes(b"image\n\xe9t\xe9.png\n")
    with pytest.raises(InputError, match=r"line 2 byte 1, the text: expected UTF-8 text, found the byte 0xe9"):
        read_csv(path, "Demo")


def _raised(exc: Exception) -> Exception:
    try:
        raise exc
    except Exception as caught:
        return caught


def test_a_workers_input_error_is_its_sentence_and_debug_shows_where(monkeypatch, capsys):
    from vlc_harness.run.worker import describe

    monkeypatch.delenv("VLC_HARNESS_DEBUG", raising=False)
    error = _raised(InputError("s.jsonl", "line 4", "image", "a non-negative integer", "the number -1"))
    assert describe(error) == str(error) and capsys.readouterr().err == ""
    crash = describe(_raised(ValueError("boom")))
    assert crash.startswith("ValueError: boom\n") and "Traceback" in crash  # a genuine crash keeps its frames
    monkeypatch.setenv("VLC_HARNESS_DEBUG", "1")
    error = _raised(InputError("s.jsonl", "line 4", "image", "a non-negative integer", "the number -1"))
    assert describe(error) == str(error)
    assert "Traceback (most recent call last)" in capsys.readouterr().err
    describe(error)
    assert capsys.readouterr().err == ""  # shown once
