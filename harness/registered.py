"""The model types the loaded plugins register, for core code below the plugin manager.

The store's migration to schema 6 (:mod:`vlc_harness.store.migrate_stack`) needs each stored type's
class (its scoring distributions), but the store may not import the plugin manager: the plugin
manager imports the metric code, which imports the store. :mod:`vlc_harness.plugins` provides the
types here when it is imported (:func:`provide`); code that opens a store without it gets a clear error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

Provider = Callable[[], Mapping[str, type]]
_provider: Provider | None = None


def provide(provider: Provider) -> None:
    """Set where :func:`model_types` reads the registered types from (the plugin manager does)."""
    global _provider
    _provider = provider


def model_types() -> Mapping[str, type]:
    """Each registered model type's class by type name; raises :class:`RuntimeError` when no plugin
    manager was imported in this process."""
    if _provider is None:
        raise RuntimeError(
            "the registered model types are not known in this process: import vlc_harness.plugins first "
            "(the command line and vlc_harness.evaluate do)"
        )
    return _provider()


__all__ = ["Provider", "model_types", "provide"]
