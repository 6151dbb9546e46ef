"""Which API key a request may carry, and to which hosts: decided outside the registry.

A registry entry's ``run.api_key_env`` names the variable whose value an API model sends as its
Bearer token, and ``params.base_url`` where it goes. A pull request can edit both, so neither
decides alone (before this rule ``api_key_env: NIGHTLY_DEPLOY_SECRET`` sent that secret to any
server the entry named):

* the variable must be ``OPENAI_API_KEY`` or match ``VLC_API_KEY_<NAME>`` (capitals, digits and
  single underscores; not ending in ``_HOSTS``), never a CI secret of another name;
* its value goes only to a host bound to that variable outside the registry: in code
  (:data:`CODE_BINDINGS`: ``OPENAI_API_KEY`` to ``api.openai.com``) or in the environment the
  workflow sets, ``VLC_API_KEY_<NAME>_HOSTS=host[:port],...`` (a host without a port binds all of
  its ports), and over https unless the host is this machine;
* a loopback base URL (a local vLLM or llama.cpp server) works without a key, as before: with the
  default ``OPENAI_API_KEY`` it is sent no key at all; a ``VLC_API_KEY_<NAME>`` must be bound there
  too (``VLC_API_KEY_LOCAL_HOSTS=127.0.0.1:8000``).

:func:`key_for` decides, before any request: at registry load (a model type's ``check_run``) and
again when the model loads, for an entry that never passed a registry (``evaluate()`` given a
mapping). A refusal is a :class:`~vlc_harness.params.ParamError` naming the key at fault.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from vlc_harness.params import ParamError

DEFAULT_KEY = "OPENAI_API_KEY"
KEY_NAME = re.compile(r"VLC_API_KEY_[A-Z0-9]+(?:_[A-Z0-9]+)*")
"""The pattern of every other key variable's name."""
CODE_BINDINGS: dict[str, tuple[str, ...]] = {DEFAULT_KEY: ("api.openai.com",)}
"""Variables bound to their hosts in code; the environment cannot rebind them."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_PORTS = {"http": 80, "https": 443}


def hosts_variable(name: str) -> str:
    """The environment variable that binds ``name``'s hosts: ``VLC_API_KEY_LAB_HOSTS``."""
    return f"{name}_HOSTS"


def check_name(name: str) -> None:
    """Refuse a variable name outside the documented pattern (``run.api_key_env``)."""
    if name == DEFAULT_KEY or (KEY_NAME.fullmatch(name) and not name.endswith("_HOSTS")):
        return
    raise ParamError(
        "run.api_key_env",
        f"{name!r} is not an API key variable: name OPENAI_API_KEY or VLC_API_KEY_<NAME> (capitals, digits, '_'), "
        "whose hosts the environment binds in VLC_API_KEY_<NAME>_HOSTS",
    )


def bound_hosts(name: str, environ: Mapping[str, str]) -> tuple[str, ...]:
    """The ``host`` or ``host:port`` entries ``name`` is bound to (in code, else in the environment)."""
    if name in CODE_BINDINGS:
        return CODE_BINDINGS[name]
    return tuple(h.strip().lower() for h in environ.get(hosts_variable(name), "").split(",") if h.strip())


def key_for(name: str, base_url: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether a request to ``base_url`` may carry the value of ``$name``: ``True`` (send it),
    ``False`` (send no key: a loopback server and the default variable); else :class:`ParamError`."""
    environ = os.environ if environ is None else environ
    check_name(name)
    url = urlsplit(base_url)
    try:
        host, port = (url.hostname or "").lower(), url.port or _PORTS.get(url.scheme)
    except ValueError:
        host, port = "", None
    if url.scheme not in _PORTS or not host:
        raise ParamError("params.base_url", f"{base_url!r} is not an http(s) URL")
    loopback = host in LOOPBACK
    bound = bound_hosts(name, environ)
    if any(_matches(entry, host, port) for entry in bound):
        if url.scheme != "https" and not loopback:
            raise ParamError("params.base_url", f"{base_url!r}: the key in ${name} goes over https only")
        return True
    if loopback and name == DEFAULT_KEY:
        return False
    shown = f"{host}:{url.port}" if url.port else host
    how = (
        "it is bound in code; use a VLC_API_KEY_<NAME> variable for another host"
        if name in CODE_BINDINGS
        else f"a maintainer binds hosts in the environment the workflow sets: {hosts_variable(name)}=host[:port],..."
    )
    raise ParamError(
        "params.base_url", f"the host {shown!r} is not bound to ${name} (bound: {', '.join(bound) or 'none'}); {how}"
    )


def _matches(entry: str, host: str, port: int | None) -> bool:
    """Whether a binding entry (``host`` or ``host:port``, ``[::1]:8000``) covers ``host`` at ``port``."""
    bound = urlsplit(f"//{entry}")
    try:
        bound_port = bound.port
    except ValueError:
        return False
    return (bound.hostname or "") == host and (bound_port is None or bound_port == port)
