"""Exporting Hugging Face datasets into a benchmark's upstream layout, and reading the export back.

These helpers moved to :mod:`vlc_harness.sources` (:class:`~vlc_harness.sources.HfExport` composes them
into a benchmark's data source); the names stay importable from here for plugins written against them.
"""

from __future__ import annotations

from vlc_harness.sources.base import file_digest as short_sha256
from vlc_harness.sources.hf import (
    image_suffix,
    present,
    require_fields,
    save_stored_image,
    split_rows,
    stored_image_bytes,
    write_atomically,
)
from vlc_harness.sources.rows import read_jsonl

__all__ = [
    "image_suffix",
    "present",
    "read_jsonl",
    "require_fields",
    "save_stored_image",
    "short_sha256",
    "split_rows",
    "stored_image_bytes",
    "write_atomically",
]
