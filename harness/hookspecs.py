"""The hooks a vlc-harness plugin can implement.

A plugin is a module (or object) with functions decorated by :data:`hookimpl`, found through the
``vlc_harness`` entry-point group. Quick start, a complete model plugin::

    from vlc_harness import TextOnlyModel, hookimpl

    class CaptionLength(TextOnlyModel):
        \"\"\"Blind baseline: longer captions score higher.\"\"\"

        type_name = "caption_length"

        def score_texts(self, texts):
            return [float(len(t)) for t in texts]

    @hookimpl
    def register_models(register):
        register(CaptionLength)

Every hook below is documented in docs/plugin_hooks.md, with when it is called and a runnable
example (tests/core/test_plugin_hooks_doc.py runs each).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    import click

    from vlc_harness.benchmarks import Benchmark
    from vlc_harness.catalog import Registrar
    from vlc_harness.metrics.family import Family, FamilyExample
    from vlc_harness.models import Model

PROJECT = "vlc_harness"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_models(register: Registrar[Model]) -> None:
    """Register model types.

    :param register: call ``register(ModelClass)`` for each :class:`~vlc_harness.models.Model`
        subclass; its ``type_name`` is the ``type`` registry entries use. Registering a type
        name twice raises :class:`~vlc_harness.errors.PluginError` naming both plugins.
    """


@hookspec
def register_benchmarks(register: Registrar[Benchmark]) -> None:
    """Register benchmark types.

    :param register: call ``register(BenchmarkClass)`` for each
        :class:`~vlc_harness.benchmarks.Benchmark` subclass; its ``type_name`` is the ``type``
        registry entries use. Duplicates raise, naming both plugins.
    """


@hookspec
def register_metric_families(register: Registrar[Family]) -> None:
    """Register metric family types.

    :param register: call ``register(FamilyClass)`` for each
        :class:`~vlc_harness.metrics.family.Family` subclass; its ``name`` (also what the metrics
        version records) must be unique among the registered families, the core's own included.
        Duplicates raise, naming both plugins. A registered family is listed by ``vlc-harness
        plugins``, known by name (``get_plugins().families.get(name)``), and checked by the shared
        conformance checks on its conformance example
        (:class:`~vlc_harness.metrics.family.FamilyExample`).
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add commands to the ``vlc-harness`` command line.

    :param cli: the top-level :class:`click.Group`; add commands with ``@cli.command()``.
        The leaderboard adds ``show`` (and ``render``) this way, so the core never imports it.
    """


@hookspec(firstresult=True)
def conformance_example(
    cls: type[Model] | type[Benchmark] | type[Family], tmp_path: Path
) -> dict[str, Any] | tuple[dict[str, Any], Path] | FamilyExample | Sequence[FamilyExample] | None:
    """A tiny offline example of a registered type, for the shared conformance checks.

    Return what the type's own ``conformance_example(tmp_path)`` would (a model: its params; a
    benchmark: ``(params, data_root)``; a metric family: a
    :class:`~vlc_harness.metrics.family.FamilyExample` or several), building any files under
    ``tmp_path``, or ``None`` for a class this plugin has no example for. The first answer wins;
    with none, the class's own ``conformance_example`` is used. Implement it in a module named by
    an entry point of the ``vlc_harness_testing`` group (loaded only by the conformance checks,
    never by ``vlc-harness run``) to keep tiny checkpoints and generated data out of the plugin's
    production modules.
    """
