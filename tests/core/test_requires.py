"""What a type needs installed and what can change its scores is declared once, on its class."""

from __future__ import annotations

import sys
from pathlib import Path

from vlc_harness.plugins import get_plugins
from vlc_harness.requires import Requires

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
VERSIONED_BY_DATA = {"spacy", "nltk"}
"""ARO's Order tasks tag with these: their versions are part of the benchmark's data version
(``pos_tagging.tagger_identity``), so they change instances, never a stored score silently."""


def _classes():
    plugins = get_plugins()
    for registrar in (plugins.models, plugins.benchmarks):
        for name in registrar.names():
            yield name, registrar.get(name).cls


def _pins() -> set[str]:
    from tests.repo.test_constraints import normalize, pins

    return {normalize(n) for n in pins()}


def test_every_declared_extra_exists_and_every_scoring_distribution_is_pinned():
    extras = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    pinned = _pins()
    from tests.repo.test_constraints import normalize

    for name, cls in _classes():
        requires = cls.requires
        assert isinstance(requires, Requires), name
        assert set(requires.extras) <= extras, (name, requires.extras)
        unpinned = {normalize(d) for d in requires.scoring} - pinned - VERSIONED_BY_DATA
        assert not unpinned, f"{name} declares scoring distributions constraints.txt does not pin: {unpinned}"


def test_aro_order_adds_the_spacy_pipeline_its_tagger_names():
    plugins = get_plugins()
    cls = plugins.benchmarks.get("aro_coco_order").cls
    params = cls.Params()
    assert cls.requires.for_params(params).spacy_models == ("en_core_web_sm",)
    assert cls.requires.for_params(cls.Params(tagger="spacy:en_core_web_lg")).spacy_models == ("en_core_web_lg",)
    assert cls.requires.for_params(cls.Params(tagger="table:tags.json")).spacy_models == ()
    assert "aro" in cls.requires.for_params(params).extras


def test_the_declaration_merges_without_repeats():
    a = Requires(extras=("hf",), scoring=("torch", "numpy"))
    b = Requires(extras=("hf", "api"), scoring=("numpy", "Pillow"), no_deps=("t2v_metrics",))
    assert a | b == Requires(extras=("hf", "api"), no_deps=("t2v_metrics",), scoring=("torch", "numpy", "Pillow"))
