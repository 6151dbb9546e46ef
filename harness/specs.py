"""Values in registry entries and inline specs: ``@file`` contents and local paths.

A param value ``@path`` reads a JSON/YAML file; a relative path is made absolute against the
registry file's folder (an inline spec's against the current folder), so a checkpoint named in a
registry is found wherever the command runs. In a registry file every path must stay inside its
folder (:mod:`vlc_harness.registry_paths`); an inline spec may name any path. YAML is read within
the limits of :mod:`vlc_harness.safe_yaml`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from vlc_harness.errors import RegistryError
from vlc_harness.registry_paths import (
    Fail,
    check_tree,
    inside,
    refuse_climbing,
    refuse_elsewhere,
    refuse_hidden,
    refuse_linked_out,
)
from vlc_harness.safe_yaml import load_yaml, read_yaml_file


def parse_inline(spec: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Split ``TYPE``, ``TYPE:key=value,...`` or ``TYPE:{yaml mapping}`` into type, params, run."""
    type_name, _, rest = spec.partition(":")
    rest = rest.strip()
    raw: dict[str, Any] = {}
    if rest.startswith("{"):
        try:
            loaded = load_yaml(rest, f"inline spec {spec!r}")
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
            raw[key.strip()] = (
                value if value.startswith("@") else (load_yaml(value, f"inline spec {spec!r}") if value else None)
            )
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
    return read_yaml_file(path)


def resolve_entry(raw: Any, base: Path, path: list[Any], err: Fail, confined: bool = False) -> Any:
    """An entry with ``@file`` params read and relative paths made absolute against ``base``;
    ``confined`` (a registry file's entry): every path in ``params``, ``run`` and
    ``meta.paper_params`` must stay inside ``base``."""
    if not isinstance(raw, Mapping):
        return raw
    out = dict(raw)
    for key in ("params", "run"):
        if isinstance(raw.get(key), Mapping):
            out[key] = {k: resolve_value(v, base, [*path, key, k], err, confined) for k, v in raw[key].items()}
    meta = raw.get("meta")
    if confined and isinstance(meta, Mapping) and "paper_params" in meta:
        check_tree(meta["paper_params"], base, [*path, "meta", "paper_params"], err)
    return out


PATH_PREFIXES = ("local-dir:",)
"""Param prefixes followed by a local path (``hf-hub:`` names a hub repository, not a path)."""


def resolve_value(value: Any, base: Path, path: list[Any], err: Fail, confined: bool = False) -> Any:
    """``@file`` read, a relative local path made absolute against ``base``, other values as given;
    ``confined`` (a registry file): a path that leaves ``base`` is refused (:mod:`.registry_paths`)."""
    if not isinstance(value, str):
        if confined:
            check_tree(value, base, path, err)
        return value
    if not confined and value.startswith("~"):
        value = os.path.expanduser(value)
    prefix = next((p for p in ("@", *PATH_PREFIXES) if value.startswith(p)), "")
    rest = value[len(prefix) :]
    if confined:
        refuse_elsewhere(rest, path, err)
    if prefix == "@":
        file = inside(base / rest, base, value, path, err) if confined else base / rest
        if confined:
            refuse_hidden(rest, path, err)
        if not file.is_file():
            raise err(path, f"file {file} does not exist")
        try:
            content = read_yaml_file(file)
        except (RegistryError, yaml.YAMLError) as exc:
            raise err(path, f"@file {exc}" if isinstance(exc, RegistryError) else f"file {file}: {exc}") from None
        if confined:
            check_tree(content, base, path, err)
        return content
    if not rest or Path(rest).is_absolute() or ":" in rest.split("/")[0]:
        return value
    explicit = rest.startswith(("./", "../"))
    if explicit or (("/" in rest or Path(rest).suffix) and (base / rest).exists()):
        target = inside(base / rest, base, value, path, err) if confined else (base / rest).resolve()
        if confined:
            refuse_hidden(rest, path, err)
        return prefix + str(target)
    if confined:
        refuse_hidden(rest, path, err)
        refuse_climbing(rest, path, err)
        refuse_linked_out(rest, base, path, err)
    return value
