"""How big a rendered site is, and whether it still fits where it is published.

``render`` prints the size after writing (total, files, and the instance browser's and the
downloads' shares) and warns when the site passes :data:`PUBLISH_LIMIT`: GitHub Pages, where the
nightly publishes the board, accepts published sites up to 1 GB.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PUBLISH_LIMIT = 1_000_000_000
"""The largest site GitHub Pages publishes (1 GB)."""
PARTS = {"instance browser": "data/instances", "downloads": "downloads"}
"""The site's large parts, by folder."""


@dataclass(frozen=True)
class SiteSize:
    """A site's bytes and files, in all and per large part (:data:`PARTS`)."""

    total: int
    files: int
    parts: dict[str, int]

    def describe(self) -> str:
        """``12.3 MB in 450 files (instance browser 5.1 MB, downloads 6.2 MB)``."""
        shares = ", ".join(f"{name} {megabytes(size)}" for name, size in self.parts.items() if size)
        return f"{megabytes(self.total)} in {self.files:,} files" + (f" ({shares})" if shares else "")

    def warning(self) -> str | None:
        """Why the site may not publish, or ``None``."""
        if self.total <= PUBLISH_LIMIT:
            return None
        return f"the site is {self.describe()}: over the 1 GB GitHub Pages publishes"


def megabytes(size: int) -> str:
    """Bytes as decimal megabytes, one decimal."""
    return f"{size / 1e6:.1f} MB"


def site_size(folder: Path) -> SiteSize:
    """The size of every file under ``folder``, in all and per part."""
    total = files = 0
    parts = dict.fromkeys(PARTS, 0)
    for path in folder.rglob("*"):
        if not path.is_file():
            continue
        size = path.stat().st_size
        total, files = total + size, files + 1
        relative = path.relative_to(folder).as_posix()
        for name, prefix in PARTS.items():
            if relative.startswith(prefix + "/"):
                parts[name] += size
    return SiteSize(total, files, parts)
