"""A rows file put in place by hand or by an export: JSON lines (or one JSON list) and the images beside it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from vlc_harness.errors import DataUnavailable
from vlc_harness.sources.base import CUSTOM, DataSource, file_digest
from vlc_harness.sources.fields import NAME, Schema, schema_of
from vlc_harness.sources.rows import read_json_records, read_jsonl

Rows = list[dict[str, Any]]


class RowsFile(DataSource):
    """One file of rows, JSON lines (or one JSON list, ``layout="json"``), naming images under ``images``.

    No checksum pins it (it is written here, or put in place by hand), so the data version names its
    sha256: ``<label>-<sha256[:12]>``. The check wants the file, each row with ``fields`` (through
    ``check``, which raises ``ValueError``; ``key`` unique), ``count`` rows when one is given, and
    nothing wrong with the rows as a whole (``expect`` returns what is, ``""`` when nothing); ``hint``
    says where to get it. A row names each of its images (the columns ``image_columns``) by its
    ``"name"`` under ``images``, by its ``"stem"`` (the file is the stem plus ``suffix``) or by its
    ``"path"`` relative to the rows file's folder.
    """

    def __init__(
        self,
        root: Path,
        what: str,
        rows: str | Path,
        label: str,
        *,
        images: str | Path = "",
        image_columns: tuple[str, ...] = (),
        hint: str = "",
        fields: Schema | tuple[str, ...] = (),
        check: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        key: str | None = None,
        count: int | None = None,
        expect: Callable[[Rows], str] | None = None,
        layout: Literal["jsonl", "json"] = "jsonl",
        refer: Literal["name", "stem", "path"] = "name",
        suffix: str | None = None,
        noun: str = "rows",
        version: str = "",
    ) -> None:
        super().__init__(root, what)
        self.rows_path, self.images = self.path(rows), self.path(images)
        self.label, self.image_columns, self.hint = label, image_columns, hint
        self.fields, self.row_check, self.key, self.count, self.expect = fields, check, key, count, expect
        self.layout, self.refer, self.suffix, self.noun = layout, refer, suffix, noun
        self.custom = version == CUSTOM

    @property
    def data_version(self) -> str:
        """``<label>-<sha256[:12]>`` of the rows file (``missing`` when absent)."""
        return f"{self.label}-{file_digest(self.rows_path)}"

    def rows(self) -> Rows:
        """The rows, checked: ``fields`` (a schema, or names), each image column a file name, ``key`` unique;
        a malformed file is :class:`~vlc_harness.errors.InputError` naming the line (or record) and field."""
        fields = {**schema_of(self.fields), **dict.fromkeys(self.image_columns, NAME)}
        if self.layout == "json":
            return read_json_records(self.rows_path, self.what, fields, item="example", key=self.key)
        return read_jsonl(self.rows_path, self.what, fields, self.row_check, key=self.key)

    def image(self, row: dict[str, Any], column: str) -> Path:
        """The file of one of a row's images."""
        name = str(row[column])
        if self.refer == "path":
            return self.rows_path.parent / name
        if self.refer == "stem" and not Path(name).suffix:
            name += self.suffix or ""
        return self.images / name

    def image_files(self, rows: Rows) -> list[Path]:
        """Every image the rows name, row by row."""
        return [self.image(row, column) for row in rows for column in self.image_columns]

    def check(self) -> None:
        """The rows file present, its rows well formed, nothing wrong with them as a whole."""
        if not self.rows_path.is_file():
            raise DataUnavailable(f"{self.what} data is not ready: missing {self.rows_path}; {self.hint}")
        rows = self.rows()
        problem = self.expect(rows) if self.expect else ""
        if self.count is not None and len(rows) != self.count:
            problem = f"has {len(rows)} {self.noun}, expected {self.count}"
        if problem:
            raise DataUnavailable(f"{self.what}: {self.rows_path} {problem}; {self.hint}")

    def fetch(self, progress: bool = True) -> list[str]:
        """Nothing to download (an export's source fetches)."""
        return []
