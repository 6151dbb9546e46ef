"""``vlc-harness plugins``: the loaded plugins (``plugins`` alone, or ``plugins list``), and the
registry's pinned plugin packages: ``plugins install`` and ``plugins check``."""

from __future__ import annotations

from pathlib import Path

import click

from vlc_harness.cli.listing import plugins_command
from vlc_harness.cli.options import registry_option
from vlc_harness.exit_codes import ExitCode


@click.group("plugins", invoke_without_command=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table")
@click.pass_context
def plugins_group(ctx: click.Context, fmt: str) -> None:
    """Show each loaded plugin (as `plugins list`); `install` and `check` the registry's plugin packages."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(plugins_command, fmt=fmt)


plugins_group.add_command(plugins_command, "list")


@plugins_group.command("install")
@registry_option
@click.option(
    "--constraints",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="pip constraints file [default: ./constraints.txt, else the harness checkout's]",
)
@click.option("--dry-run", is_flag=True, help="Print the pip commands and the hashed requirements; install nothing.")
@click.option("--pip-option", "pip_options", multiple=True, help="Another pip option, e.g. --find-links=DIR.")
def install_command(
    registries: tuple[str, ...], constraints: Path | None, dry_run: bool, pip_options: tuple[str, ...]
) -> None:
    """Install exactly the registry's pinned plugin packages into this environment (pip --no-deps
    --require-hashes --only-binary :all: under the constraints: wheels only, no build code), then pip check."""
    from vlc_harness.plugin_install import InstallFailed, install_plan, run_install

    packages = list(_packages(registries).values())
    if not packages:
        click.echo("the registry lists no plugin packages (no 'plugins:' section): nothing to install")
        return
    plan = install_plan(packages, _constraints(constraints), extra=pip_options)
    if dry_run:
        for command in plan.commands():
            click.echo(" ".join(command))
        if plan.requirements:
            click.echo("# {requirements}:\n" + plan.requirements, nl=False)
        return
    try:
        for line in run_install(plan, packages):
            click.echo(line)
    except InstallFailed as exc:
        click.echo(str(exc), err=True)
        raise SystemExit(ExitCode.FAILED) from None
    click.echo(f"installed {', '.join(p.requirement() for p in packages)}")


@plugins_group.command("check")
@registry_option
def check_command(registries: tuple[str, ...]) -> None:
    """Each of the registry's plugin packages: installed at its pin (ok), missing, or another version;
    exit 1 unless all are ok."""
    from vlc_harness.plugin_packages import package_state

    states = [package_state(p) for p in _packages(registries).values()]
    for state in states:
        click.echo(state.line())
    if not states:
        click.echo("the registry lists no plugin packages (no 'plugins:' section)")
    if any(s.state != "ok" for s in states):
        click.echo("install them with `vlc-harness plugins install`", err=True)
        raise SystemExit(ExitCode.FAILED)


def _packages(registries: tuple[str, ...]) -> dict:
    from vlc_harness.cli.defaults import given_registry_files
    from vlc_harness.errors import UserError
    from vlc_harness.plugin_install import read_plugin_packages

    files = given_registry_files(registries) or ([Path("registry.yaml")] if Path("registry.yaml").is_file() else [])
    if not files:
        raise UserError("no registry file", hint="pass --registry PATH")
    return read_plugin_packages(files)


def _constraints(given: Path | None) -> Path:
    from vlc_harness.errors import UserError

    if given is not None:
        if not given.is_file():
            raise UserError(f"constraints file {given} does not exist")
        return given
    import vlc_harness

    for candidate in (Path("constraints.txt"), Path(vlc_harness.__file__).resolve().parents[1] / "constraints.txt"):
        if candidate.is_file():
            return candidate
    raise UserError("no constraints.txt here or in the harness checkout", hint="pass --constraints PATH")
