"""registry.yaml: the grid of model and benchmark entries, validated on load.

Format::

    models:
      - id: openclip-vit-b-32-openai        # unique; letters, digits, . _ - /
        type: open_clip                      # a registered model type
        params: {arch: ViT-B-32-quickgelu, pretrained: openai}   # fingerprinted: they change the scores
        run: {batch_size: 64}                # not fingerprinted: how to run
        meta: {family: CLIP, display_name: "OpenAI ViT-B/32", verified: false}
    benchmarks:
      - id: sugarcrepe
        type: sugarcrepe
        params: {version: paper-7512}
        references: all                      # which paper-reported rows to show: all, none, or a
                                             # list of row sources ("Human", "OpenAI ViT-B-32")

Several files may be given (``--registry`` is repeatable): a later file adds entries or replaces
an entry with the same id whole, so a private overlay needs no edit of the shared file.

A param value ``@path`` reads a JSON/YAML file (an open_clip model config, say), and a relative path (``./ckpt.pt``)
is resolved against the registry file's folder, never leaving it (:mod:`.registry_paths`). ``meta`` is validated
too (:mod:`.meta`); ids sharing a published file are an error (:mod:`.site_names`); YAML is bounded (:mod:`.safe_yaml`).

An inline model spec (``-m TYPE:key=value,...`` or ``-m 'TYPE:{yaml mapping}'``) makes a one-off
entry without any file (paths resolve from the current folder), and keys ``run.<option>`` set run
options.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vlc_harness.errors import RegistryError
from vlc_harness.meta import BenchmarkMeta, ModelMeta, check_meta
from vlc_harness.params import ParamError, build, normalise
from vlc_harness.plugin_packages import PluginPackage, missing_package_reason, parse_plugins, unregistered_type
from vlc_harness.plugins import Plugins
from vlc_harness.registry_document import read_document
from vlc_harness.registry_errors import ErrorFactory, dotted_path, split_path
from vlc_harness.safe_yaml import read_bounded
from vlc_harness.site_names import SiteFiles
from vlc_harness.specs import parse_inline, resolve_entry
from vlc_harness.types import canonical_json

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")
MODEL_KEYS = {"id", "type", "params", "run", "meta"}
BENCHMARK_KEYS = {"id", "type", "params", "meta", "references"}


@dataclass(frozen=True)
class ModelEntry:
    """One model of the grid: a registered type with validated params and run options."""

    id: str
    type: str
    params: Any
    run: Any
    meta: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    unavailable: str = ""
    """Why the entry cannot run here (its type's listed package is not installed): its cells are
    ``unavailable``, its ``params`` and ``run`` the mapping as written, unchecked."""

    def params_dict(self) -> dict[str, Any]:
        """Normalised params (defaults filled in), as fingerprinted."""
        if isinstance(self.params, Mapping):  # an unavailable entry's params, as written
            return json.loads(canonical_json(dict(self.params)))
        return normalise(self.params)


@dataclass(frozen=True)
class BenchmarkEntry:
    """One benchmark of the grid: a registered type with validated params."""

    id: str
    type: str
    params: Any
    meta: dict[str, Any] = field(default_factory=dict)
    references: str | tuple[str, ...] = "all"
    source: str = ""
    unavailable: str = ""
    """Why the entry cannot run here (its type's listed package is not installed): its cells are
    ``unavailable``, its ``params`` the mapping as written, unchecked."""

    def params_dict(self) -> dict[str, Any]:
        """Normalised params (defaults filled in)."""
        if isinstance(self.params, Mapping):  # an unavailable entry's params, as written
            return json.loads(canonical_json(dict(self.params)))
        return normalise(self.params)


@dataclass
class Registry:
    """The merged grid of one or more registry files."""

    models: dict[str, ModelEntry] = field(default_factory=dict)
    benchmarks: dict[str, BenchmarkEntry] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    packages: dict[str, PluginPackage] = field(default_factory=dict)
    """The ``plugins:`` packages of every file, by canonical name (:mod:`vlc_harness.plugin_packages`)."""

    def digest(self) -> str:
        """sha256 of the merged grid's content (shown in the site footer and provenance)."""
        content = {
            "models": {k: [e.type, e.params_dict(), e.meta] for k, e in sorted(self.models.items())},
            "benchmarks": {k: [e.type, e.params_dict()] for k, e in sorted(self.benchmarks.items())},
        }
        return hashlib.sha256(canonical_json(content).encode()).hexdigest()

    def model(self, model_id: str) -> ModelEntry:
        """The entry ``model_id``; unknown ids raise an error listing the known ones."""
        if model_id not in self.models:
            close = difflib.get_close_matches(model_id, sorted(self.models), n=1)
            guess = f" (did you mean {close[0]}?)" if close else ""
            raise RegistryError(
                f"unknown model id {model_id!r}{guess}; known ids: {', '.join(sorted(self.models)) or '(none)'}",
                hint="or give an inline spec such as -m 'open_clip:arch=ViT-B-32-quickgelu,pretrained=openai'",
            )
        return self.models[model_id]

    def benchmark(self, benchmark_id: str) -> BenchmarkEntry:
        """The entry ``benchmark_id``; unknown ids raise an error listing the known ones."""
        if benchmark_id not in self.benchmarks:
            known = ", ".join(sorted(self.benchmarks)) or "(none)"
            raise RegistryError(f"unknown benchmark id {benchmark_id!r}; known ids: {known}")
        return self.benchmarks[benchmark_id]


def load_registry(paths: list[Path], plugins: Plugins) -> Registry:
    """Load and merge registry files in order; later files add or replace entries by id."""
    registry = Registry()
    files = SiteFiles()
    for path in paths:
        path = Path(path)
        if not path.is_file():
            raise RegistryError(f"registry file {path} does not exist", hint="pass --registry PATH")
        text = read_bounded(path)
        models, benchmarks = parse_registry_text(text, str(path), plugins, registry.packages, files)
        registry.models.update(models)
        registry.benchmarks.update(benchmarks)
        registry.files.append(str(path))
    return registry


def parse_registry_text(
    text: str,
    source: str,
    plugins: Plugins,
    packages: dict[str, PluginPackage] | None = None,
    files: SiteFiles | None = None,
) -> tuple[dict[str, ModelEntry], dict[str, BenchmarkEntry]]:
    """Validate one registry document; every error names the file, line and key path.

    Its ``plugins:`` packages are added to ``packages`` (those of the files read before it), which
    decide what an entry of a type no installed plugin registers is; its ids are added to
    ``files`` (the published file names of the files read before it), where two may not collide.
    """
    data, err = read_document(text, source)
    packages = packages if packages is not None else {}
    packages.update(parse_plugins(data.get("plugins"), err, source))
    base = Path(source).resolve().parent if Path(source).is_file() else Path.cwd()
    files = files if files is not None else SiteFiles()
    models: dict[str, ModelEntry] = {}
    for i, raw in enumerate(_entry_list(data, "models", err)):
        at = ["models", i]
        entry = _model_entry(
            resolve_entry(raw, base, at, err, confined=True), at, err, plugins, source, packages=packages
        )
        if entry.id in models:
            raise err(["models", i, "id"], f"duplicate model id {entry.id!r} in the same file")
        _published(files, err, ["models", i, "id"], entry.id)
        models[entry.id] = entry
    benchmarks: dict[str, BenchmarkEntry] = {}
    for i, raw in enumerate(_entry_list(data, "benchmarks", err)):
        at = ["benchmarks", i]
        bentry = _benchmark_entry(resolve_entry(raw, base, at, err, confined=True), at, err, plugins, source, packages)
        if bentry.id in benchmarks:
            raise err(["benchmarks", i, "id"], f"duplicate benchmark id {bentry.id!r} in the same file")
        _published(files, err, ["benchmarks", i, "id"], bentry.id)
        benchmarks[bentry.id] = bentry
    return models, benchmarks


def _published(files: SiteFiles, err: ErrorFactory, path: list[Any], entry_id: str) -> None:
    """Add an id's published file names; one another id already has is an error naming both."""
    clash = files.add(path[0], entry_id, err.where(path))
    if clash is not None:
        raise err(path, clash.describe())


def parse_inline_model(spec: str, plugins: Plugins) -> ModelEntry:
    """A model entry from an inline spec; its id is the spec itself."""
    type_name, params, run = parse_inline(spec)
    entry = {"id": spec, "type": type_name, "params": params, "run": run}
    err = ErrorFactory(f"inline model spec {spec!r}", None)
    return _model_entry(entry, [], err, plugins, "inline", check_id=False)


def parse_inline_benchmark(spec: str, plugins: Plugins) -> BenchmarkEntry:
    """A benchmark entry from an inline spec ``TYPE:key=value,...``; its id is the spec itself."""
    type_name, params, run = parse_inline(spec)
    if run:
        raise RegistryError(f"inline benchmark spec {spec!r}: benchmarks take no run options")
    entry = {"id": spec, "type": type_name, "params": params}
    err = ErrorFactory(f"inline benchmark spec {spec!r}", None)
    return _benchmark_entry(entry, [], err, plugins, "inline", check_id=False)


def _entry_list(data: Mapping[str, Any], key: str, err: ErrorFactory) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise err([key], "expected a list of entries")
    return value


def _common(raw: Any, path: list[Any], err: ErrorFactory, allowed: set[str], check_id: bool) -> None:
    if not isinstance(raw, Mapping):
        raise err(path, "expected a mapping with keys " + ", ".join(sorted(allowed)))
    for key in raw:
        if key not in allowed:
            raise err([*path, key], "unknown key; expected one of " + ", ".join(sorted(allowed)))
    for key in ("id", "type"):
        if not isinstance(raw.get(key), str) or not raw.get(key):
            raise err([*path, key], "required string is missing")
    if check_id and not ID_PATTERN.fullmatch(raw["id"]):
        raise err([*path, "id"], f"{raw['id']!r} is not a valid id (letters, digits, '.', '_', '-', '/')")
    for key in ("params", "run", "meta"):
        if key in raw and raw[key] is not None and not isinstance(raw[key], Mapping):
            raise err([*path, key], "expected a mapping")


def _model_entry(
    raw: Any,
    path: list[Any],
    err: ErrorFactory,
    plugins: Plugins,
    source: str,
    check_id: bool = True,
    packages: Mapping[str, PluginPackage] | None = None,
) -> ModelEntry:
    _common(raw, path, err, MODEL_KEYS, check_id)
    if raw["type"] in plugins.models.missing:
        raise err(
            [*path, "type"], f"model type {raw['type']!r} is not available here: {plugins.models.missing[raw['type']]}"
        )
    if raw["type"] not in plugins.models.entries:
        reason = missing_package_reason(packages or {}, "models", raw["type"])
        if reason is None:
            raise err([*path, "type"], unregistered_type(packages or {}, "models", raw["type"], plugins.models.names()))
        meta = _meta(ModelMeta, raw.get("meta"), [*path, "meta"], err)
        return ModelEntry(raw["id"], raw["type"], dict(raw.get("params") or {}), dict(raw.get("run") or {}),
                          meta, source, unavailable=reason)  # fmt: skip
    cls = plugins.models.entries[raw["type"]].cls
    params = _build(cls.Params, raw.get("params"), [*path, "params"], err)
    run = _build(cls.Run, raw.get("run"), [*path, "run"], err)
    try:  # before any cell runs: a bad architecture name is a usage error, not a failed cell
        cls.check_params(params)
    except ValueError as exc:
        raise err([*path, "params"], str(exc)) from None
    _check_run(cls, params, run, path, err)
    meta = _meta(ModelMeta, raw.get("meta"), [*path, "meta"], err)
    if meta.get("paper_params"):  # the paper's loading must be params of the same type (vlc_harness.verify)
        at = [*path, "meta", "paper_params"]
        paper = _build(cls.Params, {**(raw.get("params") or {}), **meta["paper_params"]}, at, err)
        _check_run(cls, paper, run, path, err, at)
    return ModelEntry(raw["id"], raw["type"], params, run, meta, source)


def _check_run(
    cls: Any, params: Any, run: Any, path: list[Any], err: ErrorFactory, at: list[Any] | None = None
) -> None:
    """Run options allowed only with these params (an API key's variable and its hosts), named at their key."""
    try:
        cls.check_run(params, run)
    except ParamError as exc:
        raise err(at or split_path(f"{dotted_path(path)}.{exc.path}", path), exc.problem) from None
    except ValueError as exc:
        raise err(at or [*path, "run"], str(exc)) from None


def _benchmark_entry(
    raw: Any,
    path: list[Any],
    err: ErrorFactory,
    plugins: Plugins,
    source: str,
    packages: Mapping[str, PluginPackage] | None = None,
    check_id: bool = True,
) -> BenchmarkEntry:
    _common(raw, path, err, BENCHMARK_KEYS, check_id)
    reason = ""
    if raw["type"] not in plugins.benchmarks.entries:
        reason = missing_package_reason(packages or {}, "benchmarks", raw["type"]) or ""
        if not reason:
            known = plugins.benchmarks.names()
            raise err([*path, "type"], unregistered_type(packages or {}, "benchmarks", raw["type"], known))
        params: Any = dict(raw.get("params") or {})
    else:
        params = _build(plugins.benchmarks.entries[raw["type"]].cls.Params, raw.get("params"), [*path, "params"], err)
    refs = raw.get("references", "all")
    if refs in ("all", "none"):
        references: str | tuple[str, ...] = refs
    elif isinstance(refs, list) and all(isinstance(r, str) for r in refs):
        references = tuple(refs)
    else:
        raise err([*path, "references"], "expected 'all', 'none' or a list of reference row sources")
    meta = _meta(BenchmarkMeta, raw.get("meta"), [*path, "meta"], err)
    return BenchmarkEntry(raw["id"], raw["type"], params, meta, references, source, unavailable=reason)


def _build(cls: type, value: Any, path: list[Any], err: ErrorFactory) -> Any:
    try:
        return build(cls, value, dotted_path(path))
    except ParamError as exc:
        raise err(split_path(exc.path, path), exc.problem) from None


def _meta(cls: type, value: Any, path: list[Any], err: ErrorFactory) -> dict[str, Any]:
    try:
        return check_meta(cls, value, dotted_path(path))
    except ParamError as exc:
        raise err(split_path(exc.path, path), exc.problem) from None
