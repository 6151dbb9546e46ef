"""Typed parameter blocks: build a dataclass from a YAML mapping with precise errors.

Model and benchmark types declare their ``params`` (and models their ``run`` options) as
dataclasses. :func:`build` validates a mapping from ``registry.yaml`` against one, naming the key
path of every problem, and :func:`normalise` gives the canonical form that fingerprints hash.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

T = TypeVar("T")


class ParamError(ValueError):
    """A value does not fit its declared type; ``path`` is the dotted key path."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


@dataclasses.dataclass(frozen=True)
class NoParams:
    """Parameter block of a type that takes no parameters."""


def build(cls: type[T], data: Mapping[str, Any] | None, path: str = "params") -> T:
    """Validate ``data`` against dataclass ``cls`` and return an instance.

    Unknown keys, missing required keys and values of the wrong type raise :class:`ParamError`
    naming ``path.key`` and what was expected.
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ParamError(path, f"expected a mapping, got {_describe(data)}")
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass: a params or run block is declared as one")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    hints = type_hints(cls)
    unknown = sorted(set(data) - set(fields))
    if unknown:
        known = ", ".join(sorted(fields)) or "(none)"
        raise ParamError(f"{path}.{unknown[0]}", f"unknown key; known keys: {known}")
    values: dict[str, Any] = {}
    for name, field in fields.items():
        key_path = f"{path}.{name}"
        if name in data:
            values[name] = _check(hints[name], data[name], key_path)
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise ParamError(key_path, f"required key is missing (expected {_type_name(hints[name])})")
    return cls(**values)


@functools.cache
def type_hints(cls: type) -> dict[str, Any]:
    """``typing.get_type_hints(cls)``, worked out once per class: a registry builds a params block per
    entry, and resolving a dataclass's string annotations costs more than checking its values. The
    dict is shared: read it, never change it."""
    return typing.get_type_hints(cls)


def normalise(params: Any) -> dict[str, Any]:
    """Canonical, JSON-safe form of a parameter dataclass (defaults filled in)."""
    return json.loads(json.dumps(dataclasses.asdict(params), sort_keys=True, default=str))


def describe(cls: type) -> list[tuple[str, str, str]]:
    """``(name, type, default)`` for each field of a parameter dataclass, for docs and ``list``."""
    hints = type_hints(cls)
    rows = []
    for field in dataclasses.fields(cls):
        if field.default is not dataclasses.MISSING:
            default = repr(field.default)
        elif field.default_factory is not dataclasses.MISSING:
            default = repr(field.default_factory())
        else:
            default = "(required)"
        rows.append((field.name, _type_name(hints[field.name]), default))
    return rows


def _check(expected: Any, value: Any, path: str) -> Any:
    origin = get_origin(expected)
    if expected is Any:
        return value
    if origin in (Union, types.UnionType):
        for option in get_args(expected):
            try:
                return _check(option, value, path)
            except ParamError:
                continue
        raise ParamError(path, f"expected {_type_name(expected)}, got {_describe(value)}")
    if origin is Literal:
        if value in get_args(expected):
            return value
        choices = ", ".join(repr(a) for a in get_args(expected))
        raise ParamError(path, f"expected one of {choices}, got {value!r}")
    if expected is type(None):
        if value is None:
            return None
        raise ParamError(path, f"expected null, got {_describe(value)}")
    if origin in (list, tuple) or expected in (list, tuple):
        if not isinstance(value, (list, tuple)):
            raise ParamError(path, f"expected a list, got {_describe(value)}")
        args = get_args(expected)
        item_type = args[0] if args else Any
        return tuple(_check(item_type, v, f"{path}[{i}]") for i, v in enumerate(value))
    if origin is dict or expected is dict:
        if not isinstance(value, Mapping):
            raise ParamError(path, f"expected a mapping, got {_describe(value)}")
        return dict(value)
    if isinstance(expected, type) and dataclasses.is_dataclass(expected):
        return build(expected, value, path)
    if expected is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif expected is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif isinstance(expected, type) and isinstance(value, expected):
        return value
    raise ParamError(path, f"expected {_type_name(expected)}, got {_describe(value)}")


def _type_name(tp: Any) -> str:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in get_args(tp))
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if tp is type(None):
        return "null"
    if origin in (list, tuple):
        return "a list"
    if origin is dict or tp is dict:
        return "a mapping"
    names = {str: "a string", int: "an integer", float: "a number", bool: "true/false"}
    return names.get(tp, getattr(tp, "__name__", str(tp)))


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {value}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"{type(value).__name__} {value!r}"
