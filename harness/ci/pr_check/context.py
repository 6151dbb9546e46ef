"""What every step of the PR check reads (:class:`Context`), and ``vlc-harness`` in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlc_harness.ci.summary import tail


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
    labels: frozenset[str] = frozenset()
    """The pull request's labels (``PR_CHECK_LABELS``, set by the workflow): a maintainer's override."""
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
                raise RuntimeError(f"vlc-harness plan failed: {tail(out.stderr or out.stdout)}")
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

    def changed_models(self) -> set[str]:
        """Model ids the PR adds, or whose params, scoring code or weights it changes (the plan's model reasons)."""
        diff = self.plan().get("diff") or {}
        return {
            c["model"]
            for c in diff.get("cells", [])
            if any(w == "new model" or w.startswith("model ") for w in c.get("why", []))
        }

    def changed_benchmarks(self) -> set[str]:
        """Benchmark ids the PR adds, or whose params, instances or data version it changes (not their
        metrics alone: a change to the metric code touches every benchmark, and the suite tests it)."""
        diff = self.plan().get("diff") or {}
        reasons = {"new benchmark", "benchmark params", "instances", "data version"}
        return {c["benchmark"] for c in diff.get("cells", []) if reasons & set(c.get("why", []))}

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
