"""A grid with one malformed benchmark (issue 38): its cells fail with one sentence naming the file, the
record and the field; every other cell of the grid runs; nothing stored is lost; no traceback reaches the
terminal unless ``vlc-harness --debug`` asks for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlc_harness.cli import main

SC = "sugarcrepe:version=custom"
SHAPES = "shapes:n_scenes=6"
MODELS = ("random", "random:seed=3")


def grid(vlc_run, root: Path, *extra: str):  # noqa: ANN001, ANN201
    return vlc_run(*extra, "-m", MODELS[0], "-m", MODELS[1], "-b", SC, "-b", SHAPES, data_root=root)


def int_caption(root: Path) -> tuple[Path, str]:
    """Make the first case of swap_obj.json's caption the number 7; the sentence it must fail with."""
    path = root / "sugarcrepe" / "swap_obj.json"
    records = json.loads(path.read_text())
    records["0"]["caption"] = 7
    path.write_text(json.dumps(records))
    return path, f"{path}, case '0', field 'caption': expected a string, found the number 7."


def statuses(vlc_run) -> dict[tuple[str, str], tuple[str, str | None, str | None]]:  # noqa: ANN001
    return {(c.model_id, c.benchmark_id): (c.status, c.reason_code, c.error) for c in vlc_run.store().latest_cells()}


def test_a_malformed_benchmark_fails_its_cells_alone(vlc_run, sample_root):
    _, sentence = int_caption(sample_root)
    out = grid(vlc_run, sample_root)
    assert out.exit_code == 1, out.output  # a cell failed
    cells = statuses(vlc_run)
    for model in MODELS:
        assert cells[(model, SC)] == ("failed", "input_malformed", sentence)
        assert cells[(model, SHAPES)][0] == "ok"
    assert "Traceback" not in out.stderr and "Traceback" not in out.stdout
    assert f"failed      random, random:seed=3 x {SC}: input file malformed ({sentence})" in out.stdout


def test_nothing_stored_is_lost_and_the_repaired_file_reuses_it(vlc_run, sample_root):
    assert grid(vlc_run, sample_root).exit_code == 0
    store = vlc_run.store()
    good = {(c.model_id, c.benchmark_id): c for c in store.latest_cells()}
    n_scores = store.stats()["tables"]["scores"]
    original = (sample_root / "sugarcrepe" / "swap_obj.json").read_bytes()

    path, sentence = int_caption(sample_root)
    out = grid(vlc_run, sample_root)
    assert out.exit_code == 4, out.output  # a cell that had a number is now failed (the exit-code table's "lost")
    cells = statuses(vlc_run)
    assert all(cells[(m, SC)] == ("failed", "input_malformed", sentence) for m in MODELS)
    assert all(cells[(m, SHAPES)][0] == "ok" for m in MODELS) and out.stdout.count("[stored]") == 2
    store = vlc_run.store()
    assert store.stats()["tables"]["scores"] == n_scores
    for model in MODELS:  # the earlier good cells are still stored, outcomes and all
        kept = {c.id for c in store.model_cells(model) if c.status == "ok" and c.benchmark_id == SC}
        assert good[(model, SC)].id in kept
        assert len(list(store.outcomes(good[(model, SC)].id))) == good[(model, SC)].n_instances

    path.write_bytes(original)
    repaired = grid(vlc_run, sample_root)
    assert repaired.exit_code == 0, repaired.output
    assert repaired.stdout.count("[stored]") == 4  # every cell reused: nothing had to be computed again
    assert {k: v[0] for k, v in statuses(vlc_run).items()} == dict.fromkeys(good, "ok")


def test_debug_shows_the_traceback_that_is_otherwise_one_line(vlc_cli, vlc_run, sample_root, capsys):
    int_caption(sample_root)
    args = ("run", "-m", "random", "-b", SC, "--store", vlc_run.store_url, "--data-root", str(sample_root))
    plain = vlc_cli(*args, "--no-progress")
    assert "Traceback" not in plain.stderr
    debug = vlc_cli("--debug", *args, "--no-progress")
    assert debug.exit_code == plain.exit_code == 3  # its one cell failed: nothing computed
    assert "Traceback (most recent call last)" in debug.stderr and "vlc_harness.errors.InputError" in debug.stderr
    assert "Traceback" not in vlc_cli(*args, "--no-progress").stderr  # --debug lasted one command

    for argv, traced in ((["instances", "-b", SC], False), (["--debug", "instances", "-b", SC], True)):
        with pytest.raises(SystemExit) as info:
            main([*argv, "--data-root", str(sample_root)])
        err = capsys.readouterr().err
        assert info.value.code == 1 and "Error: " in err and "swap_obj.json, case '0', field 'caption'" in err
        assert ("Traceback" in err) is traced, err


class RawLoader:
    """Registers a SugarCrepe that reads its files without checking them, as a third party's loader might."""

    from vlc_harness import hookimpl

    @hookimpl
    def register_benchmarks(self, register):  # noqa: ANN001, ANN201
        from vlc_harness.types import ImageSource, Instance
        from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe

        class UncheckedSugarCrepe(SugarCrepe):
            """SugarCrepe through ``json.loads``, no schema."""

            type_name = "unchecked_sugarcrepe"

            def load_instances(self):  # noqa: ANN201
                source, images, out = self.data_source(), self.path(self.params.images_dir), []
                for subset in source.files:
                    for key, rec in json.loads(source.file(subset).read_text()).items():
                        texts = (rec["caption"], rec["negative_caption"])
                        image = ImageSource(images / rec["filename"])
                        out.append(Instance(f"{subset}/{key}", subset, (image,), texts, gold={"positive": 0}))
                return out

        register(UncheckedSugarCrepe)


def test_a_loader_that_lets_an_int_through_fails_its_own_cells(vlc_run, vlc_registered, sample_root):
    int_caption(sample_root)
    with vlc_registered(RawLoader()):
        out = vlc_run("-m", "random", "-b", "unchecked_sugarcrepe:version=custom", "-b", SHAPES, data_root=sample_root)
    assert out.exit_code == 1, out.output
    cells = statuses(vlc_run)
    status, code, error = cells[("random", "unchecked_sugarcrepe:version=custom")]
    assert (status, code) == ("failed", "benchmark_error")
    assert error.startswith(
        "benchmark unchecked_sugarcrepe:version=custom instance 'swap_obj/0' has texts that are not all strings: (7, "
    )
    assert cells[("random", SHAPES)][0] == "ok" and "Traceback" not in out.output
