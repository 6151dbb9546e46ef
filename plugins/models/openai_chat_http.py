"""The HTTP client of the chat-completion API models, with every attempt bounded at the socket.

The SDK's ``timeout`` applies to each read, so a server that drips a byte at a time holds a request
as long as it likes, and a reply is read whole before anything looks at its size. Here every
connection of the client goes through :class:`BoundedBackend`: while an attempt runs (inside
:func:`bounded`, on the thread that sends it), each connect, TLS handshake, write and read gets the
time left before the attempt's deadline at most, and each byte read is counted against the reply
cap; going past either raises the attempt's :class:`~vlc_harness.kit.bounds.BoundExceeded` there,
mid-read, so an oversized reply is never held whole.

httpx2 and httpcore2 come with the ``api`` extra and are imported when a client is built: the plugin
loader imports every module of ``plugins/models/``, and a harness installed without extras must load.
"""

from __future__ import annotations

import contextlib
import ssl
import threading
import urllib.request
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from vlc_harness.kit.bounds import RequestBudget

if TYPE_CHECKING:
    import httpcore2
    import httpx2
    from httpcore2 import NetworkBackend as _Backend
    from httpcore2 import NetworkStream as _Stream
else:  # httpcore2's bases only declare the methods overridden below; its pool never checks their type
    _Stream = _Backend = object

_active = threading.local()


@contextlib.contextmanager
def bounded(budget: RequestBudget) -> Iterator[RequestBudget]:
    """Apply ``budget`` to what this thread sends and reads until the block ends."""
    _active.budget = budget
    try:
        yield budget
    finally:
        _active.budget = None


def _budget() -> RequestBudget | None:
    return getattr(_active, "budget", None)


def _cut(timeout: float | None) -> tuple[RequestBudget | None, float | None]:
    budget = _budget()
    return budget, (timeout if budget is None else budget.timeout(timeout))


def _step(budget: RequestBudget | None, wanted: float | None, used: float | None, call: Any) -> Any:
    """``call(used)``; a timeout that only the deadline's cut caused is the deadline's."""
    import httpcore2

    try:
        return call(used)
    except httpcore2.TimeoutException:
        if budget is not None and used is not None and (wanted is None or used < wanted):
            raise budget.overrun() from None
        raise


class BoundedStream(_Stream):
    """A connection whose every step is bounded by the current thread's attempt (if any)."""

    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        """Read, within the time left; the bytes count against the reply cap."""
        budget, used = _cut(timeout)
        data: bytes = _step(budget, timeout, used, lambda t: self._inner.read(max_bytes, t))
        if budget is not None:
            budget.received(len(data))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        """Write, within the time left."""
        budget, used = _cut(timeout)
        _step(budget, timeout, used, lambda t: self._inner.write(buffer, t))

    def close(self) -> None:
        """Close the connection."""
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore2.NetworkStream:
        """The TLS handshake, within the time left; the TLS stream is bounded too."""
        budget, used = _cut(timeout)
        inner = _step(budget, timeout, used, lambda t: self._inner.start_tls(ssl_context, server_hostname, t))
        return BoundedStream(inner)

    def get_extra_info(self, info: str) -> Any:
        """What the connection underneath says."""
        return self._inner.get_extra_info(info)


class BoundedBackend(_Backend):
    """Opens :class:`BoundedStream` connections (the connect itself within the time left)."""

    def __init__(self, inner: httpcore2.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        """Connect, within the time left."""
        budget, used = _cut(timeout)
        connect = self._inner.connect_tcp
        return BoundedStream(
            _step(budget, timeout, used, lambda t: connect(host, port, t, local_address, socket_options))
        )

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore2.NetworkStream:
        """Connect, within the time left."""
        budget, used = _cut(timeout)
        connect = self._inner.connect_unix_socket
        return BoundedStream(_step(budget, timeout, used, lambda t: connect(path, t, socket_options)))

    def sleep(self, seconds: float) -> None:
        """Sleep (the pool's own retries; ours are :func:`vlc_harness.kit.ratelimit.call_with_retries`)."""
        self._inner.sleep(seconds)


def _env_proxy(base_url: str) -> str | None:
    """The proxy the environment names for ``base_url`` (as httpx reads it when given no transport)."""
    parts = urlsplit(base_url)
    if urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return urllib.request.getproxies().get(parts.scheme)


def bounded_client(base_url: str, concurrency: int, timeout: float) -> httpx2.Client:
    """An HTTP client for the SDK whose connections are bounded by :func:`bounded`.

    httpx2 has no public way to give its transport a network backend, so the transport's pool gets
    one in place; if that attribute ever moves, this fails loudly rather than send unbounded requests.
    """
    import httpcore2
    import httpx2

    limits = httpx2.Limits(max_connections=max(1, concurrency) * 2, max_keepalive_connections=max(1, concurrency))
    transport = httpx2.HTTPTransport(limits=limits, proxy=_env_proxy(base_url))
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if not isinstance(backend, httpcore2.NetworkBackend):
        raise RuntimeError(
            "this httpx2 version keeps no network backend on its transport's pool: cannot bound requests"
        )
    pool._network_backend = BoundedBackend(backend)  # type: ignore[union-attr]
    return httpx2.Client(transport=transport, timeout=timeout, follow_redirects=True)
