"""The client the chat-completion API models share: pacing, retries, cost and usage, identity.

:class:`ChatAPI` sends one request at a time under the run's budgets (:mod:`vlc_harness.kit.ratelimit`)
and never raises: a failed request comes back as a :class:`~.openai_chat_format.Reply` with its
error and reason code. Every attempt is bounded (:mod:`vlc_harness.kit.bounds`, at the socket by
:mod:`.openai_chat_http`): a deadline from connect to last byte, caps on reply bytes and answer text.
The two protocols are in :mod:`vlc_harness_builtins.models.openai_chat`.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vlc_harness.errors import WeightsUnavailable, reason_of
from vlc_harness.kit.api_keys import key_for
from vlc_harness.kit.bounds import BoundExceeded, RequestBounds
from vlc_harness.kit.ratelimit import (
    BoundedPool,
    CostBudget,
    RateLimiter,
    RetriesExhausted,
    RetryPolicy,
    call_with_retries,
)
from vlc_harness.models import Identity, Model, RunOptions, Usage
from vlc_harness.params import ParamError
from vlc_harness.reasons import Reason
from vlc_harness.requires import Requires
from vlc_harness_builtins.models.openai_chat_format import (
    BudgetSpent,
    EncodedImage,
    Reply,
    classify,
    describe_failure,
    encode_image,
    estimate_prompt_tokens,
    is_loopback,
    parse_reply,
    redact,
)

if TYPE_CHECKING:
    from PIL import Image


@dataclass(frozen=True)
class ChatRun(RunOptions):
    """How to call the API: the key's variable name, pacing, retries and prices (never fingerprinted)."""

    batch_size: int = 64
    device: str = "cpu"
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 8
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None
    max_retries: int = 6
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    request_timeout_s: float = 60.0
    """Seconds each connect, write or read may wait (the SDK's timeout: per read, not per request)."""
    request_deadline_s: float | None = 120.0
    """Seconds an attempt may take from connect to the reply's last byte (``null``: no deadline)."""
    max_reply_bytes: int | None = 1 << 20
    """Bytes a reply may have (read from the connection, headers included); more are refused unread."""
    max_answer_chars: int | None = 8192
    """Characters of answer text kept (and stored) per request; a longer answer is an error."""
    price_in_per_mtok: float | None = None
    price_out_per_mtok: float | None = None

    def __post_init__(self) -> None:
        import math

        from vlc_harness.params import ParamError

        for name in ("request_deadline_s", "max_reply_bytes", "max_answer_chars"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ParamError(f"run.{name}", f"must be positive, or null for no bound; got {value!r}")

    def bounds(self) -> RequestBounds:
        """The bounds of every attempt."""
        return RequestBounds(self.request_deadline_s, self.max_reply_bytes, self.max_answer_chars)


class Meter:
    """Counts requests, retries, failures, tokens and cost since the last :meth:`take`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reset()
        self._stop_reported = False

    def _reset(self) -> None:
        self.requests = self.retries = self.failed = self.input_tokens = self.output_tokens = 0
        self.cost: float | None = None

    def add(self, **counts: Any) -> None:
        """Add to the counts (``cost=None`` leaves the cost as it is)."""
        with self._lock:
            for name, value in counts.items():
                if name == "cost":
                    if value is not None:
                        self.cost = (self.cost or 0.0) + value
                else:
                    setattr(self, name, getattr(self, name) + value)

    def take(self, stopped: str | None) -> Usage | None:
        """The usage since the last call (and ``stopped`` once), then zero the counts."""
        with self._lock:
            report_stop = stopped if stopped and not self._stop_reported else None
            self._stop_reported = self._stop_reported or bool(report_stop)
            usage = Usage(
                self.requests,
                self.retries,
                self.failed,
                self.input_tokens,
                self.output_tokens,
                self.cost,
                report_stop,
            )
            self._reset()
        return usage if usage else None


class ChatAPI(Model):
    """What both protocols share: the client, pacing, retries, cost, images and identity (a model
    base: a type derives from it and from its protocol's base class)."""

    requires = Requires(extras=("api",), scoring=("Pillow",))  # images are re-encoded before sending

    paid_requests = True
    params: Any
    run: ChatRun
    protocol_variant = ""

    def __init__(self, params: Any, run: Any) -> None:
        super().__init__(params, run)
        self._setup_error: Reply | None = Reply(error="not sent: the model was not loaded")
        self._key: str | None = None
        self._pool: BoundedPool | None = None
        self._budget = CostBudget(None)
        self._meter = Meter()

    def identify(self) -> Identity:
        """``api:<model>@<base url>``; nothing is sent (an API model's weights cannot be pinned)."""
        if importlib.util.find_spec("openai") is None:
            raise WeightsUnavailable(
                "the openai package is not installed: pip install 'vlc-harness[api]'", Reason.PACKAGE_MISSING
            )
        base_url = self.params.base_url.rstrip("/")
        return Identity(
            weights=f"api:{self.params.model}@{base_url}",
            dtype="api",
            protocol=self.protocol_variant,
            details={"temperature": 0, "note": "a hosted model may change behind its name; pin a dated version"},
        )

    @classmethod
    def check_run(cls, params: Any, run: Any) -> None:
        """The key's variable must be an API key's, bound to the base URL's host outside the registry
        (:mod:`vlc_harness.kit.api_keys`); checked when a registry loads, and again by :meth:`load`."""
        key_for(run.api_key_env, params.base_url)

    def load(self, device: str) -> None:
        """Build the client (no request is sent); a missing key, or one the base URL's host is not
        bound to (an entry that skipped the registry's check), fails every request, clearly."""
        import openai

        from vlc_harness_builtins.models.openai_chat_http import bounded_client

        self._setup_error = None
        try:
            send = key_for(self.run.api_key_env, self.params.base_url)
        except ParamError as exc:
            send, self._setup_error = False, Reply(error=f"not sent: {exc.path}: {exc.problem}", code=Reason.AUTH)
        key = (os.environ.get(self.run.api_key_env) or None) if send else None
        if key is None and self._setup_error is None:
            if is_loopback(self.params.base_url):
                key = "EMPTY"  # local servers (vLLM, llama.cpp) take any key; the default key is never theirs
            else:
                self._setup_error = Reply(
                    error=f"not sent: the API key variable ${self.run.api_key_env} is not set", code=Reason.AUTH
                )
        self._key = key
        self._client = openai.OpenAI(
            api_key=key or "unset",
            base_url=self.params.base_url,
            max_retries=0,  # retries are ours: backoff with jitter, Retry-After, counted
            timeout=self.run.request_timeout_s,
            http_client=bounded_client(self.params.base_url, self.run.concurrency, self.run.request_timeout_s),
        )
        self._bounds = self.run.bounds()
        self._limiter = RateLimiter(self.run.requests_per_minute, self.run.tokens_per_minute)
        self._policy = RetryPolicy(self.run.max_retries, self.run.backoff_base_s, self.run.backoff_max_s)
        self._pool = BoundedPool(self.run.concurrency)

    def close(self) -> None:
        """Stop the request threads and the HTTP client."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None
            self._client.close()

    def begin_job(self, max_cost_usd: float | None) -> None:
        """A fresh cost budget for the job (``None``: no limit)."""
        self._budget = CostBudget(max_cost_usd)
        if max_cost_usd is not None and not self._priced():
            self._budget.refuse(
                "--max-cost needs this model's prices: set price_in_per_mtok and price_out_per_mtok in its run section"
            )

    def take_usage(self) -> Usage | None:
        """Requests, tokens and cost since the last call, and the budget's stop reason once."""
        return self._meter.take(self._budget.stopped)

    def preprocess(self, image: Image.Image) -> EncodedImage:
        """Resize and encode once per image (in a decode thread)."""
        return encode_image(image, self.params.image_max_side, self.params.image_format)

    # -- one request ------------------------------------------------------------------------------
    def _image(self, image: EncodedImage) -> dict[str, Any]:
        url: dict[str, Any] = {"url": image.url}
        if self.params.image_detail:
            url["detail"] = self.params.image_detail
        return {"type": "image_url", "image_url": url, "_size": (image.width, image.height)}

    def _priced(self) -> bool:
        return self.run.price_in_per_mtok is not None and self.run.price_out_per_mtok is not None

    def _cost(self, tokens_in: int, tokens_out: int) -> float | None:
        if not self._priced():
            return None
        pin, pout = self.run.price_in_per_mtok or 0.0, self.run.price_out_per_mtok or 0.0
        return (tokens_in * pin + tokens_out * pout) / 1e6

    def _messages(self, content: list[dict[str, Any]]) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = [{"role": "user", "content": content}]
        if self.params.system_prompt:
            messages.insert(0, {"role": "system", "content": self.params.system_prompt})
        return messages

    def estimate_usage(self, job: Any) -> Usage:
        """What a job would take (``vlc-harness plan``), estimated as the ``--max-cost`` budget
        reserves it: per request the prompt estimate plus ``max_tokens``, each image at its file's
        size shrunk to ``image_max_side`` (a crop is smaller, so this errs high). Nothing is sent;
        ``cost_usd`` is ``None`` without prices."""
        from PIL import Image as PILImage

        sizes: dict[str, EncodedImage] = {}

        def image(path: str) -> EncodedImage:
            if path not in sizes:
                with PILImage.open(path) as im:
                    w, h = im.size
                side = self.params.image_max_side
                scale = min(1.0, side / max(w, h, 1)) if side else 1.0
                sizes[path] = EncodedImage("", max(1, round(w * scale)), max(1, round(h * scale)))
            return sizes[path]

        usage = Usage()
        for content, max_tokens in self._requests(job, image):
            tokens_in = estimate_prompt_tokens(self._messages(content), self.params.image_detail)
            usage = usage.plus(Usage(1, 0, 0, tokens_in, max_tokens, self._cost(tokens_in, max_tokens)))
        return usage

    def _requests(self, job: Any, image: Any) -> Iterator[tuple[list[dict[str, Any]], int]]:
        """The content and ``max_tokens`` of each request a job sends (for :meth:`estimate_usage`)."""
        raise NotImplementedError

    def _ask(self, content: list[dict[str, Any]], max_tokens: int, extra: dict[str, Any] | None = None) -> Reply:
        """Send one chat request under the budgets, bounds and retry policy; never raises."""
        from vlc_harness_builtins.models.openai_chat_http import bounded

        if self._setup_error:
            return self._setup_error
        messages = self._messages(content)
        est_in = estimate_prompt_tokens(messages, self.params.image_detail)
        est_cost = self._cost(est_in, max_tokens) or 0.0
        if not self._budget.reserve(est_cost):
            return Reply(error="not sent: the --max-cost budget is spent", code=Reason.BUDGET_SPENT)
        sent = [
            {**m, "content": [{k: v for k, v in p.items() if k != "_size"} for p in m["content"]]}
            if isinstance(m["content"], list)
            else m
            for m in messages
        ]
        kwargs: dict[str, Any] = {
            "model": self.params.model,
            "messages": sent,
            "temperature": 0,
            "max_tokens": max_tokens,
            **(extra or {}),
        }
        if self.params.seed is not None:
            kwargs["seed"] = self.params.seed
        timeouts, held = 0, 1  # attempts that timed out (the server may bill them); reservations held
        ticket = None

        def attempt() -> tuple[Any, Reply]:
            nonlocal timeouts, held, ticket
            if timeouts >= held:  # the last attempt timed out and may be billed: hold the next one's cost too
                if not self._budget.reserve(est_cost):
                    raise BudgetSpent()
                held += 1
            ticket = self._limiter.acquire(est_in + max_tokens)
            self._meter.add(requests=1)
            try:
                with bounded(self._bounds.start()) as budget:
                    response = self._client.chat.completions.create(**kwargs)
                reply = parse_reply(response, extra is not None)
                budget.answer(reply.text)
                return response, reply
            except Exception as exc:
                verdict = classify(exc)
                timeouts += bool(verdict and verdict.timed_out)
                raise

        try:
            response, reply = call_with_retries(
                attempt, classify, self._policy, on_retry=lambda n, wait, why: self._meter.add(retries=1)
            )
        except Exception as exc:
            lost = timeouts * est_cost if self._priced() else None
            self._budget.settle(held * est_cost, lost or 0.0)
            self._meter.add(failed=1, cost=lost)
            code = getattr(exc, "code", None) if isinstance(exc, (RetriesExhausted, BoundExceeded)) else None
            return Reply(
                error=redact(describe_failure(exc), self._key), code=code or reason_of(exc, Reason.REQUEST_FAILED)
            )
        usage = getattr(response, "usage", None)
        tokens_in = getattr(usage, "prompt_tokens", None) or est_in
        tokens_out = getattr(usage, "completion_tokens", None) or max_tokens
        cost = self._cost(tokens_in, tokens_out)
        if cost is not None:
            cost += timeouts * est_cost
        self._budget.settle(held * est_cost, cost or 0.0)
        if ticket is not None:
            self._limiter.settle(ticket, tokens_in + tokens_out)
        self._meter.add(input_tokens=tokens_in, output_tokens=tokens_out, cost=cost)
        return Reply(redact(reply.text, self._key), reply.top)
