"""Peak memory of a run over SugarCrepe, BiVLC and hard positives (REPLACE) with the tiny model.

Real annotations from ../shared/data, generated 64x48 stand-in images for every file they name.
The same grid runs at growing ``--limit`` (instances per category) and in full, each on a fresh
store; the peak RSS of the main process and of the model worker is printed per size, so growth
beyond the key set (paths, hashes, texts) would show.

    python bench/memory.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
PROBE = """
import resource, sys
from vlc_harness.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"PEAK main={own:.0f} worker={child:.0f}")
"""


def data_root(work: Path) -> tuple[Path, int]:
    sys.path.insert(0, str(REPO))
    from vlc_harness.testing import write_standin_images

    root = work / "data"
    root.mkdir(parents=True)
    (root / "sugarcrepe").symlink_to(SHARED / "sugarcrepe")
    (root / "hard_positives").symlink_to(SHARED / "hard_positives")
    (root / "bivlc").mkdir(parents=True)
    for name in ("BiVLC_ViT-B-32.csv", "BiVLC_negative_imgs.csv"):
        (root / "bivlc" / name).symlink_to(SHARED / "bivlc" / name)
    coco = {r["filename"] for f in (SHARED / "sugarcrepe").glob("*.json") for r in json.loads(f.read_text()).values()}
    n = write_standin_images(coco, root / "coco" / "val2017")
    n += write_standin_images([f"{k}.jpg" for k in range(2933)], root / "bivlc" / "negative_images")
    vg = set()
    for f in (SHARED / "hard_positives" / "data").glob("vl_checklist_*.json"):
        vg |= {r["image_path"].removeprefix("data/") for r in json.loads(f.read_text())}
    for sub in ("VG_100K", "VG_100K_2"):
        n += write_standin_images(
            [p.split("/", 1)[1] for p in vg if p.startswith(sub + "/")], root / "visual_genome" / sub
        )
    return root, n


def main() -> None:
    sys.path.insert(0, str(REPO))
    from vlc_harness.testing.examples import example_for
    from vlc_harness_builtins.models.openclip import OpenClip
    from vlc_harness_builtins.testing.tiny_openclip import TINY_CONFIG

    work = Path(tempfile.mkdtemp(prefix="vlc-mem-"))
    root, n_images = data_root(work)
    params = example_for(OpenClip, work)
    config = work / "tiny.json"
    config.write_text(json.dumps(TINY_CONFIG))
    spec = f"open_clip:arch=@{config},pretrained={params['pretrained']}"
    print(f"{n_images} stand-in images written")
    for limit in (50, 500, None):
        args = [
            sys.executable,
            "-c",
            PROBE,
            "run",
            "-m",
            spec,
            "-b",
            "sugarcrepe",
            "-b",
            "bivlc",
            "-b",
            "hard_positives:forms=replace",
            "--data-root",
            str(root),
            "--store",
            f"sqlite:///{work / f'store_{limit}.sqlite'}",
            "--no-progress",
        ]
        if limit:
            args += ["--limit", str(limit)]
        out = subprocess.run(
            args,
            capture_output=True,
            text=True,
            cwd=REPO,
            env={"VLC_HARNESS_BOOTSTRAP": "200", "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"},
        )
        peak = [line for line in out.stdout.splitlines() if line.startswith("PEAK")]
        cells = [line for line in out.stdout.splitlines() if " x " in line]
        instances = sum(int(c.split("(n=")[1].split(",")[0]) for c in cells if "(n=" in c)
        print(f"limit {limit or 'none':>5}: {instances:6d} instances scored; {peak[0] if peak else out.stderr[-500:]}")


if __name__ == "__main__":
    main()
