"""The worker process: ``python -m vlc_harness.run.worker FD`` serves one model over a socket.

Started as a module (not through ``multiprocessing``), so a script that calls
:func:`vlc_harness.evaluate` needs no ``if __name__ == "__main__":`` guard. The parent sends
``("init", locator, params, run, config)`` first (``config``: the run's
:class:`~vlc_harness.config.RunConfig`, which the model gets before it is loaded), then any of
``("load",)``, ``("compute", job)`` and ``("stop",)``; the worker answers ``("event", event)``
for each event, ``("done",)`` after a job, and ``("error", message, reason code)`` when
something raised (the code by the exception's type, :func:`vlc_harness.errors.model_reason_of`: only
this process sees the exception itself). Thread limits arrive in the environment, before torch
is imported.
"""

from __future__ import annotations

import sys
import traceback
from multiprocessing.connection import Connection
from typing import Any

from vlc_harness.errors import InputError, model_reason_of, show_traceback


def describe(exc: BaseException) -> str:
    """An exception with the last frames of its traceback, as the parent reports it; a malformed input file
    (:class:`~vlc_harness.errors.InputError`) is its one sentence (its traceback on stderr under ``--debug``)."""
    if isinstance(exc, InputError):
        show_traceback(exc)
        return str(exc)
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return f"{type(exc).__name__}: {exc}\n{''.join(tb[-6:])}"


def serve(conn: Connection) -> None:
    """Build the model from the ``init`` message, then serve requests until ``stop`` or EOF."""
    from vlc_harness.models import build_model
    from vlc_harness.params import build
    from vlc_harness.plugins import resolve_model
    from vlc_harness.run.compute import load_model, run_job

    try:
        _, locator, params, run, config = conn.recv()
        cls = resolve_model(locator)
        model = build_model(cls, build(cls.Params, params), build(cls.Run, run), config)
    except BaseException as exc:  # report, never hang the parent
        conn.send(("error", describe(exc), model_reason_of(exc)))
        return
    loaded = False
    while True:
        try:
            message: Any = conn.recv()
        except EOFError:  # the parent is gone
            return
        try:
            if message[0] in ("load", "compute") and not loaded:
                conn.send(("event", load_model(model)))
                loaded = True
            if message[0] == "compute":
                for event in run_job(model, message[1]):
                    conn.send(("event", event))
                conn.send(("done",))
            elif message[0] == "stop":
                model.close()
                return
        except BaseException as exc:
            conn.send(("error", describe(exc), model_reason_of(exc)))


if __name__ == "__main__":
    serve(Connection(int(sys.argv[1])))
