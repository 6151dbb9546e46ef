"""What every part of the store shares: timestamps and turning write failures into one error."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from sqlalchemy import CursorResult, Engine
from sqlalchemy.exc import OperationalError

from vlc_harness.errors import StoreError


def now() -> str:
    """The current UTC time in ISO 8601 (how every timestamp is stored)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def inserted_id(result: CursorResult[Any]) -> int:
    """The row id of the one row an ``INSERT`` wrote."""
    key = result.inserted_primary_key
    if key is None:  # an executemany or a dialect that returns none: not how the store inserts a row
        raise StoreError("the database returned no row id for the inserted row")
    return int(key[0])


class _HasEngine(Protocol):
    engine: Engine


S = TypeVar("S", bound=_HasEngine)
P = ParamSpec("P")
T = TypeVar("T")


def _writes(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], T]:
    """Turn a database that cannot be written (disk full, read-only file or server, lost
    connection) into one clear :class:`StoreError`; the transaction is rolled back, so what was
    stored before stays intact."""

    @functools.wraps(method)
    def wrapper(self: S, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(self, *args, **kwargs)
        except OperationalError as exc:
            reason = str(exc.orig) if exc.orig is not None else str(exc)
            where = self.engine.url.render_as_string(hide_password=True)
            raise StoreError(
                f"cannot write to the store {where}: {reason}",
                hint="free disk space or make the store writable, then rerun: stored scores are kept",
            ) from None

    return wrapper
