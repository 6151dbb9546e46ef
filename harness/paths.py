"""Default locations: the user cache dir (store, hash cache) and the data root."""

from __future__ import annotations

import os
from pathlib import Path

ENV_STORE = "VLC_HARNESS_STORE"
ENV_DATA = "VLC_HARNESS_DATA"
ENV_CACHE_DIR = "VLC_HARNESS_CACHE_DIR"
ENV_REGISTRY = "VLC_HARNESS_REGISTRY"


def cache_dir() -> Path:
    """Where the default store and the file-hash cache live (``$VLC_HARNESS_CACHE_DIR`` wins)."""
    if os.environ.get(ENV_CACHE_DIR):
        return Path(os.environ[ENV_CACHE_DIR])
    import platformdirs

    return Path(platformdirs.user_cache_dir("vlc-harness"))


def default_store_url() -> str:
    """``$VLC_HARNESS_STORE`` or a SQLite file in the cache dir."""
    if os.environ.get(ENV_STORE):
        return os.environ[ENV_STORE]
    return f"sqlite:///{cache_dir() / 'store.sqlite'}"


def default_data_root() -> Path:
    """``$VLC_HARNESS_DATA`` or ``<user data dir>/data``: only :func:`vlc_harness.config.resolve_data_root`
    calls this, so that "no data root given" is decided in one place."""
    if os.environ.get(ENV_DATA):
        return Path(os.environ[ENV_DATA])
    import platformdirs

    return Path(platformdirs.user_data_dir("vlc-harness")) / "data"
