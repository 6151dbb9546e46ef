"""A JSON Schema (draft 2020-12) checker for the keywords the board bundle's schema uses, with no dependency.

``render --bundle`` runs in a process that imports nothing beyond the harness and what it renders with,
so the bundle's schema (``bundle.schema.json``, shipped in this package) is checked here rather than by
the ``jsonschema`` package. Supported: ``type`` (one or a list), ``enum``, ``const``, ``pattern``,
``minLength``, ``maxLength``, ``minimum``, ``maximum``, ``items``, ``prefixItems``, ``minItems``,
``maxItems``, ``properties``, ``required``, ``additionalProperties`` (a boolean or a schema),
``propertyNames``, ``anyOf`` and ``$ref`` to ``#/$defs/NAME``; annotations (``title``, ``description``,
``$schema``, ``$id``, ``$comment``) are ignored. A schema using any other keyword is refused, so that no
rule is silently skipped; the tests check this checker against ``jsonschema`` on the shipped schema.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

CHECKED = {
    "type",
    "enum",
    "const",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "additionalProperties",
    "propertyNames",
    "anyOf",
    "$ref",
}
IGNORED = {"title", "description", "$schema", "$id", "$comment", "$defs", "default", "examples"}


class SchemaError(ValueError):
    """A document that does not conform (the message names where), or a schema this checker cannot read."""


def _is(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    raise SchemaError(f"unknown type {kind!r} in the schema")


def check(document: Any, schema: Mapping[str, Any]) -> None:
    """Raise :class:`SchemaError` naming the first place where ``document`` breaks ``schema``."""
    _check(document, schema, schema, "$")


def _check(value: Any, schema: Mapping[str, Any], root: Mapping[str, Any], where: str) -> None:
    unknown = set(schema) - CHECKED - IGNORED
    if unknown:
        raise SchemaError(f"the schema at {where} uses {', '.join(sorted(unknown))}, which this checker does not check")
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            raise SchemaError(f"only #/$defs/ references are supported, not {ref}")
        _check(value, root["$defs"][ref.removeprefix("#/$defs/")], root, where)
    if "anyOf" in schema:
        errors = []
        for option in schema["anyOf"]:
            try:
                _check(value, option, root, where)
                break
            except SchemaError as exc:
                errors.append(str(exc))
        else:
            raise SchemaError(f"{where}: matches none of its forms ({'; '.join(errors)})")
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, k) for k in kinds):
            raise SchemaError(f"{where}: expected {' or '.join(kinds)}, got {type(value).__name__}")
    if "const" in schema and value != schema["const"]:
        raise SchemaError(f"{where}: expected {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaError(f"{where}: {value!r} is not one of {schema['enum']!r}")
    if isinstance(value, str):
        _string(value, schema, where)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _number(value, schema, where)
    elif isinstance(value, list):
        _array(value, schema, root, where)
    elif isinstance(value, dict):
        _object(value, schema, root, where)


def _string(value: str, schema: Mapping[str, Any], where: str) -> None:
    if len(value) < schema.get("minLength", 0):
        raise SchemaError(f"{where}: shorter than {schema['minLength']} characters")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        raise SchemaError(f"{where}: longer than {schema['maxLength']} characters")
    if "pattern" in schema and not re.search(schema["pattern"], value):
        raise SchemaError(f"{where}: {value[:80]!r} does not match {schema['pattern']}")


def _number(value: float, schema: Mapping[str, Any], where: str) -> None:
    if math.isnan(value):
        return  # Python's JSON writes NaN for a value that is not a number; no bound applies to it
    if "minimum" in schema and value < schema["minimum"]:
        raise SchemaError(f"{where}: {value} is below {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        raise SchemaError(f"{where}: {value} is above {schema['maximum']}")


def _array(value: list[Any], schema: Mapping[str, Any], root: Mapping[str, Any], where: str) -> None:
    if len(value) < schema.get("minItems", 0):
        raise SchemaError(f"{where}: fewer than {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        raise SchemaError(f"{where}: more than {schema['maxItems']} items")
    prefix = schema.get("prefixItems", [])
    for k, (item, sub) in enumerate(zip(value, prefix)):
        _check(item, sub, root, f"{where}[{k}]")
    rest = schema.get("items")
    if rest is False and len(value) > len(prefix):
        raise SchemaError(f"{where}: more than {len(prefix)} items")
    if isinstance(rest, Mapping):
        for k in range(len(prefix), len(value)):
            _check(value[k], rest, root, f"{where}[{k}]")


def _object(value: dict[str, Any], schema: Mapping[str, Any], root: Mapping[str, Any], where: str) -> None:
    for key in schema.get("required", []):
        if key not in value:
            raise SchemaError(f"{where}: {key!r} is missing")
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    names = schema.get("propertyNames")
    for key, item in value.items():
        if names is not None:
            _check(key, names, root, f"{where} (a key)")
        if key in properties:
            _check(item, properties[key], root, f"{where}.{key}")
        elif extra is False:
            raise SchemaError(f"{where}: {key!r} is not allowed here")
        elif isinstance(extra, Mapping):
            _check(item, extra, root, f"{where}.{key}")
