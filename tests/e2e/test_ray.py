"""The Ray executor on a local Ray instance (CPU): the same scores and metrics as the local one."""

from __future__ import annotations

import pytest

from vlc_harness.store import open_store
from vlc_harness.testing import require

require("ray")


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _cells(url: str) -> dict:
    store = open_store(url)
    try:
        return {c.model_id: (c.status, c.metrics) for c in store.latest_cells()}
    finally:
        store.close()


def test_ray_executor_matches_the_local_one(vlc_run, tmp_path, sample_root, tiny_spec, local_ray):
    common = ["-m", tiny_spec, "-m", "random:seed=4", "-b", "sugarcrepe:version=custom"]
    ray_url = f"sqlite:///{tmp_path / 'ray.sqlite'}"
    assert vlc_run(*common, data_root=sample_root).exit_code == 0
    out = vlc_run(*common, "--executor", "ray", "--workers", "2", data_root=sample_root, store_url=ray_url)
    assert out.exit_code == 0, out.output
    local, remote = _cells(vlc_run.store_url), _cells(ray_url)
    assert set(local) == set(remote)
    for model in local:
        assert remote[model][0] == "ok"
        ours = {(m["metric"], m["category"]): m["value"] for m in remote[model][1]}
        theirs = {(m["metric"], m["category"]): m["value"] for m in local[model][1]}
        assert ours.keys() == theirs.keys()
        assert all(abs(ours[k] - theirs[k]) < 1e-9 for k in ours), model


def test_a_model_failing_on_ray_fails_only_its_cell(vlc_run, sample_root, faulty, local_ray):
    out = vlc_run(
        "-m", "test_nan", "-m", "random", "-b", "sugarcrepe:version=custom", "--executor", "ray", data_root=sample_root
    )
    assert out.exit_code == 1
    cells = _cells(vlc_run.store_url)
    assert cells["random"][0] == "ok" and cells["test_nan"][0] == "failed"
