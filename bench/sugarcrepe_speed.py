"""SugarCrepe end to end: vlc-harness against LAION's CLIP_benchmark and the official loop.

One script, one machine, every timing in the same run:

  (a) CLIP_benchmark 1.6.2 (`clip_benchmark eval --task image_caption_selection`) on the 7
      subsets in fp32 (--no_amp), and as users run it (its autocast on). On CPUs without native
      bf16 (AVX-512 BF16/AMX) its CPU autocast is emulated and takes hours for the 7 subsets, so
      by default the autocast run covers --subset only and is extrapolated per instance
      (--cb-autocast-all runs all 7);
  (b) vlc-harness cold (empty store and hash cache), (c) warm (everything stored);
  (d) the floor: the same model code on the unique inputs only (no store, no processes);
  (e) the official per-instance loop (SugarCrepe's main_eval.py protocol: one image and each
      caption encoded per instance, fp32) on one subset, extrapolated per instance.

Data: the real SugarCrepe annotations (upstream HEAD, 7,511 cases) with generated 640x480 JPEG
stand-ins, one per COCO file name (1,560 distinct files), and the open_clip ViT-B-32
architecture with random weights from a fixed seed. Needs `pip install clip-benchmark==1.6.2
requests` for (a); without it (a) is reported as not run.

    python bench/sugarcrepe_speed.py [--annotations ../shared/data/sugarcrepe] [--work /tmp/vlc-bench]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

SUBSETS = ("add_att", "add_obj", "replace_att", "replace_obj", "replace_rel", "swap_att", "swap_obj")
REPO = Path(__file__).resolve().parent.parent


def prepare(annotations: Path, work: Path) -> tuple[Path, Path, Path]:
    """Data root for the harness, a CLIP_benchmark root, and the random-weight checkpoint."""
    from harness.testing import standin_image

    root = work / "data"
    (root / "sugarcrepe").mkdir(parents=True, exist_ok=True)
    images = root / "coco" / "val2017"
    images.mkdir(parents=True, exist_ok=True)
    names = set()
    for subset in SUBSETS:
        shutil.copy(annotations / f"{subset}.json", root / "sugarcrepe" / f"{subset}.json")
        names.update(r["filename"] for r in json.loads((annotations / f"{subset}.json").read_text()).values())
    for name in sorted(names):
        path = images / name
        if not path.exists():
            standin_image(name, (640, 480)).save(path, quality=90)
    digests = {hashlib.sha256((images / n).read_bytes()).hexdigest() for n in names}
    assert len(names) == 1560 and len(digests) == 1560, (len(names), len(digests))
    cb_root = work / "cb_root"
    cb_root.mkdir(exist_ok=True)
    if not (cb_root / "val2017").exists():
        (cb_root / "val2017").symlink_to(images)
    for subset in SUBSETS:
        if not (cb_root / f"{subset}.json").exists():
            (cb_root / f"{subset}.json").symlink_to(root / "sugarcrepe" / f"{subset}.json")
    checkpoint = work / "vit_b_32_seed0.pt"
    if not checkpoint.exists():
        import open_clip
        import torch

        torch.manual_seed(0)
        torch.save(open_clip.create_model("ViT-B-32", pretrained=None).state_dict(), checkpoint)
    return root, cb_root, checkpoint


def timed(cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(
            f"command failed ({out.returncode}): {' '.join(cmd)}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
        )
    return elapsed, out.stdout


def run_clip_benchmark(
    cb_root: Path, checkpoint: Path, work: Path, amp: bool, subsets: tuple[str, ...] = SUBSETS
) -> tuple[float, dict]:
    exe = shutil.which("clip_benchmark") or str(Path(sys.executable).with_name("clip_benchmark"))
    out_dir = work / ("cb_amp" if amp else "cb_fp32")
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir()
    cmd = [
        exe,
        "eval",
        "--task",
        "image_caption_selection",
        "--dataset",
        *[f"sugar_crepe/{s}" for s in subsets],
        "--dataset_root",
        str(cb_root),
        "--model",
        "ViT-B-32",
        "--pretrained",
        str(checkpoint),
        "--output",
        str(out_dir / "{dataset}.json"),
    ] + ([] if amp else ["--no_amp"])
    elapsed, _ = timed(cmd, cwd=work)
    accs = {}
    for subset in subsets:
        candidates = list(out_dir.rglob(f"*{subset}*.json"))
        data = json.loads(candidates[0].read_text())
        accs[subset] = data["metrics"]["acc"]
    return elapsed, accs


def harness_run(root: Path, checkpoint: Path, work: Path, cache: Path, batch_size: int) -> tuple[float, dict]:
    env = dict(os.environ, VLC_HARNESS_CACHE_DIR=str(cache), HF_HUB_OFFLINE="1")
    spec = f"open_clip:arch=ViT-B-32,pretrained={checkpoint},run.batch_size={batch_size}"
    store = f"sqlite:///{work / 'harness.sqlite'}"
    elapsed, _ = timed(
        [
            sys.executable,
            "-m",
            "harness",
            "run",
            "-m",
            spec,
            "-b",
            "sugarcrepe:version=upstream-7511",
            "--data-root",
            str(root),
            "--store",
            store,
            "--no-progress",
        ],
        env=env,
    )
    from harness.store import open_store

    (cell,) = open_store(store).latest_cells()
    accs = {m["category"]: m["value"] for m in cell.metrics if m["metric"] == "i2t_accuracy"}
    margins = {o.instance_id: o.scores[0][0] - o.scores[0][1] for o in open_store(store).outcomes(cell.id)}
    return elapsed, {"acc": accs, "margins": margins}


def floor(root: Path, checkpoint: Path, batch_size: int) -> float:
    """The plugin's own model code on the unique inputs only: load, decode, encode; nothing else."""
    from harness.images import load_image
    from harness.params import build
    from plugins.models.openclip import OpenClip, OpenClipRun

    texts, names = set(), set()
    for subset in SUBSETS:
        for r in json.loads((root / "sugarcrepe" / f"{subset}.json").read_text()).values():
            texts.update((r["caption"], r["negative_caption"]))
            names.add(r["filename"])
    start = time.perf_counter()
    model = OpenClip(
        build(OpenClip.Params, {"arch": "ViT-B-32", "pretrained": str(checkpoint)}), OpenClipRun(batch_size=batch_size)
    )
    model.load("cpu")
    ordered = sorted(texts, key=lambda t: (len(t), t))
    for i in range(0, len(ordered), batch_size):
        model.embed_texts(ordered[i : i + batch_size])
    paths = sorted(names)
    for i in range(0, len(paths), batch_size):
        batch = [model.preprocess(load_image(root / "coco" / "val2017" / p)) for p in paths[i : i + batch_size]]
        model.embed_images(batch)
    return time.perf_counter() - start


def official_loop(root: Path, checkpoint: Path, subset: str) -> tuple[float, dict[str, float]]:
    """SugarCrepe's per-instance protocol: each instance's image and both captions, batch 1, fp32."""
    import open_clip
    import torch
    from PIL import Image

    start = time.perf_counter()
    model, _, transform = open_clip.create_model_and_transforms("ViT-B-32", pretrained=str(checkpoint))
    model.eval()
    tokenizer = open_clip.get_tokenizer("ViT-B-32")
    margins = {}
    records = json.loads((root / "sugarcrepe" / f"{subset}.json").read_text())
    with torch.no_grad():
        for key, r in records.items():
            image = transform(Image.open(root / "coco" / "val2017" / r["filename"])).unsqueeze(0)
            pos = model.encode_text(tokenizer(r["caption"]), normalize=True)
            neg = model.encode_text(tokenizer(r["negative_caption"]), normalize=True)
            img = model.encode_image(image, normalize=True)
            margins[f"{subset}/{key}"] = (pos @ img.T).item() - (neg @ img.T).item()
    return time.perf_counter() - start, margins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--annotations", type=Path, default=REPO.parent / "shared" / "data" / "sugarcrepe")
    parser.add_argument("--work", type=Path, default=Path("/tmp/vlc-bench-sugarcrepe"))
    parser.add_argument("--subset", default="add_att", help="subset for the official per-instance loop")
    parser.add_argument(
        "--batch-size",
        type=int,
        default=32,
        help="harness and floor batch (the harness default); CLIP_benchmark keeps its own default (64)",
    )
    parser.add_argument("--skip-clip-benchmark", action="store_true")
    parser.add_argument("--cb-autocast-all", action="store_true", help="run CLIP_benchmark's autocast on all 7 subsets")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    import torch

    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, {os.cpu_count()} cores", flush=True)
    root, cb_root, checkpoint = prepare(args.annotations, args.work)
    n_total = sum(len(json.loads((root / "sugarcrepe" / f"{s}.json").read_text())) for s in SUBSETS)
    results: dict[str, float] = {}
    accs: dict[str, dict] = {}

    def record(name: str, seconds: float) -> None:
        results[name] = seconds
        print(f"  {name}: {seconds:.1f} s", flush=True)
        (args.work / "results.json").write_text(json.dumps(results, indent=1))

    import resource

    cache = args.work / "harness_cache"
    shutil.rmtree(cache, ignore_errors=True)
    (args.work / "harness.sqlite").unlink(missing_ok=True)
    t, cold = harness_run(root, checkpoint, args.work, cache, args.batch_size)
    record("harness cold", t)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"  harness cold peak RSS (largest process: the worker): {peak_mb:.0f} MB", flush=True)
    accs["harness"] = cold["acc"]
    record("harness warm", harness_run(root, checkpoint, args.work, cache, args.batch_size)[0])
    record("floor (unique inputs, same model code)", floor(root, checkpoint, args.batch_size))
    t_official, official_margins = official_loop(root, checkpoint, args.subset)
    n_subset = len(official_margins)
    record(f"official loop on {args.subset} ({n_subset})", t_official)
    record("official loop, extrapolated to 7,511", t_official * n_total / n_subset)
    have_cb = not args.skip_clip_benchmark and (
        shutil.which("clip_benchmark") or Path(sys.executable).with_name("clip_benchmark").exists()
    )
    if have_cb:
        t, accs["CLIP_benchmark fp32"] = run_clip_benchmark(cb_root, checkpoint, args.work, False)
        record("CLIP_benchmark fp32 (--no_amp)", t)
        if args.cb_autocast_all:
            t, accs["CLIP_benchmark autocast"] = run_clip_benchmark(cb_root, checkpoint, args.work, True)
            record("CLIP_benchmark (autocast, as users run it)", t)
        else:
            t, accs["CLIP_benchmark autocast"] = run_clip_benchmark(
                cb_root, checkpoint, args.work, True, (args.subset,)
            )
            record(f"CLIP_benchmark autocast on {args.subset}", t)
            record("CLIP_benchmark (autocast, as users run it)", t * n_total / n_subset)

    cold_t = results["harness cold"]
    print(f"\nSugarCrepe upstream-7511 ({n_total} instances), ViT-B-32 random weights, harness batch {args.batch_size}")
    print(f"{'what':<46} {'wall s':>8} {'/ harness cold':>15}")
    for name, t in results.items():
        print(f"{name:<46} {t:8.1f} {t / cold_t:15.2f}")
    print(f"\nharness cold vs floor: {cold_t / results['floor (unique inputs, same model code)']:.2f}x the floor")
    print(f"harness warm: {cold_t / results['harness warm']:.1f}x faster than cold")
    if have_cb:
        print(
            f"CLIP_benchmark as users run it / harness cold: "
            f"{results['CLIP_benchmark (autocast, as users run it)'] / cold_t:.2f}x"
        )
    print(
        f"official loop (extrapolated) / harness cold: {results['official loop, extrapolated to 7,511'] / cold_t:.2f}x"
    )

    print("\naccuracy per subset")
    names = list(accs)
    print(f"{'subset':<12}" + "".join(f"{n:>26}" for n in names) + f"{'official fp32':>16}")
    official_acc = sum(m > 0 for m in official_margins.values()) / n_subset
    for subset in SUBSETS:
        row = "".join(f"{accs[n].get(subset, float('nan')):26.4f}" for n in names)
        extra = f"{official_acc:16.4f}" if subset == args.subset else f"{'':>16}"
        print(f"{subset:<12}{row}{extra}")
    disagree = [iid for iid, m in official_margins.items() if (m > 0) != (cold["margins"][iid] > 0)]
    near = [iid for iid in disagree if abs(official_margins[iid]) < 1e-6]
    print(
        f"\n{args.subset}: harness and the official fp32 loop disagree on {len(disagree)} instances, "
        f"{len(near)} of them with |margin| < 1e-6"
    )
    max_diff = max(abs(official_margins[i] - cold["margins"][i]) for i in official_margins)
    print(f"max |margin difference| harness vs official: {max_diff:.2e}")
    if len(disagree) != len(near):
        raise SystemExit("accuracy mismatch beyond float rounding")


if __name__ == "__main__":
    main()
