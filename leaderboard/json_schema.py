"""A JSON Schema (draft 2020-12) checker for the keywords the board bundle's schema uses, with no dependency.

``render --bundle`` runs in a process that imports nothing beyond the harness and what it renders with,
so the bundle's schema (``bundle.schema.json``, shipped in this package) is checked here rather than by
the ``jsonschema`` package. Supported: ``type`` (one or a list), ``enum``, ``const``, ``pattern``,
``minLength``, ``maxLength``, ``minimum``, ``maximum``, ``items``, ``prefixItems``, ``minItems``,
``maxItems``, ``properties``, ``required``, ``additionalProperties`` (a boolean or a schema),
``propertyNames``, ``anyOf`` and ``$ref`` to ``#/$defs/NAME``; annotations (``title``, ``description``,
``$schema``, ``$id``, ``$comment``) are ignored. A schema using any other keyword is refused, so that no
rule is silently skipped; the tests check this checker against ``jsonschema`` on the shipped schema.

A schema is compiled once into nested checking functions (:func:`compile_schema`): its keywords are read
and vetted when it is compiled, not again at each value it checks (a bundle's document has about a million).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
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


Checker = Callable[[Any, str], None]
"""Checks a value found at a place (``$.cells[3]``): raises :class:`SchemaError` naming it, or returns."""

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
    "integer": (int,),
    "number": (int, float),
}
"""The Python types of each JSON type, as :func:`json.loads` makes them (a bool is never an integer here)."""


def check(document: Any, schema: Mapping[str, Any]) -> None:
    """Raise :class:`SchemaError` naming the first place where ``document`` breaks ``schema``."""
    compile_schema(schema)(document, "$")


def compile_schema(schema: Mapping[str, Any]) -> Checker:
    """``schema`` as one checking function; :class:`SchemaError` if it uses a keyword this checker does not check
    (anywhere, whether or not a document reaches it) or refers to a definition it lacks."""
    return _Compiler(schema).compile(schema, "$")


class _Compiler:
    """Compiles a schema's subschemas, each ``$defs`` entry once (a reference to one being compiled, as in a
    recursive definition, is resolved when it is first used)."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.defs: dict[str, Checker] = {}

    def compile(self, schema: Mapping[str, Any], where: str) -> Checker:
        unknown = set(schema) - CHECKED - IGNORED
        if unknown:
            raise SchemaError(
                f"the schema at {where} uses {', '.join(sorted(unknown))}, which this checker does not check"
            )
        steps: list[Checker] = []
        if "$ref" in schema:
            steps.append(self._ref(schema["$ref"]))
        if "anyOf" in schema:
            steps.append(_any_of([self.compile(option, where) for option in schema["anyOf"]]))
        if "type" in schema:
            steps.append(_type(schema["type"]))
        if "const" in schema:
            steps.append(_const(schema["const"]))
        if "enum" in schema:
            steps.append(_enum(schema["enum"]))
        by_kind = self._by_kind(schema, where)
        if by_kind is not None:
            steps.append(by_kind)
        if len(steps) == 1:
            return steps[0]

        def checker(value: Any, at: str) -> None:
            for step in steps:
                step(value, at)

        return checker

    def _ref(self, ref: str) -> Checker:
        if not ref.startswith("#/$defs/"):
            raise SchemaError(f"only #/$defs/ references are supported, not {ref}")
        name = ref.removeprefix("#/$defs/")
        definition = self.root.get("$defs", {}).get(name)
        if definition is None:
            raise SchemaError(f"the schema refers to {ref}, which it does not define")
        if name not in self.defs:
            self.defs[name] = _unresolved  # while it compiles: a reference to itself waits for it
            self.defs[name] = self.compile(definition, ref)
        defs = self.defs

        def checker(value: Any, at: str) -> None:
            defs[name](value, at)

        return checker

    def _by_kind(self, schema: Mapping[str, Any], where: str) -> Checker | None:
        """The keywords that apply to one kind of value (strings, numbers, arrays, objects), as one step."""
        string = _string(schema)
        number = _number(schema)
        array = self._array(schema, where)
        obj = self._object(schema, where)
        if string is None and number is None and array is None and obj is None:
            return None

        def checker(value: Any, at: str) -> None:
            if isinstance(value, str):
                if string is not None:
                    string(value, at)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                if number is not None:
                    number(value, at)
            elif isinstance(value, list):
                if array is not None:
                    array(value, at)
            elif isinstance(value, dict) and obj is not None:
                obj(value, at)

        return checker

    def _array(self, schema: Mapping[str, Any], where: str) -> Checker | None:
        if not {"minItems", "maxItems", "prefixItems", "items"} & set(schema):
            return None
        least, most = schema.get("minItems", 0), schema.get("maxItems")
        prefix = [self.compile(sub, f"{where}[{k}]") for k, sub in enumerate(schema.get("prefixItems", []))]
        rest = schema.get("items")
        items = self.compile(rest, f"{where}[]") if isinstance(rest, Mapping) else None
        closed = rest is False

        def checker(value: list[Any], at: str) -> None:
            if len(value) < least:
                raise SchemaError(f"{at}: fewer than {least} items")
            if most is not None and len(value) > most:
                raise SchemaError(f"{at}: more than {most} items")
            for k, (item, sub) in enumerate(zip(value, prefix)):
                sub(item, f"{at}[{k}]")
            if closed and len(value) > len(prefix):
                raise SchemaError(f"{at}: more than {len(prefix)} items")
            if items is not None:
                for k in range(len(prefix), len(value)):
                    items(value[k], f"{at}[{k}]")

        return checker

    def _object(self, schema: Mapping[str, Any], where: str) -> Checker | None:
        if not {"required", "properties", "additionalProperties", "propertyNames"} & set(schema):
            return None
        required = list(schema.get("required", []))
        properties = {key: self.compile(sub, f"{where}.{key}") for key, sub in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        extra_checker = self.compile(extra, f"{where}.*") if isinstance(extra, Mapping) else None
        names = schema.get("propertyNames")
        names_checker = self.compile(names, f"{where} (a key)") if names is not None else None

        def checker(value: dict[str, Any], at: str) -> None:
            for key in required:
                if key not in value:
                    raise SchemaError(f"{at}: {key!r} is missing")
            for key, item in value.items():
                if names_checker is not None:
                    names_checker(key, f"{at} (a key)")
                sub = properties.get(key)
                if sub is not None:
                    sub(item, f"{at}.{key}")
                elif extra is False:
                    raise SchemaError(f"{at}: {key!r} is not allowed here")
                elif extra_checker is not None:
                    extra_checker(item, f"{at}.{key}")

        return checker


def _unresolved(value: Any, at: str) -> None:
    raise SchemaError(f"{at}: a definition was used before it was compiled")  # never: compile resolves them all


def _any_of(options: list[Checker]) -> Checker:
    def checker(value: Any, at: str) -> None:
        errors = []
        for option in options:
            try:
                option(value, at)
                return
            except SchemaError as exc:
                errors.append(str(exc))
        raise SchemaError(f"{at}: matches none of its forms ({'; '.join(errors)})")

    return checker


def _type(kinds: str | list[str]) -> Checker:
    names = [kinds] if isinstance(kinds, str) else list(kinds)
    unknown = [k for k in names if k not in _TYPES]
    if unknown:
        raise SchemaError(f"unknown type {unknown[0]!r} in the schema")
    accepted = tuple(t for k in names for t in _TYPES[k])
    no_bool = "boolean" not in names  # a bool is an int to isinstance, never a JSON number
    whole = "integer" in names and "number" not in names  # JSON Schema: 1.0 is an integer too
    expected = " or ".join(names)

    def checker(value: Any, at: str) -> None:
        if isinstance(value, accepted):
            if not (no_bool and type(value) is bool):
                return
        elif whole and type(value) is float and value.is_integer():
            return
        raise SchemaError(f"{at}: expected {expected}, got {type(value).__name__}")

    return checker


def _const(const: Any) -> Checker:
    def checker(value: Any, at: str) -> None:
        if not _same(value, const):
            raise SchemaError(f"{at}: expected {const!r}")

    return checker


def _enum(options: list[Any]) -> Checker:
    def checker(value: Any, at: str) -> None:
        if not any(_same(value, option) for option in options):
            raise SchemaError(f"{at}: {value!r} is not one of {options!r}")

    return checker


def _same(a: Any, b: Any) -> bool:
    """JSON's equality: Python's, but a boolean is never a number (``True == 1`` in Python)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _string(schema: Mapping[str, Any]) -> Checker | None:
    least, most, pattern = schema.get("minLength", 0), schema.get("maxLength"), schema.get("pattern")
    if not least and most is None and pattern is None:
        return None
    search = re.compile(pattern).search if pattern is not None else None

    def checker(value: str, at: str) -> None:
        if len(value) < least:
            raise SchemaError(f"{at}: shorter than {least} characters")
        if most is not None and len(value) > most:
            raise SchemaError(f"{at}: longer than {most} characters")
        if search is not None and not search(value):
            raise SchemaError(f"{at}: {value[:80]!r} does not match {pattern}")

    return checker


def _number(schema: Mapping[str, Any]) -> Checker | None:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is None and high is None:
        return None

    def checker(value: float, at: str) -> None:
        if math.isnan(value):
            return  # Python's JSON writes NaN for a value that is not a number; no bound applies to it
        if low is not None and value < low:
            raise SchemaError(f"{at}: {value} is below {low}")
        if high is not None and value > high:
            raise SchemaError(f"{at}: {value} is above {high}")

    return checker
