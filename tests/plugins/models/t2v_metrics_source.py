"""t2v_metrics 3.0's own source, read without importing the package (its import pins torch 2.5.1 and
transformers 4.49, needs ffmpeg and a hand-installed LLaVA-NeXT): ``find_spec`` locates it, ``ast``
reads its constants and defaults, and its small pure functions (prompt formats, the image-token
tokenizers, ``expand2square``) are compiled alone from their source and run here."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from typing import Any

from vlc_harness.testing import require

MODELS = "models/vqascore_models"


def package_root() -> Path:
    """The installed t2v_metrics folder; skips (fails under ``CI=true``) where it is not installed."""
    require("t2v_metrics", "t2v_metrics is not installed (pip install --no-deps t2v_metrics==3.0)")
    spec = importlib.util.find_spec("t2v_metrics")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent


def module(relative: str) -> ast.Module:
    """The parsed source of ``t2v_metrics/<relative>``."""
    return ast.parse((package_root() / relative).read_text(encoding="utf-8"))


class _Known(ast.NodeTransformer):
    """Names of ``t2v_metrics/constants.py`` replaced by their values, so literals using them evaluate."""

    def __init__(self, known: dict[str, Any]) -> None:
        self.known = known

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Constant(self.known[node.id]) if node.id in self.known else node


def constants(relative: str) -> dict[str, Any]:
    """The module's top-level names bound to literals (strings, numbers, dicts of them; names from
    ``constants.py`` count as their values)."""
    known = {} if relative == "constants.py" else constants("constants.py")
    out = {}
    for node in module(relative).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(_Known(known).visit(node.value))
            except ValueError:
                continue
    return out


def definition(relative: str, name: str, owner: str | None = None) -> ast.FunctionDef:
    """A top-level function, or a method of class ``owner``."""
    body = module(relative).body
    if owner is not None:
        body = next(n for n in body if isinstance(n, ast.ClassDef) and n.name == owner).body
    return next(n for n in body if isinstance(n, ast.FunctionDef) and n.name == name)


def defaults(function: ast.FunctionDef) -> dict[str, Any]:
    """The literal defaults of a function's parameters, by name."""
    args = function.args.args
    values = function.args.defaults
    out = {}
    for arg, value in zip(args[len(args) - len(values) :], values, strict=True):
        try:
            out[arg.arg] = ast.literal_eval(value)
        except ValueError:
            continue
    return out


def run_functions(relative: str, names: tuple[str, ...], namespace: dict[str, Any]) -> dict[str, Any]:
    """Compile the named top-level functions of a module alone and return them, run in ``namespace``
    (the constants and libraries they use)."""
    nodes = [n for n in module(relative).body if isinstance(n, ast.FunctionDef) and n.name in names]
    assert sorted(n.name for n in nodes) == sorted(names), f"{relative} lacks one of {names}"
    scope = dict(namespace)
    exec(compile(ast.Module(body=nodes, type_ignores=[]), str(package_root() / relative), "exec"), scope)  # noqa: S102
    return {name: scope[name] for name in names}


def unparsed(function: ast.FunctionDef) -> str:
    """A function's source as ``ast.unparse`` writes it (for checking that a rule is still there)."""
    return ast.unparse(function)
