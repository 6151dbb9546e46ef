from __future__ import annotations

import socket

import pytest


def test_a_remote_connection_fails_loudly() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        with pytest.raises(RuntimeError, match="must not use the network"):
            sock.connect(("203.0.113.7", 443))  # TEST-NET-3: never routed


def test_loopback_stays_open() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.create_connection(server.getsockname(), timeout=5):
            pass
