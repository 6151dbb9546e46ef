"""What every part of the store shares: timestamps and turning write failures into one error."""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, TypeVar

from sqlalchemy.exc import OperationalError

from vlc_harness.errors import StoreError


def now() -> str:
    """The current UTC time in ISO 8601 (how every timestamp is stored)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


T = TypeVar("T")


def _writes(method: Callable[..., T]) -> Callable[..., T]:
    """Turn a database that cannot be written (disk full, read-only file or server, lost
    connection) into one clear :class:`StoreError`; the transaction is rolled back, so what was
    stored before stays intact."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> T:
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
