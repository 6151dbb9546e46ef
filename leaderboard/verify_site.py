"""The deploy check: ``vlc-harness verify-site SITE [--against PUBLISHED]`` (or, in a job that loads nothing
else, ``python -m vlc_leaderboard.verify_site``) refuses a site unless every file is one render writes, as
render writes it. Standard library only.

* Every page (``*.html``) carries exactly one Content-Security-Policy ``<meta>``, the board's
  (:data:`vlc_leaderboard.site_policy.CSP`), before any element that loads something; no inline
  ``<script>`` (each has a ``src``, and nothing between its tags), no ``<style>`` element, no ``style``
  attribute and no ``on*`` event handler (the CSP forbids them all); no ``<base>``, refresh, frame, object
  or embed; every script, style sheet, image and other source is a relative path inside the site (a link
  to a paper on another host is fine; a ``javascript:``, ``data:`` or ``vbscript:`` link is not).
* Scripts are the board's own (``static/*.js``, byte for byte the installed package's) or page data
  (``data/**/*.js``: the data header, then ``window.NAME = JSON;``, whose JSON must parse: no code);
  the style sheet and the icon are the package's; images are PNG thumbnails under ``data/instances``;
  the rest is data render writes (JSON, CSV, JSONL, BibTeX). Nothing else, and no link.
* With ``--against``, a published manifest (or a published site: its ``manifest.json``): no published
  value lost, none changed while everything that keys it stayed (:mod:`vlc_leaderboard.manifest_rules`).
  Given a published site, every frozen release it holds must be in the new site unchanged, byte for
  byte; those files keep the static assets they were frozen with.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

from vlc_leaderboard.manifest_rules import FILE, read_manifest, read_manifest_file, refusals
from vlc_leaderboard.site_policy import CSP, DATA_NAMES, STATIC, data_header

LISTED = 20
REFUSED = 9
"""The exit status of a refused site: ``ExitCode.SITE_REFUSED`` (this module imports nothing of the harness)."""
RESOURCE_ATTRS = {"src", "srcset", "poster", "data", "action", "formaction", "background", "manifest", "ping"}
"""Attributes whose URL a browser fetches (or posts to) by itself."""
HREF_LOADS = {"link", "image", "use", "feimage", "script"}
"""Elements whose ``href`` (or ``xlink:href``) is fetched, not followed."""
FORBIDDEN = {"style", "base", "iframe", "frame", "frameset", "object", "embed", "applet", "portal"}
LOADING = {"script", "link", "img", "image", "style", "iframe", "object", "embed", "source", "video", "audio", "use"}
BAD_SCHEMES = ("javascript:", "data:", "vbscript:")
DATA_SCRIPT = re.compile(r"window\.(\w+) = (.*);", re.S)
KEYED_SCRIPT = re.compile(r"window\.(\w+) = window\.\1 \|\| \{\};\nwindow\.\1\[(\"(?:[^\"\\]|\\.)*\")\] = (.*);", re.S)
DATA_FILES = {".json", ".csv", ".jsonl", ".bib"}


class _Page(HTMLParser):
    """Collects what one page breaks of the policy."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.csps: list[str] = []
        self.loaded_before_csp = False
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k.lower(): v or "" for k, v in attrs}
        if tag == "meta" and values.get("http-equiv", "").lower() == "content-security-policy":
            self.csps.append(values.get("content", ""))
            if self.loaded_before_csp:
                self.problems.append("an element that loads something comes before the CSP")
        elif tag == "meta" and values.get("http-equiv", "").lower() == "refresh":
            self.problems.append("a refresh <meta>")
        if tag in LOADING and not self.csps:
            self.loaded_before_csp = True
        if tag in FORBIDDEN:
            self.problems.append(f"{'an' if tag[0] in 'aeiou' else 'a'} <{tag}> element")
        if tag == "script":
            self.in_script = True
            if not values.get("src"):
                self.problems.append("an inline <script> (no src)")
        for name, value in values.items():
            self._attribute(tag, name, value)

    def _attribute(self, tag: str, name: str, value: str) -> None:
        if name.startswith("on"):
            self.problems.append(f"an inline event handler ({name} on <{tag}>)")
        elif name == "style":
            self.problems.append(f"a style attribute (on <{tag}>)")
        elif name in RESOURCE_ATTRS or (name in ("href", "xlink:href") and tag in HREF_LOADS):
            for url in value.split(",") if name == "srcset" else [value]:
                url = url.strip().split(" ")[0]
                if url and not _local(url):
                    self.problems.append(f"a source on another host or scheme ({name}={url[:80]!r} on <{tag}>)")
        elif name in ("href", "xlink:href") and value.strip().lower().startswith(BAD_SCHEMES):
            self.problems.append(f"a {value.strip()[:11]!r} link (on <{tag}>)")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag == "script":
            self.in_script = False

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script and data.strip():
            self.problems.append("an inline <script> (code between its tags)")


def _local(url: str) -> bool:
    """A relative path on this site: no scheme, no host, not from the root (a page opens from file:// too)."""
    return not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url) and not url.startswith(("/", "\\"))


def check_page(text: str) -> list[str]:
    """What a page breaks of the policy (empty: nothing)."""
    page = _Page()
    page.feed(text)
    page.close()
    problems = list(dict.fromkeys(page.problems))
    if len(page.csps) != 1:
        problems.insert(0, f"{len(page.csps)} Content-Security-Policy <meta> elements, not one")
    elif page.csps[0] != CSP:
        problems.insert(0, f"a Content-Security-Policy other than the board's: {page.csps[0][:200]!r}")
    return problems


def check_data_script(text: str) -> str | None:
    """Why a page data script is not one (``None``: it is): the header, then an assignment of JSON."""
    header, _, body = text.partition("\n")
    match = KEYED_SCRIPT.fullmatch(body.rstrip("\n")) or DATA_SCRIPT.fullmatch(body.rstrip("\n"))
    if match is None or match.group(1) not in DATA_NAMES or header != data_header(match.group(1)):
        return "not a page data script (its header, then window.NAME = JSON;)"
    try:
        for part in match.groups()[1:]:
            json.loads(part)
    except ValueError:
        return "page data that is not JSON"
    return None


def check_files(site: Path, carried: set[Path]) -> list[str]:
    """One line per file that is not one render writes as it writes it (``carried``: files of frozen releases
    that the published site holds byte for byte, which keep the static assets they were frozen with)."""
    out = []
    static = {p.name: p.read_bytes() for p in STATIC.iterdir() if p.is_file()}
    for path in sorted(site.rglob("*")):
        rel = path.relative_to(site)
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            out.append(f"{rel}: a link or special file")
            continue
        if path.is_dir():
            continue
        data = path.read_bytes()
        why = _file_problem(rel, data, static, rel in carried)
        if why:
            out.append(f"{rel}: {why}")
    return out


def _file_problem(rel: Path, data: bytes, static: dict[str, bytes], carried: bool) -> str | None:
    parts = rel.parts[2:] if rel.parts[:1] == ("releases",) else rel.parts
    if rel.suffix == ".html":
        try:
            problems = check_page(data.decode("utf-8"))
        except UnicodeDecodeError:
            return "a page that is not UTF-8"
        return "; ".join(problems[:5]) or None
    if parts[:1] == ("static",) and len(parts) == 2:
        known = carried or (parts[1] in static and data == static[parts[1]])
        return None if known else "not the board's own static file"
    if rel.suffix == ".js":
        if parts[:1] != ("data",):
            return "a script that is not the board's own nor page data"
        try:
            return check_data_script(data.decode("utf-8"))
        except UnicodeDecodeError:
            return "page data that is not UTF-8"
    if rel.suffix == ".png":
        return (
            None if parts[:2] == ("data", "instances") and data.startswith(b"\x89PNG\r\n\x1a\n") else "not a thumbnail"
        )
    if rel.name.endswith(".jsonl.gz"):
        gzipped = parts[:2] == ("downloads", "scores") and data.startswith(b"\x1f\x8b")
        return None if gzipped else "not a scores download"
    return None if rel.suffix in DATA_FILES else "a kind of file render never writes"


def verify(site: Path, against: Path | None = None) -> list[str]:
    """Every problem of ``site`` (empty: it may be deployed); ``against``: the published manifest or site."""
    if not (site / FILE).is_file():
        return [f"{site} holds no {FILE}: not a rendered site"]
    carried: set[Path] = set()
    problems = []
    if against is not None and against.is_dir():
        released, lost = _releases(site, against)
        carried, problems = released, lost
    problems += check_files(site, carried)
    if against is not None:
        try:
            published = read_manifest(against) if against.is_dir() else read_manifest_file(against)
            new = read_manifest(site)
        except ValueError as exc:
            return problems + [str(exc)]
        if published is None:
            problems.append(f"{against} holds no {FILE} to check against")
        else:
            problems += [r.line() for r in refusals(published, new or {})]
    return problems


def _releases(site: Path, published: Path) -> tuple[set[Path], list[str]]:
    """The published site's release files the new site holds byte for byte, and one line per one it lost or changed."""
    kept, problems = set(), []
    folder = published / "releases"
    for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
        if not path.is_file():
            continue
        rel = path.relative_to(published)
        copy = site / rel
        if not copy.is_file() or copy.is_symlink() or copy.read_bytes() != path.read_bytes():
            problems.append(f"{rel}: a frozen release's file {'changed' if copy.exists() else 'lost'}")
        else:
            kept.add(rel)
    return kept, problems


def main(argv: list[str] | None = None) -> int:
    """``python -m vlc_leaderboard.verify_site SITE [--against PUBLISHED]``: exit 0, or 9 naming each problem."""
    parser = argparse.ArgumentParser(prog="python -m vlc_leaderboard.verify_site", description=__doc__.split("\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--against", type=Path, default=None, help="the published manifest.json, or site folder")
    args = parser.parse_args(argv)
    return report(args.site, args.against)


def report(site: Path, against: Path | None) -> int:
    """Verify ``site`` and say so on stdout, or name its problems on stderr; the exit status."""
    problems = verify(site, against)
    if not problems:
        pages = sum(1 for _ in site.rglob("*.html"))
        checked = f", checked against {against}" if against is not None else ""
        print(f"{site}: verified ({pages} pages{checked})")
        return 0
    shown = problems[:LISTED] + ([f"... and {len(problems) - LISTED} more"] if len(problems) > LISTED else [])
    print(f"{site} is refused ({len(problems)} problems):", file=sys.stderr)
    print("\n".join(f"  {line}" for line in shown), file=sys.stderr)
    return REFUSED


if __name__ == "__main__":
    sys.exit(main())
