"""The leaderboard site's layout and accessibility, in real Chromium: the sticky header and frozen
model column, keyboard sorting, permalinks, the phone layout, WCAG AA contrast computed from the
CSS, tap targets, the strict Content-Security-Policy under file:// and http://, and the static
guarantees (labels, ``scope``, captions, nothing inline).

The board is synthetic but wide (the render benchmark's cells: 10 benchmarks, every metric family,
one lower-is-better column), with a hostile and a long model name.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import threading
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.leaderboard.test_site import _chromium

HOSTILE = '<img src=x onerror="window.__pwned=1">Evil & "co"'
LONG = "A rather long model name ViT-L/14@336px (LAION-2B)"
N_MODELS = 24
BRITTLENESS = "hard_positives.brittleness"
SUGARCREPE = "sugarcrepe.i2t_accuracy_macro"
DESKTOP = (1400, 900)
PHONE = (390, 844)


@pytest.fixture(scope="module")
def wide_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bench.render_speed import synthetic_cells
    from vlc_harness.params import build
    from vlc_harness.plugins import get_plugins
    from vlc_leaderboard.board import build_board
    from vlc_leaderboard.site import render_site

    tmp = tmp_path_factory.mktemp("wide")
    registry, cells = synthetic_cells(N_MODELS, tmp / "work", samples=20)
    registry.models["model-01"].meta["display_name"] = HOSTILE
    registry.models["model-02"].meta["display_name"] = LONG
    registry.models["model-03"].meta["verified"] = False
    plugins = get_plugins()
    blind = registry.models["model-06"]  # an image-blind row, with its own background
    registry.models["model-06"] = dataclasses.replace(
        blind, type="blind_harper", params=build(plugins.models.get("blind_harper").cls.Params, {})
    )
    for i, cell in enumerate(cells):  # cells that show a status instead of numbers
        if (cell.model_id, cell.benchmark_id) == ("model-04", "sugarcrepe"):
            cells[i] = dataclasses.replace(cell, status="failed", complete=False, metrics=[], error="worker died")
        if (cell.model_id, cell.benchmark_id) == ("model-05", "bivlc"):
            cells[i] = dataclasses.replace(cell, status="unavailable", complete=False, metrics=[], error="no weights")
    board = build_board(cells, registry, plugins)
    kinds = {row.id: row.kind for row in board.rows}
    assert kinds["model-00"] == "baseline" and kinds["model-06"] == "blind" and kinds["model-07"] == "model"
    render_site(board, tmp / "site", {"harness_version": "test", "git_sha": ""}, runs={1: {}})
    return tmp / "site"


@pytest.fixture(scope="module")
def browser():
    driver = _chromium()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def http_root(wide_site: Path):
    """The site served over HTTP on a free local port (what a static host does)."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(wide_site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _viewport(driver, size: tuple[int, int], dark: bool = False) -> None:
    width, height = size
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    scheme = [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": scheme})


def _open(driver, url: str, size: tuple[int, int] = DESKTOP, dark: bool = False) -> None:
    _viewport(driver, size, dark)
    driver.get("about:blank")
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get_log("performance")
    driver.get(url)
    _ready(driver)


def _ready(driver) -> None:
    """Wait until board.js has run on the index (it fills the status line); other pages are ready."""
    from selenium.webdriver.support.ui import WebDriverWait

    script = "const s = document.getElementById('status'); return !s || s.textContent !== ''"
    try:
        WebDriverWait(driver, 10).until(lambda d: d.execute_script(script))
    except Exception as exc:
        raise AssertionError(f"board.js did not run on {driver.current_url}: {driver.get_log('browser')}") from exc


def _names(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#models tr')).filter(r => !r.hidden)"
        ".map(r => r.getAttribute('data-name'))"
    )


def _values(driver, key: str) -> list[float | None]:
    """The visible model rows' values in a column, in display order (None: no value)."""
    return driver.execute_script(
        """const key = arguments[0];
        const index = vlcBoard.columns.findIndex(c => c.key === key);
        return Array.from(document.querySelectorAll('#models tr')).filter(r => !r.hidden).map(r => {
          const v = r.cells[index].getAttribute('data-value');
          return v === null || v === '' ? null : parseFloat(v);
        });""",
        key,
    )


def _press(driver, key: str, keys: str) -> None:
    button = driver.find_element("css selector", f'th[data-col="{key}"] button')
    driver.execute_script("arguments[0].focus()", button)
    button.send_keys(keys)


def _aria_sort(driver) -> dict[str, str]:
    return driver.execute_script(
        "return Object.fromEntries(Array.from(document.querySelectorAll('thead th[aria-sort]'))"
        ".map(th => [th.getAttribute('data-col'), th.getAttribute('aria-sort')]))"
    )


def _errors(driver) -> list[dict[str, Any]]:
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


# ---- the wide table on a desktop ----


def test_sticky_header_and_frozen_model_column_while_scrolling(wide_site, browser):
    _open(browser, (wide_site / "index.html").as_uri())
    geometry = browser.execute_script(
        """const wrap = document.getElementById('board-wrap');
        const table = document.getElementById('board');
        wrap.scrollIntoView();
        const before = wrap.getBoundingClientRect();
        return {wrapRight: before.right, tableWidth: table.getBoundingClientRect().width,
                wrapWidth: wrap.clientWidth, wrapHeight: wrap.clientHeight, page: document.documentElement.scrollWidth,
                viewport: window.innerWidth, canScrollDown: wrap.scrollHeight > wrap.clientHeight};"""
    )
    # the page never overflows: the table scrolls inside its own box, which fits the window
    assert geometry["page"] <= geometry["viewport"] and geometry["wrapRight"] <= geometry["viewport"]
    assert geometry["tableWidth"] > geometry["wrapWidth"] + 200, geometry  # there is something to scroll sideways
    assert geometry["canScrollDown"], geometry
    seen = browser.execute_script(
        """const wrap = document.getElementById('board-wrap');
        wrap.scrollTop = 400; wrap.scrollLeft = wrap.scrollWidth;
        const box = wrap.getBoundingClientRect();
        const inner = {left: box.left + wrap.clientLeft, top: box.top + wrap.clientTop};
        const header = document.querySelector('th[data-col="winoground.text_score"]').getBoundingClientRect();
        const group = document.querySelector('th.group[data-cols^="winoground."]').getBoundingClientRect();
        const at = (x, y) => document.elementFromPoint(x, y);
        const within = (el, selector) => !!(el && el.closest(selector));
        // the first model row whose middle is visible below the header
        const rows = Array.from(document.querySelectorAll('#models tr'));
        const headerBottom = header.bottom;
        const row = rows.find(r => {
          const b = r.getBoundingClientRect();
          return (b.top + b.bottom) / 2 > headerBottom + 2;
        });
        const name = row.querySelector('th.model').getBoundingClientRect();
        const middle = (name.top + name.bottom) / 2;
        return {
          scrolled: [wrap.scrollTop, wrap.scrollLeft],
          headerTop: document.querySelector('thead th.model').getBoundingClientRect().top - inner.top,
          columnsTop: header.top - group.bottom,
          groupTop: group.top - inner.top,
          nameLeft: name.left - inner.left,
          cornerIsModelHeader: within(at(inner.left + 8, inner.top + 8), 'thead th.model'),
          headerOnTop: within(at(header.left + 6, header.top + 6), 'thead'),
          nameOnTop: within(at(inner.left + 8, middle), '#models th.model'),
          rowName: row.getAttribute('data-name'),
          rowIndex: rows.indexOf(row),
        };"""
    )
    assert seen["scrolled"][0] >= 300 and seen["scrolled"][1] >= 300, seen  # it really scrolled both ways
    assert abs(seen["headerTop"]) <= 1 and abs(seen["groupTop"]) <= 1, seen  # the header stuck to the top
    assert abs(seen["columnsTop"]) <= 1, seen  # the second header row sits right below the first
    assert abs(seen["nameLeft"]) <= 1, seen  # the model column stuck to the left
    assert seen["rowIndex"] > 0, seen  # rows scrolled under the header
    # and they are painted above the cells scrolled under them
    assert seen["cornerIsModelHeader"] and seen["headerOnTop"] and seen["nameOnTop"], seen


def test_sorting_with_the_keyboard_sets_aria_sort_and_reverses(wide_site, browser):
    _open(browser, (wide_site / "index.html").as_uri())
    assert _aria_sort(browser) == {}
    # a lower-is-better column sorts best (lowest) first on Space, and reverses on Enter
    _press(browser, BRITTLENESS, " ")
    assert _aria_sort(browser) == {BRITTLENESS: "ascending"}
    values = [v for v in _values(browser, BRITTLENESS) if v is not None]
    assert values == sorted(values) and len(set(values)) > 1
    _press(browser, BRITTLENESS, "\ue007")  # Enter
    assert _aria_sort(browser) == {BRITTLENESS: "descending"}
    assert [v for v in _values(browser, BRITTLENESS) if v is not None] == sorted(values, reverse=True)
    _press(browser, BRITTLENESS, " ")
    assert _aria_sort(browser) == {BRITTLENESS: "ascending"}
    # a higher-is-better column sorts highest first
    _press(browser, SUGARCREPE, " ")
    assert _aria_sort(browser) == {SUGARCREPE: "descending"}
    values = _values(browser, SUGARCREPE)
    known = [v for v in values if v is not None]
    assert values == sorted(known, reverse=True) + [None]  # the failed cell has no value: last, either way
    _press(browser, SUGARCREPE, " ")
    assert _values(browser, SUGARCREPE) == sorted(known) + [None]
    # text sorts A to Z first
    _press(browser, "model", " ")
    assert _aria_sort(browser) == {"model": "ascending"}
    plain = [n for n in _names(browser) if n.startswith("model-")]
    assert plain == sorted(plain)
    assert "sorted by Model, A to Z" in browser.find_element("id", "status").text
    # every control has a label, those built by the script included
    browser.find_element("css selector", "#chooser summary").click()
    unlabelled = browser.execute_script(
        "return Array.from(document.querySelectorAll('input, select, textarea'))"
        ".filter(el => !(el.labels.length === 1 && el.labels[0].textContent.trim())).map(el => el.outerHTML)"
    )
    assert not unlabelled
    # the phone's sort control follows, and drives the same state
    assert browser.execute_script(
        "return [document.getElementById('f-sort').value, document.getElementById('f-dir').value]"
    ) == [
        "model",
        "asc",
    ]
    assert not _errors(browser)


def test_permalinks_restore_sort_filters_and_columns(wide_site, browser, http_root):
    for base in ((wide_site / "index.html").as_uri(), f"{http_root}/index.html"):
        _open(browser, base)
        _press(browser, BRITTLENESS, " ")
        _press(browser, BRITTLENESS, " ")  # reversed: worst first
        browser.find_element("id", "f-pmin").send_keys("40")
        browser.find_element("id", "f-text").send_keys("model-")
        browser.find_element("css selector", "#chooser summary").click()
        browser.find_element("css selector", '#chooser-body input[value="family"]').click()  # hidden by default
        browser.find_element("css selector", '#chooser-body input[value="winoground.gap"]').click()
        url = browser.current_url
        assert url.startswith(base + "#") and "sort=hard_positives.brittleness" in url and "dir=desc" in url, url
        view = _view(browser)
        assert view["names"] and all(n.startswith("model-") for n in view["names"])
        assert "family" in view["columns"] and "winoground.gap" not in view["columns"]
        browser.get("about:blank")
        browser.get(url)  # a fresh page from the link alone
        _ready(browser)
        assert _view(browser) == view
        assert _aria_sort(browser) == {BRITTLENESS: "descending"}
        assert browser.find_element("id", "f-pmin").get_attribute("value") == "40"
        assert browser.find_element("id", "f-text").get_attribute("value") == "model-"
        # back to the defaults: the address loses its state
        browser.find_element("id", "f-clear").click()
        browser.find_element("css selector", "#chooser summary").click()
        browser.find_element("xpath", "//div[@id='chooser-body']//button[text()='Default columns']").click()
        _press(browser, "model", " ")
        assert "q=" not in browser.current_url and "cols=" not in browser.current_url
        assert not _errors(browser)


def _view(driver) -> dict[str, Any]:
    return driver.execute_script(
        """return {
          names: Array.from(document.querySelectorAll('#models tr')).filter(r => !r.hidden)
            .map(r => r.getAttribute('data-name')),
          columns: Array.from(document.querySelectorAll('thead th[data-col]')).filter(th => !th.hidden)
            .map(th => th.getAttribute('data-col')),
          cells: Array.from(document.querySelectorAll('#models tr:not([hidden]) > :not([hidden])')).length,
          groups: Array.from(document.querySelectorAll('thead th[data-cols]')).map(th => [th.hidden, th.colSpan]),
          chooser: Array.from(document.querySelectorAll('#chooser-body input')).map(i => i.checked),
        };"""
    )


def test_an_empty_filter_result_says_so(wide_site, browser):
    _open(browser, (wide_site / "index.html").as_uri())
    empty = browser.find_element("id", "empty")
    assert not empty.is_displayed()
    browser.find_element("id", "f-text").send_keys("no such model")
    assert empty.is_displayed() and "No model matches" in empty.text
    assert browser.find_element("id", "status").text.startswith(f"Showing 0 of {N_MODELS} models")
    browser.find_element("id", "f-clear-empty").click()
    assert not empty.is_displayed() and len(_names(browser)) == N_MODELS
    assert browser.execute_script("return document.activeElement.id") == "f-text"


def test_hostile_names_stay_text(wide_site, browser):
    _open(browser, (wide_site / "index.html").as_uri())
    assert HOSTILE in _names(browser)
    assert browser.execute_script("return window.__pwned === undefined && !document.querySelector('img')")
    browser.find_element("css selector", "#chooser summary").click()  # built from data/index.js with textContent
    assert browser.execute_script("return window.__pwned === undefined && !document.querySelector('img')")
    assert not _errors(browser)


# ---- the phone layout ----


def test_phone_layout_shows_cards_with_a_score_on_the_first_screen(wide_site, browser):
    _open(browser, (wide_site / "index.html").as_uri(), PHONE)
    seen = browser.execute_script(
        """const row = document.querySelector('#models tr');
        const score = row.querySelector('td.score');
        const box = score.getBoundingClientRect();
        return {
          page: document.documentElement.scrollWidth, viewport: window.innerWidth, height: window.innerHeight,
          scoreBottom: box.bottom, scoreText: score.textContent.trim(),
          label: getComputedStyle(score, '::before').content,
          thead: getComputedStyle(document.querySelector('#board thead')).display,
          cardWidth: row.getBoundingClientRect().width,
          firstIsModel: box.top < document.querySelector('tr.kind-human').getBoundingClientRect().top,
        };"""
    )
    assert seen["page"] <= seen["viewport"], seen  # nothing overflows sideways
    assert seen["thead"] == "none" and seen["cardWidth"] <= seen["viewport"], seen
    assert seen["scoreBottom"] <= seen["height"] and seen["scoreText"], seen  # a score on the first screen
    assert seen["label"] == '"SugarCrepe · I2T accuracy"', seen  # each value names its benchmark and metric
    assert seen["firstIsModel"], seen
    # sorting still works on a phone, through the labelled controls
    browser.execute_script(
        "const s = document.getElementById('f-sort'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
        BRITTLENESS,
    )
    values = [v for v in _values(browser, BRITTLENESS) if v is not None]
    assert values == sorted(values)
    assert not _errors(browser)


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_page_overflows_sideways(wide_site, browser, size):
    for page in _pages(wide_site):
        _open(browser, page.as_uri(), size)
        width = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], (page.name, size, width)


TARGETS = """
const out = [];
for (const el of document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')) {
  if (el.closest('[hidden]') || el.disabled) continue;
  const style = getComputedStyle(el);
  if (style.visibility === 'hidden' || style.display === 'none' || !el.getClientRects().length) continue;
  const box = el.getBoundingClientRect();
  if (box.right <= 0 || box.bottom <= 0 || box.left >= window.innerWidth) continue;  // off-screen (the skip link)
  const name = el.id || el.textContent.trim().slice(0, 30);
  if (box.width < 24 || box.height < 24) out.push([el.tagName, name, box.width, box.height]);
}
return out;
"""


def test_tap_targets_are_at_least_24_px_on_a_phone(wide_site, browser):
    for page in _pages(wide_site):
        _open(browser, page.as_uri(), PHONE)
        browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
        small = browser.execute_script(TARGETS)
        assert not small, (page.name, small)


# ---- contrast, font sizes, dark mode ----


CONTRAST = """
const parse = c => {
  const m = c.match(/rgba?\\(([^)]+)\\)/);
  if (!m) return null;
  const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(parseFloat);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
};
const over = (top, bottom) => [0, 1, 2].map(i => top[i] * top[3] + bottom[i] * (1 - top[3])).concat([1]);
const background = el => {
  const layers = [];
  for (let e = el; e; e = e.parentElement) {
    const c = parse(getComputedStyle(e).backgroundColor);
    if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
  }
  let color = matchMedia('(prefers-color-scheme: dark)').matches ? [18, 18, 18, 1] : [255, 255, 255, 1];
  for (let i = layers.length - 1; i >= 0; i--) color = over(layers[i], color);
  return color;
};
const luminance = c => {
  const [r, g, b] = c.slice(0, 3).map(v => {
    v /= 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const ratio = (a, b) => {
  const x = luminance(a), y = luminance(b);
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
};
const shown = el => {
  if (el.closest('[hidden], title, script, style, option, optgroup, .vh') || el.disabled) return false;
  const s = getComputedStyle(el);
  if (s.display === 'none' || s.visibility === 'hidden' || !el.getClientRects().length) return false;
  const b = el.getBoundingClientRect();
  return b.width > 1 && b.height > 1;
};
const failures = [], small = [];
let checked = 0;
const check = (el, fg, what, large) => {
  const bg = background(el);
  const need = large ? 3 : 4.5;
  const r = ratio(over(fg, bg), bg);
  checked++;
  if (r < need) failures.push([what, el.tagName, el.className && el.className.baseVal === undefined ? el.className : '',
                               (el.textContent || '').trim().slice(0, 40), Math.round(r * 100) / 100, need]);
};
for (const el of document.querySelectorAll('body *')) {
  if (!shown(el)) continue;
  const s = getComputedStyle(el);
  const size = parseFloat(s.fontSize), bold = parseInt(s.fontWeight) >= 700;
  const large = size >= 24 || (size >= 18.66 && bold);
  const inSvg = el.closest('svg');
  const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
  const control = ['INPUT', 'SELECT', 'BUTTON'].includes(el.tagName) && el.type !== 'checkbox';
  if (inSvg && el.tagName.toLowerCase() !== 'text') {
    if (['rect', 'circle'].includes(el.tagName.toLowerCase()) && s.fill !== 'none' && !el.classList.contains('frame')) {
      // graphics: 3:1 against the chart's background (WCAG 1.4.11)
      const fill = parse(s.fill);
      if (fill) {
        const r = ratio(fill, background(inSvg));
        if (r < 3) failures.push(['graphic', el.tagName, el.getAttribute('class'), '', r, 3]);
      }
    }
    continue;
  }
  if (own || control) {
    if (size < 12) small.push([el.tagName, (el.textContent || '').trim().slice(0, 30), size]);
    const color = parse(inSvg ? s.fill : s.color);
    if (color) check(el, color, 'text', large);
  }
  if (el.tagName === 'INPUT' && el.placeholder && !el.value) {
    check(el, parse(getComputedStyle(el, '::placeholder').color), 'placeholder', large);
  }
  for (const pseudo of ['::before', '::after']) {
    const p = getComputedStyle(el, pseudo);
    if (p.content && !['none', 'normal', '""'].includes(p.content) && p.display !== 'none') {
      check(el, parse(p.color), pseudo, large);
    }
  }
  if (control || el.tagName === 'SUMMARY' && el.closest('.chooser')) {
    // the boundary of a control: 3:1 against what surrounds it (WCAG 1.4.11)
    const border = parse(s.borderTopColor);
    if (border && parseFloat(s.borderTopWidth) > 0 && !el.classList.contains('sort')) {
      const r = ratio(border, background(el.parentElement));
      if (r < 3) failures.push(['border', el.tagName, el.id, '', r, 3]);
    }
  }
}
return {failures, small, checked, body: getComputedStyle(document.body).backgroundColor};
"""


def _pages(site: Path) -> list[Path]:
    return [site / "index.html", site / "benchmarks" / "bivlc.html", site / "benchmarks" / "hard_positives.html"] + [
        site / "models" / "model-00.html",
        site / "models" / "model-01.html",
    ]


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_text_contrast_meets_wcag_aa_everywhere(wide_site, browser, dark):
    """Contrast computed from the CSS as Chromium resolves it, for every piece of visible text (and
    the borders of controls and chart marks), on every kind of page, in both colour schemes."""
    backgrounds = set()
    for size in (DESKTOP, PHONE):
        for page in _pages(wide_site):
            _open(browser, page.as_uri(), size, dark)
            browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
            result = browser.execute_script(CONTRAST)
            assert result["checked"] > 20, (page.name, result)
            assert not result["failures"], (page.name, size, dark, result["failures"])
            assert not result["small"], (page.name, size, result["small"])  # no text under 12 px
            backgrounds.add(result["body"])
        if size == DESKTOP:
            # the Chance and Human rows, named in the issue, are checked like any other text
            _open(browser, (wide_site / "index.html").as_uri(), size, dark)
            rows = browser.execute_script("return document.querySelectorAll('tr.kind-chance, tr.kind-human').length")
            assert rows == 2
    assert len(backgrounds) == 1
    dark_bg = next(iter(backgrounds))
    assert (dark_bg == "rgb(17, 20, 24)") == dark, dark_bg  # prefers-color-scheme switches the palette


# ---- the Content-Security-Policy, under file:// and http:// ----


@pytest.mark.parametrize("scheme", ["file", "http"])
def test_strict_csp_with_zero_console_errors(wide_site, browser, http_root, scheme):
    pages = _pages(wide_site)
    for page in pages:
        relative = page.relative_to(wide_site).as_posix()
        url = page.as_uri() if scheme == "file" else f"{http_root}/{relative}"
        _open(browser, url)
        browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
        if page.name == "index.html":  # exercise the script: sort, filter, choose columns
            _press(browser, BRITTLENESS, " ")
            browser.find_element("id", "f-text").send_keys("model")
            browser.find_element("css selector", '#chooser-body input[value="open"]').click()
            assert browser.execute_script("return !!window.vlcBoard") and "sort=" in browser.current_url
        assert not _errors(browser), (url, _errors(browser))
        requests, statuses = [], []
        for entry in browser.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                requests.append(message["params"]["request"]["url"])
            elif message["method"] == "Network.responseReceived":
                statuses.append((message["params"]["response"]["url"], message["params"]["response"]["status"]))
        origin = "file://" if scheme == "file" else http_root
        assert requests and all(u.startswith(origin) for u in requests), requests  # nothing leaves the site
        if scheme == "http":
            assert all(status < 400 for _, status in statuses), statuses  # no 404 (a favicon is declared)
        # the policy is enforced: an injected inline script does not run, and says why
        csp = browser.execute_script(
            "return document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]').content"
        )
        assert "script-src 'self'" in csp and "unsafe" not in csp and "default-src 'none'" in csp
        browser.execute_script(
            "const s = document.createElement('script'); s.textContent = 'window.__inline = 1';"
            "document.body.appendChild(s);"
            "const d = document.createElement('div'); d.setAttribute('onclick', 'window.__inline = 2'); d.click();"
        )
        assert browser.execute_script("return window.__inline") is None
        assert any("Content Security Policy" in e["message"] for e in browser.get_log("browser"))
    if scheme == "http":
        import urllib.request

        with urllib.request.urlopen(f"{http_root}/static/favicon.svg") as reply:
            assert reply.status == 200 and reply.headers["Content-Type"] == "image/svg+xml"


# ---- what holds without a browser ----


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.inline_scripts = 0
        self._script: str | None = None
        self.labels: list[dict[str, str | None]] = []
        self.label_text: dict[int, str] = {}
        self._label: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script = ""
        if tag == "label":
            self.labels.append(dict(attrs))
            self._label = len(self.labels) - 1
            self.label_text[self._label] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            if (self._script or "").strip():
                self.inline_scripts += 1
            self._script = None
        if tag == "label":
            self._label = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script += data
        if self._label is not None:
            self.label_text[self._label] += data


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_pages_have_nothing_inline_and_no_unsafe_links(wide_site):
    pages = [wide_site / "index.html", *wide_site.glob("benchmarks/*.html"), *wide_site.glob("models/*.html")]
    assert len(pages) == 1 + 10 + N_MODELS
    for path in pages:
        page = _parse(path)
        assert page.inline_scripts == 0, path
        for tag, attrs in page.tags:
            assert not [a for a in attrs if a.startswith("on")], (path, tag, attrs)  # no inline handlers
            assert "style" not in attrs, (path, tag, attrs)  # no inline styles either (style-src 'self')
            if tag == "script":
                assert attrs.get("src") and not attrs["src"].startswith(("http:", "https:", "//")), attrs
            if tag == "a":
                assert not (attrs.get("href") or "").strip().lower().startswith("javascript:"), attrs
            if tag == "link" and attrs.get("rel") == "icon":
                assert (path.parent / attrs["href"]).is_file()
        metas = [a for t, a in page.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
        assert len(metas) == 1 and "'unsafe-inline'" not in (metas[0]["content"] or "")
    data = (wide_site / "data" / "index.js").read_text()
    payload = json.loads(data.split("window.vlcBoard = ", 1)[1].rstrip().rstrip(";"))
    assert "<" not in data.split("\n", 1)[1]
    keys = [c["key"] for c in payload["columns"]]
    assert keys[:4] == ["model", "family", "params", "open"] and BRITTLENESS in keys and len(set(keys)) == len(keys)
    brittleness = next(c for c in payload["columns"] if c["key"] == BRITTLENESS)
    assert brittleness["better"] == "lower" and brittleness["title"] == "Brittleness"
    assert brittleness["tooltip"].startswith("brittleness: ")


def test_headers_have_scope_tables_have_captions_and_inputs_have_labels(wide_site):
    for path in _pages(wide_site):
        page = _parse(path)
        ths = [a for t, a in page.tags if t == "th"]
        assert ths and all(a.get("scope") in ("col", "row") for a in ths), path
        tables = sum(t == "table" for t, _ in page.tags)
        assert tables and sum(t == "caption" for t, _ in page.tags) == tables, path
        labelled = {a.get("for") for a in page.labels}
        for tag, attrs in page.tags:
            if tag in ("input", "select", "textarea"):
                assert attrs.get("id") in labelled or attrs.get("aria-label"), (path, tag, attrs)
        for i, attrs in enumerate(page.labels):
            assert page.label_text[i].strip() and attrs.get("for"), (path, attrs)  # one control, named
    index = (wide_site / "index.html").read_text()
    # human-readable titles, the metric id and its definition in the tooltip
    assert 'title="i2t_accuracy_macro: ' in index and ">I2T accuracy<" in index
    assert "i2t accuracy macro" not in index


def test_metric_titles_and_units():
    from vlc_leaderboard.site import metric_diff, metric_title, metric_unit, metric_value

    assert metric_title("i2t_accuracy_macro") == "I2T accuracy"
    assert metric_title("group_score_ties_half") == "Group score (ties broken at random)"
    assert metric_title("t2i_recall_at_5") == "T2I recall at 5"
    assert metric_title("mean_score_positive") == "Mean score positive"
    assert metric_unit("mean_score_positive") == "score" and metric_unit("coverage") == "percent"
    assert metric_value(0.25, "group_score") == "25.0" and metric_value(0.25, "mean_score_negative") == "0.250"
    assert metric_diff(-0.0125, "group_score") == "-1.25" and metric_value(None, "group_score") == ""
