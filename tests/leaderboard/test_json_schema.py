"""The bundle's own JSON Schema checker (``vlc_leaderboard.json_schema``) against ``jsonschema``: on random
documents, over a schema that uses every keyword the checker supports, both accept and refuse the same ones;
and a schema it cannot check is refused when it is compiled, not skipped."""

from __future__ import annotations

import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from vlc_harness.testing import require
from vlc_leaderboard.json_schema import CHECKED, SchemaError, check, compile_schema

set_hypothesis_home_dir(tempfile.mkdtemp(prefix="vlc-test-hypothesis-"))  # never ./.hypothesis in the checkout

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["name", "cells"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 6, "pattern": "^[a-c]"},
        "kind": {"enum": ["a", "b", 3]},
        "version": {"const": 1},
        "cells": {"type": "array", "maxItems": 4, "items": {"$ref": "#/$defs/cell"}},
        "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": False},
        "tags": {"type": "object", "propertyNames": {"pattern": "^t"}, "additionalProperties": {"type": "boolean"}},
        "tree": {"$ref": "#/$defs/tree"},
    },
    "$defs": {
        "cell": {
            "type": "object",
            "required": ["value"],
            "properties": {
                "value": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
                "n": {"type": "integer", "minimum": 1},
                "either": {"anyOf": [{"type": "string"}, {"type": "array", "minItems": 2}]},
            },
        },
        "tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}},
    },
}
"""Every keyword in :data:`~vlc_leaderboard.json_schema.CHECKED`, a recursive definition among them."""

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 3), st.floats(-0.5, 1.5, allow_nan=False), st.sampled_from("abtx")
)
VALUES = st.recursive(
    SCALARS | st.text("abct", max_size=8),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.sampled_from(["t1", "x", "children"]), inner),
    max_leaves=12,
)


def near(valid: st.SearchStrategy, invalid: st.SearchStrategy = VALUES) -> st.SearchStrategy:
    """Mostly values the schema accepts, sometimes anything: a document breaks it in one place at a time."""
    return st.one_of(*[valid] * 6, invalid)


UNIT = st.one_of(st.floats(0, 1), st.none(), st.sampled_from([1, 0, -0.001, 1.001, 1.2, True, "0.5", 2]))
CELLS = st.fixed_dictionaries(
    {"value": near(UNIT, SCALARS)},
    optional={
        "n": near(st.integers(1, 5), st.sampled_from([0, 1.0, 1.5, True, "2", None])),
        "either": near(st.text("ab", max_size=2) | st.lists(SCALARS, min_size=2, max_size=3)),
        "other": VALUES,
    },
)
TREES = st.recursive(
    st.just({}), lambda inner: st.fixed_dictionaries({"children": st.lists(near(inner, VALUES), max_size=3)})
)
TAGS = st.dictionaries(st.sampled_from(["t1", "tb", "x", "T"]), near(st.booleans(), SCALARS), max_size=3)
VALID = {"name": "ab", "cells": []}
FIELDS = {
    "name": st.sampled_from(["a", "bc", "cabbab", "", "x", "cabbabc", "ba\n"]),
    "cells": st.lists(near(CELLS), max_size=5) | st.sampled_from([[{"value": 0.5}] * 5, [], {}]),
    "kind": st.sampled_from(["a", "b", 3, 3.0, "c", True, None, ["a"]]),
    "version": st.sampled_from([1, 1.0, True, "1", 2, None]),
    "pair": st.lists(near(st.integers(0, 2) | st.text("a", max_size=2), SCALARS), max_size=3),
    "tags": near(TAGS),
    "tree": near(TREES),
    "extra": VALUES,
}
DOCUMENTS = st.lists(st.sampled_from(sorted(FIELDS)), min_size=1, max_size=2, unique=True).flatmap(
    lambda keys: st.fixed_dictionaries({k: FIELDS[k] for k in keys}).map(lambda fields: VALID | fields)
)


def test_the_test_schema_uses_every_keyword_the_checker_checks():
    used: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            used.update(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(SCHEMA)
    assert CHECKED <= used, CHECKED - used


@settings(max_examples=1500, deadline=None)
@given(DOCUMENTS)
def test_the_checker_agrees_with_jsonschema(document):
    require("jsonschema")
    import jsonschema

    expected = jsonschema.Draft202012Validator(SCHEMA).is_valid(document)
    try:
        check(document, SCHEMA)
        got = True
    except SchemaError:
        got = False
    assert got == expected, document


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"deep": {"type": "string", "format": "date"}}},  # never reached below
        {"items": {"$ref": "#/$defs/missing"}},
        {"$ref": "https://example.org/other.json"},
        {"type": "decimal"},
    ],
)
def test_a_schema_it_cannot_check_is_refused_when_compiled(schema):
    with pytest.raises(SchemaError):
        compile_schema(schema)


def test_the_error_names_the_place():
    with pytest.raises(SchemaError, match=r"^\$\.cells\[1\]\.value: 2 is above 1$"):
        check({"name": "a", "cells": [{"value": 0.5}, {"value": 2}]}, SCHEMA)
