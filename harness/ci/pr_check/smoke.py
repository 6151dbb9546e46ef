"""The PR check's ``smoke`` step: ``vlc-harness run --limit 5 --require-pinned`` on CPU of each model
entry a PR adds whose weights are at most 300 MB (how the size is known: :func:`weights_mb`,
docs/pr_check.md); an added model or benchmark entry whose listed plugin package is not installed here
fails it, and so does a run refused because installed score-changing packages differ from
``constraints.txt`` (the step's exit code is then 6, ``ExitCode.OFF_PIN``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from vlc_harness.ci.pr_check.context import Context
from vlc_harness.ci.summary import Section, table, tail
from vlc_harness.exit_codes import ExitCode

MAX_WEIGHTS_MB = 300.0
SMOKE_LIMIT = 5
SMOKE_BENCHMARK = "shapes:n_scenes=50"
"""The generated benchmark (nothing to download), small: rendered in about a second."""
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".msgpack", ".h5", ".onnx", ".gguf")


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
        argv += ["--require-pinned"]  # exit 6 off the pins: the check's numbers are the pinned stack's
        argv += ["--registry", str(ctx.registry), "--data-root", str(ctx.data_root)]
        argv += ["--store", f"sqlite:///{ctx.work / 'smoke-store.sqlite'}"]
        out = subprocess.run(
            [sys.executable, "-m", "vlc_harness", *argv], cwd=ctx.repo, capture_output=True, text=True, env=env
        )
        result = out.stdout.strip().splitlines()[0] if out.stdout.strip() else tail(out.stderr)
        if out.returncode == ExitCode.OFF_PIN:
            section.code = ExitCode.OFF_PIN
            result = "refused, off the pins: " + tail(out.stderr, 2)
        if out.returncode:
            section.fail()
        rows.append([f"`{model_id}`", f"{size:,.1f} MB ({how})", "ok" if not out.returncode else "failed", result])
    if not rows:
        section.verdict = "skipped"
        section.lines.append("The PR adds no model entry.")
        return section
    section.lines += table(["entry", "weights", "smoke run", "result"], rows)
    return section
