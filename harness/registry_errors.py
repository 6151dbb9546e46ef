"""Registry errors that name the file, line and key path: ``registry.yaml:12: models[3].type: problem``."""

from __future__ import annotations

import re
from typing import Any

import yaml

from vlc_harness.errors import RegistryError


def dotted_path(path: list[Any]) -> str:
    """A key path as the messages write it: ``models[3].params.arch``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def split_path(dotted: str, prefix: list[Any]) -> list[Any]:
    """A dotted key path that starts with ``prefix`` back into its parts (list indices as ints)."""
    rest = dotted[len(dotted_path(prefix)) :]
    parts: list[Any] = list(prefix)
    for token in re.findall(r"\.([^.\[]+)|\[(\d+)\]", rest):
        parts.append(token[0] if token[0] else int(token[1]))
    return parts


class ErrorFactory:
    """Builds :class:`RegistryError` messages ``file:line: key.path: problem``."""

    def __init__(self, source: str, root: yaml.Node | None) -> None:
        self.source = source
        self.root = root

    def __call__(self, path: list[Any], problem: str) -> RegistryError:
        key = dotted_path(path)
        return RegistryError(f"{self.where(path)}: {key + ': ' if key else ''}{problem}")

    def where(self, path: list[Any]) -> str:
        """The file and the line of a key path: ``registry.yaml:12`` (the file alone without a node)."""
        line = self._line(path)
        return self.source if line is None else f"{self.source}:{line}"

    def _line(self, path: list[Any]) -> int | None:
        node = self.root
        if node is None:
            return None
        line = node.start_mark.line + 1
        for part in path:
            child = None
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    if k.value == str(part):
                        child = v
                        line = k.start_mark.line + 1
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
                child = node.value[part]
                line = child.start_mark.line + 1
            if child is None:
                break
            node = child
        return line
