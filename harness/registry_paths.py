"""The path rule of registry files: a registry names files inside its own folder, nothing else.

A registry is data that a pull request can change, so a value in it must not reach a file the
checkout does not hold: before this rule ``model: "@../creds/.git-credentials"`` read a credential,
sent it to the API server and stored and published it. In a registry file (never an inline spec
typed on the command line, nor a mapping given to ``evaluate()``, which keep their freedom):

* ``@file`` and relative paths must resolve, links followed, inside the registry file's folder;
* absolute paths (``/x``, ``C:\\x``, ``file:``), paths under ``~`` and hidden files and folders
  (``.git/config``, ``.env``) are refused, in ``params``, ``run`` and ``meta.paper_params``, at any
  depth, and inside an ``@file``'s content;
* a relative path that is left as given (a checkpoint or data folder a type reads under the run's
  data root, ``checkpoints/negclip/negclip.pth``) may not climb out with ``..``, nor be a link
  out of the folder where the registry's folder holds that name (a command run there would read it).

A text value is taken for a path when it is one line; one with spaces is checked for the
absolute and ``~`` forms only (so a prompt such as ``Output (1) or (2).`` is never a path). A URL
(``https://``, ``hf-hub:``) is not a path. Each refusal is a registry error naming the file, line and
key path (:class:`~vlc_harness.registry_errors.ErrorFactory`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

Fail = Callable[[list[Any], str], Exception]
"""Builds the error for a key path (the registry's file-and-line error factory)."""

_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
ELSEWHERE = (
    "a registry file names files inside its own folder (relative to it) or, for the types that read "
    "them there, under the data root; an inline spec (-m) may name any path"
)


def is_absolute(text: str) -> bool:
    """``/x``, ``\\x``, ``C:\\x`` or a ``file:`` URL."""
    return text.startswith(("/", "\\")) or bool(_DRIVE.match(text)) or text.lower().startswith("file:")


def refuse_elsewhere(text: str, path: list[Any], fail: Fail) -> None:
    """Refuse a path (``@`` and a ``local-dir:`` prefix taken off) that is absolute or under ``~``."""
    if "\n" in text:
        return
    if text.startswith("~"):
        raise fail(path, f"{text!r} is a path under '~' (the home folder): {ELSEWHERE}")
    if is_absolute(text):
        raise fail(path, f"{text!r} is an absolute path: {ELSEWHERE}")


def refuse_hidden(text: str, path: list[Any], fail: Fail, shown: str | None = None) -> None:
    """Refuse a path with a hidden part (``.git/config``, ``.env``); a URL or a text with spaces passes."""
    if not _path_like(text):
        return
    if any(p.startswith(".") and p not in (".", "..") for p in re.split(r"[\\/]", text)):
        name = repr(shown or text)
        raise fail(path, f"{name} names a hidden file or folder (such as .git or .env), which a registry never reads")


def inside(target: Path, base: Path, value: str, path: list[Any], fail: Fail) -> Path:
    """``target`` with links resolved, refused unless it lies inside ``base`` (resolved too) and
    not in a hidden folder there (a link to ``.git/config`` is refused like the path itself)."""
    real, folder = target.resolve(), base.resolve()
    if real != folder and folder not in real.parents:
        raise fail(path, f"{value!r} resolves outside the registry's folder {folder}: {ELSEWHERE}")
    refuse_hidden(str(real.relative_to(folder)), path, fail, shown=value)
    return real


def refuse_linked_out(text: str, base: Path, path: list[Any], fail: Fail) -> None:
    """A relative name left as given may still be read from the registry's folder (the command runs
    there): if it names something there, that must not be a link out of the folder."""
    if _path_like(text) and not is_absolute(text) and os.path.lexists(base / text):
        inside(base / text, base, text, path, fail)


def refuse_climbing(text: str, path: list[Any], fail: Fail) -> None:
    """Refuse a relative path left as given (read under the data root) that has a ``..`` part."""
    if _path_like(text) and ".." in re.split(r"[\\/]", text):
        raise fail(path, f"{text!r} climbs out with '..': {ELSEWHERE}")


def _path_like(text: str) -> bool:
    return bool(text) and not any(c.isspace() for c in text) and not _SCHEME.match(text)


def check_tree(value: Any, base: Path, path: list[Any], fail: Fail) -> None:
    """Refuse every string in a nested value (a mapping's values, a list's items) that escapes."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            check_tree(item, base, [*path, key], fail)
    elif isinstance(value, list | tuple):
        for k, item in enumerate(value):
            check_tree(item, base, [*path, k], fail)
    elif isinstance(value, str):
        text = value[len("local-dir:") :] if value.startswith("local-dir:") else value.removeprefix("@")
        refuse_elsewhere(text, path, fail)
        refuse_hidden(text, path, fail)
        refuse_climbing(text, path, fail)
        refuse_linked_out(text, base, path, fail)
