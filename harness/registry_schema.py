"""A JSON Schema of ``registry.yaml``, built from the same dataclasses the loader validates with.

Editors that speak JSON Schema (VS Code's YAML extension, JetBrains, anything on the YAML
language server) complete and check a registry with it: entry keys, each model and benchmark
type's params and run options, and the ``meta`` blocks. The loader stays the authority (it also
checks links, training pools and cross-field rules, with file and line); the schema only ever
accepts what the loader accepts, or more.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import textwrap
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

from vlc_harness.meta import BenchmarkMeta, ModelMeta
from vlc_harness.plugins import Plugins
from vlc_harness.registry import ID_PATTERN

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def registry_schema(plugins: Plugins) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a registry file for the loaded plugins' types, those declared
    unavailable here with their class included (``t2v_metrics`` without its package): the schema does not
    depend on which optional packages are installed."""
    defs: dict[str, Any] = {
        "model_meta": _object(ModelMeta),
        "benchmark_meta": _object(BenchmarkMeta),
    }
    model_cases, benchmark_cases = [], []
    models = {**plugins.models.missing_classes, **{name: reg.cls for name, reg in plugins.models.entries.items()}}
    for name, cls in sorted(models.items()):
        defs[f"model.{name}.params"] = _object(cls.Params)
        defs[f"model.{name}.run"] = _object(cls.Run)
        model_cases.append(_case(name, {"params": f"model.{name}.params", "run": f"model.{name}.run"}))
    for name, registered in sorted(plugins.benchmarks.entries.items()):
        defs[f"benchmark.{name}.params"] = _object(registered.cls.Params)
        benchmark_cases.append(_case(name, {"params": f"benchmark.{name}.params"}))
    entry_id = {"type": "string", "pattern": ID_PATTERN.pattern, "description": "Unique id (letters, digits, . _ - /)."}
    defs["model"] = {
        "type": "object",
        "required": ["id", "type"],
        "additionalProperties": False,
        "properties": {
            "id": entry_id,
            "type": {"enum": sorted(models), "description": "A registered model type."},
            "params": {"type": "object", "description": "Fingerprinted: they change the scores."},
            "run": {"type": "object", "description": "How to run (batch size, device); not fingerprinted."},
            "meta": {"$ref": "#/$defs/model_meta"},
        },
        "allOf": model_cases,
    }
    defs["benchmark"] = {
        "type": "object",
        "required": ["id", "type"],
        "additionalProperties": False,
        "properties": {
            "id": entry_id,
            "type": {"enum": sorted(plugins.benchmarks.entries), "description": "A registered benchmark type."},
            "params": {"type": "object"},
            "meta": {"$ref": "#/$defs/benchmark_meta"},
            "references": {
                "description": "Paper-reported rows to show: all, none, or a list of row sources.",
                "anyOf": [{"enum": ["all", "none"]}, {"type": "array", "items": {"type": "string"}}],
            },
        },
        "allOf": benchmark_cases,
    }
    return {
        "$schema": DIALECT,
        "title": "vlc-harness registry",
        "description": "Models and benchmarks of the grid (docs/registry.md).",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "models": {"type": ["array", "null"], "items": {"$ref": "#/$defs/model"}},
            "benchmarks": {"type": ["array", "null"], "items": {"$ref": "#/$defs/benchmark"}},
            "plugins": {"type": ["array", "null"], "items": {"$ref": "#/$defs/plugin_package"}},
        },
        "$defs": {**defs, "plugin_package": PLUGIN_PACKAGE},
    }


PLUGIN_PACKAGE: dict[str, Any] = {
    "type": "object",
    "description": "A pinned distribution that provides model or benchmark types (docs/registry.md, plugin packages).",
    "required": ["package", "pin"],
    "additionalProperties": False,
    "properties": {
        "package": {"type": "string", "description": "The distribution's name on the package index."},
        "pin": {
            "type": "string",
            "description": "'NAME==VERSION', with the sha256 of its wheels under hashes (git pins are refused).",
        },
        "hashes": {
            "type": "array",
            "items": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
            "description": "sha256 of each wheel pip may install for a NAME==VERSION pin (never an sdist).",
        },
        "models": {"type": "array", "items": {"type": "string"}, "description": "Model types it provides."},
        "benchmarks": {"type": "array", "items": {"type": "string"}, "description": "Benchmark types it provides."},
        "dependency_of": {
            "type": "string",
            "description": "A plugin's own dependency (no types): the listed plugin package that needs it.",
        },
    },
}


def schema_json(plugins: Plugins) -> str:
    """:func:`registry_schema` as stable, indented JSON (what ``vlc-harness schema registry`` prints)."""
    return json.dumps(registry_schema(plugins), indent=2, sort_keys=True) + "\n"


def _case(type_name: str, refs: dict[str, str]) -> dict[str, Any]:
    then = {key: {"$ref": f"#/$defs/{ref}"} for key, ref in refs.items()}
    return {
        "if": {"properties": {"type": {"const": type_name}}, "required": ["type"]},
        "then": {"properties": then},
    }


def _object(cls: type) -> dict[str, Any]:
    """The schema of a params, run or meta dataclass: its fields, required ones, no other keys."""
    hints = typing.get_type_hints(cls)
    docs = field_docs(cls)
    properties: dict[str, Any] = {}
    required = []
    for field in dataclasses.fields(cls):
        prop = _type(hints[field.name])
        if field.name in docs:
            prop["description"] = docs[field.name]
        default = _default(field)
        if default is dataclasses.MISSING:
            required.append(field.name)
        else:
            prop["default"] = default
        properties[field.name] = prop
    out: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": properties}
    if required:
        out["required"] = required
    if cls.__doc__ and not cls.__doc__.startswith(f"{cls.__name__}("):
        out["description"] = inspect.cleandoc(cls.__doc__)
    return out


def _default(field: dataclasses.Field) -> Any:
    if field.default is not dataclasses.MISSING:
        value = field.default
    elif field.default_factory is not dataclasses.MISSING:
        value = field.default_factory()
    else:
        return dataclasses.MISSING
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return str(value)


def _type(tp: Any) -> dict[str, Any]:
    origin = get_origin(tp)
    if tp is Any:
        return {}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_type(a) for a in get_args(tp)]}
    if origin is Literal:
        return {"enum": list(get_args(tp))}
    if tp is type(None):
        return {"type": "null"}
    if origin in (list, tuple) or tp in (list, tuple):
        args = [a for a in get_args(tp) if a is not Ellipsis]
        return {"type": "array", "items": _type(args[0]) if args else {}}
    if origin is dict or tp is dict:
        key_value = get_args(tp)
        mapping = {"type": "object", "additionalProperties": _type(key_value[1]) if key_value else {}}
        return {"anyOf": [mapping, {"type": "string", "pattern": "^@", "description": "@file: read from JSON/YAML"}]}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _object(tp)
    # bool before int: JSON Schema's integer excludes booleans, as the loader does
    names = {bool: "boolean", int: "integer", float: "number", str: "string"}
    return {"type": names[tp]} if tp in names else {}


def field_docs(cls: type) -> dict[str, str]:
    """The attribute docstrings of a dataclass (a string literal right after a field)."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for node, after in zip(body, body[1:]):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs
