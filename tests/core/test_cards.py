"""Benchmark cards: a card file (YAML front matter and the reference prose) read into a ``BenchmarkCard``, its
errors, a card declared in Python, and every built-in benchmark's card."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlc_harness.benchmarks import Benchmark
from vlc_harness.cards import BenchmarkCard
from vlc_harness.params import build

REPO = Path(__file__).resolve().parents[2]
CARDS = REPO / "plugins" / "benchmarks" / "cards"

FULL = """---
title: Demo
citation: 'Nobody. A demo: with a colon. 2026.'
headline: group_score
headline_source: 'ours: a test card'
homepage: https://example.org/demo
license: MIT
index_metrics: [text_score, image_score]
gap_metrics: [text_score, image_score]
captions_redistributable: true
image_pools: [coco-val2017]
reference_file: demo_reference.json
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
        index_metrics=("text_score", "image_score"),
        gap_metrics=("text_score", "image_score"),
        captions_redistributable=True,
        image_pools=("coco-val2017",),
        reference_file=tmp_path / "demo_reference.json",  # beside the plugin, above cards/
        about="Demo (Nobody, 2026): the reference.\n\nData: `<data root>/demo/rows.jsonl`.",
    )


def test_a_card_file_with_the_required_keys_only_takes_the_defaults(tmp_path):
    text = "---\ntitle: T\ncitation: C\nheadline: h\nheadline_source: 'ours: s'\n---\n"
    card = BenchmarkCard.read(write_card(tmp_path, text))
    assert card == BenchmarkCard(title="T", citation="C", headline="h", headline_source="ours: s")
    assert card.about == "" and card.reference_file is None and card.gap_metrics is None


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
    assert Demo.reference_file == tmp_path / "demo_reference.json" and Demo.about.startswith("Demo (Nobody, 2026)")
    with pytest.raises(TypeError, match="sets about both in its card and as an attribute"):

        class Twice(Benchmark):
            card = BenchmarkCard.read(path)
            about = "other prose"


def test_a_card_declared_in_python_still_works():
    class Declared(Benchmark):
        """A third party's benchmark that declares its card in Python."""

        type_name = "declared"
        card = BenchmarkCard(title="Declared", citation="Nobody, 2026.", headline="acc", headline_source="ours: a test")

    assert Declared.title == "Declared" and Declared.headline == "acc" and Declared.about == ""
    assert Declared.index_metrics == () and Declared.reference_file is None


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
    assert card.reference_file is None or card.reference_file.is_file()
    ids = {spec.id for spec in cls(build(cls.Params, {}), Path(".")).metric_specs()}  # default params
    assert card.headline in ids and {*card.index_metrics, *(card.gap_metrics or ())} <= ids


def test_the_card_files_ship_with_the_package():
    lines = (REPO / "pyproject.toml").read_text(encoding="utf-8").splitlines()
    package_data = lines[lines.index("[tool.setuptools.package-data]") :]
    builtins = next(line for line in package_data if line.startswith("vlc_harness_builtins = "))
    assert '"benchmarks/cards/*.md"' in builtins  # a wheel without them could not import the benchmarks
