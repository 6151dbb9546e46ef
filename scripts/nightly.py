"""The nightly leaderboard (``.github/workflows/nightly.yml``): install, fetch, run, render; one script
that the workflow and the tests run alike.

Steps (``python scripts/nightly.py [options]``):

1. install: ``pip install -e '.[EXTRAS]'`` with the extras the registry's model and benchmark types
   need (:data:`TYPE_EXTRAS`), ``t2v_metrics`` without its dependencies where a ``t2v_metrics``
   entry needs it, the spaCy model ARO's order benchmarks tag with, and the plugin packages the
   registry's ``plugins:`` section pins (``vlc-harness plugins install``). The registry is then read
   again, so that the types those packages register are known to the later steps. ``--no-install``
   skips the step (a machine already set up); ``--print-install`` prints the commands and stops.
   Every pip command honours pip's own environment: ``PIP_INDEX_URL`` (a mirror), or
   ``PIP_NO_INDEX=1 PIP_FIND_LINKS=DIR`` (a local folder of wheels) with ``PIP_NO_BUILD_ISOLATION=0``
   (pip's spelling of ``--no-build-isolation``: the checkout is built with the installed
   setuptools) installs offline when the dependencies are installed already
   (tests/e2e/test_third_party_pr.py does). ``spacy download`` and git pins need the network.
2. ``vlc-harness data fetch --registry R --images``: present files are kept. Afterwards every pinned
   file (a sha256 in the benchmark's data files) must be present and intact: one that is not fails
   the night and is named. Unpinned and manual-only data that could not be fetched is reported, and
   so is a benchmark whose plugin package is not installed (its cells are ``unavailable``).
3. ``vlc-harness run --all --registry R --summary FILE``: exit 1 a cell failed, 3 nothing could be
   computed, 4 a cell that had a number in the store is lost (README, "Exit status").
4. ``vlc-harness render --registry R --out SITE``: builds beside SITE and swaps it in only when no
   published cell is lost and no value changed without a fingerprint or data-version change (else
   exit 5, SITE untouched).

The night exits with the highest step code (2, a usage error, always wins); a pinned file that could
not be fetched or a failed install counts as 1. The workflow publishes SITE when the night exits 0
or 1 (a cell failed, or a pinned file is missing, but nothing published was lost and render
accepted the site). The Markdown summary goes to ``--markdown``, else ``$GITHUB_STEP_SUMMARY``,
else stdout; ``--summary FILE`` writes the night as JSON (the run's summary included).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TYPE_EXTRAS: dict[str, tuple[str, ...]] = {
    # models (plugins/models): the packages each type's load() imports
    "open_clip": ("openclip",),
    "open_clip_tuned": ("openclip",),
    "shapes_clip": ("openclip",),
    "hf_contrastive": ("hf",),
    "blip_itm": ("hf",),
    "captioning_likelihood": ("hf",),
    "clip_flant5": ("hf",),
    "vqascore": ("hf",),
    "vqascore_internvl": ("hf",),
    "vqascore_llava_onevision": ("hf",),
    "vqascore_qwen_vl": ("hf",),
    "vqa_likelihood": ("hf",),
    "t2v_metrics": ("hf",),
    "blind_causal_lm": ("hf",),
    "blind_classifier": ("hf",),
    "blind_vera": ("hf",),
    "blind_minilm_centroid": ("blind",),
    "blind_harper": ("blind",),
    "openai_choice": ("api",),
    "openai_logprob": ("api",),
    "random": (),
    "precomputed": (),
    # benchmarks (plugins/benchmarks): `data fetch` from the Hugging Face hub, spaCy tagging
    "bivlc": ("data",),
    "colorswap": ("data",),
    "mmvp_vlm": ("data",),
    "naturalbench": ("data",),
    "seetrue": ("data",),
    "vismin": ("data",),
    "winoground": ("data",),
    "aro_coco_order": ("aro",),
    "aro_flickr30k_order": ("aro",),
    "aro_vg_attribution": (),
    "aro_vg_relation": (),
    "eqben": (),
    "hard_positives": (),
    "shapes": (),
    "sugarcrepe": (),
    "sugarcrepe_pp": (),
    "valse": (),
    "vl_checklist": (),
    "whatsup": (),
}
"""pyproject.toml's optional-dependency extras each built-in type needs (a type not listed is a
third party's: its plugin package brings what it needs)."""
NO_DEPS = {"t2v_metrics": "t2v_metrics"}
"""Types whose package installs without its dependencies (it pins old ones; CONTRIBUTING)."""
SPACY_TYPES = frozenset({"aro_coco_order", "aro_flickr30k_order"})
"""Benchmark types that tag with spaCy (their ``tagger`` param names the model)."""


@dataclass
class Step:
    """One step of the night: its exit code, what it printed, and the lines the summary shows."""

    name: str
    code: int = 0
    output: str = ""
    lines: list[str] = field(default_factory=list)
    skipped: bool = False
    crashed: bool = False


def install_commands(registry: Any, registry_path: Path | None = None) -> list[list[str]]:
    """The commands that install what the registry's entries need (run from the repository root): the
    extras of its types, their no-deps packages, spaCy's model, and the plugin packages its ``plugins:``
    section pins (``vlc-harness plugins install``: hashes required, no dependencies, under the constraints)."""
    types = [e.type for e in registry.models.values()] + [e.type for e in registry.benchmarks.values()]
    extras = sorted({x for t in types for x in TYPE_EXTRAS.get(t, ())})
    pip = [sys.executable, "-m", "pip", "install", "-c", str(REPO / "constraints.txt")]
    commands = [[*pip, "-e", f"{REPO}[{','.join(extras)}]" if extras else str(REPO)]]
    no_deps = sorted({NO_DEPS[t] for t in types if t in NO_DEPS})
    if no_deps:
        commands.append([*pip, "--no-deps", *no_deps])
    models = sorted({_spacy_model(e.params) for e in registry.benchmarks.values() if e.type in SPACY_TYPES} - {None})
    commands += [[sys.executable, "-m", "spacy", "download", m] for m in models]
    if getattr(registry, "packages", None) and registry_path is not None:
        commands.append([sys.executable, "-m", "vlc_harness", "plugins", "install", "--registry", str(registry_path)])
    return commands


def _spacy_model(params: Any) -> str | None:
    tagger = str(getattr(params, "tagger", "spacy"))
    if not tagger.startswith("spacy"):
        return None  # a table of tags read from a file
    return tagger.partition(":")[2] or "en_core_web_sm"


def install(registry: Any, enabled: bool, registry_path: Path | None = None) -> Step:
    """Run :func:`install_commands` (``enabled`` false: name them only)."""
    step = Step("install", skipped=not enabled)
    for cmd in install_commands(registry, registry_path):
        shown = " ".join(cmd)
        if not enabled:
            step.lines.append(f"skipped (--no-install): `{shown}`")
            continue
        done = subprocess.run(cmd, cwd=REPO)
        step.lines.append(f"{'ok' if done.returncode == 0 else f'failed (exit {done.returncode})'}: `{shown}`")
        if done.returncode:
            step.code = 1
            break
    importlib.invalidate_caches()
    return step


def cli(name: str, argv: list[str], show_stdout: bool = False) -> Step:
    """``vlc-harness ARGV`` in this process (the tests' network guard covers it), its output teed;
    the summary shows what it printed on stderr (``show_stdout``: on stdout too)."""
    from vlc_harness.cli import main

    step = Step(name)
    out, err = _Tee(sys.stdout), _Tee(sys.stderr)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):  # type: ignore[type-var]
        try:
            main(argv)
        except SystemExit as exc:
            step.code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception:  # a crash is a failed step, named with its traceback, never a pass
            traceback.print_exc(file=err.stream)  # in the log, not in the summary
            step.code, step.crashed = 1, True
            step.lines.append(f"crashed: {traceback.format_exc().strip().splitlines()[-1]}")
    step.output = out.text()
    shown = (step.output if show_stdout else "") + err.text()
    step.lines += [line for line in shown.splitlines() if line.strip()]
    return step


class _Tee(io.TextIOBase):
    """Writes through to a stream and keeps a copy."""

    def __init__(self, stream: Any) -> None:
        self.stream, self.copy = stream, io.StringIO()

    def write(self, text: str) -> int:
        self.stream.write(text)
        return self.copy.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def text(self) -> str:
        return self.copy.getvalue()


def pinned_problems(registry: Any, data_root: Path) -> dict[str, list[str]]:
    """Per benchmark id: each pinned file (a sha256 in its data files) missing or altered under ``data_root``."""
    from vlc_harness.datafiles import UNPINNED
    from vlc_harness.hashing import sha256_file
    from vlc_harness.plugins import get_plugins

    plugins = get_plugins()
    out: dict[str, list[str]] = {}
    for entry in registry.benchmarks.values():
        if entry.unavailable:  # its plugin package is not installed: no data files to know of
            continue
        bench = plugins.benchmarks.get(entry.type).cls(entry.params, data_root)
        for f in bench.data_files():
            path = data_root / f.relpath
            if f.sha256 == UNPINNED:
                continue
            if not path.is_file():
                out.setdefault(entry.id, []).append(f"missing {f.relpath} ({f.url})")
            elif sha256_file(path) != f.sha256:
                out.setdefault(entry.id, []).append(f"{f.relpath} is not the pinned file ({f.url})")
    return out


def fetch(registry: Any, common: list[str], data_root: Path) -> Step:
    """``data fetch --images``, then the pinned files checked: one missing fails the night (1)."""
    step = cli("fetch", ["data", "fetch", *common, "--images", "--no-progress"])
    if step.code == 2:
        return step
    failed = [line for line in step.output.splitlines() if ": failed: " in line]
    skipped = [line for line in step.output.splitlines() if ": skipped: " in line]
    problems = pinned_problems(registry, data_root)
    step.code = 1 if problems or step.crashed else 0  # `data fetch` exits 1 for unpinned files too
    for bench_id, missing in sorted(problems.items()):
        step.lines.append(f"pinned, not fetched (fails the night): {bench_id}: " + "; ".join(missing))
    for line in failed:
        if line.split(":", 1)[0] not in problems:
            step.lines.append(f"not fetched (unpinned or manual-only, reported): {line}")
    step.lines += [f"not fetched (its plugin package is not installed, reported): {line}" for line in skipped]
    return step


def night(args: argparse.Namespace) -> tuple[int, dict[str, Any], list[Step]]:
    """Every step in order; the exit code, the JSON summary and the steps."""
    from vlc_harness.config import resolve_data_root
    from vlc_harness.errors import HarnessError
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry

    registry = load_registry([Path(args.registry)], get_plugins())
    steps = [install(registry, not args.no_install, Path(args.registry))]
    if steps[0].code:
        return _finish(steps, None)
    if not args.no_install:  # a package the install added registers its types now
        try:
            registry = load_registry([Path(args.registry)], get_plugins(reload=True))
        except HarnessError as exc:  # e.g. an installed package that does not register its listed type
            steps[0].code = 1
            steps[0].lines.append(f"the registry does not load after the install: {exc}")
            return _finish(steps, None)
    common = ["--registry", str(args.registry)] + (["--data-root", str(args.data_root)] if args.data_root else [])
    store = ["--store", args.store] if args.store else []
    steps.append(fetch(registry, common, resolve_data_root(args.data_root)))
    if steps[-1].code == 2:
        return _finish(steps, None)
    with tempfile.TemporaryDirectory() as tmp:
        run_json = Path(tmp) / "run.json"
        run = cli("run", ["run", "--all", *common, *store, "--no-progress", "--summary", str(run_json)])
        summary = json.loads(run_json.read_text()) if run_json.is_file() else None
    steps.append(run)
    if run.code == 2 or summary is None:
        run.code = max(run.code, 1)
        return _finish(steps, summary)
    release = ["--release", args.release] if args.release else []
    steps.append(cli("render", ["render", *common, *store, "--out", str(args.site), *release], show_stdout=True))
    return _finish(steps, summary)


def _finish(steps: list[Step], run_summary: dict[str, Any] | None) -> tuple[int, dict[str, Any], list[Step]]:
    codes = [s.code for s in steps]
    code = 2 if 2 in codes else max(codes)
    payload = {
        "schema": 1,
        "exit_code": code,
        "steps": {s.name: {"exit_code": s.code, "skipped": s.skipped, "lines": s.lines} for s in steps},
        "run": run_summary,
    }
    return code, payload, steps


def markdown(code: int, steps: list[Step], run_summary: dict[str, Any] | None) -> str:
    """The night for people: a verdict, then each step's lines and the run's counts, reasons and changes."""
    verdict = "the site is published" if code in (0, 1) else "nothing is published"
    out = [f"## Nightly leaderboard: exit {code} ({verdict})", ""]
    out += [f"- {s.name} exited {s.code}" for s in steps if s.code] + [""]
    for step in steps:
        out.append(f"### {step.name}: exit {step.code}" + (" (skipped)" if step.skipped else ""))
        out += [f"- {line}" for line in step.lines[:40]] + [""]
        if step.name == "run" and run_summary is not None:
            out += run_section(run_summary)
    return "\n".join(out)


def run_section(summary: dict[str, Any], most: int = 30) -> list[str]:
    """The run's summary in Markdown: statuses, grouped reasons, lost, new and changed cells, seconds per model."""
    out = ["| status | cells |", "|---|---:|"] + [f"| {k} | {n} |" for k, n in summary["statuses"].items()]
    out += ["", f"{summary['stored']} of {summary['cells']} cells were stored already.", ""]
    changed = [
        f"{c['model']} x {c['benchmark']}: {_value(c['before'])} -> {_value(c['after'])}" for c in summary["changed"]
    ]
    for title, lines in (
        ("Without a number", [g["line"] for g in summary["reasons"]]),
        ("Lost (had a number before this run)", [c["line"] for c in summary["lost"]]),
        ("New", [f"{c['model']} x {c['benchmark']}: {_value(c)}" for c in summary["new"]]),
        ("Changed", changed),
    ):
        if lines:
            out += [f"**{title}** ({len(lines)})", ""] + [f"- {line}" for line in lines[:most]]
            out += ([f"- and {len(lines) - most} more"] if len(lines) > most else []) + [""]
    seconds = sorted(summary["seconds_per_model"].items(), key=lambda kv: -kv[1])
    if any(s for _, s in seconds):
        out += ["| model | worker seconds |", "|---|---:|"] + [f"| {m} | {s:.1f} |" for m, s in seconds[:most] if s]
        out += [f"| total | {sum(s for _, s in seconds):.1f} |", ""]
    return out


def _value(view: dict[str, Any]) -> str:
    if view.get("value") is None:
        return view["status"]
    return f"{view['status']} {view['metric']}={view['value']:.4f}"


def options() -> argparse.ArgumentParser:
    """The script's options (the workflow passes --registry, --site, --summary and --release)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--registry", type=Path, default=REPO / "registry.yaml")
    parser.add_argument("--store", default=None, help="Store URL (default: $VLC_HARNESS_STORE, else the user cache).")
    parser.add_argument("--data-root", type=Path, default=None, help="Default: $VLC_HARNESS_DATA, else the cache.")
    parser.add_argument("--site", type=Path, default=Path("site"), help="The published site folder.")
    parser.add_argument("--release", default=None, help="Also freeze the site as releases/NAME.")
    parser.add_argument("--summary", type=Path, default=None, help="Write the night as JSON here.")
    parser.add_argument("--markdown", type=Path, default=None, help="Default: $GITHUB_STEP_SUMMARY, else stdout.")
    parser.add_argument("--no-install", action="store_true", help="Skip the install step (a machine set up).")
    parser.add_argument("--print-install", action="store_true", help="Print the install commands and stop.")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse the options, run the night, write its summaries; the night's exit code."""
    args = options().parse_args(argv)
    if args.print_install:
        from vlc_harness.plugins import get_plugins
        from vlc_harness.registry import load_registry

        for cmd in install_commands(load_registry([args.registry], get_plugins()), args.registry):
            print(" ".join(cmd))
        return 0
    code, payload, steps = night(args)
    if args.summary is not None:
        args.summary.parent.mkdir(parents=True, exist_ok=True)
        args.summary.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    text = markdown(code, steps, payload["run"])
    target = args.markdown or (
        Path(os.environ["GITHUB_STEP_SUMMARY"]) if os.environ.get("GITHUB_STEP_SUMMARY") else None
    )
    if target is None:
        print(text)
    else:
        with target.open("a", encoding="utf-8") as f:
            f.write(text + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
