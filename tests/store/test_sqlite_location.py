"""A SQLite store URL is read as SQLite reads it: ``file:`` URIs (``uri=true``) name their real path,
and only a database SQLite may create gets its folder made; nothing lands in the working directory."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from vlc_harness.errors import StoreError
from vlc_harness.store import open_store
from vlc_harness.store.location import SqliteFile, sqlite_file


def where(url: str) -> SqliteFile | None:
    return sqlite_file(make_url(url))


@pytest.mark.parametrize(
    ("url", "path", "creates"),
    [
        ("sqlite:////abs/s.sqlite", "/abs/s.sqlite", True),
        ("sqlite:///rel/s.sqlite", "rel/s.sqlite", True),
        ("sqlite:///file:x.sqlite", "file:x.sqlite", True),  # no uri=true: a file named so, as SQLite opens it
        ("sqlite:///file:/abs/s.sqlite?mode=ro&uri=true", "/abs/s.sqlite", False),
        ("sqlite:///file:/abs/s.sqlite?mode=rw&uri=true", "/abs/s.sqlite", False),
        ("sqlite:///file:/abs/s.sqlite?mode=rwc&uri=true", "/abs/s.sqlite", True),
        ("sqlite:///file:/abs/s.sqlite?uri=true", "/abs/s.sqlite", True),
        ("sqlite:///file:/abs/s.sqlite?immutable=1&uri=true", "/abs/s.sqlite", False),
        ("sqlite:///file:///abs/s.sqlite?uri=true", "/abs/s.sqlite", True),
        ("sqlite:///file://localhost/abs/s.sqlite?mode=ro&uri=true", "/abs/s.sqlite", False),
        ("sqlite:///file:rel/s.sqlite?mode=ro&uri=true", "rel/s.sqlite", False),
        ("sqlite:///file:/abs/a%2520b.sqlite?uri=true", "/abs/a b.sqlite", True),  # SQLite decodes %XX again
    ],
)
def test_the_database_file_of_a_url(url: str, path: str, creates: bool) -> None:
    assert where(url) == SqliteFile(Path(path), creates)


@pytest.mark.parametrize(
    "url",
    [
        "sqlite://",
        "sqlite:///:memory:",
        "sqlite:///file::memory:?cache=shared&uri=true",
        "sqlite:///file:m?mode=memory&uri=true",
    ],
)
def test_in_memory_urls_name_no_file(url: str) -> None:
    assert where(url) == SqliteFile(None, True)


def test_other_backends_and_remote_hosts() -> None:
    assert where("postgresql://u@localhost/db") is None
    with pytest.raises(StoreError, match="names the host 'example.org'"):
        where("sqlite:///file://example.org/s.sqlite?uri=true")


def test_the_path_is_the_file_sqlite_itself_opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Held against SQLite: the file our reading names is the one sqlite3 creates for the same URI."""
    monkeypatch.chdir(tmp_path)
    databases = (
        f"file:{tmp_path}/a b.sqlite",
        f"file:{tmp_path}/c%2520d.db",
        "file:rel.sqlite",
        f"file://{tmp_path}/t.db",
    )
    for database in databases:
        url = make_url(f"sqlite:///{database}?mode=rwc&uri=true")
        conn = sqlite3.connect(f"{url.database}?mode=rwc", uri=True)
        conn.execute("create table t (x)")
        conn.close()
        target = sqlite_file(url)
        assert target is not None and target.path is not None
        assert target.path.is_file(), database
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a b.sqlite", "c d.db", "rel.sqlite", "t.db"]


def test_a_read_only_uri_opens_the_store_and_leaves_no_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "store" / "s.sqlite"
    open_store(f"sqlite:///{path}").close()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    store = open_store(f"sqlite:///file:{path}?mode=ro&uri=true")
    try:
        assert store.info()["app"] == "vlc-harness"
    finally:
        store.close()
    assert list(work.iterdir()) == []  # no file:/... tree in the working directory


def test_a_missing_read_only_store_is_an_error_and_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    missing = tmp_path / "absent" / "s.sqlite"
    with pytest.raises(StoreError, match="unable to open"):
        open_store(f"sqlite:///file:{missing}?mode=ro&uri=true")
    assert list(tmp_path.iterdir()) == []


def test_a_writable_uri_makes_the_folder_of_its_real_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    path = tmp_path / "new" / "s.sqlite"
    open_store(f"sqlite:///file:{path}?mode=rwc&uri=true").close()
    assert path.is_file() and list(work.iterdir()) == []


def test_a_file_that_is_no_database_is_refused_through_a_uri_too(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database, long enough to have a header")
    with pytest.raises(StoreError, match="is not a SQLite database"):
        open_store(f"sqlite:///file:{path}?mode=ro&uri=true")
    assert path.read_text().startswith("not a database")


def test_plan_reads_a_store_named_by_a_uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vlc_harness.planview.store import read_only_store

    path = tmp_path / "store" / "s.sqlite"
    open_store(f"sqlite:///{path}").close()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    store, note = read_only_store(f"sqlite:///file:{path}?mode=ro&uri=true")
    store.close()
    assert note is None  # the store was found and read, not planned as empty
    assert list(work.iterdir()) == []
