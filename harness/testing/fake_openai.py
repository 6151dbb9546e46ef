"""A local chat-completions server for tests of API model plugins (no network, no key needed).

It listens on 127.0.0.1 (a free port) and speaks enough of the OpenAI chat-completions protocol
for the ``openai`` SDK: message content with text and ``image_url`` parts, ``logprobs`` and
``top_logprobs``, ``usage``. Replies are scripted: queued :class:`Reply` objects are served first,
in order, then a ``responder(body) -> Reply`` decides (by default a constant ``(1)`` answer, or
``Yes`` at p=0.7 for logprob requests). Errors are replies too: :func:`rate_limited` (429 with
Retry-After), :func:`server_error` (500), :func:`malformed` (broken JSON), a ``delay_s`` on
any reply (a slow server, for timeouts), :func:`dripping` (the body one byte at a time, so that no
single read ever times out) and :func:`huge` (a reply of many megabytes, streamed in pieces: the
server never holds it whole). Every request is logged with its arrival time::

    with FakeOpenAI() as server:
        server.queue(rate_limited(retry_after=1), completion("(2)"))
        ...  # point a model at server.url
        assert len(server.requests) == 2
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted HTTP reply: status, JSON body (or raw text), headers, and a delay before it."""

    status: int = 200
    body: dict[str, Any] | str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drip_s: float = 0.0
    """Seconds between the body's bytes, sent one at a time after the headers (0: the body at once)."""
    pieces: Callable[[], Iterator[bytes]] | None = None
    """The body as pieces, made as they are sent (instead of ``body``); ``length`` is their total."""
    length: int = 0


@dataclass
class Logged:
    """A request the server received: its JSON body, auth header, path and arrival time."""

    body: dict[str, Any]
    authorization: str
    path: str
    at: float


def completion(
    content: str | None = "(1)",
    top_logprobs: list[tuple[str, float]] | None = None,
    prompt_tokens: int = 100,
    completion_tokens: int = 2,
    refusal: str | None = None,
    model: str = "fake-model",
    usage: bool = True,
) -> Reply:
    """A successful chat completion; ``top_logprobs`` ``[(token, probability)]`` at the first token."""
    logprobs = None
    if top_logprobs is not None:
        entries = [
            {"token": t, "logprob": math.log(p) if p > 0 else -9999.0, "bytes": list(t.encode())}
            for t, p in top_logprobs
        ]
        first = entries[0] if entries else {"token": content or "", "logprob": 0.0, "bytes": None}
        logprobs = {"content": [{**first, "top_logprobs": entries}], "refusal": None}
    body: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "logprobs": logprobs,
                "finish_reason": "stop",
            }
        ],
    }
    if usage:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return Reply(200, body)


def rate_limited(retry_after: float | None = 1, header: str = "retry-after") -> Reply:
    """429 Too Many Requests, with ``Retry-After`` (seconds) or ``retry-after-ms`` if given."""
    headers = {} if retry_after is None else {header: f"{retry_after:g}"}
    body = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
    return Reply(429, body, headers)


def server_error(status: int = 500) -> Reply:
    """A 5xx error."""
    return Reply(status, {"error": {"message": "The server had an error", "type": "server_error"}})


def malformed() -> Reply:
    """A 200 whose JSON body is cut off."""
    return Reply(200, '{"id": "chatcmpl-fake", "choices": [{"index": 0, "message": {"content": "(1')


def dripping(reply: Reply | None = None, every_s: float = 0.5) -> Reply:
    """``reply`` (by default a ``(1)`` completion) with its body sent one byte every ``every_s`` seconds:
    each read the client makes gets a byte in time, so only an overall deadline ends it early."""
    base = reply or completion("(1)")
    return Reply(base.status, base.body, dict(base.headers), base.delay_s, drip_s=every_s)


def huge(size: int = 50 * 2**20, piece: int = 2**20) -> Reply:
    """A 200 chat completion whose answer is ``size`` bytes of ``x``, streamed ``piece`` bytes at a
    time (made as it is sent: the server never holds the reply whole)."""
    head = completion("@").body
    assert isinstance(head, dict)
    before, after = json.dumps(head).encode().split(b"@")

    def pieces() -> Iterator[bytes]:
        yield before
        for start in range(0, size, piece):
            yield b"x" * min(piece, size - start)
        yield after

    return Reply(200, None, pieces=pieces, length=len(before) + size + len(after))


def request_text(body: dict[str, Any]) -> str:
    """All text of a request's messages, joined (for responders that look at the prompt)."""
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(p.get("text", "") for p in content if p.get("type") == "text")
    return "\n".join(parts)


def request_images(body: dict[str, Any]) -> list[str]:
    """The image URLs (base64 data URLs) of a request, in order."""
    urls: list[str] = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            urls.extend(p["image_url"]["url"] for p in content if p.get("type") == "image_url")
    return urls


def default_responder(body: dict[str, Any]) -> Reply:
    """``(1)`` to a question, ``Yes`` (p=0.7) / ``No`` (p=0.3) when logprobs are asked for."""
    if body.get("logprobs"):
        return completion("Yes", top_logprobs=[("Yes", 0.7), ("No", 0.3)], completion_tokens=1)
    return completion("(1)")


class FakeOpenAI:
    """The server. ``api_key``: requests must send it as a Bearer token, else 401 (whose message
    quotes the key sent, as real servers partly do, so redaction can be tested)."""

    def __init__(self, responder: Callable[[dict[str, Any]], Reply] | None = None, api_key: str | None = None) -> None:
        self.responder = responder or default_responder
        self.api_key = api_key
        self.requests: list[Logged] = []
        self.in_flight = 0
        self.max_in_flight = 0
        """The most requests the server was handling at once (to check a client's concurrency)."""
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Base URL for the SDK (``http://127.0.0.1:<port>/v1``)."""
        assert self._server is not None, "start the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def queue(self, *replies: Reply) -> None:
        """Serve these replies, in order, before asking the responder."""
        with self._lock:
            self._script.extend(replies)

    def reset(self) -> None:
        """Forget the logged requests, queued replies and the in-flight high-water mark."""
        with self._lock:
            self.requests.clear()
            self._script.clear()
            self.max_in_flight = self.in_flight

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def start(self) -> FakeOpenAI:
        """Listen on a free port of 127.0.0.1 in a background thread."""
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        server.daemon_threads = True
        self._server = server
        # stop() waits for serve_forever to see the shutdown flag: a short poll ends a test at once, not 0.5 s later
        poll = {"poll_interval": 0.02}
        self._thread = threading.Thread(target=server.serve_forever, kwargs=poll, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _reply_to(self, body: dict[str, Any], authorization: str, path: str) -> Reply:
        with self._lock:
            self.requests.append(Logged(body, authorization, path, time.monotonic()))
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            sent = authorization.removeprefix("Bearer ")
            message = f"Incorrect API key provided: {sent}. You can find your API key at https://example.invalid."
            return Reply(401, {"error": {"message": message, "type": "invalid_request_error"}})
        if not path.rstrip("/").endswith("/chat/completions"):
            return Reply(404, {"error": {"message": f"no route {path}", "type": "invalid_request_error"}})
        with self._lock:
            scripted = self._script.popleft() if self._script else None
        return scripted if scripted is not None else self.responder(body)


def _handler(owner: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (the http.server API)
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            owner._enter()
            try:
                reply = owner._reply_to(body, self.headers.get("authorization", ""), self.path)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
            finally:
                owner._leave()
            payload = (reply.body if isinstance(reply.body, str) else json.dumps(reply.body or {})).encode()
            try:
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(reply.length if reply.pieces else len(payload)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self._send_body(reply, payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def _send_body(self, reply: Reply, payload: bytes) -> None:
            if reply.pieces is not None:
                for piece in reply.pieces():
                    self.wfile.write(piece)
            elif reply.drip_s:
                for k in range(len(payload)):
                    self.wfile.write(payload[k : k + 1])
                    self.wfile.flush()
                    time.sleep(reply.drip_s)
            else:
                self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet

    return Handler
