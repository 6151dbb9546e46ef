"""The choose protocol: answers stored as answers, both candidate orders, abstentions, coverage."""

from __future__ import annotations

import json

from vlc_harness.choices import i2t_questions, rotations
from vlc_harness.store import open_store
from vlc_harness.types import ImageSource, Instance


def test_rotations_and_questions():
    assert rotations(0, [1]) == [((0, 1), 0), ((1, 0), 1)]
    assert rotations(2, [0, 1]) == [((2, 0, 1), 0), ((1, 2, 0), 1), ((0, 1, 2), 2)]
    inst = Instance("a/1", "a", (ImageSource("x.jpg"),), ("pos", "neg"), {"positive": 0})
    qs = i2t_questions(inst, 0, 0)
    assert [(q.texts, q.correct, q.order) for q in qs] == [((0, 1), 0, 0), ((1, 0), 1, 1)]


def test_position_bias_abstentions_and_failed_requests(vlc_run, sample_root, faulty, monkeypatch):
    url = vlc_run.store_url
    args = ["-m", "test_first", "-b", "sugarcrepe:version=custom"]
    first = vlc_run(*args, data_root=sample_root)
    assert first.exit_code == 0, first.output
    (cell,) = open_store(url).latest_cells()
    assert cell.status == "partial" and "requests failed" in cell.error and "HTTP 503" in cell.error
    store = open_store(url)
    n_answers = store.stats()["tables"]["answers"]
    assert n_answers > 0

    monkeypatch.setenv("TEST_NETWORK_UP", "1")
    second = vlc_run(*args, data_root=sample_root)
    assert second.exit_code == 0, second.output
    (cell,) = open_store(url).latest_cells()
    assert cell.status == "ok" and cell.complete
    # only the failed requests were asked again; stored answers were reused
    assert open_store(url).stats()["tables"]["answers"] == 28 * 2

    texts = {}
    for subset in ("swap_obj", "add_att", "replace_rel", "add_obj", "replace_obj", "replace_att", "swap_att"):
        for key, rec in json.loads((sample_root / "sugarcrepe" / f"{subset}.json").read_text()).items():
            texts[f"{subset}/{key}"] = (rec["caption"] + " " + rec["negative_caption"]).lower()
    refusals = sum(1 for t in texts.values() if "dog" in t)
    assert refusals > 0
    m = {(x["metric"], x["category"]): x for x in cell.metrics}
    # always answering (1): right when the positive is shown first, wrong when second
    answered = 1 - refusals / 28
    assert m[("coverage", "all")]["value"] == answered
    assert m[("i2t_accuracy_order0", "swap_att")]["value"] > 0 and m[("i2t_accuracy_order1", "swap_att")]["value"] == 0
    micro = m[("i2t_accuracy_micro", "all")]
    assert abs(micro["value"] - answered / 2) < 1e-9  # the mean of the two orders: position bias cancels
    assert micro["tie_rule"].startswith("none: answers")
    assert all(x["value"] == 0.5 for k, x in m.items() if k[0] == "i2t_accuracy_answered")
    outcomes = list(open_store(url).outcomes(cell.id))
    assert outcomes[0].answers[0]["order"] == 0 and outcomes[0].scores is None


class NoQuestions:
    """Registers SugarCrepe without its multiple-choice form."""

    from vlc_harness import hookimpl

    @hookimpl
    def register_benchmarks(self, register):
        from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe

        class SugarCrepeScoresOnly(SugarCrepe):
            """SugarCrepe with no multiple-choice form."""

            type_name = "sugarcrepe_scores_only"

            def questions(self, instance):
                return []

        register(SugarCrepeScoresOnly)


def test_choice_models_are_skipped_where_a_benchmark_has_no_choice_form(vlc_run, sample_root, faulty, vlc_registered):
    with vlc_registered(NoQuestions()):
        out = vlc_run(
            "-m", "random", "-m", "test_first", "-b", "sugarcrepe_scores_only:version=custom", data_root=sample_root
        )
    assert out.exit_code == 0, out.output
    cells = {c.model_id: c for c in vlc_run.store().latest_cells()}
    assert cells["random"].status == "ok"
    assert cells["test_first"].status == "skipped" and "no multiple-choice form" in cells["test_first"].error
