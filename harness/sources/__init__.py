"""Benchmark data sources: pinned files, unpinned files, Hugging Face exports, image folders.

A benchmark composes its data from a source instead of writing ``data_version``, ``data_files``,
``check_data`` and ``fetch`` itself (:meth:`vlc_harness.benchmarks.Benchmark.data_source`)::

    def data_source(self):
        return PinnedFiles(self.data_root, self.title, {"pairs": DataFile("swaps/pairs.json", SHA, URL)}, "v1")

:class:`PinnedFiles` (files pinned by sha256; ``custom`` reads them unpinned), :class:`UnpinnedFiles`
(no published checksum: the data version names their content), :class:`RowsFile` (a file of rows naming
images, named by its content), :class:`HfExport` (a rows file exported from a Hugging Face split,
:class:`HfSplit` saying how to load it), :class:`Sources` (several as one) and :class:`ImageFolder`
(where the images are, where to get them); :func:`gc_paused` for a loader that builds a large corpus's
instances. The readers (:func:`read_json`, :func:`read_json_records`,
:func:`read_json_object`, :func:`read_jsonl`, :func:`read_csv`) check the fields a loader reads against a
schema (:mod:`vlc_harness.sources.fields`: ``{"caption": TEXT, "filename": NAME}``) and raise
:class:`~vlc_harness.errors.InputError` for a malformed file, naming the file, the record and the field
(:class:`~vlc_harness.errors.DataUnavailable` for one that is absent or unreadable).
"""

from __future__ import annotations

from vlc_harness.sources.base import CUSTOM, DataSource, ImageFolder, Sources, file_digest, files_digest
from vlc_harness.sources.bulk import gc_paused
from vlc_harness.sources.export import HfExport
from vlc_harness.sources.hf import HfSplit
from vlc_harness.sources.pinned import PinnedFiles
from vlc_harness.sources.rows import (
    load_json,
    read_csv,
    read_json,
    read_json_object,
    read_json_records,
    read_jsonl,
    read_text,
)
from vlc_harness.sources.rowsfile import RowsFile
from vlc_harness.sources.unpinned import UnpinnedFiles, download_json_once

__all__ = [
    "CUSTOM",
    "DataSource",
    "HfExport",
    "HfSplit",
    "ImageFolder",
    "PinnedFiles",
    "RowsFile",
    "Sources",
    "UnpinnedFiles",
    "download_json_once",
    "file_digest",
    "files_digest",
    "gc_paused",
    "load_json",
    "read_csv",
    "read_json",
    "read_json_object",
    "read_json_records",
    "read_jsonl",
    "read_text",
]
