"""Chat-completion API models: OpenAI and any OpenAI-compatible server (vLLM, SGLang, llama.cpp).

Two types, one per protocol (a registry entry's protocol is fixed by its type):

* ``openai_choice`` (``choose``): multiple choice with the SugarCrepe GPT-4V prompt (upstream
  ``gpt-4v-results/readme.md``, verbatim: ``Which caption best describes the image?\\n(1) {c1}\\n
  (2) {c2}\\nOutput (1) or (2).``), or for text-to-image questions the caption and two labelled
  images. The benchmark asks every instance in both candidate orders and scores the answers as
  its authors did (SugarCrepe: the mean of the two per-order accuracies). A reply naming no single
  candidate (a refusal, "Neither ...", "(1) and (2)") is an abstention: stored, counted wrong.
* ``openai_logprob`` (``score_pairs``): VQAScore over the API. The question template (default
  VQAScore's ``Does this figure show "{text}"? Please answer yes or no.``) is asked with
  ``max_tokens=1`` and ``top_logprobs``; the score is P(Yes) at the first answer token (the
  summed probability of the top tokens reading "yes", any case or spacing), else 1 - P(No) when
  only "No" appears, else an abstention (stored apart from scores, never given one).

Both send images as base64 data URLs, resized so the longest side is at most
``image_max_side``, with temperature 0 and ``seed`` (omit it with ``seed: null``). The model name,
base URL, protocol, prompt and image settings are params, so they are fingerprinted; every answer
is cached under that fingerprint and the question's content (image hashes, texts, candidate
order), so a rerun sends no request.

Under load (``run`` options, not fingerprinted): at most ``concurrency`` requests in flight,
``requests_per_minute`` / ``tokens_per_minute`` budgets, and retries with exponential backoff
and jitter on 429, 5xx, timeouts and connection errors, waiting at least the server's
Retry-After (:mod:`vlc_harness.kit.ratelimit`). A request that still fails is an abstention with its
error: never a score, never cached, and its cell is ``partial`` until a rerun asks again. A
malformed reply, a 4xx other than 429/408/409, or a reply without logprobs (``openai_logprob``)
fails at once, the same way.

Cost: ``price_in_per_mtok`` / ``price_out_per_mtok`` (USD per million tokens) price each request
from the usage the server reports; ``vlc-harness run --max-cost USD`` stops before a request
could exceed the budget (its worst case: estimated prompt tokens plus ``max_tokens``).

The API key is read from ``$OPENAI_API_KEY``, or from the variable that ``run.api_key_env``
names; only the name is ever recorded, and error messages are redacted. A server on a loopback
address needs no key. Example entries::

    - id: gpt-4o-sugarcrepe
      type: openai_choice
      params: {model: gpt-4o-2024-08-06}
      run: {price_in_per_mtok: 2.5, price_out_per_mtok: 10, requests_per_minute: 500}
    - id: qwen2-vl-vqascore
      type: openai_logprob
      params: {model: Qwen/Qwen2-VL-7B-Instruct, base_url: "http://127.0.0.1:8000/v1"}
"""

from __future__ import annotations

import base64
import importlib.util
import io
import math
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from vlc_harness import hookimpl
from vlc_harness.choices import first_option_mentioned
from vlc_harness.errors import WeightsUnavailable
from vlc_harness.kit.ratelimit import (
    BoundedPool,
    CostBudget,
    RateLimiter,
    RetriesExhausted,
    RetryPolicy,
    Transient,
    call_with_retries,
    parse_retry_after,
)
from vlc_harness.models import (
    Abstention,
    ChoiceAnswer,
    ChoiceModel,
    ChoiceQuestion,
    Identity,
    PairGroup,
    PairScoringModel,
    RunOptions,
    Usage,
)

if TYPE_CHECKING:
    from PIL import Image

DEFAULT_BASE_URL = "https://api.openai.com/v1"
I2T_PROMPT = "Which caption best describes the image?\n(1) {c1}\n (2) {c2}\nOutput (1) or (2)."
"""SugarCrepe's GPT-4V prompt, byte for byte as upstream (note the space before ``(2)``)."""
T2I_PROMPT = "Which image best matches the caption?\nCaption: {caption}\n{images}\nOutput (1) or (2)."
"""Its text-to-image counterpart: ``{images}`` becomes each image after its label ``(k)``."""
VQASCORE_QUESTION = 'Does this figure show "{text}"? Please answer yes or no.'
"""VQAScore's default question (Lin et al., 2024, t2v_metrics)."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class ChatParams:
    """What is asked and of whom (all fingerprinted)."""

    model: str
    base_url: str = DEFAULT_BASE_URL
    image_max_side: int = 512
    """Images are shrunk (never enlarged) so their longest side is at most this; 0 keeps them."""
    image_format: Literal["png", "jpeg"] = "png"
    image_detail: Literal["auto", "low", "high"] | None = None
    seed: int | None = 0
    system_prompt: str | None = None


@dataclass(frozen=True)
class ChoiceParams(ChatParams):
    """Multiple choice: the prompts and the reply length."""

    i2t_prompt: str = I2T_PROMPT
    t2i_prompt: str = T2I_PROMPT
    max_tokens: int = 32


@dataclass(frozen=True)
class LogprobParams(ChatParams):
    """VQAScore: the question and how many top tokens to read."""

    question_template: str = VQASCORE_QUESTION
    top_logprobs: int = 20


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
    price_in_per_mtok: float | None = None
    price_out_per_mtok: float | None = None


@dataclass(frozen=True)
class EncodedImage:
    """An image as sent: a base64 data URL and its size in pixels (for the token estimate)."""

    url: str
    width: int
    height: int


@dataclass(frozen=True)
class _Reply:
    """One request's outcome: the text (and top logprobs), or the error that ended it."""

    text: str = ""
    top: tuple[tuple[str, float], ...] = ()
    error: str | None = None


class _Malformed(Exception):
    """The server's reply is not a usable chat completion."""


class _BudgetSpent(Exception):
    """A retry after a timeout (which may be billed) no longer fits the cost budget."""


# -- pure helpers ----------------------------------------------------------------------------------
def encode_image(image: Image.Image, max_side: int, fmt: str) -> EncodedImage:
    """Shrink ``image`` to ``max_side`` (longest side) and encode it as a data URL."""
    from PIL import Image as PILImage

    image = image.convert("RGB")
    if max_side and max(image.size) > max_side:
        image = image.copy()
        image.thumbnail((max_side, max_side), PILImage.Resampling.BICUBIC)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG" if fmt == "png" else "JPEG", **({"quality": 90} if fmt == "jpeg" else {}))
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return EncodedImage(f"data:image/{fmt};base64,{data}", image.width, image.height)


def parse_choice(text: str, n: int) -> int | None:
    """The 0-based candidate a reply names, or ``None`` (no candidate, or more than one)."""
    found = {int(k) for k in re.findall(r"\((\d+)\)", text)}
    if not found:
        bare = re.fullmatch(r"\s*(?:output|answer)?\s*:?\s*(\d+)\s*[.)]?\s*", text, re.IGNORECASE)
        found = {int(bare.group(1))} if bare else set()
    if len(found) == 1 and 1 <= next(iter(found)) <= n:
        return next(iter(found)) - 1
    return None


def yes_probability(top: tuple[tuple[str, float], ...] | list[tuple[str, float]]) -> float | None:
    """VQAScore from the first answer token's top logprobs: P(Yes), else 1 - P(No), else ``None``.

    Tokens are read case- and space-insensitively ("Yes", " yes", "YES."); the probabilities of
    distinct tokens reading the same word are summed.
    """
    p = {"yes": 0.0, "no": 0.0}
    seen: dict[str, bool] = {"yes": False, "no": False}
    tokens = set()
    for token, logprob in top:
        if token in tokens:
            continue
        tokens.add(token)
        word = token.strip().strip(".,!:;\"'").lower()
        if word in p and math.isfinite(logprob):
            p[word] += math.exp(logprob)
            seen[word] = True
    if seen["yes"]:
        return min(1.0, p["yes"])
    if seen["no"]:
        return max(0.0, 1.0 - p["no"])
    return None


def image_tokens(width: int, height: int, detail: str | None) -> int:
    """An estimate of an image's prompt tokens (OpenAI's tile rule: 85 + 170 per 512 px tile)."""
    if detail == "low":
        return 85
    scale = min(1.0, 2048 / max(width, height, 1))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / max(min(w, h), 1))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def estimate_prompt_tokens(messages: list[dict[str, Any]], detail: str | None) -> int:
    """A generous estimate of a request's prompt tokens (text at ~4 characters a token)."""
    total = 3
    for message in messages:
        total += 4
        content = message["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for part in parts:
            if part["type"] == "text":
                total += math.ceil(len(part["text"]) / 4) + 1
            else:
                image = part["_size"]
                total += image_tokens(image[0], image[1], detail)
    return total


def redact(text: str, secret: str | None) -> str:
    """``text`` with ``secret``, and any run of 8+ characters of it, replaced by ``***``."""
    if not secret or len(secret) < 8:
        return text
    text = text.replace(secret, "***")
    return re.sub(r"[A-Za-z0-9_\-]{8,}", lambda m: "***" if m.group(0) in secret else m.group(0), text)


def classify(exc: BaseException) -> Transient | None:
    """Retry 429, 408, 409, 5xx, timeouts and connection errors; nothing else."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return Transient("request timed out", timed_out=True)
    if isinstance(exc, openai.APIStatusError):
        code = exc.status_code
        if code in (408, 409, 429) or code >= 500:
            return Transient(f"HTTP {code}", parse_retry_after(exc.response.headers))
        return None
    if isinstance(exc, openai.APIConnectionError):
        return Transient("connection error")
    return None


def _is_loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in LOOPBACK


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


# -- the shared client -----------------------------------------------------------------------------
class _Meter:
    """Counts requests, retries, failures, tokens and cost since the last :meth:`take`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reset()
        self._stop_reported = False

    def _reset(self) -> None:
        self.requests = self.retries = self.failed = self.input_tokens = self.output_tokens = 0
        self.cost: float | None = None

    def add(self, **counts: Any) -> None:
        with self._lock:
            for name, value in counts.items():
                if name == "cost":
                    if value is not None:
                        self.cost = (self.cost or 0.0) + value
                else:
                    setattr(self, name, getattr(self, name) + value)

    def take(self, stopped: str | None) -> Usage | None:
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


class _ChatAPI:
    """What both protocols share: the client, pacing, retries, cost, images and identity."""

    paid_requests = True
    params: Any
    run: ChatRun
    protocol_variant = ""

    def __init__(self, params: Any, run: Any) -> None:
        super().__init__(params, run)  # type: ignore[call-arg]
        self._setup_error: str | None = "not sent: the model was not loaded"
        self._key: str | None = None
        self._pool: BoundedPool | None = None
        self._budget = CostBudget(None)
        self._meter = _Meter()

    def identify(self) -> Identity:
        """``api:<model>@<base url>``; nothing is sent (an API model's weights cannot be pinned)."""
        if importlib.util.find_spec("openai") is None:
            raise WeightsUnavailable("the openai package is not installed: pip install 'vlc-harness[api]'")
        base_url = self.params.base_url.rstrip("/")
        return Identity(
            weights=f"api:{self.params.model}@{base_url}",
            dtype="api",
            protocol=self.protocol_variant,
            details={"temperature": 0, "note": "a hosted model may change behind its name; pin a dated version"},
        )

    def load(self, device: str) -> None:
        """Build the client (no request is sent); a missing key fails every request, clearly."""
        import openai

        self._setup_error = None
        key = os.environ.get(self.run.api_key_env) or None
        if key is None:
            if _is_loopback(self.params.base_url):
                key = "EMPTY"  # local servers (vLLM, llama.cpp) take any key
            else:
                self._setup_error = f"not sent: the API key variable ${self.run.api_key_env} is not set"
        self._key = key
        self._client = openai.OpenAI(
            api_key=key or "unset",
            base_url=self.params.base_url,
            max_retries=0,  # retries are ours: backoff with jitter, Retry-After, counted
            timeout=self.run.request_timeout_s,
        )
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

    def _ask(self, content: list[dict[str, Any]], max_tokens: int, extra: dict[str, Any] | None = None) -> _Reply:
        """Send one chat request under the budgets and retry policy; never raises."""
        if self._setup_error:
            return _Reply(error=self._setup_error)
        messages = self._messages(content)
        est_in = estimate_prompt_tokens(messages, self.params.image_detail)
        est_cost = self._cost(est_in, max_tokens) or 0.0
        if not self._budget.reserve(est_cost):
            return _Reply(error="not sent: the --max-cost budget is spent")
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

        def attempt() -> Any:
            nonlocal timeouts, held, ticket
            if timeouts >= held:  # the last attempt timed out and may be billed: hold the next one's cost too
                if not self._budget.reserve(est_cost):
                    raise _BudgetSpent()
                held += 1
            ticket = self._limiter.acquire(est_in + max_tokens)
            self._meter.add(requests=1)
            try:
                return self._client.chat.completions.create(**kwargs)
            except Exception as exc:
                verdict = classify(exc)
                timeouts += bool(verdict and verdict.timed_out)
                raise

        try:
            response = call_with_retries(
                attempt, classify, self._policy, on_retry=lambda n, wait, why: self._meter.add(retries=1)
            )
            reply = self._parse(response, extra is not None)
        except Exception as exc:
            lost = timeouts * est_cost if self._priced() else None
            self._budget.settle(held * est_cost, lost or 0.0)
            self._meter.add(failed=1, cost=lost)
            return _Reply(error=redact(self._describe(exc), self._key))
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
        return _Reply(redact(reply.text, self._key), reply.top)

    @staticmethod
    def _parse(response: Any, logprobs: bool) -> _Reply:
        choices = getattr(response, "choices", None)
        if not choices:
            raise _Malformed(f"not a chat completion: {str(response)[:120]!r}")
        choice = choices[0]
        message = getattr(choice, "message", None)
        text = (getattr(message, "content", None) or getattr(message, "refusal", None) or "").strip()
        if not logprobs:
            return _Reply(text)
        entries = getattr(getattr(choice, "logprobs", None), "content", None)
        if not entries:
            raise _Malformed("the reply has no logprobs (openai_logprob needs a server that returns top_logprobs)")
        first = entries[0]
        top = tuple((t.token, float(t.logprob)) for t in (getattr(first, "top_logprobs", None) or []))
        return _Reply(text, top or ((first.token, float(first.logprob)),))

    @staticmethod
    def _describe(exc: BaseException) -> str:
        if isinstance(exc, RetriesExhausted):
            return str(exc)
        if isinstance(exc, _Malformed):
            return f"malformed reply: {exc}"
        if isinstance(exc, _BudgetSpent):
            return "not sent again: a retry could exceed the --max-cost budget"
        status = getattr(exc, "status_code", None)
        if status is not None:
            return f"HTTP {status}: {getattr(exc, 'message', exc)}"
        if isinstance(exc, ValueError):  # the SDK's JSON decoding of a broken body
            return f"malformed reply: {type(exc).__name__}: {str(exc)[:200]}"
        return f"{type(exc).__name__}: {str(exc)[:200]}"


# -- the two protocols -----------------------------------------------------------------------------
class OpenAIChoice(_ChatAPI, ChoiceModel):
    """Multiple choice over a chat-completions API (SugarCrepe's GPT-4V protocol), any compatible server.

    A ``vqa`` question (NaturalBench) is sent as the image, then the question; the reply's answer is
    the option it mentions first (:func:`~vlc_harness.choices.first_option_mentioned`).
    """

    type_name = "openai_choice"
    question_kinds = ("i2t", "t2i", "vqa")
    Params = ChoiceParams
    Run = ChatRun
    protocol_variant = "choose/openai-chat"

    def choose(self, questions: list[ChoiceQuestion]) -> list[ChoiceAnswer]:
        """Ask every question (concurrently); an unparsable reply is a stored abstention."""
        assert self._pool is not None, "load() first"
        return self._pool.map(self._choose_one, questions)

    def _choose_one(self, question: ChoiceQuestion) -> ChoiceAnswer:
        try:
            content = self._content(question)
        except (KeyError, IndexError, ValueError) as exc:
            return ChoiceAnswer(None, error=f"prompt template does not fit the question: {exc!r}")
        reply = self._ask(content, self.params.max_tokens)
        if reply.error is not None:
            return ChoiceAnswer(None, error=reply.error)
        if question.kind == "vqa":
            return ChoiceAnswer(first_option_mentioned(reply.text, question.texts), raw=reply.text)
        n = len(question.texts) if question.kind == "i2t" else len(question.images)
        return ChoiceAnswer(parse_choice(reply.text, n), raw=reply.text)

    def _requests(self, job: Any, image: Any) -> Iterator[tuple[list[dict[str, Any]], int]]:
        for q in job.questions:
            question = ChoiceQuestion(q.kind, [image(path) for _, path, _ in q.images], q.texts, question=q.question)
            yield self._content(question), self.params.max_tokens

    def _content(self, q: ChoiceQuestion) -> list[dict[str, Any]]:
        if q.kind == "vqa":
            return [self._image(q.images[0]), _text(q.question)]
        if q.kind == "i2t":
            text = self.params.i2t_prompt.format(**{f"c{k + 1}": t for k, t in enumerate(q.texts)})
            return [_text(text), self._image(q.images[0])]
        before, _, after = self.params.t2i_prompt.partition("{images}")
        parts = [_text(before.format(caption=q.texts[0]))]
        for k, image in enumerate(q.images):
            parts += [_text(f"({k + 1})"), self._image(image)]
        if after.strip():
            parts.append(_text(after.format(caption=q.texts[0])))
        return parts

    @classmethod
    def conformance_example(cls, tmp_path: Path) -> dict[str, Any]:
        """A fake chat-completions server on 127.0.0.1, started for the test (no key needed)."""
        return {"model": "fake-model", "base_url": _conformance_server()}


class OpenAILogprob(_ChatAPI, PairScoringModel):
    """VQAScore over a chat-completions API: P(Yes) from the first answer token's top logprobs."""

    type_name = "openai_logprob"
    can_abstain = True
    Params = LogprobParams
    Run = ChatRun
    protocol_variant = "score_pairs/openai-chat-vqascore"

    def score_pairs(self, groups: list[PairGroup]) -> list[list[float | Abstention]]:
        """One request per pair (concurrently); neither Yes nor No among the top tokens abstains."""
        items = [(g.image, t) for g in groups for t in g.texts]
        assert self._pool is not None, "load() first"
        flat = self._pool.map(self._score_one, items)
        out, k = [], 0
        for g in groups:
            out.append(flat[k : k + len(g.texts)])
            k += len(g.texts)
        return out

    def _requests(self, job: Any, image: Any) -> Iterator[tuple[list[dict[str, Any]], int]]:
        for task in job.tasks:
            for text in task.texts:
                yield [_text(self.params.question_template.format(text=text)), self._image(image(task.path))], 1

    def _score_one(self, item: tuple[EncodedImage, str]) -> float | Abstention:
        image, text = item
        try:
            question = self.params.question_template.format(text=text)
        except (KeyError, IndexError, ValueError) as exc:
            return Abstention(error=f"question_template does not fit: {exc!r}")
        extra = {"logprobs": True, "top_logprobs": self.params.top_logprobs}
        reply = self._ask([_text(question), self._image(image)], 1, extra)
        if reply.error is not None:
            return Abstention(error=reply.error)
        score = yes_probability(reply.top)
        if score is None:
            shown = ", ".join(f"{t!r} {lp:.2f}" for t, lp in reply.top[:5])
            return Abstention(raw=f"neither Yes nor No in the top tokens: {shown}")
        return score

    @classmethod
    def conformance_example(cls, tmp_path: Path) -> dict[str, Any]:
        """A fake chat-completions server on 127.0.0.1, started for the test (no key needed)."""
        return {"model": "fake-model", "base_url": _conformance_server()}


_SERVER: Any = None


def _conformance_server() -> str:
    """The base URL of one fake server per process (see :mod:`vlc_harness.testing.fake_openai`)."""
    global _SERVER
    if _SERVER is None:
        from vlc_harness.testing.fake_openai import FakeOpenAI

        _SERVER = FakeOpenAI().start()
    return _SERVER.url


@hookimpl
def register_models(register: Any) -> None:
    """Register the two chat-completion API model types."""
    register(OpenAIChoice)
    register(OpenAILogprob)
