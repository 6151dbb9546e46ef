"""Benchmark cards: a card file (YAML front matter and the reference prose) read into a ``BenchmarkCard``, its
errors, a card declared in Python, and every built-in benchmark's card."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard, bibtex_entries
from vlc_harness.overlap import Pool
from vlc_harness.params import build
from vlc_harness.types import ReferenceRow

REPO = Path(__file__).resolve().parents[2]
CARDS = REPO / "plugins" / "benchmarks" / "cards"

FULL = """---
title: Demo
citation: 'Nobody. A demo: with a colon. 2026.'
headline: group_score
headline_source: 'ours: a test card'
homepage: https://example.org/demo
license: MIT
bibtex: |
  @misc{nobody2026demo,
    title = {A Demo: with a Colon},
    author = {Nobody, Some},
    year = {2026}
  }
index_metrics: [text_score, image_score]
gap_metrics: [text_score, image_score]
captions_redistributable: true
image_pools: [coco-val2017, demo-photos]
own_pools:
  demo-photos: {title: Demo photographs, source: Nobody 2026}
references:
  - {"benchmark": "demo", "metric": "group_score", "category": "all", "value": 0.25, "citation": "Nobody 2026", \
"table": "Table 1", "source": "CLIP", "protocol": "zero-shot", "matches": "clip"}

  - {"benchmark": "demo", "metric": "group_score", "category": "all", "value": 1, "citation": "analytic", \
"table": "n/a", "source": "Humans", "protocol": "by hand", "matches": "human", "data_version": "v1"}
---

Demo (Nobody, 2026): the reference.

Data: `<data root>/demo/rows.jsonl`.
"""


def write_card(folder: Path, text: str, name: str = "demo.md") -> Path:
    """A card file under ``folder/cards/``, as a plugin keeps it."""
    (folder / "cards").mkdir(parents=True, exist_ok=True)
    path = folder / "cards" / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_card_file_gives_every_field_and_its_body(tmp_path):
    card = BenchmarkCard.read(write_card(tmp_path, FULL))
    assert card == BenchmarkCard(
        title="Demo",
        citation="Nobody. A demo: with a colon. 2026.",
        headline="group_score",
        headline_source="ours: a test card",
        homepage="https://example.org/demo",
        license="MIT",
        bibtex="@misc{nobody2026demo,\n  title = {A Demo: with a Colon},\n  author = {Nobody, Some},\n"
        "  year = {2026}\n}\n",
        index_metrics=("text_score", "image_score"),
        gap_metrics=("text_score", "image_score"),
        captions_redistributable=True,
        image_pools=("coco-val2017", "demo-photos"),
        own_pools={"demo-photos": Pool("Demo photographs", (), "Nobody 2026")},
        references=(
            ReferenceRow("demo", "group_score", "all", 0.25, "Nobody 2026", "Table 1", "CLIP", "zero-shot", "clip"),
            ReferenceRow("demo", "group_score", "all", 1, "analytic", "n/a", "Humans", "by hand", "human", "v1"),
        ),
        about="Demo (Nobody, 2026): the reference.\n\nData: `<data root>/demo/rows.jsonl`.",
    )


def test_a_card_file_with_the_required_keys_only_takes_the_defaults(tmp_path):
    text = "---\ntitle: T\ncitation: C\nheadline: h\nheadline_source: 'ours: s'\n---\n"
    card = BenchmarkCard.read(write_card(tmp_path, text))
    assert card == BenchmarkCard(title="T", citation="C", headline="h", headline_source="ours: s")
    assert card.about == "" and card.references == () and card.own_pools == {} and card.gap_metrics is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("license: MIT", "licence: MIT"), r"unknown key 'licence'"),
        (("title: Demo\n", ""), r"missing required key 'title'"),
        (("headline_source: 'ours: a test card'\n", ""), r"missing required key 'headline_source'"),
        (("license: MIT", "about: prose"), r"unknown key 'about'"),  # the body is the prose
        (("title: Demo", "title: [Demo"), r"not valid YAML"),
        (("gap_metrics: [text_score, image_score]", "gap_metrics: [text_score]"), r"'gap_metrics' must be two"),
        (("captions_redistributable: true", "captions_redistributable: 'yes'"), r"'captions_redistributable' must"),
        (("index_metrics: [text_score, image_score]", "index_metrics: text_score"), r"'index_metrics' must be a list"),
        (("title: Demo", "title: 2026"), r"'title' must be a string"),
        (("    year = {2026}\n  }", "    year = {2026}"), r"'bibtex': unbalanced braces"),
        (("  @misc{nobody2026demo,", "  Nobody. A Demo. 2026. @misc{nobody2026demo,"), r"'bibtex': not a BibTeX entry"),
        (("  @misc{nobody2026demo,", "  @misc{"), r"'bibtex': not a BibTeX entry"),
        (("references:", "reference_file: demo_reference.json\nreferences:"), r"unknown key 'reference_file'"),
        (('"value": 0.25', '"value": "0.25"'), r"'references' row 0: 'value' must be a number"),
        (('"value": 0.25', '"value": true'), r"'references' row 0: 'value' must be a number"),
        (('"value": 0.25', '"value": NaN'), r"'references' row 0: .*NaN is not a number a row may hold"),
        (('"citation": "Nobody 2026", ', ""), r"'references' row 0: missing 'citation'"),
        (('"matches": "clip"}', '"matches": "clip", "metrc": "x"}'), r"'references' row 0: unknown key 'metrc'"),
        (('"data_version": "v1"', '"data_version": 1'), r"'references' row 1: 'data_version' must be a string"),
        (('  - {"benchmark": "demo",', '  - ["benchmark", "demo",'), r"'references' row 0: write each row as"),
        (('  - {"benchmark": "demo",', '  - {benchmark: "demo",'), r"'references' row 0: write each row as"),
        (('"matches": "human", ', '"matches": "human",\n    '), r"'references' row 1: write each row as '  - '"),
        (("{title: Demo photographs, source: Nobody 2026}", "Demo photographs"), r"'own_pools' 'demo-photos': must"),
        (("source: Nobody 2026}", "part_of: coco-val2017}"), r"'own_pools' 'demo-photos': keys title"),
    ],
)
def test_a_bad_card_file_is_refused_naming_the_file_and_the_key(tmp_path, change, message):
    path = write_card(tmp_path, FULL.replace(*change))
    assert FULL.replace(*change) != FULL
    with pytest.raises(ValueError, match=message) as caught:
        BenchmarkCard.read(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize("text", ["title: Demo\n", "", "---\ntitle: Demo\n", "---\n- a list\n---\nbody\n"])
def test_a_card_file_without_front_matter_is_refused(tmp_path, text):
    path = write_card(tmp_path, text)
    with pytest.raises(ValueError, match=r"card .*demo\.md: (no YAML front matter|the front matter is not a mapping)"):
        BenchmarkCard.read(path)


def test_a_class_that_reads_its_card_file_gets_the_attributes_and_the_prose(tmp_path):
    path = write_card(tmp_path, FULL)

    class Demo(Benchmark):
        """A benchmark whose card is a file."""

        type_name = "demo"
        card = BenchmarkCard.read(path)

    assert Demo.title == "Demo" and Demo.gap_metrics == ("text_score", "image_score")
    assert Demo.references[0].source == "CLIP" and Demo.about.startswith("Demo (Nobody, 2026)")
    assert Demo.own_pools["demo-photos"].title == "Demo photographs"
    with pytest.raises(TypeError, match="sets about both in its card and as an attribute"):

        class Twice(Benchmark):
            card = BenchmarkCard.read(path)
            about = "other prose"


def test_a_card_declared_in_python_checks_its_bibtex():
    entries = "@misc{a2026,\n  title = {A}\n}\n\n@misc{b2026, title = {B {with} braces}}"
    card = BenchmarkCard(title="T", citation="A; B.", headline="h", headline_source="ours: s", bibtex=entries)
    assert bibtex_entries(card.bibtex) == ["@misc{a2026,\n  title = {A}\n}", "@misc{b2026, title = {B {with} braces}}"]
    with pytest.raises(ValueError, match="not a BibTeX entry"):
        BenchmarkCard(title="T", citation="C", headline="h", headline_source="ours: s", bibtex="A. Title. 2026.")


def test_a_card_declared_in_python_still_works():
    class Declared(Benchmark):
        """A third party's benchmark that declares its card in Python."""

        type_name = "declared"
        card = BenchmarkCard(title="Declared", citation="Nobody, 2026.", headline="acc", headline_source="ours: a test")

    assert Declared.title == "Declared" and Declared.headline == "acc" and Declared.about == ""
    assert Declared.index_metrics == () and Declared.references == () and Declared.own_pools == {}


def test_a_benchmarks_pools_are_checked_when_its_class_is_made():
    def make(**more):
        return BenchmarkCard(
            title="P", citation="Nobody, 2026.", headline="acc", headline_source="ours: a test", **more
        )

    class Own(Benchmark):
        """Draws on a shared pool and on its own."""

        card = make(image_pools=("vg", "own-renders"), own_pools={"own-renders": Pool("renders", ("vg",))})

    assert Own.own_pools["own-renders"].part_of == ("vg",)
    with pytest.raises(ValueError, match="image_pools: unknown image pool 'whatsup-controlled'"):

        class Foreign(Benchmark):
            card = make(image_pools=("whatsup-controlled",))  # What'sUp's own pool, not this one's

    with pytest.raises(ValueError, match="'coco-val2017' is a shared pool"):

        class Taken(Benchmark):
            card = make(image_pools=("coco-val2017",), own_pools={"coco-val2017": Pool("mine")})

    with pytest.raises(ValueError, match="'mine' part_of: unknown image pool 'cocoo'"):

        class Typo(Benchmark):
            card = make(own_pools={"mine": Pool("mine", ("cocoo",))})

    with pytest.raises(TypeError, match="sets reference_file: give the rows as the card's references"):

        class Old(Benchmark):
            reference_file = Path("old_reference.json")


def builtin_benchmarks() -> dict[str, type]:
    """Every built-in benchmark type, by type name."""
    from vlc_harness.plugins import get_plugins

    registry = get_plugins().benchmarks
    classes = {name: registry.get(name).cls for name in registry.names()}
    return {name: cls for name, cls in classes.items() if cls.__module__.startswith("vlc_harness_builtins.")}


def test_every_card_file_belongs_to_a_builtin_benchmark_and_every_builtin_has_one():
    assert sorted(p.stem for p in CARDS.glob("*.md")) == sorted(builtin_benchmarks())


@pytest.mark.parametrize("name", sorted(builtin_benchmarks()))
def test_a_builtin_benchmark_reads_its_card_file(name):
    cls = builtin_benchmarks()[name]
    card = BenchmarkCard.read(CARDS / f"{name}.md")
    assert cls.card == card and cls.title == card.title and cls.about == card.about
    assert len(card.about.split()) >= 50, "the card's body is the benchmark's reference: data, versions, metrics"
    for row in card.references:  # well-formed: this benchmark's, a fraction, every text given
        assert row.benchmark == name and 0.0 <= row.value <= 1.0, row
        assert all([row.metric, row.category, row.citation, row.table, row.source, row.protocol, row.matches]), row
    assert len(set(card.references)) == len(card.references), "a row given twice"
    assert cls.bibtex == card.bibtex and (bibtex_entries(card.bibtex) or name == "shapes")  # shapes: no paper
    ids = {spec.id for spec in cls(build(cls.Params, {}), Path(".")).metric_specs()}  # default params
    assert card.headline in ids and {*card.index_metrics, *(card.gap_metrics or ())} <= ids
    other_modes = {"bivlc": {"i2t_only_i_pos2t"}}  # rows of BiVLC's i2t-only mode (its reference_rows() picks)
    assert {row.metric for row in card.references} <= ids | other_modes.get(name, set())


@pytest.mark.parametrize("name", sorted(set(builtin_benchmarks()) - {"shapes"}))
def test_a_builtin_cards_bibtex_cites_the_paper_its_prose_names(name):
    card = BenchmarkCard.read(CARDS / f"{name}.md")
    first = bibtex_entries(card.bibtex)[0]
    authors = re.search(r"^  author = \{(.*)\},$", first, re.M)
    year = re.search(r"^  year = \{(\d{4})\},?$", first, re.M)
    assert authors and year, first
    surnames = [a.split(",")[0] for a in authors.group(1).split(" and ")]
    assert surnames == card.citation.split(". ")[0].split(", ") and year.group(1) in card.citation
    assert all("," in a and a.split(",")[1].strip() for a in authors.group(1).split(" and ")), "Surname, Given names"


def test_the_card_files_ship_with_the_package():
    lines = (REPO / "pyproject.toml").read_text(encoding="utf-8").splitlines()
    package_data = lines[lines.index("[tool.setuptools.package-data]") :]
    builtins = next(line for line in package_data if line.startswith("vlc_harness_builtins = "))
    assert '"benchmarks/cards/*.md"' in builtins  # a wheel without them could not import the benchmarks
