"""Pluggable part-of-speech tagging for benchmarks that build texts from tags (ARO's Order tasks).

ARO perturbs captions with spaCy ``en_core_web_sm`` Penn Treebank tags (``token.tag_``) and
splits them into trigrams with ``nltk.word_tokenize``. A tagger here gives both:

* :meth:`PosTagger.tag`: ``[(token, PTB tag), ...]`` as spaCy tokenises and tags the text;
* :meth:`PosTagger.words`: the word tokens as ``nltk.word_tokenize`` splits the text.

Taggers are named by a spec string (a benchmark param):

* ``spacy`` or ``spacy:<model>`` (default model ``en_core_web_sm``): spaCy for tags, NLTK for
  words. Only the official model packages (``python -m spacy download en_core_web_sm``) are
  used, never a re-upload. Missing pieces raise :class:`TaggerUnavailable` saying what to install.
* ``table:<path>``: a JSON table (relative paths are read under the data root), for tests and
  for replaying tags computed elsewhere::

      {"captions": {"<text>": {"tags": [["a", "DT"], ["dog", "NN"]], "words": ["a", "dog"]}}}

  ``words`` may be left out: the tagged tokens are used. A text absent from the table is an error.

:func:`tagger_identity` names a tagger without loading any model (package versions or the
table's sha256), so it can go into a data version cheaply.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from vlc_harness.errors import Unavailable
from vlc_harness.kit.exports import short_sha256
from vlc_harness.reasons import Reason
from vlc_harness.sources import load_json
from vlc_harness.sources.fields import OBJECT, TEXT, at, list_of, require, value

DEFAULT_SPACY_MODEL = "en_core_web_sm"
SPACY_INSTALL = "pip install spacy && python -m spacy download en_core_web_sm"
NLTK_INSTALL = "pip install nltk && python -m nltk.downloader punkt punkt_tab"

Tagged = list[tuple[str, str]]


class TaggerUnavailable(Unavailable):
    """The tagger a benchmark asks for cannot be loaded here (package, model or table missing)."""

    code = Reason.PACKAGE_MISSING


TABLE_ENTRY = {"tags": list_of(list_of(TEXT, 2))}
"""A tag table's entry per caption: ``[[token, tag], ...]`` (and optionally ``words``, a list of strings)."""


class TaggerError(ValueError):
    """A tagger was asked about a text it cannot tag (a table without that text)."""


class PosTagger(Protocol):
    """What a benchmark needs from a tagger."""

    identity: str
    """Stable name of the tagger and its versions (part of a data version)."""

    def tag(self, text: str) -> Tagged:
        """``(token, Penn Treebank tag)`` pairs, in order."""
        ...

    def words(self, text: str) -> list[str]:
        """Word tokens as ``nltk.word_tokenize`` gives them."""
        ...

    def tag_many(self, texts: Sequence[str]) -> list[Tagged]:
        """:meth:`tag` for many texts (batched where the backend can)."""
        ...


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


class SpacyTagger:
    """spaCy tags (``token.tag_``) plus NLTK word tokens, as ARO's reference code uses them."""

    def __init__(self, model: str = DEFAULT_SPACY_MODEL) -> None:
        self.model = model
        self.identity = spacy_identity(model)
        try:
            import spacy
        except ImportError:
            raise TaggerUnavailable(f"spaCy is not installed; ARO's Order tasks need it: {SPACY_INSTALL}") from None
        try:
            # NER and the lemmatizer never touch token.tag_; every other component stays as ARO loads it.
            self._nlp = spacy.load(model, exclude=["ner", "lemmatizer"])
        except OSError:
            raise TaggerUnavailable(
                f"the spaCy model {model!r} is not installed: {SPACY_INSTALL.replace(DEFAULT_SPACY_MODEL, model)}"
            ) from None
        self._word_tokenize: Any = None

    def tag(self, text: str) -> Tagged:
        """spaCy tokens and their fine-grained (PTB) tags."""
        return [(t.text, t.tag_) for t in self._nlp(text)]

    def tag_many(self, texts: Sequence[str]) -> list[Tagged]:
        """Tags of many texts through ``nlp.pipe``."""
        return [[(t.text, t.tag_) for t in doc] for doc in self._nlp.pipe(texts, batch_size=256)]

    def words(self, text: str) -> list[str]:
        """``nltk.word_tokenize`` (ARO's trigram perturbations use it)."""
        if self._word_tokenize is None:
            self._word_tokenize = _nltk_word_tokenize()
        return list(self._word_tokenize(text))


def _nltk_word_tokenize() -> Any:
    try:
        import nltk
    except ImportError:
        raise TaggerUnavailable(f"NLTK is not installed; ARO's trigram perturbations need it: {NLTK_INSTALL}") from None
    try:
        nltk.word_tokenize("a test.")
    except LookupError:
        raise TaggerUnavailable(f"NLTK's punkt tokenizer data is missing: {NLTK_INSTALL}") from None
    return nltk.word_tokenize


class TableTagger:
    """Tags and word tokens looked up in a table (tests, or tags computed elsewhere)."""

    def __init__(self, table: Mapping[str, Mapping[str, Any]], identity: str = "table") -> None:
        self.identity = identity
        self._table = {text: entry for text, entry in table.items()}

    @classmethod
    def from_file(cls, path: Path) -> TableTagger:
        """Read ``{"captions": {text: {"tags": [[tok, tag], ...], "words": [...]}}}``."""
        if not path.is_file():
            raise TaggerUnavailable(f"tag table {path} does not exist", Reason.DATA_MISSING)
        data = load_json(path)
        with at(path, "the file"):
            captions = value(data, "captions", OBJECT)
        for text, entry in captions.items():
            with at(path, f"caption {text!r}"):
                require(entry, TABLE_ENTRY)
                if "words" in entry:
                    value(entry, "words", list_of(TEXT))
        return cls(captions, identity=table_identity(path))

    def _entry(self, text: str) -> Mapping[str, Any]:
        try:
            return self._table[text]
        except KeyError:
            raise TaggerError(f"the tag table ({self.identity}) has no entry for {text!r}") from None

    def tag(self, text: str) -> Tagged:
        """The table's ``tags`` for the text."""
        return [(str(tok), str(tag)) for tok, tag in self._entry(text)["tags"]]

    def tag_many(self, texts: Sequence[str]) -> list[Tagged]:
        """:meth:`tag` for each text."""
        return [self.tag(t) for t in texts]

    def words(self, text: str) -> list[str]:
        """The table's ``words``, or the tagged tokens when it has none."""
        entry = self._entry(text)
        if "words" in entry:
            return [str(w) for w in entry["words"]]
        return [tok for tok, _ in self.tag(text)]


def spacy_identity(model: str = DEFAULT_SPACY_MODEL) -> str:
    """``spacy-<ver>/<model>-<ver>/nltk-<ver>`` from installed package metadata (nothing loaded)."""
    parts = [f"spacy-{_version('spacy') or 'missing'}", f"{model}-{_version(model) or 'missing'}"]
    parts.append(f"nltk-{_version('nltk') or 'missing'}")
    return "/".join(parts)


def table_identity(path: Path) -> str:
    """``table-<sha256 prefix>`` of a tag table file."""
    digest = short_sha256(path)
    return f"table-{digest}"


def _split(spec: str) -> tuple[str, str]:
    kind, _, arg = spec.partition(":")
    kind = kind.strip()
    if kind not in ("spacy", "table"):
        raise ValueError(f"unknown tagger {spec!r}: expected 'spacy', 'spacy:<model>' or 'table:<path>'")
    if kind == "table" and not arg.strip():
        raise ValueError(f"tagger {spec!r} names no table file: write 'table:<path>'")
    return kind, arg.strip()


def _table_path(arg: str, base: Path | None) -> Path:
    path = Path(arg)
    return path if path.is_absolute() or base is None else base / path


def tagger_identity(spec: str, base: Path | None = None) -> str:
    """The identity of the tagger ``spec`` names, without loading it."""
    kind, arg = _split(spec)
    if kind == "spacy":
        return spacy_identity(arg or DEFAULT_SPACY_MODEL)
    return table_identity(_table_path(arg, base))


def load_tagger(spec: str, base: Path | None = None) -> PosTagger:
    """The tagger ``spec`` names (``spacy[:model]`` or ``table:<path>``, relative to ``base``)."""
    kind, arg = _split(spec)
    if kind == "spacy":
        return SpacyTagger(arg or DEFAULT_SPACY_MODEL)
    return TableTagger.from_file(_table_path(arg, base))


def spacy_available(model: str = DEFAULT_SPACY_MODEL) -> bool:
    """True when spaCy and the model package are importable (no model is loaded)."""
    return importlib.util.find_spec("spacy") is not None and importlib.util.find_spec(model) is not None


def write_table(path: Path, entries: Iterable[tuple[str, Tagged, list[str] | None]]) -> None:
    """Write a tag table: ``(text, tags, words or None)`` per caption."""
    captions: dict[str, Any] = {}
    for text, tags, words in entries:
        entry: dict[str, Any] = {"tags": [list(p) for p in tags]}
        if words is not None:
            entry["words"] = list(words)
        captions[text] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"captions": captions}, indent=1, sort_keys=True), encoding="utf-8")
