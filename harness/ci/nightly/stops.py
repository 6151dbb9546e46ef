"""Which step stopped the night, and what the summaries say about it: the registry step (the registry, its
``plugins:`` section included, loads), and the verdict a night that published nothing reads.

A step that leaves nothing to render (the registry does not load, the install or the plugin packages fail,
``data fetch`` cannot run, the run writes no summary) stops the night with
:attr:`~vlc_harness.exit_codes.ExitCode.STEP_FAILED`, which the deploy job does not accept
(:data:`~vlc_harness.exit_codes.PUBLISHED`); the JSON summary names it (``stopped_by``) with
``published: false``, and the job summary's first line says so."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlc_harness.ci.nightly.steps import Step
from vlc_harness.exit_codes import PUBLISHED, ExitCode

if TYPE_CHECKING:
    from vlc_harness.registry import Registry


def load_registry_step(path: Path) -> tuple[Registry | None, Step]:
    """The registry read with the installed plugins, as a step: a registry that does not load (a broken pin in
    its ``plugins:`` section, a typo) stops the night, its error in the summary."""
    from vlc_harness.errors import HarnessError
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry

    step = Step("registry")
    try:
        registry = load_registry([Path(path)], get_plugins())
    except HarnessError as exc:
        return None, stop(step, f"{path} does not load: {exc}")
    step.lines.append(
        f"{path}: {len(registry.models)} models, {len(registry.benchmarks)} benchmarks, "
        f"{len(registry.packages)} plugin packages"
    )
    return registry, step


STOPPED = "this step stopped the night: nothing was rendered or published"


def stop(step: Step, why: str | None = None) -> Step:
    """Mark ``step`` as the one that stopped the night, saying why (``why``: a line before the verdict)."""
    step.code = ExitCode.STEP_FAILED
    step.lines += [why] if why else []
    step.lines.append(STOPPED)
    return step


def stopped_by(steps: list[Step]) -> str | None:
    """The step that stopped the night (:attr:`~vlc_harness.exit_codes.ExitCode.STEP_FAILED`), if one did."""
    return next((s.name for s in steps if s.code == ExitCode.STEP_FAILED), None)


def outcome(code: int, steps: list[Step]) -> dict[str, Any]:
    """What the JSON summary adds: the step that stopped the night (or ``None``) and whether the deploy job
    publishes after this exit code."""
    return {"stopped_by": stopped_by(steps), "published": code in PUBLISHED}


def unpublished_verdict(steps: list[Step]) -> str:
    """The verdict of a night whose code the deploy job does not accept."""
    name = stopped_by(steps)
    if name is None:
        return "nothing is published"
    return f"the {name} step stopped the night: nothing was rendered or published"
