"""The pull-request check (``.github/workflows/pr.yml``): each step writes a Markdown section to the
job summary (``$GITHUB_STEP_SUMMARY``, else stdout) and exits 1 when it fails.

Steps (``python scripts/pr_check.py [options] STEP...``; ``all`` runs every one):

* ``lint``: ``ruff check`` and ``ruff format --check``.
* ``registry``: every registry file loads (``registry.yaml``, ``examples/*.yaml``), and every entry
  with ``meta.submitted: true`` replays scores named by url and sha256, with its metadata.
* ``conformance``: the shipped conformance checks (``pytest --vlc-types``) for the model and
  benchmark types the PR brings in: those defined in files the PR changes (a type counts when a
  class of its MRO lives in a changed file; an in-tree plugin module added under ``plugins/`` is
  such a file), and those provided by a package the PR newly names or re-pins in the registry's
  ``plugins:`` section (installed beforehand by ``vlc-harness plugins install``).
* ``plan``: ``vlc-harness plan --diff BASE --all``: cells the PR adds (first) and cells whose
  fingerprint changes; cells whose change cannot be known here (offline) are counted in one line.
* ``smoke``: ``vlc-harness run --limit 5`` on CPU, on the generated ``shapes`` benchmark (50 scenes), of each
  model entry the PR adds whose weights are at most 300 MB (how the size is known: docs/pr_check.md).
  A model or benchmark entry the PR adds whose plugin package this job did not install fails it.
* ``submitted``: each submitted entry the PR adds or changes: its file downloads and matches its
  sha256, and it scores every needed pair of every benchmark it claims.

Runs offline too (tests): what needs the network says so and is skipped, never guessed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_WEIGHTS_MB = 300.0
SMOKE_LIMIT = 5
SMOKE_BENCHMARK = "shapes:n_scenes=50"
"""The generated benchmark (nothing to download), small: rendered in about a second."""
MAX_ROWS = 100
CHANGE_ORDER = {"added": 0, "changed": 1}
"""The plan table's order: the cells the PR adds first, then those it changes."""
IMPORT_NAMES = {"vlc_harness": "harness", "vlc_harness_builtins": "plugins", "vlc_leaderboard": "leaderboard"}
"""Import name to repository folder (pyproject.toml's package-dir)."""
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".msgpack", ".h5", ".onnx", ".gguf")


@dataclass
class Section:
    """One step's Markdown: a title, a verdict (passed, failed, skipped) and body lines."""

    title: str
    verdict: str = "passed"
    lines: list[str] = field(default_factory=list)

    def fail(self, line: str | None = None) -> None:
        self.verdict = "failed"
        if line:
            self.lines.append(line)

    def markdown(self) -> str:
        mark = {"passed": "✅", "failed": "❌", "skipped": "⏭️"}[self.verdict]
        return "\n".join([f"## {mark} {self.title}: {self.verdict}", "", *self.lines, ""]) + "\n"


@dataclass
class Context:
    """What every step reads: the repository, the base revision, the registries, where data goes."""

    repo: Path
    base: str | None
    registry: Path
    data_root: Path
    work: Path
    plan_file: Path | None = None
    """Where the plan JSON is kept between steps run as separate commands (the workflow's steps)."""
    _plan: dict[str, Any] | None = None

    def git(self, *args: str) -> str:
        out = subprocess.run(["git", *args], cwd=self.repo, capture_output=True, text=True, check=True)
        return out.stdout

    def changed_files(self) -> list[str]:
        """Files the PR changes (``git diff --name-only BASE...HEAD``)."""
        if not self.base:
            return []
        return [f for f in self.git("diff", "--name-only", f"{self.base}...HEAD").splitlines() if f]

    def plan(self) -> dict[str, Any]:
        """``vlc-harness plan --diff BASE --all --format json`` (run once, shared by the steps)."""
        if self._plan is None and self.plan_file is not None and self.plan_file.is_file():
            self._plan = json.loads(self.plan_file.read_text(encoding="utf-8"))
        if self._plan is None:
            argv = ["plan", "--all", "--registry", str(self.registry), "--format", "json"]
            argv += ["--data-root", str(self.data_root), "--store", f"sqlite:///{self.work / 'plan-store.sqlite'}"]
            if self.base:
                argv += ["--diff", self.base]
            out = vlc(argv, self.repo)
            if out.returncode:
                raise RuntimeError(f"vlc-harness plan failed: {_tail(out.stderr or out.stdout)}")
            self._plan = json.loads(out.stdout)
            if self.plan_file is not None:
                self.plan_file.parent.mkdir(parents=True, exist_ok=True)
                self.plan_file.write_text(out.stdout, encoding="utf-8")
        return self._plan

    def new_models(self) -> set[str]:
        """Model ids the PR adds to the registry."""
        diff = self.plan().get("diff") or {}
        return {c["model"] for c in diff.get("cells", []) if "new model" in c.get("why", [])}

    def new_benchmarks(self) -> set[str]:
        """Benchmark ids the PR adds to the registry."""
        diff = self.plan().get("diff") or {}
        return {c["benchmark"] for c in diff.get("cells", []) if "new benchmark" in c.get("why", [])}

    def touched_models(self) -> set[str]:
        """Model ids with cells the PR adds or changes (every model without a base)."""
        diff = self.plan().get("diff")
        if diff is None:
            return {m["id"] for m in self.plan()["models"]}
        return {c["model"] for c in diff.get("cells", []) if c["change"] in ("added", "changed")}


def vlc(argv: list[str], cwd: Path, timeout: float = 3600) -> subprocess.CompletedProcess[str]:
    """``vlc-harness ARGV`` in a subprocess (the same interpreter), captured."""
    cmd = [sys.executable, "-m", "vlc_harness", *argv]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _tail(text: str, n: int = 5) -> str:
    return " / ".join(text.strip().splitlines()[-n:])


def _code(text: str) -> list[str]:
    return ["```", *text.rstrip().splitlines()[-60:], "```"]


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    def cell(v: Any) -> str:
        return str(v).replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        out.append(f"\n... and {len(rows) - MAX_ROWS} more")
    return out


# -- steps -----------------------------------------------------------------------------------------
def step_lint(ctx: Context) -> Section:
    """ruff check and ruff format --check over the repository."""
    section = Section("Lint (ruff)")
    for argv in (["check", "--output-format", "concise", "."], ["format", "--check", "."]):
        out = subprocess.run([sys.executable, "-m", "ruff", *argv], cwd=ctx.repo, capture_output=True, text=True)
        name = "ruff " + " ".join(a for a in argv if a != "concise" and a != "--output-format")
        if out.returncode:
            section.fail(f"`{name}` failed:")
            section.lines += _code(out.stdout + out.stderr)
        else:
            section.lines.append(f"`{name}`: clean")
    return section


def registry_files(ctx: Context) -> list[Path]:
    """The registry and the examples' registries."""
    files = [ctx.registry, *sorted((ctx.repo / "examples").glob("*.yaml"))]
    return [f for f in dict.fromkeys(files) if f.is_file()]


def step_registry(ctx: Context) -> Section:
    """Every registry file loads; submitted entries are well-formed."""
    from vlc_harness.errors import HarnessError
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry
    from vlc_harness_builtins.models.precomputed import check_submitted

    section = Section("Registry validation")
    plugins = get_plugins()
    rows = []
    for path in registry_files(ctx):
        name = path.relative_to(ctx.repo) if path.is_relative_to(ctx.repo) else path
        try:
            registry = load_registry([path], plugins)
        except (HarnessError, ValueError) as exc:
            section.fail()
            rows.append([f"`{name}`", "does not load", str(exc)])
            continue
        rows.append([f"`{name}`", "loads", f"{len(registry.models)} models, {len(registry.benchmarks)} benchmarks"])
        for entry in registry.models.values():
            if entry.meta.get("submitted") and not entry.unavailable:
                problems = check_submitted(entry, plugins.models.get(entry.type).cls)
                if problems:
                    section.fail()
                rows.append([f"`{name}`: `{entry.id}`", "submitted", "; ".join(problems) or "well-formed"])
    section.lines += _table(["file / entry", "", "detail"], rows)
    return section


def source_path(klass: type, repo: Path) -> str | None:
    """The repository path of the file defining a class (``plugins/models/openclip.py``), wherever
    the package is installed; ``None`` for a class from elsewhere."""
    import inspect

    try:
        file = Path(inspect.getsourcefile(klass) or "")
    except TypeError:  # builtins
        return None
    top, *rest = klass.__module__.split(".")
    if top in IMPORT_NAMES:
        name = "__init__.py" if file.name == "__init__.py" else f"{rest.pop()}.py" if rest else file.name
        return "/".join([IMPORT_NAMES[top], *rest, name])
    try:
        return file.resolve().relative_to(repo).as_posix()
    except ValueError:
        return None


def changed_types(ctx: Context) -> dict[str, list[str]]:
    """Registered model and benchmark types with a class (in their MRO) defined in a changed file."""
    from vlc_harness.plugins import get_plugins

    changed = {f for f in ctx.changed_files() if f.endswith(".py")}
    plugins = get_plugins()
    out: dict[str, list[str]] = {"models": [], "benchmarks": []}
    for kind, registrar in (("models", plugins.models), ("benchmarks", plugins.benchmarks)):
        for name in registrar.names():
            if {source_path(k, ctx.repo) for k in registrar.get(name).cls.__mro__} & changed:
                out[kind].append(name)
    return out


def registry_packages(ctx: Context, revision: str | None) -> dict[str, Any]:
    """The ``plugins:`` section of the registry at ``revision`` (``None``: as checked out), by canonical
    package name; empty where the file did not exist at that revision."""
    from vlc_harness.errors import RegistryError
    from vlc_harness.plugin_packages import parse_plugins
    from vlc_harness.registry import read_document

    if revision is None:
        text = ctx.registry.read_text(encoding="utf-8") if ctx.registry.is_file() else ""
    else:
        try:
            relative = ctx.registry.relative_to(ctx.repo).as_posix()
            text = ctx.git("show", f"{revision}:{relative}")
        except (ValueError, subprocess.CalledProcessError):  # outside the repository, or added by the PR
            return {}
    try:
        data, err = read_document(text, f"{revision or 'HEAD'}:{ctx.registry.name}")
        return parse_plugins(data.get("plugins"), err, ctx.registry.name)
    except RegistryError:
        if revision is None:
            raise
        return {}  # a base that does not parse names nothing: every package of the PR is new


def package_types(ctx: Context) -> tuple[dict[str, dict[str, list[str]]], list[str]]:
    """Types of the packages the PR newly names or re-pins in ``plugins:``, by package (``"models"``,
    ``"benchmarks"``); and each such type that is not registered here (its package not installed)."""
    from vlc_harness.plugins import get_plugins

    if not ctx.base:
        return {}, []
    before, after = registry_packages(ctx, ctx.base), registry_packages(ctx, None)
    plugins = get_plugins()
    out: dict[str, dict[str, list[str]]] = {}
    missing = []
    for key, package in after.items():
        if key in before and before[key].pin == package.pin:
            continue
        out[package.package] = {"models": list(package.models), "benchmarks": list(package.benchmarks)}
        for kind, registrar in (("models", plugins.models), ("benchmarks", plugins.benchmarks)):
            names = set(registrar.names())
            missing += [
                f"`{package.package}` ({package.pin}) lists {kind[:-1]} type `{t}`, which is not registered here: "
                f"is the package installed (`vlc-harness plugins install`) and does it register `{t}`?"
                for t in out[package.package][kind]
                if t not in names
            ]
    return out, missing


def step_conformance(ctx: Context) -> Section:
    """The shipped conformance checks for the types the PR brings in (pytest ``--vlc-types``): those
    defined in changed files and those of packages newly named or re-pinned in ``plugins:``."""
    section = Section("Conformance of added or changed types")
    types = changed_types(ctx)
    by_package, missing = package_types(ctx)
    for package, provided in by_package.items():
        for kind in ("models", "benchmarks"):
            types[kind] += [t for t in provided[kind] if t not in types[kind]]
        names = ", ".join(f"`{t}`" for t in provided["models"] + provided["benchmarks"])
        section.lines.append(f"Package `{package}`, newly named or re-pinned in `plugins:`, provides {names}.")
    if missing:
        section.fail()
        section.lines += [f"- {line}" for line in missing]
        section.lines.append("")
    registered = set(get_registered_types())
    types = {kind: [t for t in names if t in registered] for kind, names in types.items()}
    if not types["models"] and not types["benchmarks"]:
        if section.verdict != "failed":
            section.verdict = "skipped"
            section.lines.append(
                "No model or benchmark type is defined in a file this PR changes or provided by a package it"
                " newly names in `plugins:`."
            )
        return section
    folder = Path(tempfile.mkdtemp(prefix="conformance-", dir=ctx.work))
    test_file = folder / "test_pr_conformance.py"
    test_file.write_text("from vlc_harness.testing.conformance import *  # noqa: F401,F403\n")
    report = folder / "report.xml"
    names = ",".join(types["models"] + types["benchmarks"])
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
    cmd += [f"--vlc-types={names}", str(test_file)]
    out = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=3600)
    if not report.is_file():
        section.fail(f"pytest did not run (exit {out.returncode}):")
        section.lines += _code(out.stdout + out.stderr)
        return section
    rows = []
    for case in ET.parse(report).getroot().iter("testcase"):
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        skipped = case.find("skipped")
        verdict = "failed" if bad is not None else "skipped" if skipped is not None else "passed"
        found = bad if bad is not None else skipped
        detail = (found.get("message") if found is not None else "") or ""
        rows.append([f"`{case.get('name')}`", verdict, detail.splitlines()[0][:200] if detail else ""])
    if out.returncode or any(r[1] == "failed" for r in rows):
        section.fail()
    if section.lines:
        section.lines.append("")
    section.lines.append(
        f"Types: {', '.join(f'`{t}`' for t in types['models'] + types['benchmarks'])} ({len(rows)} checks)"
    )
    section.lines += ["", *_table(["check", "result", "detail"], rows)]
    return section


def get_registered_types() -> list[str]:
    """Every model and benchmark type registered in this environment."""
    from vlc_harness.plugins import get_plugins

    plugins = get_plugins()
    return [*plugins.models.names(), *plugins.benchmarks.names()]


def step_plan(ctx: Context) -> Section:
    """Cells the PR adds or whose fingerprint changes, from ``vlc-harness plan --diff``."""
    section = Section(f"Plan against {ctx.base}" if ctx.base else "Plan")
    try:
        plan = ctx.plan()
    except RuntimeError as exc:
        section.fail(str(exc))
        return section
    diff = plan.get("diff")
    if diff is None:
        section.lines.append(f"No base revision: {len(plan['cells'])} cells in the grid.")
        return section
    if diff.get("error"):
        section.fail(f"The grid of `{diff['ref']}` could not be evaluated by its own code: {diff['error']}")
        return section
    counts: dict[str, int] = {}
    for c in diff["cells"]:
        counts[c["change"]] = counts.get(c["change"], 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no cell added or changed"
    removed = len(diff["removed"])
    section.lines.append(f"Against `{diff['ref']}` (`{diff['commit'][:12]}`): {summary}; {removed} removed.")
    fingerprints = {m["id"]: m["fingerprint"][:12] for m in plan["models"]}
    known = [c for c in diff["cells"] if c["change"] != "unknown"]
    known.sort(key=lambda c: CHANGE_ORDER.get(c["change"], len(CHANGE_ORDER)))
    rows = [
        [f"`{c['model']}`", f"`{c['benchmark']}`", c["change"], "; ".join(c["why"]), fingerprints.get(c["model"], "")]
        for c in known
    ]
    if rows:
        section.lines += ["", *_table(["model", "benchmark", "change", "why", "fingerprint"], rows)]
    section.lines += _unknown_line([c for c in diff["cells"] if c["change"] == "unknown"])
    if diff["removed"]:
        section.lines += ["", "Removed: " + ", ".join(f"`{c['model']}` x `{c['benchmark']}`" for c in diff["removed"])]
    return section


def _unknown_line(cells: list[dict[str, Any]]) -> list[str]:
    """One line for the cells whose change cannot be known here (offline: identities needing the network)."""
    if not cells:
        return []
    models = sorted({c["model"] for c in cells})
    shown = ", ".join(f"`{m}`" for m in models[:8]) + (f" and {len(models) - 8} more" if len(models) > 8 else "")
    whys = sorted({w for c in cells for w in c["why"]})
    why = "; ".join(whys[:3]) + (f"; and {len(whys) - 3} more reasons" if len(whys) > 3 else "")
    return ["", f"Change unknown here for {len(cells)} cells of {len(models)} models ({shown}): {why}"]


def weights_mb(entry: Any, cls: type) -> tuple[float | None, str]:
    """The model's weights in MB and how that is known, or ``None`` and why not (see docs/pr_check.md)."""
    from vlc_harness.errors import Unavailable

    try:
        weights = cls(entry.params, entry.run).identify().weights
    except Unavailable as exc:
        weights, why = None, f"identity unknown here ({exc})"
    except Exception as exc:  # a plugin's bug: the conformance step reports it
        weights, why = None, f"identify() failed ({type(exc).__name__}: {exc})"
    else:
        why = f"weights {weights}"
    if weights is not None:
        if weights == "none" or weights.startswith("random-init:"):
            return 0.0, "no weights to download"
        files = [Path(v) for v in _strings(entry.params_dict()) if Path(v.removeprefix("local-dir:")).exists()]
        if weights.startswith(("sha256:", "local-dir:")) and files:
            return sum(_size(Path(str(f).removeprefix("local-dir:"))) for f in files) / 1e6, "local files in params"
        if weights.startswith("hf:"):
            size = _hub_mb(weights)
            if size is not None:
                return size, "Hugging Face file sizes (the largest weight format)"
            why = "Hugging Face file sizes unavailable here"
    if entry.meta.get("parameters_m"):
        return float(entry.meta["parameters_m"]) * 4, "meta.parameters_m x 4 bytes (fp32)"
    return None, why


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) and value else []


def _size(path: Path) -> int:
    return path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _hub_mb(weights: str) -> float | None:
    """The largest weight format's total size of a hub commit (the one a loader downloads at most)."""
    repo, _, commit = weights[len("hf:") :].rpartition("@")
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        return None
    try:
        from huggingface_hub import HfApi

        info = HfApi().model_info(repo, revision=commit, files_metadata=True, timeout=10)
    except Exception:  # no network, gated: unknown, never guessed
        return None
    by_format: dict[str, int] = {}
    for f in info.siblings or []:
        suffix = next((s for s in WEIGHT_SUFFIXES if f.rfilename.endswith(s)), None)
        if suffix:
            by_format[suffix] = by_format.get(suffix, 0) + (f.size or 0)
    return max(by_format.values(), default=0) / 1e6


def step_smoke(ctx: Context) -> Section:
    """``run --limit 5`` on CPU of the model entries the PR adds whose weights are at most 300 MB; an
    added model or benchmark entry whose listed plugin package is not installed here fails it."""
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry

    section = Section(f"CPU smoke run (--limit {SMOKE_LIMIT}, {SMOKE_BENCHMARK})")
    try:
        new, new_benchmarks = ctx.new_models(), ctx.new_benchmarks()
    except RuntimeError as exc:
        section.fail(str(exc))
        return section
    plugins = get_plugins()
    registry = load_registry([ctx.registry], plugins)
    rows = []
    for bench_id in sorted(new_benchmarks & set(registry.benchmarks)):
        if registry.benchmarks[bench_id].unavailable:  # a listed plugin package that this job did not install
            section.fail()
            rows.append([f"benchmark `{bench_id}`", "-", "not run", registry.benchmarks[bench_id].unavailable])
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    for model_id in sorted(new & set(registry.models)):
        entry = registry.models[model_id]
        if entry.unavailable:  # a listed plugin package that this job did not install
            section.fail()
            rows.append([f"`{model_id}`", "-", "not run", entry.unavailable])
            continue
        cls = plugins.models.get(entry.type).cls
        if entry.meta.get("submitted") or cls.paid_requests:
            why = "submitted scores (checked below)" if entry.meta.get("submitted") else "paid API (no secrets here)"
            rows.append([f"`{model_id}`", "-", "not run", why])
            continue
        size, how = weights_mb(entry, cls)
        if size is None or size > MAX_WEIGHTS_MB:
            shown = "unknown" if size is None else f"{size:,.0f} MB"
            rows.append([f"`{model_id}`", shown, "not run", f"over {MAX_WEIGHTS_MB:.0f} MB or unknown: {how}"])
            continue
        argv = ["run", "-m", model_id, "-b", SMOKE_BENCHMARK, "--limit", str(SMOKE_LIMIT), "--no-progress"]
        argv += ["--registry", str(ctx.registry), "--data-root", str(ctx.data_root)]
        argv += ["--store", f"sqlite:///{ctx.work / 'smoke-store.sqlite'}"]
        out = subprocess.run(
            [sys.executable, "-m", "vlc_harness", *argv], cwd=ctx.repo, capture_output=True, text=True, env=env
        )
        result = out.stdout.strip().splitlines()[0] if out.stdout.strip() else _tail(out.stderr)
        if out.returncode:
            section.fail()
        rows.append([f"`{model_id}`", f"{size:,.1f} MB ({how})", "ok" if not out.returncode else "failed", result])
    if not rows:
        section.verdict = "skipped"
        section.lines.append("The PR adds no model entry.")
        return section
    section.lines += _table(["entry", "weights", "smoke run", "result"], rows)
    return section


def step_submitted(ctx: Context) -> Section:
    """Submitted entries the PR adds or changes: download, sha256, completeness, metadata."""
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry
    from vlc_harness_builtins.models import precomputed

    section = Section("Submitted scores")
    plugins = get_plugins()
    registry = load_registry([ctx.registry], plugins)
    try:
        touched = ctx.touched_models()
    except RuntimeError as exc:
        section.fail(str(exc))
        return section
    entries = [e for e in registry.models.values() if e.meta.get("submitted") and e.id in touched and not e.unavailable]
    if not entries:
        section.verdict = "skipped"
        section.lines.append("The PR adds or changes no submitted entry.")
        return section
    rows = []
    for entry in entries:
        problems = precomputed.check_submitted(entry, plugins.models.get(entry.type).cls)
        if problems:
            section.fail()
            rows.append([f"`{entry.id}`", "metadata", "; ".join(problems)])
            continue
        rows.append([f"`{entry.id}`", "metadata", "display name, source, license and link given"])
        try:
            scores = precomputed.read_scores(precomputed.download(entry.params.url, entry.params.sha256))
        except Exception as exc:
            section.fail()
            rows.append([f"`{entry.id}`", "download", f"{type(exc).__name__}: {exc}"])
            continue
        rows.append([f"`{entry.id}`", "download", f"sha256 matches; {len(scores):,} scores"])
        claimed: dict[str, set[str]] = {}
        for key in scores:
            claimed.setdefault(key[0], set()).add(key[1])
        for bench_id, versions in sorted(claimed.items()):
            verdict = _completeness(ctx, registry, scores, bench_id, versions)
            if verdict.startswith("incomplete") or verdict.startswith("cannot"):
                section.fail()
            rows.append([f"`{entry.id}`", f"`{bench_id}`", verdict])
    section.lines += _table(["entry", "check", "result"], rows)
    return section


def _completeness(ctx: Context, registry: Any, scores: dict[Any, float], bench_id: str, versions: set[str]) -> str:
    """Whether ``scores`` cover every needed pair of a benchmark (its annotations are fetched if absent)."""
    from vlc_harness.plugins import get_plugins
    from vlc_harness.run.prepare import prepare
    from vlc_harness_builtins.models import precomputed

    if bench_id not in registry.benchmarks:
        return f"cannot check: `{bench_id}` is not a benchmark of {ctx.registry.name}"
    benchmarks = get_plugins().benchmarks
    prepared = prepare(registry.benchmarks[bench_id], benchmarks, ctx.data_root, None)
    if not prepared.ready:
        argv = ["data", "fetch", "-b", bench_id, "--registry", str(ctx.registry), "--no-progress"]
        fetch = vlc([*argv, "--data-root", str(ctx.data_root)], ctx.repo)
        prepared = prepare(registry.benchmarks[bench_id], benchmarks, ctx.data_root, None)
        if not prepared.ready:
            reason = prepared.unavailable or prepared.load_error or _tail(fetch.stderr)
            return f"cannot check: its instances cannot be listed here ({reason.splitlines()[0][:200]})"
    if prepared.data_version not in versions:
        given = ", ".join(sorted(versions))
        return f"incomplete: scores for version(s) {given}, the benchmark is {prepared.data_version}"
    missing = precomputed.missing_scores(scores, bench_id, prepared.data_version, prepared.instances)
    if missing:
        shown = ", ".join(f"{k[2]} ({k[3]},{k[4]})" for k in missing[:5])
        needed = sum(len(inst.needed_pairs()) for inst in prepared.instances)
        return f"incomplete: no score for {len(missing):,} of {needed:,} needed pairs, e.g. {shown}"
    return f"complete: every needed pair of {len(prepared.instances):,} instances ({prepared.data_version})"


STEPS: dict[str, Callable[[Context], Section]] = {
    "lint": step_lint,
    "registry": step_registry,
    "conformance": step_conformance,
    "plan": step_plan,
    "smoke": step_smoke,
    "submitted": step_submitted,
}


def main(argv: list[str] | None = None) -> int:
    """Run the steps named; append their Markdown to the summary; 1 when any failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("steps", nargs="+", choices=[*STEPS, "all"])
    parser.add_argument("--base", default=None, help="The base revision (e.g. origin/main); none: no diff.")
    parser.add_argument("--repo", type=Path, default=Path.cwd())
    parser.add_argument("--registry", type=Path, default=None, help="Default: REPO/registry.yaml.")
    parser.add_argument("--data-root", type=Path, default=None, help="Default: $VLC_HARNESS_DATA or a temp folder.")
    parser.add_argument("--summary", type=Path, default=None, help="Default: $GITHUB_STEP_SUMMARY, else stdout.")
    parser.add_argument(
        "--plan-file",
        type=Path,
        default=Path(os.environ["PR_CHECK_PLAN_FILE"]) if os.environ.get("PR_CHECK_PLAN_FILE") else None,
        help="Keep the plan JSON here for later steps (default: $PR_CHECK_PLAN_FILE; none: not kept).",
    )
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    summary = args.summary
    if summary is None and os.environ.get("GITHUB_STEP_SUMMARY"):
        summary = Path(os.environ["GITHUB_STEP_SUMMARY"])
    failed = False
    with tempfile.TemporaryDirectory(prefix="pr-check-") as tmp:
        data_root = args.data_root or Path(os.environ.get("VLC_HARNESS_DATA") or Path(tmp) / "data")
        registry = (args.registry or repo / "registry.yaml").resolve()
        ctx = Context(repo, args.base, registry, data_root, Path(tmp), args.plan_file)
        for name in list(STEPS) if "all" in args.steps else args.steps:
            try:
                section = STEPS[name](ctx)
            except Exception as exc:  # a broken step is reported, and the next one still runs
                section = Section(name)
                section.fail(f"the step raised {type(exc).__name__}: {exc}")
            failed |= section.verdict == "failed"
            text = section.markdown()
            if summary is not None:
                with open(summary, "a", encoding="utf-8") as f:
                    f.write(text)
            print(text, end="", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
