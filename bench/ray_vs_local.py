"""Wall time of the same CPU workload on the local executor and on a local Ray instance.

The workload: the tiny open_clip model and the seeded random baseline on SugarCrepe (all 7,511
instances of upstream-7511, read from ../shared/data) with generated 64x48 stand-in images, two
workers each. Each executor gets a fresh store, so both compute everything.

    python bench/ray_vs_local.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    sys.path.insert(0, str(REPO))
    from vlc_harness.testing import write_standin_images
    from vlc_harness.testing.examples import example_for
    from vlc_harness_builtins.models.openclip import OpenClip
    from vlc_harness_builtins.testing.tiny_openclip import TINY_CONFIG

    work = Path(tempfile.mkdtemp(prefix="vlc-ray-bench-"))
    root = work / "data"
    root.mkdir(parents=True)
    (root / "sugarcrepe").symlink_to(REPO.parent / "shared" / "data" / "sugarcrepe")
    names = {r["filename"] for f in (root / "sugarcrepe").glob("*.json") for r in json.loads(f.read_text()).values()}
    write_standin_images(names, root / "coco" / "val2017", size=(64, 48))
    params = example_for(OpenClip, work)
    config = work / "tiny.json"
    config.write_text(json.dumps(TINY_CONFIG))
    spec = f"open_clip:arch=@{config},pretrained={params['pretrained']}"
    times = {}
    for executor in ("local", "ray"):
        args = [
            sys.executable,
            "-m",
            "harness",
            "run",
            "-m",
            spec,
            "-m",
            "random:seed=1",
            "-b",
            "sugarcrepe:version=upstream-7511",
            "--data-root",
            str(root),
            "--store",
            f"sqlite:///{work / (executor + '.sqlite')}",
            "--no-progress",
            "--workers",
            "2",
            "--executor",
            executor,
        ]
        start = time.perf_counter()
        done = subprocess.run(args, capture_output=True, text=True, cwd=REPO)
        times[executor] = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(done.stdout + done.stderr)
        print(done.stdout.strip().splitlines()[-1])
    print(
        f"local executor: {times['local']:.1f} s; ray executor (local Ray, started by the run): {times['ray']:.1f} s; "
        f"ray / local = {times['ray'] / times['local']:.2f}"
    )


if __name__ == "__main__":
    main()
