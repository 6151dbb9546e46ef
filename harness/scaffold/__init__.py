"""``vlc-harness new model|benchmark NAME``: a pip-installable plugin package that passes
conformance as generated.

The package holds ``pyproject.toml`` (the ``vlc_harness`` entry point), the plugin module, a
conformance test, a registry overlay with the entry and a README. The plugin is a working toy
(colour statistics, word counts) so that every step of the walk-through runs before the author
writes a line; its docstrings say what to replace.
"""

from __future__ import annotations

import importlib.metadata
import re
from dataclasses import dataclass
from pathlib import Path
from string import Template

from vlc_harness.errors import UserError

TEMPLATES = Path(__file__).with_name("templates")
MODEL_PROTOCOLS = {
    "embed": ("model_embed.py.tmpl", "An embedding model: images and captions embedded apart, cosine similarity."),
    "pairs": ("model_pairs.py.tmpl", "A pair-scoring model: one score per (image, caption) pair."),
    "blind": ("model_blind.py.tmpl", "An image-blind baseline: scores captions without the image."),
    "choice": ("model_choice.py.tmpl", "A multiple-choice model: picks one candidate (an API model)."),
}
"""``--protocol`` choices: the plugin template and the default one-line summary."""
BENCHMARK_SUMMARY = "A 2 x 2 benchmark: two images, two captions, text, image and group scores."
NAME = re.compile(r"^[a-z][a-z0-9]*([_-][a-z0-9]+)*$")


@dataclass(frozen=True)
class Names:
    """The names one plugin NAME gives: type, module, class, distribution and title."""

    type_name: str
    module: str
    class_name: str
    dist: str
    title: str

    @classmethod
    def of(cls, name: str) -> Names:
        """Names for ``name`` (lower case, digits, ``-`` or ``_``); a bad name is a usage error."""
        if not NAME.match(name):
            raise UserError(
                f"plugin name {name!r}: use lower-case letters, digits and single - or _, starting with a letter",
                hint="for example: vlc-harness new model my-clip",
            )
        words = re.split(r"[-_]", name)
        type_name = "_".join(words)
        return cls(
            type_name=type_name,
            module=f"vlc_{type_name}",
            class_name="".join(w.capitalize() for w in words),
            dist=f"vlc-{'-'.join(words)}",
            title=" ".join(w.capitalize() for w in words),
        )


def render(template: str, values: dict[str, str]) -> str:
    """A template file filled in (``$name`` placeholders; a missing value is an error)."""
    return Template((TEMPLATES / template).read_text(encoding="utf-8")).substitute(values)


def new_plugin(kind: str, name: str, protocol: str, folder: Path, summary: str | None = None) -> list[Path]:
    """Write the package for a ``model`` (of ``protocol``) or a ``benchmark`` into ``folder``.

    ``folder`` must not exist or be empty: nothing is ever overwritten. Returns the files written.
    """
    names = Names.of(name)
    if kind == "model" and protocol not in MODEL_PROTOCOLS:
        raise UserError(f"unknown protocol {protocol!r}; choose one of {', '.join(MODEL_PROTOCOLS)}")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise UserError(f"{folder} already exists and is not empty; nothing was written", hint="pick another --output")
    plugin_template, default_summary = (
        MODEL_PROTOCOLS[protocol] if kind == "model" else ("benchmark.py.tmpl", BENCHMARK_SUMMARY)
    )
    overlay = "registry.yaml"
    if kind == "model":  # --limit 20: 140 shapes instances, under a minute on 2 CPU cores (docs/third_party.md)
        try_it = f"vlc-harness run --registry {overlay} -m {names.type_name} -b shapes --limit 20   # a first check"
    else:
        try_it = f"vlc-harness run --registry {overlay} -m random -b {names.type_name} --limit 20   # data first"
    harness_version = _harness_version()
    values = {
        **names.__dict__,
        "kind": kind,
        "summary": summary or default_summary,
        "overlay": overlay,
        "try_it": try_it,
        "harness_version": harness_version,
    }
    files = {
        "pyproject.toml": render("pyproject.toml.tmpl", values),
        f"{names.module}.py": render(plugin_template, values),
        "tests/test_conformance.py": render("test_conformance.py.tmpl", values),
        overlay: render(f"registry_{kind}.yaml.tmpl", values),
        "README.md": render("README.md.tmpl", values),
    }
    written = []
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _harness_version() -> str:
    try:
        return importlib.metadata.version("vlc-harness")
    except importlib.metadata.PackageNotFoundError:
        return "0.1"
