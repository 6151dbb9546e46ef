"""The chat-completion API models against a local fake server (127.0.0.1 only, never the network)."""

from __future__ import annotations

import base64
import io
import json
import re
import time
from pathlib import Path

import pytest
from PIL import Image

from vlc_harness.fingerprint import fingerprint_content, model_fingerprint
from vlc_harness.models import ChoiceQuestion, PairGroup
from vlc_harness.params import build
from vlc_harness.stack import StackSource, model_stack
from vlc_harness.store import open_store
from vlc_harness.testing import require, standin_image
from vlc_harness.testing.fake_openai import (
    FakeOpenAI,
    Reply,
    completion,
    malformed,
    rate_limited,
    request_images,
    request_text,
    server_error,
)

require("openai")

from vlc_harness_builtins.models.openai_chat import (  # noqa: E402
    I2T_PROMPT,
    ChatRun,
    OpenAIChoice,
    OpenAILogprob,
    encode_image,
    estimate_prompt_tokens,
    parse_choice,
    redact,
    yes_probability,
)

SECRET = "sk-vlc-test-0123456789abcdefSECRETKEY"
KEY_ENV = "VLC_API_KEY_TEST"


@pytest.fixture(autouse=True)
def bound_to_this_machine(monkeypatch):
    """The test key may go to the fake server on 127.0.0.1 (any port), as a workflow would bind it."""
    monkeypatch.setenv(f"{KEY_ENV}_HOSTS", "127.0.0.1")


# -- pure helpers ----------------------------------------------------------------------------------
def test_parse_choice():
    assert parse_choice("(1)", 2) == 0
    assert parse_choice("Output (2).", 2) == 1
    assert parse_choice("The caption that best describes the image is (2)", 2) == 1
    assert parse_choice("2", 2) == 1 and parse_choice(" 1. ", 2) == 0
    assert parse_choice("Neither caption accurately describes the image.", 2) is None
    assert parse_choice("(1) and (2) are both plausible", 2) is None
    assert parse_choice("(3)", 2) is None
    assert parse_choice("", 2) is None


def test_yes_probability():
    assert yes_probability([("Yes", -0.1), ("No", -2.4)]) == pytest.approx(0.904837, abs=1e-6)
    assert yes_probability([("No", -0.2), (" yes", -1.7)]) == pytest.approx(0.182684, abs=1e-6)  # P(Yes) wins
    assert yes_probability([("Yes", -0.5), ("yes", -2.0)]) == pytest.approx(0.606531 + 0.135335, abs=1e-6)
    assert yes_probability([("No", -0.1), ("Maybe", -2.4)]) == pytest.approx(1 - 0.904837, abs=1e-6)
    assert yes_probability([("Sure", -0.1), ("I", -2.4)]) is None
    assert yes_probability([]) is None


def test_images_are_resized_to_the_longest_side_and_sent_as_data_urls():
    encoded = encode_image(standin_image("x.jpg", (640, 480)), 320, "png")
    assert (encoded.width, encoded.height) == (320, 240)
    assert encoded.url.startswith("data:image/png;base64,")
    small = encode_image(standin_image("y.jpg", (64, 48)), 512, "jpeg")
    assert (small.width, small.height) == (64, 48) and small.url.startswith("data:image/jpeg;base64,")
    part = {"type": "image_url", "_size": (320, 240)}
    assert estimate_prompt_tokens([{"role": "user", "content": [part]}], None) == 3 + 4 + 85 + 170


def test_redact():
    assert redact(f"Incorrect API key provided: {SECRET}.", SECRET) == "Incorrect API key provided: ***."
    assert SECRET[:12] not in redact(f"key {SECRET[:12]}****{SECRET[-4:]}", SECRET)
    assert redact("nothing secret here", SECRET) == "nothing secret here"


def test_model_name_base_url_and_protocol_are_fingerprinted():
    def fp(cls, **params):
        p = build(cls.Params, params)
        identity = cls(p, build(ChatRun, {})).identify()
        params_dict = json.loads(json.dumps(p.__dict__))
        stack = model_stack(cls, StackSource.installed())
        return model_fingerprint(fingerprint_content(cls.type_name, params_dict, identity, cls.scoring_version, stack))

    base = fp(OpenAIChoice, model="gpt-x")
    assert base == fp(OpenAIChoice, model="gpt-x")
    others = [
        fp(OpenAIChoice, model="gpt-y"),
        fp(OpenAIChoice, model="gpt-x", base_url="http://127.0.0.1:8000/v1"),
        fp(OpenAILogprob, model="gpt-x"),
        fp(OpenAIChoice, model="gpt-x", i2t_prompt="Pick one: (1) {c1} (2) {c2}"),
    ]
    assert len({base, *others}) == 5
    identity = OpenAIChoice(build(OpenAIChoice.Params, {"model": "gpt-x"}), build(ChatRun, {})).identify()
    assert identity.weights == "api:gpt-x@https://api.openai.com/v1" and identity.protocol.startswith("choose/")
    assert I2T_PROMPT == "Which caption best describes the image?\n(1) {c1}\n (2) {c2}\nOutput (1) or (2)."


# -- one model against the fake server -------------------------------------------------------------
@pytest.fixture
def server():
    with FakeOpenAI(api_key=SECRET) as s:
        yield s


def _model(cls, server, monkeypatch, **run):
    monkeypatch.setenv(KEY_ENV, SECRET)
    options = {"api_key_env": KEY_ENV, "concurrency": 1, "backoff_base_s": 0.2, "request_timeout_s": 5, **run}
    model = cls(build(cls.Params, {"model": "fake-vision", "base_url": server.url}), build(ChatRun, options))
    model.load("cpu")
    model.begin_job(None)
    return model


def _question(kind="i2t"):
    image = encode_image(standin_image("q.jpg"), 512, "png")
    if kind == "i2t":
        return ChoiceQuestion("i2t", [image], ["a red square", "a blue square"])
    other = encode_image(standin_image("r.jpg"), 512, "png")
    return ChoiceQuestion("t2i", [image, other], ["a red square"])


def test_backoff_on_5xx_and_retry_after_on_429(server, monkeypatch):
    model = _model(OpenAIChoice, server, monkeypatch, backoff_base_s=0.2)
    server.queue(server_error(500), server_error(503), rate_limited(retry_after=1), completion("(2)"))
    (answer,) = model.choose([_question()])
    assert answer.choice == 1 and answer.error is None
    times = [r.at for r in server.requests]
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert len(times) == 4
    assert 0.1 <= gaps[0] and 0.2 <= gaps[1]  # jittered exponential: [0.1, 0.2] then [0.2, 0.4]
    assert gaps[2] >= 1.0  # Retry-After: 1 honoured (the backoff alone would be at most 0.8)
    usage = model.take_usage()
    assert (usage.requests, usage.retries, usage.failed) == (4, 3, 0)
    assert model.take_usage() is None  # reported once
    print(f"retry gaps (s): {[round(g, 3) for g in gaps]}")


def test_retry_after_ms_and_timeouts(server, monkeypatch):
    model = _model(OpenAIChoice, server, monkeypatch, backoff_base_s=0.01, request_timeout_s=0.5)
    server.queue(rate_limited(retry_after=300, header="retry-after-ms"), Reply(delay_s=2.0), completion("(1)"))
    start = time.monotonic()
    (answer,) = model.choose([_question()])
    assert answer.choice == 0 and len(server.requests) == 3
    gap = server.requests[1].at - server.requests[0].at
    assert gap >= 0.3  # retry-after-ms: 300
    assert 0.5 <= server.requests[2].at - server.requests[1].at < 1.9  # the slow one timed out at 0.5 s
    assert time.monotonic() - start < 2.5


def test_requests_that_still_fail_are_abstentions_with_their_error(server, monkeypatch):
    model = _model(OpenAIChoice, server, monkeypatch, backoff_base_s=0.01, max_retries=2)
    server.queue(*[server_error(502)] * 3, malformed(), Reply(400, {"error": {"message": "bad image"}}))
    answers = model.choose([_question(), _question(), _question()])
    assert [a.choice for a in answers] == [None, None, None]
    assert answers[0].error == "HTTP 502 after 3 attempts (retries exhausted)"
    assert answers[1].error.startswith("malformed reply")  # not retried
    assert answers[2].error.startswith("HTTP 400")  # not retried
    assert len(server.requests) == 5
    assert model.take_usage().failed == 3


def test_a_timed_out_attempt_counts_against_the_budget(server, monkeypatch):
    model = _model(
        OpenAIChoice, server, monkeypatch, request_timeout_s=0.3, price_in_per_mtok=10, price_out_per_mtok=10
    )
    model.begin_job(0.005)  # room for one request's worst case (about $0.0033), not two
    server.queue(Reply(delay_s=1.0))
    (answer,) = model.choose([_question()])
    assert answer.error == "not sent again: a retry could exceed the --max-cost budget"
    assert len(server.requests) == 1
    usage = model.take_usage()
    assert usage.failed == 1 and 0.003 < usage.cost_usd <= 0.005  # the timed-out attempt may be billed
    assert "could exceed the budget" in usage.stopped
    (later,) = model.choose([_question()])
    assert later.error == "not sent: the --max-cost budget is spent" and len(server.requests) == 1


def test_bounded_concurrency(server, monkeypatch):
    model = _model(OpenAIChoice, server, monkeypatch, concurrency=3)
    server.responder = lambda body: Reply(200, completion("(1)").body, delay_s=0.1)
    answers = model.choose([_question() for _ in range(9)])
    assert all(a.choice == 0 for a in answers)
    assert server.max_in_flight == 3


def test_choice_request_content(server, monkeypatch):
    model = _model(OpenAIChoice, server, monkeypatch)
    server.queue(completion("(1)"), completion("I'm sorry, I can't help with that."))
    a, b = model.choose([_question("i2t"), _question("t2i")])
    i2t, t2i = (r.body for r in server.requests)
    assert request_text(i2t) == I2T_PROMPT.format(c1="a red square", c2="a blue square")
    assert i2t["temperature"] == 0 and i2t["seed"] == 0 and i2t["model"] == "fake-vision"
    assert len(request_images(i2t)) == 1 and request_images(i2t)[0].startswith("data:image/png;base64,")
    parts = t2i["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["text", "text", "image_url", "text", "image_url", "text"]
    assert "Caption: a red square" in parts[0]["text"] and parts[1]["text"] == "(1)" and parts[3]["text"] == "(2)"
    assert a.choice == 0 and b.choice is None and b.error is None and "sorry" in b.raw  # a refusal abstains


def test_logprob_scores_abstentions_and_missing_logprobs(server, monkeypatch):
    model = _model(OpenAILogprob, server, monkeypatch)
    server.queue(
        completion("Yes", top_logprobs=[("Yes", 0.8), ("No", 0.2)]),
        completion("No", top_logprobs=[("No", 0.75), ("Maybe", 0.2)]),
        completion("Sure", top_logprobs=[("Sure", 0.9), ("I", 0.05)]),
        completion("Yes"),  # a server that ignores logprobs
    )
    image = encode_image(standin_image("q.jpg"), 512, "png")
    (scores,) = model.score_pairs([PairGroup("k", image, ["a", "b", "c", "d"])])
    assert scores[0] == pytest.approx(0.8) and scores[1] == pytest.approx(0.25)
    assert scores[2].error is None and "neither Yes nor No" in scores[2].raw
    assert scores[3].error.startswith("malformed reply") and "logprobs" in scores[3].error
    body = server.requests[0].body
    assert body["logprobs"] is True and body["top_logprobs"] == 20 and body["max_tokens"] == 1
    assert request_text(body) == 'Does this figure show "a"? Please answer yes or no.'


def test_missing_key_sends_nothing(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run = build(ChatRun, {"api_key_env": "OPENAI_API_KEY"})
    model = OpenAIChoice(build(OpenAIChoice.Params, {"model": "gpt-x"}), run)  # the real base URL: never contacted
    model.load("cpu")
    model.begin_job(None)
    (answer,) = model.choose([_question()])
    assert answer.error == "not sent: the API key variable $OPENAI_API_KEY is not set"
    usage = model.take_usage()
    assert usage is None or usage.requests == 0
    model.close()


# -- whole runs through the CLI -----------------------------------------------------------------------
def _sample(sample_root: Path) -> dict[str, tuple[str, str, str]]:
    """caption -> (category, role, the instance's other caption)."""
    out = {}
    for path in sorted((sample_root / "sugarcrepe").glob("*.json")):
        for rec in json.loads(path.read_text()).values():
            out[rec["caption"]] = (path.stem, "positive", rec["negative_caption"])
            out[rec["negative_caption"]] = (path.stem, "negative", rec["caption"])
    return out


def _registry(tmp_path: Path, server: FakeOpenAI, model_type: str, **run) -> Path:
    options = {
        "api_key_env": KEY_ENV,
        "concurrency": 4,
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.05,
        "max_retries": 2,
        "request_timeout_s": 5,
        "price_in_per_mtok": 10.0,
        "price_out_per_mtok": 10.0,
        **run,
    }
    entry = {
        "id": "gpt-test",
        "type": model_type,
        "params": {"model": "fake-vision-1", "base_url": server.url, "image_max_side": 32},
        "run": options,
    }
    registry = {
        "models": [entry],
        "benchmarks": [{"id": "sugarcrepe", "type": "sugarcrepe", "params": {"version": "custom"}}],
    }
    path = tmp_path / "registry.yaml"
    path.write_text(json.dumps(registry))  # JSON is YAML
    return path


def _run(vlc_run, registry: Path, sample_root: Path, *extra: str):
    return vlc_run("--all", "--registry", str(registry), *extra, data_root=sample_root)


def _store_bytes(path: Path) -> bytes:
    """The SQLite store's file and its journal files (the file must exist: never a vacuous check)."""
    assert path.is_file()
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def _choice_responder(sample):
    """Right, except: refuses anything about a dog, and always says (1) on swap_att (position bias)."""

    def respond(body):
        lines = request_text(body).splitlines()
        first, second = lines[1].removeprefix("(1) "), lines[2].removeprefix(" (2) ")
        if "dog" in (first + second).lower():
            return completion("I cannot tell from this image.", completion_tokens=8)
        if sample[first][0] == "swap_att":
            return completion("(1)")
        return completion("(1)" if sample[first][1] == "positive" else "Output (2).")

    return respond


def test_choice_run_both_orders_cache_and_no_key_anywhere(vlc_run, tmp_path, sample_root, server, monkeypatch, capfd):
    monkeypatch.setenv(KEY_ENV, SECRET)
    sample = _sample(sample_root)
    server.responder = _choice_responder(sample)
    url = vlc_run.store_url
    registry = _registry(tmp_path, server, "openai_choice")
    first = _run(vlc_run, registry, sample_root)
    assert first.exit_code == 0, first.output
    assert len(server.requests) == 56  # 28 instances x both candidate orders
    assert all(r.authorization == f"Bearer {SECRET}" for r in server.requests)
    sent_image = request_images(server.requests[0].body)[0].split(",", 1)[1]
    assert Image.open(io.BytesIO(base64.b64decode(sent_image))).size == (32, 24)  # image_max_side 32
    (cell,) = open_store(url).latest_cells()
    assert cell.status == "ok", cell.error
    m = {(x["metric"], x["category"]): x for x in cell.metrics}
    # order 0 (positive first): all right but the 3 dog refusals; order 1: also the 4 swap_att (1)s wrong
    assert m[("i2t_accuracy_micro", "all")]["value"] == pytest.approx((25 / 28 + 21 / 28) / 2)
    assert m[("i2t_accuracy_order0", "swap_att")]["value"] == 1.0
    assert m[("i2t_accuracy_order1", "swap_att")]["value"] == 0.0
    assert m[("i2t_accuracy", "swap_att")]["value"] == 0.5  # position bias shows, and is averaged out
    assert m[("coverage", "all")]["value"] == pytest.approx(50 / 56)
    assert m[("i2t_accuracy_answered", "add_obj")]["value"] == 1.0  # answered-only: the refusals left out
    assert m[("i2t_accuracy", "add_obj")]["value"] == 0.75  # headline: a refusal is wrong
    assert "coverage=0.8929" in first.output
    assert "api usage gpt-test: 56 requests (0 retries, 0 failed), 5600 tokens in" in first.output
    usage = cell.provenance["usage"]
    assert usage["input_tokens"] == 5600 and usage["output_tokens"] == 2 * 50 + 8 * 6
    assert usage["cost_usd"] == pytest.approx((5600 + 148) * 10 / 1e6)
    assert open_store(url).run_provenance(cell.run_id)["usage"]["gpt-test"]["requests"] == 56

    server.reset()
    second = _run(vlc_run, registry, sample_root)
    assert second.exit_code == 0 and server.requests == []  # every answer came from the cache
    (again,) = open_store(url).latest_cells()
    assert again.metrics == cell.metrics and again.status == "ok"
    assert "api usage gpt-test: 0 requests (0 retries, 0 failed), 0 tokens in, 0 out, $0.0000" in second.output

    captured = capfd.readouterr()
    for text in (first.output, second.output, captured.out, captured.err):
        assert SECRET not in text
    assert SECRET.encode() not in _store_bytes(vlc_run.store_path)
    assert KEY_ENV in json.dumps(cell.provenance)  # the variable's name is recorded, not its value


def test_wrong_key_is_redacted_everywhere(vlc_run, tmp_path, sample_root, server, monkeypatch, capfd):
    wrong = "sk-vlc-test-WRONGKEY-9876543210zyxw"
    monkeypatch.setenv(KEY_ENV, wrong)
    url = vlc_run.store_url
    out = _run(vlc_run, _registry(tmp_path, server, "openai_choice"), sample_root)
    assert out.exit_code == 0, out.output
    (cell,) = open_store(url).latest_cells()
    assert cell.status == "partial" and "HTTP 401" in cell.error and "Incorrect API key provided: ***" in cell.error
    captured = capfd.readouterr()
    for text in (out.output, captured.out, captured.err, cell.error):
        assert wrong not in text and wrong[:16] not in text
    assert wrong.encode() not in _store_bytes(vlc_run.store_path)
    assert open_store(url).stats()["tables"]["answers"] == 0  # failed requests are never cached


def test_failed_requests_leave_the_cell_partial_until_a_rerun(vlc_run, tmp_path, sample_root, server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    sample = _sample(sample_root)
    healthy = _choice_responder(sample)
    state = {"down": True}

    def respond(body):
        if state["down"] and "zebra" in request_text(body).lower():
            return server_error(503)
        return healthy(body)

    server.responder = respond
    url = vlc_run.store_url
    registry = _registry(tmp_path, server, "openai_choice")
    first = _run(vlc_run, registry, sample_root)
    assert first.exit_code == 0, first.output
    (cell,) = open_store(url).latest_cells()
    assert cell.status == "partial" and "HTTP 503 after 3 attempts" in cell.error
    zebra_questions = 3 * 2  # 3 instances mention a zebra, each asked in both orders
    assert open_store(url).stats()["tables"]["answers"] == 56 - zebra_questions
    assert len(server.requests) == 56 - zebra_questions + 3 * zebra_questions  # each failure: 1 try + 2 retries
    m = {(x["metric"], x["category"]): x["value"] for x in cell.metrics}
    assert m[("coverage", "all")] == pytest.approx((50 - zebra_questions) / 56)

    state["down"] = False
    server.reset()
    second = _run(vlc_run, registry, sample_root)
    assert second.exit_code == 0
    assert len(server.requests) == zebra_questions  # only the failed ones are asked again
    (cell,) = open_store(url).latest_cells()
    assert cell.status == "ok" and cell.complete


def _logprob_responder(sample, state=None):
    """P(Yes) 0.9 for positives, 0.3 for negatives; swap_obj positives get only "No" (p 0.8: score
    0.2, so wrong); anything about a dog gets neither Yes nor No (an abstention)."""

    def respond(body):
        caption = re.search(r'show "(.*)"\? Please', request_text(body), re.S).group(1)
        category, role, _ = sample[caption]
        if state and state.get("down") and "zebra" in caption.lower():
            return server_error(500)
        if "dog" in caption.lower():
            return completion("Sure", top_logprobs=[("Sure", 0.6), ("I", 0.3)], completion_tokens=1)
        if role == "positive" and category == "swap_obj":
            return completion("No", top_logprobs=[("No", 0.8), ("Maybe", 0.1)], completion_tokens=1)
        p = 0.9 if role == "positive" else 0.3
        return completion("Yes", top_logprobs=[("Yes", p), ("No", 1 - p)], completion_tokens=1)

    return respond


def test_logprob_run_abstentions_coverage_failures_and_cache(vlc_run, tmp_path, sample_root, server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    sample = _sample(sample_root)
    state = {"down": True}
    server.responder = _logprob_responder(sample, state)
    url = vlc_run.store_url
    registry = _registry(tmp_path, server, "openai_logprob", max_retries=0)
    first = _run(vlc_run, registry, sample_root)
    assert first.exit_code == 0, first.output
    assert len(server.requests) == 56  # one per pair (no retries: max_retries 0)
    (cell,) = open_store(url).latest_cells()
    assert cell.status == "partial" and "HTTP 500 after 1 attempt (retries exhausted)" in cell.error
    store = open_store(url)
    assert store.stats()["tables"]["answers"] == 5  # the 5 dog captions: stored abstentions, not scores
    assert store.stats()["tables"]["scores"] == 56 - 5 - 6  # 6 zebra pairs failed: not stored at all

    state["down"] = False
    server.reset()
    second = _run(vlc_run, registry, sample_root)
    assert second.exit_code == 0
    assert len(server.requests) == 6  # only the failed pairs; abstentions are answers, never re-asked
    (cell,) = open_store(url).latest_cells()
    assert cell.status == "ok", cell.error
    m = {(x["metric"], x["category"]): x for x in cell.metrics}
    # 3 instances abstain (a dog), 4 swap_obj are wrong, 21 right
    assert m[("i2t_accuracy_micro", "all")]["value"] == pytest.approx(21 / 28)
    assert m[("i2t_accuracy_micro_answered", "all")]["value"] == pytest.approx(21 / 25)
    assert m[("coverage", "all")]["value"] == pytest.approx(25 / 28)
    assert m[("i2t_accuracy", "add_obj")]["value"] == 0.75 and m[("i2t_accuracy_answered", "add_obj")]["value"] == 1
    assert m[("coverage", "replace_obj")]["value"] == 0.75
    assert m[("i2t_accuracy_macro", "all")]["value"] == pytest.approx((3 * 0.75 + 0 + 3 * 1) / 7)
    assert m[("i2t_accuracy_macro", "all")].get("headline") and "ci95" in m[("i2t_accuracy_macro", "all")]
    assert m[("i2t_accuracy_type", "ADD")]["value"] == pytest.approx(7 / 8)
    outcomes = {o.instance_id: o for o in open_store(url).outcomes(cell.id)}
    declined = outcomes["replace_obj/1"]
    assert declined.scores[0][0] is not None and declined.scores[0][1] is None
    assert declined.answers == [{"image": 0, "text": 1, "abstained": True, "raw": declined.answers[0]["raw"]}]
    assert "coverage=0.8929" in second.output

    server.reset()
    third = _run(vlc_run, registry, sample_root)
    assert third.exit_code == 0 and server.requests == []


def test_max_cost_stops_before_the_budget_and_says_so(vlc_run, tmp_path, sample_root, server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    server.responder = _choice_responder(_sample(sample_root))
    url = vlc_run.store_url
    registry = _registry(tmp_path, server, "openai_choice", concurrency=1)
    first = _run(vlc_run, registry, sample_root, "--max-cost", "0.02")
    assert first.exit_code == 0, first.output
    assert "stopped before exceeding --max-cost $0.02" in first.output
    (cell,) = open_store(url).latest_cells()
    assert cell.status == "partial" and cell.error.startswith("stopped before exceeding --max-cost $0.02")
    usage = cell.provenance["usage"]
    sent = len(server.requests)
    assert 0 < sent < 56 and usage["requests"] == sent
    assert usage["cost_usd"] <= 0.02
    # the worst case of one more request (its prompt estimate plus 32 output tokens) would not have fit
    assert usage["cost_usd"] > 0.02 - 0.004  # it stopped when the next worst case (about $0.0033) no longer fit
    assert open_store(url).stats()["tables"]["answers"] == sent
    assert open_store(url).run_provenance(cell.run_id)["max_cost_usd"] == 0.02

    server.reset()
    second = _run(vlc_run, registry, sample_root, "--max-cost", "1")
    assert second.exit_code == 0
    assert len(server.requests) == 56 - sent
    (cell,) = open_store(url).latest_cells()
    assert cell.status == "ok"


def test_max_cost_without_prices_sends_nothing(vlc_run, tmp_path, sample_root, server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    registry = _registry(tmp_path, server, "openai_choice", price_in_per_mtok=None, price_out_per_mtok=None)
    out = _run(vlc_run, registry, sample_root, "--max-cost", "5")
    assert out.exit_code == 0
    assert server.requests == []
    assert "--max-cost needs this model's prices" in out.output


# -- metrics of a model that may abstain --------------------------------------------------------------
def test_abstention_aware_metrics_count_abstentions_wrong_and_report_answered_and_coverage():
    import numpy as np

    from vlc_harness.benchmarks import Benchmark
    from vlc_harness.metrics import Macro, Micro, PairwiseAccuracy, PerCategory
    from vlc_harness.metrics.cell import compute_values
    from vlc_harness.metrics.outcomes import outcomes_from_matrices
    from vlc_harness.types import ImageSource, Instance

    class Toy(Benchmark):
        type_name = "toy"
        headline = "acc_macro"
        metrics = (PairwiseAccuracy("acc", "test", (PerCategory(), Macro("acc_macro"), Micro("acc_micro"))),)

    def inst(cat, k):
        return Instance(f"{cat}/{k}", cat, (ImageSource("x.jpg"),), ("a", "b"), {"positive": 0})

    right, wrong, declined = [[0.9, 0.1]], [[0.1, 0.9]], [[np.nan, 0.1]]
    rows = [("a", 0, right), ("a", 1, wrong), ("a", 2, declined), ("a", 3, declined), ("b", 0, right)]
    rows.append(("c", 0, declined))  # a category with no answer at all
    instances = [inst(c, k) for c, k, _ in rows]
    answered = [m is not declined for _, _, m in rows]
    outcomes = outcomes_from_matrices(instances, [np.array(m) for _, _, m in rows], answered)
    values = {(v.metric, v.category): v for v in compute_values(Toy(None, "."), outcomes, coverage=True)}
    assert values[("acc", "a")].value == 0.25 and values[("acc", "a")].n == 4
    assert values[("acc_answered", "a")].value == 0.5
    assert values[("acc_micro", "all")].value == pytest.approx(2 / 6)
    assert values[("acc_macro", "all")].value == pytest.approx((0.25 + 1 + 0) / 3)
    assert values[("acc_macro_answered", "all")].value == pytest.approx((0.5 + 1) / 2)
    assert ("acc_answered", "c") not in values
    assert values[("coverage", "all")].value == pytest.approx(3 / 6) and values[("coverage", "c")].value == 0
    assert "abstention counts as wrong" in values[("acc_micro", "all")].averaging
    complete = compute_values(Toy(None, "."), outcomes_from_matrices(instances[:2], [np.array(right)] * 2), True)
    assert {(v.metric, v.category): v.value for v in complete}[("coverage", "all")] == 1.0
