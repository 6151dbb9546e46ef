"""What the chat-completion API models send and read back: images as data URLs, prompt-token
estimates, replies parsed into a choice or P(Yes), errors classified (retry or not) and described
with the API key redacted. Pure functions; no request is sent here (see
:mod:`vlc_harness_builtins.models.openai_chat_client`).
"""

from __future__ import annotations

import base64
import io
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from vlc_harness.kit.bounds import BoundExceeded
from vlc_harness.kit.ratelimit import RetriesExhausted, Transient, parse_retry_after
from vlc_harness.reasons import Reason

if TYPE_CHECKING:
    from PIL import Image

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class EncodedImage:
    """An image as sent: a base64 data URL and its size in pixels (for the token estimate)."""

    url: str
    width: int
    height: int


@dataclass(frozen=True)
class Reply:
    """One request's outcome: the text (and top logprobs), or the error that ended it and its reason code."""

    text: str = ""
    top: tuple[tuple[str, float], ...] = ()
    error: str | None = None
    code: str = Reason.REQUEST_FAILED


class Malformed(Exception):
    """The server's reply is not a usable chat completion."""


class BudgetSpent(Exception):
    """A retry after a timeout (which may be billed) no longer fits the cost budget."""


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
        parts: list[dict[str, Any]] = [{"type": "text", "text": content}] if isinstance(content, str) else content
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
    """Retry 429, 408, 409, 5xx, timeouts, connection errors and exceeded bounds (like a timeout); nothing else."""
    import openai

    if isinstance(exc, BoundExceeded):
        return exc.verdict()
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


def is_loopback(url: str) -> bool:
    """True for a base URL on this machine (a local server needs no key)."""
    return (urlsplit(url).hostname or "") in LOOPBACK


def text_part(text: str) -> dict[str, Any]:
    """A text part of a message's content."""
    return {"type": "text", "text": text}


def parse_reply(response: Any, logprobs: bool) -> Reply:
    """A chat completion's text (and its first token's top logprobs, when asked); :class:`Malformed` if unusable."""
    choices = getattr(response, "choices", None)
    if not choices:
        raise Malformed(f"not a chat completion: {str(response)[:120]!r}")
    choice = choices[0]
    message = getattr(choice, "message", None)
    text = (getattr(message, "content", None) or getattr(message, "refusal", None) or "").strip()
    if not logprobs:
        return Reply(text)
    entries = getattr(getattr(choice, "logprobs", None), "content", None)
    if not entries:
        raise Malformed("the reply has no logprobs (openai_logprob needs a server that returns top_logprobs)")
    first = entries[0]
    top = tuple((t.token, float(t.logprob)) for t in (getattr(first, "top_logprobs", None) or []))
    return Reply(text, top or ((first.token, float(first.logprob)),))


def describe_failure(exc: BaseException) -> str:
    """What ended a request, in words (before redaction)."""
    if isinstance(exc, RetriesExhausted):
        return str(exc)
    if isinstance(exc, Malformed):
        return f"malformed reply: {exc}"
    if isinstance(exc, BudgetSpent):
        return "not sent again: a retry could exceed the --max-cost budget"
    status = getattr(exc, "status_code", None)
    if status is not None:
        return f"HTTP {status}: {getattr(exc, 'message', exc)}"
    if isinstance(exc, ValueError):  # the SDK's JSON decoding of a broken body
        return f"malformed reply: {type(exc).__name__}: {str(exc)[:200]}"
    return f"{type(exc).__name__}: {str(exc)[:200]}"
