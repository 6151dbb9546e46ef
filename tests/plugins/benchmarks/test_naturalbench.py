"""NaturalBench: the reference's answer parsing and scores, the data checks, and runs of answering
models (a fake chat server on 127.0.0.1, a tiny random-weight LLaVA) on a generated export."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import shared_data_dir
from tests.plugins.benchmarks.hf_standins import StandInSplit, stand_in_datasets
from vlc_harness.choices import AnsweredQuestion, InstanceAnswers, first_option_mentioned
from vlc_harness.errors import DataUnavailable, InputError
from vlc_harness.store import open_store
from vlc_harness_builtins.benchmarks.naturalbench import GROUPS, HF_REVISION, ROWS, NaturalBench, NaturalBenchParams
from vlc_harness_builtins.testing.data_naturalbench import write_example

KEY_ENV = "VLC_API_KEY_NATURALBENCH"


def bench(root: Path, version: str = "custom") -> NaturalBench:
    return NaturalBench(NaturalBenchParams(version=version), root)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write_example(tmp_path / "data", 4)
    return tmp_path / "data"


@pytest.mark.parametrize(
    ("reply", "options", "expected"),
    [
        ("Yes", ("Yes", "No"), 0),
        ("no.", ("Yes", "No"), 1),
        ("No, but yes if you squint", ("Yes", "No"), 1),  # the first mention wins
        ("It is noon; nobody knows", ("Yes", "No"), None),  # whole words only
        ("I cannot tell.", ("Yes", "No"), None),  # unparseable: wrong
        ("The answer is B", ("A", "B"), 1),
        ("Answer: b", ("A", "B"), 1),  # case-insensitive, as the reference's re.IGNORECASE
        ("a cat, so B", ("A", "B"), 0),  # ... which makes the article "a" an A, as in the reference
    ],
)
def test_replies_are_read_as_the_reference_extract_answer_reads_them(reply, options, expected):
    assert first_option_mentioned(reply, options) == expected


def test_export_reads_into_groups_with_four_questions_in_the_reference_order(root):
    b = bench(root)
    b.check_data()
    instances = b.load_instances()
    assert [i.id for i in instances] == ["yes_no/0", "multiple_choice/1", "yes_no/2", "multiple_choice/3"]
    first = instances[0]
    assert first.texts[0] == "Is the ball in scene 0 red?Please answer Yes or No."  # no space, as the reference
    asked = [(q.order, q.images, q.asked(first), q.candidates(first), q.correct) for q in b.questions(first)]
    assert asked == [
        (0, (0,), first.texts[0], ["Yes", "No"], 0),  # q0_i0: Yes
        (1, (1,), first.texts[0], ["Yes", "No"], 1),  # q0_i1: No
        (2, (0,), first.texts[1], ["Yes", "No"], 1),  # q1_i0: No
        (3, (1,), first.texts[1], ["Yes", "No"], 0),  # q1_i1: Yes
    ]
    assert [q.candidates(instances[1]) for q in b.questions(instances[1])][0] == ["A", "B"]
    assert b.data_version.startswith("custom-")


def _rewrite(root: Path, drop: tuple[str, ...] = (), **changes) -> None:
    path = root / "naturalbench" / ROWS
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0] = {k: v for k, v in rows[0].items() if k not in drop} | changes
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_gold_that_departs_from_the_reference_layout_is_refused(root):
    _rewrite(root, Image_0_Question_1="Yes")
    with pytest.raises(InputError, match="line 1, .*expected the reference's layout of gold answers"):
        bench(root).check_data()


def test_both_spellings_of_the_question_type_are_read(root):
    _rewrite(root, ("Question_Type",), **{"Question Type": "yes or no", "Image_0_Question_0": "yes"})
    first = bench(root).load_instances()[0]
    assert first.category == "yes_no" and first.gold["answers"][0] == "Yes"
    _rewrite(root, **{"Question Type": "open"})
    with pytest.raises(InputError, match="field 'Question Type': .*unknown question type 'open'"):
        bench(root).check_data()


def test_the_pinned_version_wants_all_groups(root):
    with pytest.raises(DataUnavailable, match=f"has 4 groups, expected {GROUPS}"):
        bench(root, version="hf-b6a84a1").check_data()
    with pytest.raises(DataUnavailable, match="data fetch -b naturalbench"):
        bench(root.parent / "empty", version="hf-b6a84a1").check_data()


def _reference_scores(raw: list[list[int]]) -> dict[str, float]:
    """The reference's get_scores restated: raw answers per group in q0_i0, q0_i1, q1_i0, q1_i1
    order, 1 for Yes/A, 0 for No/B, -1 unparseable; compared with the fixed layout 1, 0, 0, 1."""
    n = len(raw)
    q = sum((r[0] == 1 and r[1] == 0) + (r[3] == 1 and r[2] == 0) for r in raw)
    i = sum((r[0] == 1 and r[2] == 0) + (r[3] == 1 and r[1] == 0) for r in raw)
    a = sum((r[0] == 1) + (r[1] == 0) + (r[2] == 0) + (r[3] == 1) for r in raw)
    g = sum((r[0] == 1 and r[1] == 0) and (r[3] == 1 and r[2] == 0) and (r[0] == 1 and r[2] == 0) for r in raw)
    return {"q_acc": q / (2 * n), "i_acc": i / (2 * n), "acc": a / (4 * n), "g_acc": g / n}


def test_scores_equal_the_reference_get_scores(root):
    b = bench(root)
    instances = b.load_instances()
    raw = [[1, 0, 0, 1], [1, 1, 0, 1], [-1, 0, 1, 1], [0, 1, 1, 0]]  # right; q0 wrong on i1; ...; all wrong
    results = []
    for inst, answers in zip(instances, raw):
        questions = b.questions(inst)
        picks = [None if r == -1 else 1 - r for r in answers]  # 1 (Yes/A) is option 0
        results.append(InstanceAnswers(inst, [AnsweredQuestion(q, picks[q.order]) for q in questions]))
    values = {(v.metric, v.category): v.value for v in b.compute_choices(results)}
    for metric, expected in _reference_scores(raw).items():
        assert values[(metric, "all")] == expected, metric
    assert values[("g_acc", "all")] == 0.25 and values[("coverage", "all")] == 15 / 16
    assert values[("g_acc", "source: generated")] == 0.25


def test_fetch_exports_the_train_split(tmp_path, monkeypatch, root):
    png = (root / "naturalbench" / "images" / "0_0.png").read_bytes()
    rows = [json.loads(line) for line in (root / "naturalbench" / ROWS).read_text().splitlines()]
    hf_rows = [r | {"Image_0": {"bytes": png, "path": None}, "Image_1": {"bytes": png, "path": None}} for r in rows]
    calls: list = []
    datasets = stand_in_datasets(
        load_dataset=lambda name, split, revision: calls.append((name, split, revision)) or StandInSplit(hf_rows)
    )
    monkeypatch.setitem(sys.modules, "datasets", datasets)
    target = tmp_path / "fetched"
    lines = bench(target, version="hf-b6a84a1").fetch(progress=False)
    assert calls == [("BaiqiL/NaturalBench", "train", HF_REVISION)] and "4 groups" in lines[0]
    assert (target / "naturalbench" / ROWS).read_text() == (root / "naturalbench" / ROWS).read_text()
    assert (target / "naturalbench" / "images" / "3_1.png").read_bytes() == png
    assert bench(target, version="hf-b6a84a1").fetch(progress=False)[0].startswith("present")


def test_each_model_takes_only_the_questions_it_answers(root):
    from vlc_harness.run.protocols import protocol_for
    from vlc_harness_builtins.models.openai_chat import OpenAIChoice
    from vlc_harness_builtins.models.random_baseline import RandomBaseline
    from vlc_harness_builtins.models.vqa_likelihood import VqaLikelihood

    b = bench(root)
    instances = b.load_instances()
    assert protocol_for(VqaLikelihood).skip_reason("m", "naturalbench", b, instances) is None
    assert protocol_for(OpenAIChoice).skip_reason("m", "naturalbench", b, instances) is None
    assert "asks questions" in protocol_for(RandomBaseline).skip_reason("m", "naturalbench", b, instances)

    class CaptionChoiceOnly(OpenAIChoice):
        question_kinds = ("i2t",)

    reason = protocol_for(CaptionChoiceOnly).skip_reason("m", "naturalbench", b, instances)
    assert reason == "m answers i2t questions; naturalbench asks vqa"


# -- runs --------------------------------------------------------------------------------------------
def _registry(tmp_path: Path, models: list[dict]) -> Path:
    path = tmp_path / "registry.yaml"
    benchmarks = [{"id": "naturalbench", "type": "naturalbench", "params": {"version": "custom"}}]
    path.write_text(json.dumps({"models": models, "benchmarks": benchmarks}))
    return path


def test_a_model_that_ignores_the_image_gets_no_question_right(vlc_run, tmp_path, root, monkeypatch):
    from vlc_harness.testing import require

    require("openai")
    from vlc_harness.testing.fake_openai import FakeOpenAI, completion, request_text

    def respond(body):
        text = request_text(body)
        if "scene 2 blue" in text:
            return completion("I cannot see a ball.")  # unparseable: wrong, and not asked again
        return completion("Yes, it is." if "Yes or No" in text else "A")

    monkeypatch.setenv(KEY_ENV, "sk-test")
    monkeypatch.setenv(f"{KEY_ENV}_HOSTS", "127.0.0.1")  # the fake server's host, bound as a workflow would
    with FakeOpenAI(api_key="sk-test") as server:
        server.responder = respond
        entry = {
            "id": "blind-yes",
            "type": "openai_choice",
            "params": {"model": "fake-vision", "base_url": server.url, "image_max_side": 32},
            "run": {"api_key_env": KEY_ENV, "concurrency": 2},
        }
        random = {"id": "random", "type": "random", "params": {"seed": 1}}
        registry = _registry(tmp_path, [entry, random])
        ran = vlc_run("--all", "--registry", str(registry), data_root=root)
        assert ran.exit_code == 0, ran.output
        assert len(server.requests) == 16  # 4 groups x 2 questions x 2 images
        parts = server.requests[0].body["messages"][0]["content"]
        assert [p["type"] for p in parts] == ["image_url", "text"]  # the image, then the question
        cells = {c.model_id: c for c in open_store(vlc_run.store_url).latest_cells()}
        cell = cells["blind-yes"]
        assert cell.status == "ok", cell.error
        m = {(x["metric"], x["category"]): x["value"] for x in cell.metrics}
        # always Yes/A: right on q0_i0 and q1_i1 only, so never a question or an image, but half the answers
        assert m[("q_acc", "all")] == 0.0 and m[("i_acc", "all")] == 0.0 and m[("g_acc", "all")] == 0.0
        assert m[("acc", "all")] == pytest.approx(7 / 16)  # the refusal lost q1_i1 of group 2
        assert m[("coverage", "all")] == pytest.approx(14 / 16)
        assert cells["random"].status == "skipped" and "asks questions" in cells["random"].error

        server.reset()
        again = vlc_run("--all", "--registry", str(registry), data_root=root)
        assert again.exit_code == 0 and server.requests == []  # answers, the refusals included, are stored

        out = tmp_path / "site"
        assert vlc_run.cli("render", "--out", str(out), "--registry", str(registry)).exit_code == 0
        page = (out / "benchmarks" / "naturalbench.html").read_text()
        assert "NaturalBench" in page and "g_acc" in page


def test_likelihood_answers_from_a_tiny_vlm(vlc_run, tmp_path, root):
    from vlc_harness.testing import require

    require("transformers")
    from vlc_harness_builtins.testing.tiny_generative import save_tiny_llava

    checkpoint = save_tiny_llava(tmp_path / "tiny_llava")
    relative = f"./{Path(checkpoint).relative_to(tmp_path)}"  # a registry names files inside its own folder
    registry = _registry(tmp_path, [{"id": "tiny-vqa", "type": "vqa_likelihood", "params": {"checkpoint": relative}}])
    ran = vlc_run("--all", "--registry", str(registry), data_root=root)
    assert ran.exit_code == 0, ran.output
    store = open_store(vlc_run.store_url)
    (cell,) = store.latest_cells()
    assert cell.status == "ok", cell.error
    m = {(x["metric"], x["category"]): x["value"] for x in cell.metrics}
    assert m[("coverage", "all")] == 1.0  # likelihoods always give an answer (no exact ties here)
    answers = [a for o in store.outcomes(cell.id) for a in o.answers]
    assert len(answers) == 16 and all(a["choice"] in (0, 1) for a in answers)
    right = sum(a["choice"] == a["correct"] for a in answers)
    assert m[("acc", "all")] == right / 16


@pytest.mark.parametrize("model_type", ["qwen3_vl", "internvl", "llava_onevision"])
def test_likelihood_answers_through_each_familys_own_scorer(tmp_path, model_type):
    from vlc_harness.testing import require

    require("transformers")
    from vlc_harness.models import ChoiceQuestion
    from vlc_harness.params import build
    from vlc_harness.testing import standin_image
    from vlc_harness_builtins.models.vqa_likelihood import VqaLikelihood, family_scorers
    from vlc_harness_builtins.testing.tiny_vqascore import (
        save_tiny_internvl,
        save_tiny_llava_onevision,
        save_tiny_qwen_vl,
    )

    builders = {
        "qwen3_vl": lambda folder: save_tiny_qwen_vl(folder, "qwen3_vl"),
        "internvl": save_tiny_internvl,
        "llava_onevision": save_tiny_llava_onevision,
    }
    checkpoint = builders[model_type](tmp_path / model_type)
    model = VqaLikelihood(build(VqaLikelihood.Params, {"checkpoint": str(checkpoint)}), build(VqaLikelihood.Run, {}))
    assert model.identify().protocol == f"choose/vqa-likelihood/{model_type}"
    model.load("cpu")
    assert type(model._scorer) is family_scorers()[model_type]
    image = model.preprocess(standin_image("q.jpg"))
    asked = "Is the ball red?Please answer Yes or No."
    answers = model.choose([ChoiceQuestion("vqa", [image], ["Yes", "No"], question=asked)] * 2)
    assert answers[0] == answers[1] and answers[0].choice in (0, 1)  # deterministic, and always an answer here
    assert answers[0].raw.startswith("Yes: ") and "; No: " in answers[0].raw


def test_real_export_has_1900_groups():
    shared = shared_data_dir()
    if shared is None or not (shared / "naturalbench" / ROWS).is_file():
        pytest.skip("NaturalBench's export is not in ../shared/data (run `vlc-harness data fetch -b naturalbench`)")
    b = bench(shared, version="hf-b6a84a1")
    b.check_data()
    assert len(b.load_instances()) == GROUPS
