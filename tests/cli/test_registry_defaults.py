"""One rule for every command: after the quickstart, ``run``, ``plan``, ``show --format board``, ``list``,
``instances`` and ``data`` read the registry the store was filled from, not the published
``./registry.yaml``, and each names what it read, in one line on stderr; a store holding another
registry's cells says so and names it.

Each test runs in a folder of its own holding a stand-in of the published ``registry.yaml`` (a model
and SugarCrepe, whose data is absent) next to ``quickstart.yaml`` (the seeded random model on a small
generated shapes benchmark), as a user's checkout holds both.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.registries import RANDOM_ON_TINY_SHAPES
from vlc_harness.cli import build_cli

QUICKSTART = RANDOM_ON_TINY_SHAPES
PUBLISHED = """
models:
  - id: published-model
    type: random
    params: {seed: 7}
benchmarks:
  - id: sugarcrepe
    type: sugarcrepe
    params: {version: paper-7512}
"""
SHAPES = "shapes:seed=0,n_scenes=20,image_size=32"


def cli(*args: str, env: dict[str, str] | None = None) -> Any:
    """``vlc-harness ARGS`` in-process; stdout and stderr apart (``run``: its models in this process too)."""
    argv = [*args, "--executor", "inprocess"] if args[:1] == ("run",) else list(args)
    return CliRunner().invoke(build_cli(), argv, catch_exceptions=False, env=env)


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A checkout's folder and a store the quickstart filled (``run --all --registry quickstart.yaml``)."""
    root = tmp_path_factory.mktemp("checkout")
    (root / "quickstart.yaml").write_text(QUICKSTART)
    (root / "registry.yaml").write_text(PUBLISHED)
    store, data = root / "cache" / "store.sqlite", root / "data"
    out = cli("run", "--all", "--registry", str(root / "quickstart.yaml"), "--store", f"sqlite:///{store}",
              "--data-root", str(data), "--no-progress")  # fmt: skip
    assert out.exit_code == 0, out.output
    return {"root": root, "store": store, "data": data}


@pytest.fixture
def checkout(filled: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """In the checkout's folder, with the filled store and its data root as the user's defaults."""
    monkeypatch.chdir(filled["root"])
    monkeypatch.setenv("VLC_HARNESS_STORE", f"sqlite:///{filled['store']}")
    monkeypatch.setenv("VLC_HARNESS_DATA", str(filled["data"]))
    return filled


FOLLOWED = "note: registry: quickstart.yaml (what the store's latest run read; --registry overrides)\n"
WORKING_DIR = "note: registry: ./registry.yaml (the working directory's; --registry overrides)\n"
BUILT_IN = "note: registry: none (the built-in types; --registry names one)\n"


def test_show_board_reads_the_registry_the_store_was_filled_from(checkout) -> None:
    out = cli("show", "--format", "board")
    assert out.exit_code == 0, out.output
    assert out.stderr == FOLLOWED
    header, *rows = out.stdout.splitlines()
    assert header.split()[:3] == ["model", "mean", "rank"] and "tiny-shapes:group_score" in header
    assert [r.split()[0] for r in rows] == ["Human", "Chance", "random"]
    assert "published-model" not in out.stdout and "sugarcrepe" not in out.stdout


def test_list_reads_it(checkout) -> None:
    models = cli("list", "models")
    assert models.exit_code == 0 and models.stderr == FOLLOWED
    assert [line.split()[0] for line in models.stdout.splitlines()] == ["random"]
    benchmarks = cli("list", "benchmarks", "--format", "json")
    assert [row["id"] for row in json.loads(benchmarks.stdout)] == ["tiny-shapes"]


def test_data_verify_and_fetch_read_it(checkout) -> None:
    verify = cli("data", "verify")
    assert verify.exit_code == 0, verify.output  # the published grid's SugarCrepe is not asked for
    (line,) = verify.stdout.splitlines()
    assert line.startswith("tiny-shapes: gen1-seed0-n20-32px, ") and line.endswith(
        "annotations ok, images 124/124 present"
    )
    fetch = cli("data", "fetch", "--no-progress")
    assert fetch.exit_code == 0 and fetch.stdout.startswith("tiny-shapes: ") and len(fetch.stdout.splitlines()) == 1


def test_instances_finds_the_stores_ids(checkout) -> None:
    out = cli("instances", "-b", "tiny-shapes", "--limit", "1")
    assert out.exit_code == 0, out.output
    assert {json.loads(line)["data_version"] for line in out.stdout.splitlines()} == {"gen1-seed0-n20-32px"}


def test_a_store_of_another_registry_is_said_and_named_instead_of_a_board(checkout) -> None:
    out = cli("show", "--format", "board", "--registry", "registry.yaml")
    assert out.exit_code == 0
    assert out.stdout == ""
    assert out.stderr == (
        f"note: the store sqlite:///{checkout['store']} holds no cells of registry.yaml: it was filled from "
        "quickstart.yaml (--registry quickstart.yaml)\n"
    )


def test_the_same_registry_given_by_path_or_by_content_shows_the_board(checkout, tmp_path) -> None:
    copy = tmp_path / "copy.yaml"
    shutil.copy(checkout["root"] / "quickstart.yaml", copy)
    for given in ("quickstart.yaml", str(copy)):
        out = cli("show", "--format", "board", "--registry", given)
        assert out.exit_code == 0 and out.stderr == "", out.output
        assert "random" in out.stdout


def test_a_registry_given_by_the_environment_beats_the_record(checkout, monkeypatch) -> None:
    monkeypatch.setenv("VLC_HARNESS_REGISTRY", "registry.yaml")
    out = cli("list", "models")
    assert out.stderr == "" and out.stdout.split()[0] == "published-model"


def test_without_a_record_registry_yaml_else_the_built_in_types(checkout, tmp_path, monkeypatch) -> None:
    absent = tmp_path / "nothing-here.sqlite"
    monkeypatch.setenv("VLC_HARNESS_STORE", f"sqlite:///{absent}")
    out = cli("list", "models")
    assert out.stderr == WORKING_DIR and out.stdout.split()[0] == "published-model"
    assert not absent.exists()  # a command that only takes its defaults from a store creates none
    monkeypatch.chdir(tmp_path)
    types = cli("list", "models")
    assert types.stderr == BUILT_IN and all(line.startswith("(type only)") for line in types.stdout.splitlines())


def test_a_recorded_registry_that_is_gone_is_said(checkout, tmp_path, monkeypatch) -> None:
    gone = tmp_path / "gone.yaml"
    gone.write_text(QUICKSTART)
    store = tmp_path / "store.sqlite"
    run = cli("run", "--all", "--registry", str(gone), "--store", f"sqlite:///{store}", "--no-progress")
    assert run.exit_code == 0, run.output
    gone.unlink()
    monkeypatch.setenv("VLC_HARNESS_STORE", f"sqlite:///{store}")
    out = cli("list", "models")
    assert out.stderr == f"note: the store's latest run read {gone}, which is not here; " + WORKING_DIR[len("note: ") :]
    assert out.stdout.split()[0] == "published-model"


def test_a_store_of_inline_specs_only_is_said_for_a_registry_without_its_entries(checkout, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./registry.yaml: the run reads no registry
    store = tmp_path / "store.sqlite"
    run = cli("run", "-m", "random:seed=3", "-b", SHAPES, "--store", f"sqlite:///{store}", "--no-progress")
    assert run.exit_code == 0, run.output
    published = str(checkout["root"] / "registry.yaml")
    out = cli("show", "--format", "board", "--store", f"sqlite:///{store}", "--registry", published)
    assert out.stdout == ""
    assert out.stderr == (
        f"note: the store sqlite:///{store} holds no cells of {published}'s entries "
        "(its cells come from inline specs or another registry)\n"
    )
    board = cli("show", "--format", "board", "--store", f"sqlite:///{store}")  # no registry: every stored cell
    assert board.stderr == BUILT_IN and "random:seed=3" in board.stdout
    monkeypatch.chdir(checkout["root"])  # ./registry.yaml taken by default gives way to every stored cell
    fallback = cli("show", "--format", "board", "--store", f"sqlite:///{store}")
    assert fallback.stderr == WORKING_DIR + (
        f"note: the store sqlite:///{store} holds no cells of registry.yaml's entries "
        "(its cells come from inline specs or another registry); showing every stored cell\n"
    )
    assert fallback.stdout == board.stdout


def test_a_store_filled_from_registry_yaml_follows_it_and_says_so(checkout, tmp_path, monkeypatch) -> None:
    store = tmp_path / "store.sqlite"
    run = cli("run", "--all", "--registry", "registry.yaml", "--store", f"sqlite:///{store}", "--no-progress")
    assert run.exit_code != 2, run.output  # SugarCrepe's data is absent: its cells are unavailable, yet stored
    monkeypatch.setenv("VLC_HARNESS_STORE", f"sqlite:///{store}")
    out = cli("list", "models")
    assert out.stderr == "note: registry: registry.yaml (what the store's latest run read; --registry overrides)\n"
    assert out.stdout.split()[0] == "published-model"


def test_run_and_plan_follow_the_same_rule(checkout) -> None:
    """The README's next step after the quickstart, ``run --all --limit 1`` and ``plan --all``, run the
    quickstart grid the store was filled from and say so, not the published ./registry.yaml."""
    plan = cli("plan", "--all", "--format", "json")
    assert plan.exit_code == 0, plan.output
    assert plan.stderr == FOLLOWED
    assert {c["model"] for c in json.loads(plan.stdout)["cells"]} == {"random"}
    run = cli("run", "--all", "--limit", "1", "--no-progress")
    assert run.exit_code == 0, run.output
    assert run.stderr == FOLLOWED and "published-model" not in run.stdout and "random x tiny-shapes" in run.stdout
