"""API requests are bounded: a wall-clock deadline from connect to last byte, a cap on the reply's
bytes and on the answer text kept; each overrun is a per-instance error with its reason code,
retried like a timeout (issue 38, item 3). Against the local fake server only."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from vlc_harness.kit.ratelimit import FakeClock
from vlc_harness.models import ChoiceQuestion
from vlc_harness.params import build
from vlc_harness.reasons import Reason
from vlc_harness.store import open_store
from vlc_harness.testing import require, standin_image
from vlc_harness.testing.fake_openai import FakeOpenAI, completion, dripping, huge, request_text

require("openai")

from vlc_harness_builtins.models.openai_chat import ChatRun, OpenAIChoice, encode_image  # noqa: E402

KEY = "sk-vlc-test-bounds-0123456789abcdef"
KEY_ENV = "VLC_API_KEY_TEST"
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def server():
    with FakeOpenAI(api_key=KEY) as s:
        yield s


def _model(server, monkeypatch, **run):
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv(f"{KEY_ENV}_HOSTS", "127.0.0.1")
    options = {"api_key_env": KEY_ENV, "concurrency": 1, "backoff_base_s": 0.01, "backoff_max_s": 0.02, **run}
    model = OpenAIChoice(build(OpenAIChoice.Params, {"model": "fake", "base_url": server.url}), build(ChatRun, options))
    model.load("cpu")
    model.begin_job(None)
    return model


def _question():
    image = encode_image(standin_image("q.jpg"), 64, "png")
    return ChoiceQuestion("i2t", [image], ["a red square", "a blue square"])


# -- the bounds themselves, on a fake clock ------------------------------------------------------------
def test_a_request_budget_cuts_each_wait_to_the_time_left_and_counts_bytes():
    from vlc_harness.kit.bounds import DeadlineExceeded, ReplyTooLarge, RequestBounds

    clock = FakeClock()
    budget = RequestBounds(deadline_s=10, max_reply_bytes=100, max_answer_chars=5).start(clock)
    assert budget.timeout(60.0) == 10 and budget.timeout(None) == 10 and budget.timeout(3.0) == 3.0
    clock.sleep(9.5)
    assert budget.timeout(60.0) == pytest.approx(0.5)
    budget.received(60)
    with pytest.raises(ReplyTooLarge, match="over the 100-byte cap") as too_big:
        budget.received(41)
    assert too_big.value.verdict().timed_out and too_big.value.verdict().code == Reason.REPLY_TOO_LARGE
    budget.answer("12345")
    with pytest.raises(ReplyTooLarge, match="6 characters, over the 5-character cap"):
        budget.answer("123456")
    clock.sleep(0.5)
    with pytest.raises(DeadlineExceeded, match="10 s deadline") as late:
        budget.timeout(60.0)
    assert late.value.verdict().timed_out and late.value.verdict().code == Reason.REQUEST_DEADLINE
    unbounded = RequestBounds(None, None, None).start(clock)
    assert unbounded.timeout(7.0) == 7.0 and unbounded.timeout(None) is None
    unbounded.received(10**9)


@pytest.mark.parametrize("bad", [{"request_deadline_s": 0}, {"max_reply_bytes": -1}, {"max_answer_chars": 0}])
def test_the_bounds_must_be_positive(bad):
    from vlc_harness.params import ParamError

    with pytest.raises(ParamError, match=f"run.{next(iter(bad))}: must be positive"):
        build(ChatRun, bad)


# -- a hostile server ------------------------------------------------------------------------------------
@pytest.mark.slow  # over a second: the full suite's
def test_a_dripping_server_is_cut_at_the_deadline(server, monkeypatch):
    """One byte every 0.5 s never trips the 3 s read timeout: before the deadline, the issue's
    reproduction held a request 20 s."""
    model = _model(server, monkeypatch, request_timeout_s=3, max_retries=0, request_deadline_s=2)
    server.queue(dripping(completion("(1)"), every_s=0.5))
    start = time.monotonic()
    (answer,) = model.choose([_question()])
    elapsed = time.monotonic() - start
    assert answer.choice is None and answer.code == Reason.REQUEST_DEADLINE
    assert "2 s deadline" in answer.error, answer.error
    assert elapsed < 2 + 1.0, elapsed  # the deadline plus a small slack (one drip, scheduling)
    assert model.take_usage().failed == 1
    print(f"dripping request ended after {elapsed:.2f} s (deadline 2 s)")


@pytest.mark.slow  # over a second: the full suite's
def test_a_deadline_overrun_is_retried_like_a_timeout(server, monkeypatch):
    model = _model(server, monkeypatch, request_timeout_s=3, max_retries=1, request_deadline_s=1)
    server.queue(dripping(completion("(1)"), every_s=0.3), completion("(2)"))
    (answer,) = model.choose([_question()])
    assert answer.choice == 1 and answer.error is None
    usage = model.take_usage()
    assert (usage.requests, usage.retries, usage.failed) == (2, 1, 0)


def test_a_reply_over_the_byte_cap_is_refused_and_retried(server, monkeypatch):
    model = _model(server, monkeypatch, max_retries=1, max_reply_bytes=64 * 1024)
    server.queue(huge(size=1_000_000), huge(size=1_000_000))
    (answer,) = model.choose([_question()])
    assert answer.choice is None and not answer.raw and answer.code == Reason.REPLY_TOO_LARGE
    assert "65536-byte cap" in answer.error and "after 2 attempts" in answer.error, answer.error
    assert len(server.requests) == 2


def test_an_answer_over_the_text_cap_is_an_error_not_kept(server, monkeypatch):
    model = _model(server, monkeypatch, max_retries=0, max_answer_chars=100)
    server.queue(completion("(1) " + "because " * 50), completion("(2)"))
    long, short = model.choose([_question(), _question()])
    assert long.choice is None and not long.raw and long.code == Reason.REPLY_TOO_LARGE
    assert "over the 100-character cap" in long.error
    assert short.choice == 1 and short.error is None


PROBE = textwrap.dedent(
    """
    import json, resource, sys, time
    from vlc_harness.models import ChoiceQuestion
    from vlc_harness.params import build
    from vlc_harness.testing import standin_image
    from vlc_harness_builtins.models.openai_chat import ChatRun, OpenAIChoice, encode_image

    run = build(ChatRun, {"api_key_env": "VLC_API_KEY_TEST", "concurrency": 1, "max_retries": 0})
    model = OpenAIChoice(build(OpenAIChoice.Params, {"model": "fake", "base_url": sys.argv[1]}), run)
    model.load("cpu")
    model.begin_job(None)
    question = ChoiceQuestion("i2t", [encode_image(standin_image("q.jpg"), 64, "png")], ["a", "b"])
    model.choose([question])  # warm: imports, the connection
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    (answer,) = model.choose([question])
    grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(json.dumps({"error": answer.error, "code": str(answer.code or ""), "raw": len(answer.raw or ""),
                      "grew_mb": grew / 1024, "seconds": time.monotonic() - start}))
    """
)


@pytest.mark.subprocess
def test_a_50_mb_reply_is_refused_without_holding_it(server, tmp_path):
    """The default cap refuses a 50 MB reply while it streams in: the client's peak memory barely
    moves (before the cap, it held the reply whole, more than once: 14 such made 1.5 GB RSS)."""
    server.queue(completion("(1)"), huge(size=50 * 2**20))
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    env = {KEY_ENV: KEY, f"{KEY_ENV}_HOSTS": "127.0.0.1", "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}
    env["PYTHONPATH"] = str(REPO)
    out = subprocess.run(
        [sys.executable, str(script), server.url], capture_output=True, text=True, timeout=120, env=env
    )
    assert out.returncode == 0, out.stderr[-3000:]
    probe = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"50 MB reply: {probe}")
    assert probe["grew_mb"] < 20, probe  # the reply is 50 MB; what is read stops at the cap (1 MiB)
    assert probe["raw"] == 0 and "cap" in (probe["error"] or ""), probe
    assert probe["code"] == Reason.REPLY_TOO_LARGE, probe
    print(f"50 MB reply: refused after {probe['seconds']:.2f} s, peak RSS grew {probe['grew_mb']:.1f} MB")


# -- a whole run --------------------------------------------------------------------------------------------
@pytest.mark.slow  # over a second: the full suite's
def test_bounds_are_recorded_and_oversized_replies_never_stored(vlc_run, tmp_path, sample_root, server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv(f"{KEY_ENV}_HOSTS", "127.0.0.1")

    def respond(body):
        if "zebra" in request_text(body).lower():
            return huge(size=200_000)
        return completion("(1)")

    server.responder = respond
    run = {
        "api_key_env": KEY_ENV,
        "concurrency": 2,
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.02,
        "max_retries": 1,
        "request_deadline_s": 30,
        "max_reply_bytes": 20_000,
        "max_answer_chars": 500,
    }
    entry = {"id": "gpt-bounded", "type": "openai_choice", "params": {"model": "m", "base_url": server.url}, "run": run}
    benchmark = {"id": "sugarcrepe", "type": "sugarcrepe", "params": {"version": "custom"}}
    registry = tmp_path / "registry.yaml"
    registry.write_text(json.dumps({"models": [entry], "benchmarks": [benchmark]}))
    out = vlc_run("--all", "--registry", str(registry), data_root=sample_root)
    assert out.exit_code == 0, out.output
    store = open_store(vlc_run.store_url)
    try:
        (cell,) = store.latest_cells()
        assert cell.status == "partial" and cell.reason_code == Reason.REPLY_TOO_LARGE, cell.error
        assert "20000-byte cap" in cell.error
        recorded = cell.provenance["run"]
        assert (recorded["request_deadline_s"], recorded["max_reply_bytes"], recorded["max_answer_chars"]) == (
            30,
            20_000,
            500,
        )
        assert store.stats()["tables"]["answers"] == 56 - 6  # 3 zebra instances x 2 orders: none stored
    finally:
        store.close()
    assert vlc_run.store_path.stat().st_size < 2_000_000
