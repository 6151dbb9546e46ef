"""``$VLC_HARNESS_REGISTRY``, ``$VLC_HARNESS_STORE`` and ``$VLC_HARNESS_DATA`` reach a command through
click (``envvar=``) as its ``--registry``, ``--store`` and ``--data-root``, an option given wins, and
every ``--help`` names the variable. The registry variable holds several files, ``os.pathsep``-separated
(never split on spaces); the Python API reads the other two from ``vlc_harness.paths`` itself."""

from __future__ import annotations

import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from vlc_harness.cli import build_cli, data_root_option, registry_option, store_option, store_registry_option
from vlc_harness.paths import ENV_DATA, ENV_REGISTRY, ENV_STORE, default_data_root, default_store_url

VARIABLES = {"registries": ENV_REGISTRY, "store_url": ENV_STORE, "data_root": ENV_DATA}
"""The option (by its parameter name) -> the variable click reads into it."""


@click.command()
@registry_option
@store_option
@data_root_option
def echo(registries: tuple[str, ...], store_url: str | None, data_root: Path) -> None:
    click.echo(repr((registries, store_url, str(data_root))))


@click.command()
@store_registry_option
def echo_store_registry(registries: tuple[str, ...]) -> None:
    click.echo(repr(registries))


def _run(command: click.Command, *args: str, **env: str) -> object:
    out = CliRunner().invoke(command, list(args), env=env, catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return eval(out.stdout)  # noqa: S307  (our own repr)


def _commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    out: dict[str, click.Command] = {}
    for name, command in group.commands.items():
        out[f"{prefix}{name}"] = command
        if isinstance(command, click.Group):
            out.update(_commands(command, f"{prefix}{name} "))
    return out


def test_the_variables_fill_the_options(tmp_path):
    sep = os.pathsep
    env = {ENV_REGISTRY: f"a.yaml{sep}b.yaml", ENV_STORE: "sqlite:///s.sqlite", ENV_DATA: str(tmp_path)}
    assert _run(echo, **env) == (("a.yaml", "b.yaml"), "sqlite:///s.sqlite", str(tmp_path))


def test_an_option_given_beats_its_variable(tmp_path):
    env = {ENV_REGISTRY: "a.yaml", ENV_STORE: "sqlite:///s.sqlite", ENV_DATA: str(tmp_path / "env")}
    args = ("--registry", "given.yaml", "--store", "sqlite://", "--data-root", str(tmp_path / "given"))
    assert _run(echo, *args, **env) == (("given.yaml",), "sqlite://", str(tmp_path / "given"))


@pytest.mark.parametrize("command", [echo, echo_store_registry])
def test_the_registry_variable_splits_on_the_path_separator_only(command):
    sep = os.pathsep
    value = f"{sep}my registries/a b.yaml{sep}{sep}c.yaml {sep}"
    found = _run(command, **{ENV_REGISTRY: value})
    registries = found[0] if command is echo else found
    assert registries == ("my registries/a b.yaml", "c.yaml ")


def test_without_option_or_variable_the_defaults_of_the_paths_module(monkeypatch):
    for name in VARIABLES.values():
        monkeypatch.delenv(name, raising=False)
    assert _run(echo) == ((), None, str(default_data_root()))
    assert default_store_url().endswith("store.sqlite")  # what App.store opens for None


def test_the_python_api_reads_the_environment_itself(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_STORE, "sqlite:///elsewhere.sqlite")
    monkeypatch.setenv(ENV_DATA, str(tmp_path))
    assert default_store_url() == "sqlite:///elsewhere.sqlite" and default_data_root() == tmp_path


def test_every_command_reads_its_variables_through_click_and_its_help_names_them():
    checked = 0
    for name, command in _commands(build_cli()).items():
        for param in command.params:
            if param.name not in VARIABLES:
                continue
            assert isinstance(param, click.Option) and param.envvar == VARIABLES[param.name], (name, param.name)
            assert param.show_envvar, (name, param.name)
            checked += 1
        shown = " ".join(CliRunner().invoke(build_cli(), [*name.split(), "--help"]).output.split())
        for param in command.params:
            if param.name in VARIABLES:
                assert f"[env var: {VARIABLES[param.name]}]" in shown, (name, shown)
    assert checked >= 20, checked  # run, list, instances, data, verify, plan, show, render, cache, store...
