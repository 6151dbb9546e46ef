"""The nightly on a Ray cluster (issue 40, item 6): the run step takes its executor and cluster from the
workflow's variables (``VLC_HARNESS_EXECUTOR``, ``RAY_ADDRESS``); on a local cluster (``ray start --head``) the
night publishes the same site as with the local executor, page for page, under a fixed clock."""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.nightly_cli import run_night, write_registry
from vlc_harness.testing import require

require("ray")

NOW = dt.datetime(2026, 5, 1, 6, 30, tzinfo=dt.timezone.utc)
RAY = [sys.executable, "-m", "ray.scripts.scripts"]
"""The ``ray`` command of this environment (its workers run this Python, which has the harness)."""


AUTH = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")


@pytest.fixture
def ray_cluster():
    """A one-CPU Ray head on this machine (``ray start --head``), stopped in a finalizer; its address. Ray
    enables token authentication when it finds a token (``~/.ray/auth_token``): the cluster and this process
    (the driver) share one of the test's own, as a runner and its cluster share theirs. Ray keeps the token
    and its mode in this process once read: the finalizer restores the variables and then drops Ray's copy
    (Ray's own test helper), so a later test in this worker starts its local Ray as if this one never ran."""
    saved = {name: os.environ.get(name) for name in AUTH}
    os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
    os.environ.pop("RAY_AUTH_TOKEN_PATH", None)
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    env.pop("RAY_ADDRESS", None)
    port = "6391"
    try:
        started = subprocess.run(
            [
                *RAY,
                "start",
                "--head",
                "--num-cpus",
                "1",
                "--port",
                port,
                "--include-dashboard=false",
                "--disable-usage-stats",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=180,
        )
        assert started.returncode == 0, started.stdout + started.stderr
        yield f"127.0.0.1:{port}"
    finally:
        import ray
        from ray._private.authentication_test_utils import reset_auth_token_state

        ray.shutdown()
        subprocess.run([*RAY, "stop", "--force"], capture_output=True, env=env, timeout=120)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        reset_auth_token_state()


def pages(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


@pytest.mark.subprocess
def test_the_nightly_on_a_ray_cluster_publishes_the_local_executor_s_site(ray_cluster, tmp_path, monkeypatch, vlc_cli):
    # The fixed clock: the render's (a process of its own, so its documented variable) and the store's.
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(int(NOW.timestamp())))
    for module in ("cells", "scores", "store", "opening"):
        monkeypatch.setattr(f"vlc_harness.store.{module}.now", lambda: NOW.isoformat(timespec="seconds"))
    registry = write_registry(
        tmp_path / "registry.yaml",
        [
            {"id": "random", "type": "random", "params": {"seed": 0}},
            {"id": "random-7", "type": "random", "params": {"seed": 7}},
        ],
        [{"id": "shapes", "type": "shapes", "params": {"seed": 0, "n_scenes": 6, "image_size": 32}}],
    )

    def night(name: str) -> dict:
        code, summary, markdown = run_night(
            vlc_cli, tmp_path, registry, "--no-install", name=name, state=tmp_path / name
        )
        assert code == 0, markdown
        return summary

    monkeypatch.setenv("VLC_HARNESS_EXECUTOR", "local")
    local = night("local")
    monkeypatch.setenv("VLC_HARNESS_EXECUTOR", "ray")
    monkeypatch.setenv("RAY_ADDRESS", ray_cluster)
    on_ray = night("ray")

    assert local["run"]["statuses"] == on_ray["run"]["statuses"] == {"ok": 2}
    for name, summary in (("local", local), ("ray", on_ray)):
        from vlc_harness.store import open_store

        store = open_store(f"sqlite:///{tmp_path / name / 'store.sqlite'}")
        try:
            assert store.run_provenance(summary["run"]["run_id"])["executor"] == name  # the variable reached run
        finally:
            store.close()
    ours, theirs = pages(tmp_path / "ray" / "site"), pages(tmp_path / "local" / "site")
    assert json.loads(ours["manifest.json"]) == json.loads(theirs["manifest.json"])
    assert b"Last checked 2026-05-01 06:30 UTC" in ours["index.html"]  # the fixed clock reached both renders
    assert ours.keys() == theirs.keys() and [k for k in ours if ours[k] != theirs[k]] == []
