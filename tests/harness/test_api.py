from __future__ import annotations

from dataclasses import dataclass

import pytest

from vlc_harness import evaluate
from vlc_harness.models import Identity, RunOptions, TextOnlyModel


def test_evaluate_matches_the_cli(vlc_run, sample_root):
    url = vlc_run.store_url
    res = evaluate("random:seed=2", ["sugarcrepe:version=custom"], store=url, data_root=sample_root)
    cell = res.cell("sugarcrepe:version=custom")
    assert cell.status == "ok"
    out = vlc_run.cli("show", "--format", "json")
    assert '"i2t_accuracy_macro"' in out.output
    again = evaluate(
        {"type": "random", "params": {"seed": 2}, "id": "random:seed=2"},
        [{"type": "sugarcrepe", "params": {"version": "custom"}, "id": "sugarcrepe:version=custom"}],
        store=url,
        data_root=sample_root,
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
