"""The PR check's ``plugins`` step: ``vlc-harness plugins install`` of the pins the PR's registry lists
(hashes required, wheels only, ``--no-deps``, under the constraints), as a section of the job summary,
so that a pin that does not parse or does not install is reported there, not only in the step's log."""

from __future__ import annotations

from vlc_harness.ci.pr_check.context import Context, vlc
from vlc_harness.ci.summary import Section, code


def step_plugins(ctx: Context) -> Section:
    """Install the registry's plugin packages into this environment; the step fails when pip, ``pip
    check`` or the registry's ``plugins:`` section does, with the command's own explanation."""
    section = Section("Plugin packages")
    out = vlc(["plugins", "install", "--registry", str(ctx.registry)], ctx.repo)
    text = (out.stdout + out.stderr).strip()
    if out.returncode:
        section.fail(f"`vlc-harness plugins install --registry {ctx.registry.name}` failed (exit {out.returncode}):")
        section.lines += code(text)
        section.lines += [
            "",
            "The steps below still run: entries of a type whose package is not installed are `unavailable` with "
            "the install line, and conformance reports each listed type that is not registered.",
        ]
    elif "nothing to install" in text:
        section.verdict = "skipped"
        section.lines.append("The registry pins no plugin package (no `plugins:` section).")
    else:
        section.lines += code(text)
    return section
