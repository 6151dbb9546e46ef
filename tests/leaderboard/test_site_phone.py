"""The phone first (issue 41, item 3): at 390 px no text is clipped on any page type of the demo board
(:data:`PAGES`: the index, every benchmark and model page, compare with three models and its instance
browser opened by a permalink), measured as the browser lays it out, with every ``<details>`` opened:
an element whose content is wider than its box (scrollWidth > clientWidth) while it hides the
overflow, a scrolled region that hides columns, a page wider than the screen, or a word broken across
two lines although it fits on one ("I2T accur acy"). The check itself is shown to find each kind on a
planted page (:func:`test_the_check_finds_a_planted_clip`). Opened "?" popovers stay inside the
viewport and their cell (issue 41, item 4; the index's are also checked on the wide board by
tests/leaderboard/test_site_stranger.py). The wide board's long and hostile model names break rather
than widen the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.leaderboard.test_site_layout import PHONE, _errors, _open, browser  # noqa: F401 (fixture)

CLIPPED = """
// the page's width against the screen's (a phone widens its layout viewport, innerWidth, to a page too wide)
const out = {page: [document.documentElement.scrollWidth, screen.width], clipped: [], hidden: [], broken: []};
const main = document.querySelector('main');
for (const el of main.querySelectorAll('*')) {
  const style = getComputedStyle(el);
  if (style.display === 'none' || style.visibility === 'hidden' || !el.getClientRects().length) continue;
  if (el.classList.contains('vh')) continue;  // visually hidden on purpose: read by screen readers
  const hides = ['hidden', 'clip'].includes(style.overflowX) || style.textOverflow === 'ellipsis';
  if (hides && el.scrollWidth > el.clientWidth + 1 && el.textContent.trim())
    out.clipped.push([el.tagName, el.className, el.textContent.trim().slice(0, 40), el.scrollWidth, el.clientWidth]);
  if (['auto', 'scroll'].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1)
    out.hidden.push([el.tagName, el.className, el.id, el.scrollWidth, el.clientWidth]);
}
// a word broken across two lines although it is narrower than the page's text column less a card's and a
// block's padding (squeezed by its box, not too long for a phone), elsewhere than after a hyphen, dash or slash
const line = main.clientWidth - parseFloat(getComputedStyle(main).paddingLeft) * 2 - 48;
const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
const rectsOf = (node, start, end) => {
  const range = document.createRange();
  range.setStart(node, start);
  range.setEnd(node, end);
  return Array.from(range.getClientRects()).filter(r => r.width > 0);
};
const lines = rects => rects.length && Math.max(...rects.map(r => r.top)) - Math.min(...rects.map(r => r.top)) > 2;
const piece = /[^\\-\\u2013\\u2014\\/]+[\\-\\u2013\\u2014\\/]*|[\\-\\u2013\\u2014\\/]+/g;  // up to a break
while (walker.nextNode()) {
  const node = walker.currentNode, parent = node.parentElement;
  if (!parent || parent.closest('.vh, svg') || !parent.getClientRects().length) continue;
  for (const word of node.data.matchAll(/\\S{2,}/g)) {
    const rects = rectsOf(node, word.index, word.index + word[0].length);
    if (!lines(rects) || rects.reduce((sum, r) => sum + r.width, 0) >= line) continue;
    const pieces = Array.from(word[0].matchAll(piece));
    if (pieces.some(p => lines(rectsOf(node, word.index + p.index, word.index + p.index + p[0].length))))
      out.broken.push([parent.tagName, parent.className, word[0], rects.map(r => Math.round(r.width))]);
  }
}
return out;
"""

THREE = "a=model-07&b=model-01&c=model-03"
PAGES = {
    "index": ["index.html"],
    "benchmark": ["benchmarks/*.html"],
    "model": ["models/*.html"],
    "compare": [f"compare.html#{THREE}"],
    "instances": [f"compare.html#{THREE}&bench=bivlc&show=ab", f"compare.html#{THREE}&bench=sugarcrepe&show=any"],
}
"""Every page type, by its files in the demo site (a glob: each of them) and its permalink."""

READY = """
const path = location.pathname;
if (!path.endsWith('/compare.html')) return true;
if (!document.querySelector('#compare-tables table')) return false;  // compare.js fills the tables
const bench = new URLSearchParams(location.hash.slice(1)).get('bench');
return !bench || !!document.querySelector('#browse-list li.instance');  // instances.js draws a permalink's list
"""
OPEN_ALL = "document.querySelectorAll('main details').forEach(d => { d.open = true; }); return true;"


def _urls(site: Path, kind: str) -> list[str]:
    urls = []
    for page in PAGES[kind]:
        path, _, fragment = page.partition("#")
        files = sorted(site.glob(path))
        assert files, page
        urls += [f.as_uri() + (f"#{fragment}" if fragment else "") for f in files]
    return urls


def _load(driver: Any, url: str) -> None:
    """Open ``url`` at 390 px, wait for its scripts' tables and instances, and open every ``<details>``."""
    from selenium.webdriver.support.ui import WebDriverWait

    _open(driver, url, PHONE)
    WebDriverWait(driver, 10).until(lambda d: d.execute_script(READY))
    driver.execute_script(OPEN_ALL)


@pytest.mark.parametrize("kind", list(PAGES))
def test_nothing_is_clipped_at_390_px(demo: dict[str, Any], browser, kind: str):  # noqa: F811
    for url in _urls(demo["site"], kind):
        _load(browser, url)
        seen = browser.execute_script(CLIPPED)
        assert seen["page"][0] <= seen["page"][1], (url, seen)  # nothing overflows the screen sideways
        assert not seen["clipped"], (url, seen["clipped"])  # no text cut by its box
        assert not seen["hidden"], (url, seen["hidden"])  # no table hiding columns behind a horizontal scroll
        assert not seen["broken"], (url, seen["broken"])  # no label broken mid-word
        assert not _errors(browser), url


def test_long_and_hostile_names_break_rather_than_widen_the_page(wide_site: Path, browser):  # noqa: F811
    """The wide board's long and hostile model names (one word of 30 characters in a heading) on their
    model pages and in compare, at 390 px: the words break, the page stays as wide as the screen."""
    urls = [(wide_site / "models" / f"model-0{k}.html").as_uri() for k in (1, 2)]
    urls.append((wide_site / "compare.html").as_uri() + "#a=model-01&b=model-02&c=model-06")
    for url in urls:
        _load(browser, url)
        seen = browser.execute_script(CLIPPED)
        assert seen["page"][0] <= seen["page"][1], (url, seen)
        assert not (seen["clipped"] or seen["hidden"] or seen["broken"]), (url, seen)


PLANT = """
const main = document.querySelector('main');
const add = (parent, tag, text, style) => {  // styled through the CSSOM: the page's CSP refuses style attributes
  const node = parent.appendChild(document.createElement(tag));
  node.textContent = text || '';
  Object.assign(node.style, style);
  return node;
};
const box = main.insertBefore(document.createElement('div'), main.firstChild);
add(box, 'div', '86.2 #3 80.1–90.0', {width: '60px', overflow: 'hidden', whiteSpace: 'nowrap'});
const scroll = add(box, 'div', '', {overflowX: 'auto'});
add(add(add(scroll, 'table'), 'tr'), 'td', 'wide', {minWidth: '900px'});
const narrow = add(box, 'table', '', {width: '64px', tableLayout: 'fixed'});
add(add(narrow, 'tr'), 'th', 'I2T accuracy', {whiteSpace: 'normal', overflowWrap: 'anywhere'});
return box;
"""


def test_the_check_finds_a_planted_clip(demo: dict[str, Any], browser):  # noqa: F811
    """The check is not blind: a clipped value, a table scrolled sideways and a header squeezed to break
    mid-word, planted into the index at 390 px, are each found (and a page made wider than the screen)."""
    _load(browser, (demo["site"] / "index.html").as_uri())
    assert not any(browser.execute_script(CLIPPED)[k] for k in ("clipped", "hidden", "broken"))
    box = browser.execute_script(PLANT)
    seen = browser.execute_script(CLIPPED)
    assert [c[2] for c in seen["clipped"]] == ["86.2 #3 80.1–90.0"], seen
    assert [h[0] for h in seen["hidden"]] == ["DIV"], seen
    assert {b[2] for b in seen["broken"]} == {"accuracy"}, seen
    browser.execute_script("arguments[0].style.width = '500px'", box)
    seen = browser.execute_script(CLIPPED)
    assert seen["page"][0] > seen["page"][1], seen


POPOVERS = """
return Array.from(document.querySelectorAll('main details.why')).filter(d => d.getClientRects().length).map(d => {
  const text = d.querySelector('.why-text').getBoundingClientRect();
  const cell = d.closest('td, th, li, p').getBoundingClientRect();
  return [d.closest('tr') ? d.closest('tr').textContent.trim().slice(0, 30) : '', text.left, text.right, cell.left,
          cell.right, window.innerWidth];
});
"""


@pytest.mark.parametrize("kind", ["index", "benchmark", "model"])
def test_opened_popovers_stay_inside_the_viewport_and_their_cell(demo: dict[str, Any], browser, kind: str):  # noqa: F811
    found = 0
    for url in _urls(demo["site"], kind):
        _load(browser, url)
        for name, left, right, cell_left, cell_right, width in browser.execute_script(POPOVERS):
            found += 1
            assert 0 <= left and right <= width, (url, name, left, right, width)
            assert cell_left - 1 <= left and right <= cell_right + 1, (url, name, left, right, cell_left, cell_right)
    if kind != "model":  # the demo's failed and unavailable cells (index), its cells without an interval (benchmarks)
        assert found, kind
