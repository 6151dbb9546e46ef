"""Values in registry entries and inline specs: ``@file`` contents and local paths.

A param value ``@path`` reads a JSON/YAML file; a relative path is made absolute against the
registry file's folder (an inline spec's against the current folder), so a checkpoint named in a
registry is found wherever the command runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from vlc_harness.errors import RegistryError

Fail = Callable[[list[Any], str], Exception]
"""Builds the error for a key path (the registry's file-and-line error factory)."""


def parse_inline(spec: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Split ``TYPE``, ``TYPE:key=value,...`` or ``TYPE:{yaml mapping}`` into type, params, run."""
    type_name, _, rest = spec.partition(":")
    rest = rest.strip()
    raw: dict[str, Any] = {}
    if rest.startswith("{"):
        try:
            loaded = yaml.safe_load(rest)
        except yaml.YAMLError as exc:
            raise RegistryError(f"inline spec {spec!r}: not a valid YAML mapping: {exc}") from None
        if not isinstance(loaded, Mapping):
            raise RegistryError(f"inline spec {spec!r}: expected a mapping after 'TYPE:'")
        raw = dict(loaded)
    elif rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise RegistryError(
                    f"inline spec {spec!r}: {item!r} is not key=value",
                    hint="write 'TYPE:key=value,key=value' or 'TYPE:{key: value}'",
                )
            value = value.strip()
            raw[key.strip()] = value if value.startswith("@") else (yaml.safe_load(value) if value else None)
    params: dict[str, Any] = {}
    run: dict[str, Any] = {}
    for key, value in raw.items():
        if isinstance(value, str) and value.startswith("@"):
            value = read_value_file(Path(value[1:]), spec)
        else:
            value = resolve_value(value, Path.cwd(), [key], _inline_error(spec))
        if key.startswith("run."):
            run[key[4:]] = value
        else:
            params[key] = value
    return type_name.strip(), params, run


def _inline_error(spec: str) -> Fail:
    def fail(path: list[Any], problem: str) -> Exception:
        return RegistryError(f"inline spec {spec!r}: {'.'.join(map(str, path))}: {problem}")

    return fail


def read_value_file(path: Path, spec: str) -> Any:
    """The JSON/YAML content of a ``@file`` value of an inline spec."""
    if not path.is_file():
        raise RegistryError(f"inline model spec {spec!r}: file {path} does not exist")
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def resolve_entry(raw: Any, base: Path, path: list[Any], err: Fail) -> Any:
    """An entry with ``@file`` params read and relative paths made absolute against ``base``."""
    if not isinstance(raw, Mapping):
        return raw
    out = dict(raw)
    for key in ("params", "run"):
        if isinstance(raw.get(key), Mapping):
            out[key] = {k: resolve_value(v, base, [*path, key, k], err) for k, v in raw[key].items()}
    return out


PATH_PREFIXES = ("local-dir:",)
"""Param prefixes followed by a local path (``hf-hub:`` names a hub repository, not a path)."""


def resolve_value(value: Any, base: Path, path: list[Any], err: Fail) -> Any:
    """``@file`` read, a relative local path made absolute against ``base``, other values as given."""
    if not isinstance(value, str):
        return value
    value = os.path.expanduser(value) if value.startswith("~") else value
    if value.startswith("@"):
        file = base / value[1:]
        if not file.is_file():
            raise err(path, f"file {file} does not exist")
        return yaml.safe_load(file.read_text(encoding="utf-8"))
    prefix = next((p for p in PATH_PREFIXES if value.startswith(p)), "")
    rest = value[len(prefix) :]
    if not rest or Path(rest).is_absolute() or ":" in rest.split("/")[0]:
        return value
    explicit = rest.startswith(("./", "../"))
    if explicit or (("/" in rest or Path(rest).suffix) and (base / rest).exists()):
        return prefix + str((base / rest).resolve())
    return value
