"""YAML that a pull request can write, read within bounds: size, expanded node count, depth.

``yaml.safe_load`` builds no objects, but it still follows aliases: a few hundred bytes of nested
lists of aliases stand for hundreds of millions of nodes, which whatever walks the result (a
canonical JSON dump, a digest) then expands until memory runs out. Every reader of registry YAML
(registry files and overlays, ``@file`` contents, inline specs' mappings, the PR check's and the
plan's ``read_document``, benchmark cards' front matter, the GPU cost table) goes through
:func:`load_yaml`, which refuses, as one :class:`~vlc_harness.errors.RegistryError` naming the
source and the limit, before anything is built:

* more than :data:`MAX_BYTES` of text;
* more than :data:`MAX_NODES` nodes once every alias is expanded (counted on the composed node
  graph, each shared node once, so counting costs what the text does, not what it expands to);
* nesting deeper than :data:`MAX_DEPTH`, or an alias that contains itself.

Anchors and aliases themselves stay allowed: ``registry.yaml`` uses them to share metadata.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from vlc_harness.errors import RegistryError

MAX_BYTES = 1 << 20
"""1 MiB of YAML text; ``registry.yaml`` is about 48 KB."""
MAX_NODES = 100_000
"""Nodes after alias expansion (scalars, lists and mappings, keys counted); ``registry.yaml`` about 3,000."""
MAX_DEPTH = 64
"""Levels of nesting after alias expansion; ``registry.yaml`` nests 6 deep."""


def read_yaml_file(path: Path, source: str | None = None) -> Any:
    """The YAML content of a file, read no further than :data:`MAX_BYTES` (see :func:`load_yaml`)."""
    return load_yaml(read_bounded(path, source), source or str(path))


def read_bounded(path: Path, source: str | None = None) -> str:
    """A text file's content; over :data:`MAX_BYTES` is a registry error (the rest is never read)."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise RegistryError(f"{source or path}: the file is over the limit of {MAX_BYTES:,} bytes for YAML")
    return data.decode("utf-8")


def load_yaml(text: str, source: str) -> Any:
    """``yaml.safe_load(text)`` within the limits; ``yaml.YAMLError`` passes through as it would."""
    return compose_and_load(text, source)[1]


def compose_and_load(text: str, source: str) -> tuple[yaml.Node | None, Any]:
    """The composed node (for error lines) and the data, both from one parse, within the limits."""
    size = len(text.encode("utf-8"))
    if size > MAX_BYTES:
        raise RegistryError(f"{source}: {size:,} bytes, over the limit of {MAX_BYTES:,} bytes for YAML")
    loader = yaml.SafeLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            raise _too_deep(source) from None
        if node is None:
            return None, None
        expanded_size(node, source)
        return node, loader.construct_document(node)
    finally:
        loader.dispose()


def expanded_size(node: yaml.Node, source: str = "YAML") -> int:
    """How many nodes ``node`` stands for with every alias expanded; over a limit is a registry error.

    Each distinct node is visited once (iteratively: a deep document cannot exhaust the stack) and
    its expanded size and depth remembered, so a bomb costs as much to count as it takes to write.
    """
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, children_done = stack.pop()
        key = id(current)
        if children_done:
            children = _children(current)
            size[key] = 1 + sum(size[id(c)] for c in children)
            depth[key] = 1 + max((depth[id(c)] for c in children), default=0)
            open_nodes.discard(key)
            if size[key] > MAX_NODES:
                raise RegistryError(
                    f"{source}: the YAML expands to more than {MAX_NODES:,} nodes once its aliases are "
                    "expanded (nested aliases): the limit keeps a few hundred bytes from taking all memory"
                )
            if depth[key] > MAX_DEPTH:
                raise _too_deep(source)
            continue
        if key in size:
            continue
        if key in open_nodes:
            line = current.start_mark.line + 1
            raise RegistryError(f"{source}:{line}: an alias refers to itself (a recursive structure)")
        open_nodes.add(key)
        stack.append((current, True))
        stack.extend((child, False) for child in _children(current) if id(child) not in size)
    return size[id(node)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _too_deep(source: str) -> RegistryError:
    return RegistryError(f"{source}: the YAML is nested more than {MAX_DEPTH} levels deep")
