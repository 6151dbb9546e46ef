"""One registry file's YAML document: parsed once per process within the YAML limits, its top-level keys checked.

Every reader of a registry text (``load_registry``, the PR check's conformance step, ``plugins install``)
comes through :func:`read_document`, so the limits of :mod:`.safe_yaml` and the top-level keys are checked
in one place.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from typing import Any

import yaml

from vlc_harness.errors import RegistryError
from vlc_harness.registry_errors import ErrorFactory
from vlc_harness.safe_yaml import compose_and_load


@functools.lru_cache(maxsize=16)
def _parsed(text: str, source: str) -> tuple[Any, yaml.Node | None]:
    """A document's data and nodes, parsed once per process for each text (a registry read by every
    ``evaluate()`` call of a training loop, or every command of a test session, is parsed once), within
    the YAML limits (:func:`~vlc_harness.safe_yaml.compose_and_load`; an error is never cached)."""
    node, data = compose_and_load(text, source)
    return data, node


def read_document(text: str, source: str) -> tuple[Mapping[str, Any], ErrorFactory]:
    """One registry file's YAML, its top-level keys checked, and its error factory (file, line, key path)."""
    try:
        parsed, node = _parsed(text, source)
    except yaml.YAMLError as exc:
        raise RegistryError(f"{source}: not valid YAML: {exc}") from None
    data = copy.deepcopy(parsed)  # the caller's own: the parse is shared by every read of the same text
    err = ErrorFactory(source, node)
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise err([], "expected a mapping with 'models', 'benchmarks' and/or 'plugins'")
    for key in data:
        if key not in ("models", "benchmarks", "plugins"):
            raise err([key], "unknown top-level key; expected 'models', 'benchmarks' and/or 'plugins'")
    return data, err
