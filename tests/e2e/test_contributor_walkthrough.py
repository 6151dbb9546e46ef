"""A new contributor's walk-through, end to end: scaffold a model plugin, `pip install -e` it, run
conformance, run it on a small shapes benchmark next to an ad-hoc run, render, and find the model
on the board with its description and no ad-hoc row.

Prints the wall time of each step and the lines the contributor wrote (`-s` shows them).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import yaml

DESCRIPTION = "Colour statistics against hashed words: a toy that shows the plumbing."


def step(timings: dict[str, float], name: str, argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    start = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, timeout=900, cwd=cwd, env=env)
    timings[name] = time.perf_counter() - start
    assert out.returncode == 0, f"{name}: {out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout + out.stderr


def test_scaffold_install_test_run_render(tmp_path, side_env):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "VLC_HARNESS_DATA": str(tmp_path / "data")}
    env.pop("VLC_HARNESS_PLUGINS_DIR", None)
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    py = str(side_env)
    timings: dict[str, float] = {}
    total = time.perf_counter()

    new = [py, "-m", "vlc_harness", "new", "model", "colour-words", "--protocol", "embed"]
    step(timings, "new", new, tmp_path, env)
    package = tmp_path / "vlc-colour-words"
    generated = sum(len(p.read_text().splitlines()) for p in package.rglob("*") if p.is_file())

    # what the contributor writes: the description, and a small shapes benchmark to try it on
    registry_file = package / "registry.yaml"
    registry = yaml.safe_load(registry_file.read_text())
    registry["models"][0]["meta"]["description"] = DESCRIPTION
    registry["benchmarks"] = [{"id": "shapes-small", "type": "shapes", "params": {"n_scenes": 12, "image_size": 32}}]
    written = yaml.safe_dump(registry, sort_keys=False)
    registry_file.write_text(written)
    lines_written = 5  # description (1) + the benchmark entry (4): what a contributor types here

    pip = [py, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "-e", "."]
    step(timings, "pip install -e", pip, package, env)
    tested = step(timings, "pytest (conformance)", [py, "-m", "pytest", "-q", "-p", "no:cacheprovider"], package, env)
    assert "3 passed" in tested and "failed" not in tested
    run = [py, "-m", "vlc_harness", "run", "--registry", "registry.yaml", "--all", "--store", store, "--no-progress"]
    ran = step(timings, "run", run, package, env)
    assert ran.count("ok ") >= 1, ran
    adhoc = [py, "-m", "vlc_harness", "run", "-m", "colour_words:dim=8", "-b", "shapes-small", "--registry"]
    step(timings, "ad-hoc run", [*adhoc, "registry.yaml", "--store", store, "--no-progress"], package, env)
    site = tmp_path / "site"
    render = [py, "-m", "vlc_harness", "render", "--registry", "registry.yaml", "--store", store, "--out", str(site)]
    rendered = step(timings, "render", render, package, env)
    assert "not published (no registry entry; --include-adhoc publishes them): 1 models" in rendered

    index = (site / "index.html").read_text()
    assert "Colour Words" in index and "colour_words:dim=8" not in index
    pages = {p.name: p.read_text() for p in (site / "models").glob("*.html")}
    assert len(pages) == 1, sorted(pages)
    (page,) = pages.values()
    assert DESCRIPTION in page

    everything = [py, "-m", "vlc_harness", "render", "--registry", "registry.yaml", "--store", store]
    everything += ["--out", str(tmp_path / "all"), "--include-adhoc"]
    step(timings, "render --include-adhoc", everything, package, env)
    assert len(list((tmp_path / "all" / "models").glob("*.html"))) == 2

    timings["total"] = time.perf_counter() - total
    print(f"\nwalk-through: {generated} lines generated, {lines_written} written by hand")
    for name, seconds in timings.items():
        print(f"  {name:<24} {seconds:6.1f} s")
