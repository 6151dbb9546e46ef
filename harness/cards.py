"""A benchmark's card: what the board shows about it, declared in one place (a Markdown file or Python)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any

from vlc_harness.overlap import Pool
from vlc_harness.types import ReferenceRow

REQUIRED = ("title", "citation", "headline", "headline_source")
"""The card fields without a default."""
TEXT_FIELDS = ("title", "citation", "headline", "headline_source", "homepage", "license", "bibtex")
LIST_FIELDS = ("index_metrics", "image_pools")
FENCE = "---"
ROWS_KEY = "references"
PRECISIONS = ("fp32", "fp16", "bf16")
"""What a reference row's ``precision`` may name."""
_ENTRY_START = re.compile(r"@[A-Za-z]+\{[^\s,{}]+,")


@dataclass(frozen=True)
class BenchmarkCard:
    """What the board shows about a benchmark, and where its numbers come from.

    A benchmark class sets ``card = BenchmarkCard.read(path)`` (a card file: YAML front matter with the
    fields below, the reference prose as the body) or ``card = BenchmarkCard(...)``; each field becomes the
    class attribute of the same name (``title``, ``headline``, ..., ``about``), which is what the harness and
    the board read, so a benchmark that sets those attributes one by one works the same. A misspelt field
    fails at import.
    """

    title: str
    citation: str
    """The paper (or papers) to cite, as prose: shown on the benchmark's page."""
    headline: str
    """Metric id of the headline number."""
    headline_source: str
    """The paper table or figure the headline reproduces, with the file or page, or ``ours: ...`` and why
    no paper reports it (shown next to the headline; the conformance checks require it)."""
    homepage: str = ""
    license: str = ""
    bibtex: str = ""
    """The BibTeX entries of :attr:`citation`, as the authors or the venue give them (one or more
    ``@type{key, ...}``): the board's citation block and ``cite.bib`` show them verbatim. Empty: the
    board shows the prose and no BibTeX (it never derives one)."""
    index_metrics: tuple[str, ...] = ()
    """Metric ids the index shows beside the headline (e.g. brittleness)."""
    gap_metrics: tuple[str, str] | None = None
    """``(image-to-text, text-to-image)`` metric ids whose difference is the directional gap."""
    captions_redistributable: bool = False
    """Whether the data license allows publishing captions next to scores."""
    images_redistributable: bool = False
    """Whether the images may be published: the board's instance browser then shows them as small
    thumbnails (never full-size copies); elsewhere it names each file, and links a COCO file to its source."""
    image_pools: tuple[str, ...] = ()
    """The image pools the images are drawn from (training-overlap marks): shared ones
    (:data:`vlc_harness.overlap.POOLS`) or the benchmark's own (:attr:`own_pools`)."""
    own_pools: Mapping[str, Pool] = field(default_factory=dict)
    """The image pools this benchmark brings, by name (its own images, which no other benchmark and no
    model's ``meta.trained_on`` names; a pool that others name belongs in :data:`vlc_harness.overlap.POOLS`)."""
    references: tuple[ReferenceRow, ...] = ()
    """The paper-reported, human and chance numbers shown beside ours (:class:`~vlc_harness.types.ReferenceRow`)."""
    about: str = ""
    """The benchmark's reference in Markdown: data layout, versions, metric definitions, known differences
    from the reference code (a card file's body)."""

    def __post_init__(self) -> None:
        bibtex_entries(self.bibtex)

    @classmethod
    def read(cls, path: str | Path) -> BenchmarkCard:
        """The card in a Markdown file: YAML front matter between ``---`` lines, then the prose (``about``).

        ``own_pools`` maps each pool name to ``{title, source, part_of}``; ``references`` lists rows, each a
        JSON object of the :class:`~vlc_harness.types.ReferenceRow` fields on its own line. Raises
        ``ValueError`` naming the file and the key for bad YAML, an unknown key, a missing required one or a
        value of the wrong type.
        """
        path = Path(path)
        front, body = _split(path)
        values = {key: _value(path, key, value) for key, value in front.items()}
        missing = [key for key in REQUIRED if key not in values]
        if missing:
            raise ValueError(f"card {path}: missing required key {missing[0]!r}")
        return cls(**values, about=body)


def _split(path: Path) -> tuple[dict[str, Any], str]:
    """The front matter as a mapping and the body, stripped."""
    import yaml

    from vlc_harness.errors import RegistryError
    from vlc_harness.safe_yaml import load_yaml

    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or lines[0].strip() != FENCE or FENCE not in (line.strip() for line in lines[1:]):
        raise ValueError(f"card {path}: no YAML front matter (a '---' line, the fields, a '---' line, the prose)")
    end = next(k for k in range(1, len(lines)) if lines[k].strip() == FENCE)
    rest, rows = _take_rows(path, lines[1:end])
    try:
        front = load_yaml("\n".join(rest), f"card {path}") or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"card {path}: the front matter is not valid YAML: {exc}") from None
    except RegistryError as exc:  # past the limits of vlc_harness.safe_yaml
        raise ValueError(str(exc)) from None
    if not isinstance(front, dict):
        raise ValueError(f"card {path}: the front matter is not a mapping of card fields")
    if rows is not None:
        front[ROWS_KEY] = rows
    return front, "\n".join(lines[end + 1 :]).strip()


def _take_rows(path: Path, lines: list[str]) -> tuple[list[str], list[Any] | None]:
    """The front matter's lines without its ``references:`` block, and that block's rows: each a JSON
    object on its own ``  - {...}`` line (valid YAML too), read as JSON: a built-in card holds hundreds,
    which YAML would take 0.3 s to read at every import (JSON: 10 ms). ``None``: no block."""
    if f"{ROWS_KEY}:" not in lines:
        return lines, None
    start = lines.index(f"{ROWS_KEY}:")
    stop = next((k for k in range(start + 1, len(lines)) if lines[k][:1] not in ("", " ")), len(lines))
    rows = []
    for line in lines[start + 1 : stop]:
        if not line.strip():
            continue
        text = line.strip()[2:] if line.startswith("  - ") else ""
        try:
            rows.append(json.loads(text, parse_constant=_no_constant))
        except ValueError as exc:
            raise ValueError(
                f"card {path}: 'references' row {len(rows)}: write each row as '  - ' and a JSON object on one "
                f"line ({exc})"
            ) from None
    return lines[:start] + lines[stop:], rows


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a row may hold")


def _value(path: Path, key: Any, value: Any) -> Any:
    """A front-matter value as the card field holds it, checked."""
    known = [f.name for f in fields(BenchmarkCard) if f.name != "about"]
    if key not in known:
        raise ValueError(f"card {path}: unknown key {key!r} (known: {', '.join(known)})")
    if key == "own_pools":
        return _pools(path, value)
    if key == "references":
        return _rows(path, value)
    if key in TEXT_FIELDS:
        ok, expected = isinstance(value, str), "a string"
    elif key in LIST_FIELDS:
        ok, expected = _strings(value), "a list of strings"
    elif key == "gap_metrics":
        pair = isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)
        ok, expected = value is None or pair, "two metric ids [image-to-text, text-to-image]"
    else:
        ok, expected = isinstance(value, bool), "true or false"
    if not ok:
        raise ValueError(f"card {path}: {key!r} must be {expected}, not {value!r}")
    if key == "bibtex":
        try:
            bibtex_entries(value)
        except ValueError as exc:
            raise ValueError(f"card {path}: 'bibtex': {exc}") from None
    return tuple(value) if isinstance(value, list) else value


def _pools(path: Path, value: Any) -> dict[str, Pool]:
    """``own_pools``: each name with its ``title`` (required), ``source`` and ``part_of`` list."""
    if not isinstance(value, dict):
        raise ValueError(f"card {path}: 'own_pools' must map each pool name to {{title, source, part_of}}")
    out = {}
    for name, spec in value.items():
        where = f"card {path}: 'own_pools' {name!r}"
        if not isinstance(name, str) or not isinstance(spec, dict) or not isinstance(spec.get("title"), str):
            raise ValueError(f"{where}: must be a mapping with a 'title' string (and 'source', 'part_of')")
        unknown = set(spec) - {"title", "source", "part_of"}
        parts = spec.get("part_of", [])
        if unknown or not isinstance(spec.get("source", ""), str) or not _strings(parts):
            raise ValueError(f"{where}: keys title (a string), source (a string), part_of (a list of strings)")
        out[name] = Pool(spec["title"], tuple(parts), spec.get("source", ""))
    return out


def _rows(path: Path, value: Any) -> tuple[ReferenceRow, ...]:
    """``references``: each row a mapping of the :class:`ReferenceRow` fields, checked, in order."""
    if not isinstance(value, list):
        raise ValueError(f"card {path}: 'references' must be a list of rows")
    known = {f.name: f for f in fields(ReferenceRow)}
    out = []
    for k, row in enumerate(value):
        where = f"card {path}: 'references' row {k}"
        if not isinstance(row, dict):
            raise ValueError(f"{where}: must be a mapping of {', '.join(known)}")
        if set(row) - set(known):
            raise ValueError(f"{where}: unknown key {sorted(set(row) - set(known))[0]!r}")
        missing = [name for name, f in known.items() if f.default is MISSING and name not in row]
        if missing:
            raise ValueError(f"{where}: missing {missing[0]!r}")
        for name, item in row.items():
            if name == "value":
                ok = isinstance(item, (int, float)) and not isinstance(item, bool)
            else:
                ok = isinstance(item, str) or (name in ("data_version", "precision") and item is None)
            if name == "precision" and item not in (None, *PRECISIONS):
                raise ValueError(f"{where}: 'precision' must be one of {', '.join(PRECISIONS)}")
            if not ok:
                raise ValueError(f"{where}: {name!r} must be {'a number' if name == 'value' else 'a string'}")
        out.append(ReferenceRow(**row))
    return tuple(out)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def bibtex_entries(text: str) -> list[str]:
    """The BibTeX entries in ``text``, each ``@type{key, ...}`` with balanced braces (none for empty text).

    Raises ``ValueError`` for anything else: text outside an entry, an entry without a key, braces
    that do not balance."""
    entries: list[str] = []
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return entries
        start = _ENTRY_START.match(text, at)
        if start is None:
            raise ValueError(f"not a BibTeX entry (@type{{key, ...}}) at {text[at : at + 40]!r}")
        depth = 0
        for end in range(text.index("{", at), len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
        if depth:
            raise ValueError(f"unbalanced braces in the entry at {text[at : at + 40]!r}")
        entries.append(text[at : end + 1])
        at = end + 1


def apply_card(cls: type) -> None:
    """Copy the card a class declares itself into its class attributes (refusing one also set directly)."""
    card: Any = vars(cls).get("card")
    if card is None:
        return
    for each in fields(BenchmarkCard):
        if each.name in vars(cls):
            raise TypeError(f"{cls.__name__} sets {each.name} both in its card and as an attribute")
        setattr(cls, each.name, getattr(card, each.name))
