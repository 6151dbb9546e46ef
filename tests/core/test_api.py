from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from vlc_harness import CellUnusable, evaluate
from vlc_harness.models import Identity, RunOptions, TextOnlyModel


def test_evaluate_matches_the_cli(vlc_run, sample_root):
    url = vlc_run.store_url
    res = evaluate(
        "random:seed=2", ["sugarcrepe:version=custom"], store=url, data_root=sample_root, executor="inprocess"
    )
    cell = res.cell("sugarcrepe:version=custom")
    assert cell.status == "ok"
    out = vlc_run.cli("show", "--format", "json")
    assert '"i2t_accuracy_macro"' in out.output
    again = evaluate(
        {"type": "random", "params": {"seed": 2}, "id": "random:seed=2"},
        [{"type": "sugarcrepe", "params": {"version": "custom"}, "id": "sugarcrepe:version=custom"}],
        store=url,
        data_root=sample_root,
        executor="inprocess",
    )
    assert again.value("sugarcrepe:version=custom", "i2t_accuracy_macro") == res.value(
        "sugarcrepe:version=custom", "i2t_accuracy_macro"
    )
    with pytest.raises(KeyError):
        res.value("sugarcrepe:version=custom", "nope")


@dataclass(frozen=True)
class StepParams:
    step: int = 0


class LiveModel(TextOnlyModel):
    """A model object held by a training loop: scores depend on the current step."""

    type_name = "live"
    Params = StepParams

    def identify(self):
        return Identity(weights=f"step-{self.params.step}", dtype="fp64", protocol="score_texts/len")

    def score_texts(self, texts):
        return [float(len(t) * (1 if self.params.step % 2 else -1)) for t in texts]


def test_evaluate_a_live_model_in_process(sample_root):
    up = evaluate(LiveModel(StepParams(1), RunOptions()), ["sugarcrepe:version=custom"], data_root=sample_root)
    down = evaluate(LiveModel(StepParams(2), RunOptions()), ["sugarcrepe:version=custom"], data_root=sample_root)
    a = up.value("sugarcrepe:version=custom", "i2t_accuracy_micro")
    b = down.value("sugarcrepe:version=custom", "i2t_accuracy_micro")
    (micro,) = [m for m in up.cell("sugarcrepe:version=custom").metrics if m["metric"] == "i2t_accuracy_micro"]
    ties = micro["ties"]
    assert a + b + ties / 28 == pytest.approx(1.0)  # opposite signs: wins swap, ties stay ties


README = Path(__file__).resolve().parents[2] / "README.md"
BENCH = "sugarcrepe:version=custom"


def readme_example() -> str:
    text = README.read_text()
    start = text.index("```python\nfrom vlc_harness import evaluate")
    return text[start + len("```python\n") : text.index("```", start + 10)]


def run_script(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.py"
    script.write_text('print("script body runs")\n' + code)
    env = dict(os.environ, VLC_HARNESS_STORE=f"sqlite:///{tmp_path / 'store.sqlite'}")
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("script body runs") == 1  # nothing ran the script again
    return out


@pytest.mark.subprocess
def test_the_readme_example_runs_as_a_plain_script_without_a_main_guard(tmp_path, sample_root):
    code = readme_example()
    assert "__main__" not in code
    for old, new in [
        ('"open_clip:arch=ViT-B-32,pretrained=/ckpt/epoch_3.pt"', '"random:seed=1"'),
        ('"sugarcrepe"', repr(BENCH)),
        ('"/data"', repr(str(sample_root))),
    ]:
        assert old in code, f"README's example changed: {old} is gone"
        code = code.replace(old, new)
    lines = run_script(tmp_path, code).stdout.splitlines()
    assert lines[1] == "ok None"
    assert 0.0 <= float(lines[2]) <= 1.0


@pytest.mark.subprocess
def test_a_model_class_defined_in_the_script_runs_in_this_process(tmp_path, sample_root):
    code = f"""
import os
import sys
from dataclasses import dataclass

from vlc_harness import Identity, PairScoringModel, evaluate, hookimpl
from vlc_harness.plugins import get_plugins


@dataclass(frozen=True)
class Params:
    sign: int = 1


class Length(PairScoringModel):
    type_name = "script_length"
    needs_pixels = False
    Params = Params

    def identify(self):
        return Identity("none", "fp64", "score_pairs/length")

    def score_pairs(self, groups):
        print("scored in", os.getpid())
        return [[float(self.params.sign * len(t)) for t in g.texts] for g in groups]


@hookimpl
def register_models(register):
    register(Length)


plugins = get_plugins()
plugins.pm.register(sys.modules[__name__], name="script")
plugins.rebuild()
print("main", os.getpid())
res = evaluate("script_length:sign=-1", [{BENCH!r}], data_root={str(sample_root)!r})
print(res.status({BENCH!r}), res.error({BENCH!r}))
"""
    out = run_script(tmp_path, code).stdout.splitlines()
    main = out[1].split()[1]
    assert {line.split()[-1] for line in out if line.startswith("scored in")} == {main}
    assert out[-1] == "ok None"


def test_results_give_each_cells_status_and_error(tmp_path, sample_root, faulty):
    store = f"sqlite:///{tmp_path / 's.sqlite'}"
    fine = evaluate("random:seed=1", [BENCH], store=store, data_root=sample_root, limit=2, executor="inprocess")
    assert fine.status(BENCH) == "partial" and "limit" not in (fine.error(BENCH) or "")
    assert 0 <= fine.value(BENCH, "i2t_accuracy_macro") <= 1  # a partial cell has values
    with pytest.raises(KeyError, match="available: .*i2t_accuracy_macro"):
        fine.value(BENCH, "no_such_metric")
    with pytest.raises(KeyError, match="no category 'nowhere'"):
        fine.value(BENCH, "i2t_accuracy_macro", category="nowhere")
    with pytest.raises(KeyError, match=f"cells: {BENCH}"):
        fine.cell("winoground")

    missing = evaluate("random:seed=1", [BENCH], store=store, data_root=tmp_path / "empty", executor="inprocess")
    assert missing.status(BENCH) == "unavailable" and "no subset JSON" in missing.error(BENCH)
    with pytest.raises(CellUnusable, match=f"random:seed=1 on {BENCH}: the cell is unavailable: .*no subset JSON"):
        missing.value(BENCH, "i2t_accuracy_macro")

    broken = evaluate("test_raises", [BENCH], store=store, data_root=sample_root, executor="inprocess")
    assert broken.status(BENCH) == "failed"
    with pytest.raises(CellUnusable) as info:
        broken.value(BENCH, "i2t_accuracy_macro")
    assert not isinstance(info.value, KeyError)
    assert (info.value.model_id, info.value.status) == ("test_raises", "failed")
    assert "the plugin's own bug" in str(info.value)


def test_a_benchmark_type_given_to_evaluate_selects_the_registry_entry(tmp_path, sample_root):
    reg = tmp_path / "registry.yaml"
    reg.write_text("benchmarks:\n  - id: sc\n    type: sugarcrepe\n    params: {version: custom}\n")
    res = evaluate(
        "random:seed=1", [BENCH], registry=[reg], data_root=sample_root, store="sqlite://", executor="inprocess"
    )
    assert [c.benchmark_id for c in res.cells] == ["sc"]
    assert res.value(BENCH, "i2t_accuracy_macro") == res.value("sc", "i2t_accuracy_macro")


def test_a_worker_refuses_a_class_from_the_callers_script_instead_of_running_it_again():
    from vlc_harness.errors import PluginError
    from vlc_harness.plugins import resolve_locator

    with pytest.raises(PluginError, match="defined in the script that started the run .*/tmp/train.py"):
        resolve_locator({"module": "__main__", "qualname": "Length", "file": "/tmp/train.py"})
