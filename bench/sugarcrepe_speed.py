"""SugarCrepe end to end: vlc-harness against LAION's CLIP_benchmark and the official loop.

One script, one machine, every timing in the same run:

  (0) the harness's own cost, with the seeded `random` model (its scores cost nothing): cold
      (empty store and hash cache) with the breakdown the run records in its provenance
      (start-up, loading the benchmark, planning and image hashing, store writes, the cell),
      and warm (every cell stored);
  then per architecture (--arch, several allowed) and precision (--precision fp32 bf16):
  (a) CLIP_benchmark 1.6.2 (`clip_benchmark eval --task image_caption_selection`) on the 7
      subsets as users run it (its autocast on; fp32 only): on CPUs without native bf16 its
      autocast is emulated and takes hours, so there it covers --subset only and is extrapolated
      per instance (--cb-autocast-all runs all 7);
  (b) vlc-harness cold (empty store and hash cache), (c) warm (everything stored);
  (d) the floor: the same model code on the unique inputs only (no store, no processes), with
      the model's own images/s and texts/s; this script has imported torch and open_clip by then,
      so the imports a fresh interpreter pays (timed once, with CUDA's initialisation on a GPU)
      are printed beside it, and the floor with them, which is what a cold run is compared to;
  (e) the official per-instance loop (SugarCrepe's main_eval.py protocol: one image and each
      caption encoded per instance, fp32; first architecture only) on --subset, extrapolated.

Data: the real SugarCrepe annotations (upstream HEAD, 7,511 cases) with generated 640x480 JPEG
stand-ins, one per COCO file name (1,560 distinct files), and open_clip architectures with
random weights from a fixed seed. Needs `pip install clip-benchmark==1.6.2 requests` for (a);
without it (a) is reported as not run (on a machine without network, an import-only stand-in for
`pycocoevalcap` is enough: CLIP_benchmark imports it only for captioning metrics).

    python bench/sugarcrepe_speed.py [--device cpu|cuda] [--arch ViT-B-32 --arch ViT-L-14]
        [--precision fp32 --precision bf16] [--annotations ../shared/data/sugarcrepe] [--work DIR]
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


def prepare(annotations: Path, work: Path) -> tuple[Path, Path]:
    """Data root for the harness and a CLIP_benchmark root."""
    from vlc_harness.testing import standin_image

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
    return root, cb_root


def checkpoint_for(arch: str, work: Path) -> Path:
    """A random-weight checkpoint of ``arch`` (seed 0), saved once."""
    path = work / f"{arch.lower().replace('-', '_')}_seed0.pt"
    if not path.exists():
        import open_clip
        import torch

        torch.manual_seed(0)
        torch.save(open_clip.create_model(arch, pretrained=None).state_dict(), path)
    return path


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
    cb_root: Path, arch: str, checkpoint: Path, work: Path, amp: bool, device: str, subsets: tuple[str, ...] = SUBSETS
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
        arch,
        "--pretrained",
        str(checkpoint),
        "--output",
        str(out_dir / "{dataset}.json"),
    ] + ([] if amp else ["--no_amp"])
    # CLIP_benchmark has no device option: it takes CUDA whenever one is visible
    env = dict(os.environ) | ({} if device.startswith("cuda") else {"CUDA_VISIBLE_DEVICES": ""})
    elapsed, _ = timed(cmd, env=env, cwd=work)
    accs = {}
    for subset in subsets:
        candidates = list(out_dir.rglob(f"*{subset}*.json"))
        data = json.loads(candidates[0].read_text())
        accs[subset] = data["metrics"]["acc"]
    return elapsed, accs


def harness_run(root: Path, spec: str, work: Path, cache: Path, store: Path) -> tuple[float, dict]:
    """One `vlc-harness run` of ``spec`` on SugarCrepe upstream-7511; wall time, cell and timings."""
    env = dict(os.environ, VLC_HARNESS_CACHE_DIR=str(cache), HF_HUB_OFFLINE="1")
    url = f"sqlite:///{store}"
    cmd = [sys.executable, "-m", "vlc_harness", "run", "-m", spec, "-b", "sugarcrepe:version=upstream-7511"]
    elapsed, _ = timed([*cmd, "--data-root", str(root), "--store", url, "--no-progress"], env=env)
    from vlc_harness.store import open_store

    opened = open_store(url)
    (cell,) = opened.latest_cells()
    accs = {m["category"]: m["value"] for m in cell.metrics if m["metric"] == "i2t_accuracy"}
    margins = {o.instance_id: o.scores[0][0] - o.scores[0][1] for o in opened.outcomes(cell.id)}
    import sqlite3

    with sqlite3.connect(store) as conn:  # the timings of this run, the latest one
        (last_run,) = conn.execute("SELECT max(id) FROM runs").fetchone()
    timings = opened.run_provenance(last_run).get("timings", {})
    return elapsed, {"acc": accs, "margins": margins, "timings": timings}


def harness_cost(root: Path, work: Path) -> dict[str, float]:
    """The harness's own cost: the `random` model, cold and warm, with the recorded breakdown."""
    cache, store = work / "cost_cache", work / "cost.sqlite"
    shutil.rmtree(cache, ignore_errors=True)
    store.unlink(missing_ok=True)
    cold, result = harness_run(root, "random:seed=0", work, cache, store)
    warm, _ = harness_run(root, "random:seed=0", work, cache, store)
    t = result["timings"]
    inside = sum(v for k, v in t.items() if k in ("load_benchmarks_s", "plan_s", "compute_and_cells_s"))
    print(f"\nthe harness's own cost (random model, 7,511 instances, 1,560 images to hash): cold {cold:.2f} s")
    compute = t.get("compute_and_cells_s", 0) - t.get("cells_s", 0)
    rows = [
        ("start-up (interpreter, imports, plugins, store)", cold - inside),
        ("loading the benchmark", t.get("load_benchmarks_s", 0)),
        (f"planning (of which hashing images {t.get('hash_images_s', 0):.2f} s)", t.get("plan_s", 0)),
        (f"computing and recording (store writes {t.get('store_writes_s', 0):.2f} s)", compute),
        ("the cell (metrics, 1,000 resamples, outcome rows)", t.get("cells_s", 0)),
    ]
    for what, seconds in rows:
        print(f"  {what:<58} {seconds:6.2f} s")
    print(f"  warm rerun (every cell stored): {warm:.2f} s")
    return {"random cold": cold, "random warm": warm}


def import_floor(device: str) -> float:
    """Seconds a fresh interpreter takes to import torch and open_clip (and start CUDA on a GPU)."""
    code = "import torch, open_clip" + ("; torch.zeros(1).cuda()" if device.startswith("cuda") else "")
    seconds, _ = timed([sys.executable, "-c", code])
    return seconds


def floor(root: Path, arch: str, checkpoint: Path, device: str, precision: str, batch_size: int) -> dict[str, float]:
    """The plugin's own model code on the unique inputs only: load, decode, encode; nothing else."""
    from vlc_harness.images import load_image
    from vlc_harness.params import build
    from vlc_harness_builtins.models.openclip import OpenClip, OpenClipRun

    texts, names = set(), set()
    for subset in SUBSETS:
        for r in json.loads((root / "sugarcrepe" / f"{subset}.json").read_text()).values():
            texts.update((r["caption"], r["negative_caption"]))
            names.add(r["filename"])
    start = time.perf_counter()
    params = {"arch": arch, "pretrained": str(checkpoint), "precision": precision}
    model = OpenClip(build(OpenClip.Params, params), OpenClipRun(batch_size=batch_size, device=device))
    model.load(device)
    loaded = time.perf_counter()
    ordered = sorted(texts, key=lambda t: (len(t), t))
    for i in range(0, len(ordered), batch_size):
        model.embed_texts(ordered[i : i + batch_size])
    text_done = time.perf_counter()
    paths = sorted(names)
    for i in range(0, len(paths), batch_size):
        batch = [model.preprocess(load_image(root / "coco" / "val2017" / p)) for p in paths[i : i + batch_size]]
        model.embed_images(batch)
    end = time.perf_counter()
    return {
        "total": end - start,
        "texts_per_s": len(ordered) / (text_done - loaded),
        "images_per_s": len(paths) / (end - text_done),
    }


def decode_rates(root: Path, params: dict[str, str]) -> None:
    """Images/s of decoding plus open_clip's preprocessing: one thread, and the worker's pool."""
    from vlc_harness.images import load_image
    from vlc_harness.params import build
    from vlc_harness.run.batching import default_decode_threads, prefetch
    from vlc_harness_builtins.models.openclip import OpenClip, OpenClipRun

    model = OpenClip(build(OpenClip.Params, params), OpenClipRun(device="cpu"))
    model.load("cpu")
    paths = sorted((root / "coco" / "val2017").iterdir())
    start = time.perf_counter()
    for p in paths[:300]:
        model.preprocess(load_image(p))
    serial = 300 / (time.perf_counter() - start)
    start = time.perf_counter()
    for _, _, error in prefetch(lambda p: model.preprocess(load_image(p)), paths, 512):
        assert error is None, error
    pooled = len(paths) / (time.perf_counter() - start)
    print(
        f"  decoding and preprocessing: {serial:.0f} images/s on one thread, {pooled:.0f} images/s in the "
        f"worker's pool ({default_decode_threads()} threads)",
        flush=True,
    )


def official_loop(root: Path, arch: str, checkpoint: Path, subset: str, device: str) -> tuple[float, dict[str, float]]:
    """SugarCrepe's per-instance protocol: each instance's image and both captions, batch 1, fp32."""
    import open_clip
    import torch
    from PIL import Image

    start = time.perf_counter()
    model, _, transform = open_clip.create_model_and_transforms(arch, pretrained=str(checkpoint), device=device)
    model.eval()
    tokenizer = open_clip.get_tokenizer(arch)
    margins = {}
    records = json.loads((root / "sugarcrepe" / f"{subset}.json").read_text())
    with torch.no_grad():
        for key, r in records.items():
            image = transform(Image.open(root / "coco" / "val2017" / r["filename"])).unsqueeze(0).to(device)
            pos = model.encode_text(tokenizer(r["caption"]).to(device), normalize=True)
            neg = model.encode_text(tokenizer(r["negative_caption"]).to(device), normalize=True)
            img = model.encode_image(image, normalize=True)
            margins[f"{subset}/{key}"] = (pos @ img.T).item() - (neg @ img.T).item()
    return time.perf_counter() - start, margins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--annotations", type=Path, default=REPO.parent / "shared" / "data" / "sugarcrepe")
    parser.add_argument("--work", type=Path, default=Path("/tmp/vlc-bench-sugarcrepe"))
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    parser.add_argument("--arch", action="append", default=None, help="open_clip architecture (repeatable)")
    parser.add_argument("--precision", action="append", default=None, help="fp32, bf16 (repeatable; fp32 first)")
    parser.add_argument("--subset", default="add_att", help="subset for the official loop and CPU autocast")
    parser.add_argument(
        "--batch-size", type=int, default=0, help="harness and floor batch (0: the harness's automatic one)"
    )
    parser.add_argument("--skip-clip-benchmark", action="store_true")
    parser.add_argument("--skip-official", action="store_true")
    parser.add_argument("--cb-autocast-all", action="store_true", help="run CLIP_benchmark's autocast on all 7 subsets")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    import torch

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    archs, precisions = args.arch or ["ViT-B-32"], args.precision or ["fp32"]
    name = torch.cuda.get_device_name(0) if device.startswith("cuda") else f"CPU ({os.cpu_count()} cores)"
    print(f"device: {name}; torch {torch.__version__}, {torch.get_num_threads()} threads", flush=True)
    root, cb_root = prepare(args.annotations, args.work)
    n_total = sum(len(json.loads((root / "sugarcrepe" / f"{s}.json").read_text())) for s in SUBSETS)
    from vlc_harness.run.batching import batch_size_for

    batch = batch_size_for(args.batch_size, device, "embed")
    results: dict[str, float] = harness_cost(root, args.work)
    official: dict[str, float] | None = None
    imports: float | None = None
    for arch in archs:
        checkpoint = checkpoint_for(arch, args.work)
        for precision in precisions:
            tag = f"{arch} {precision}"
            spec = f"open_clip:arch={arch},pretrained={checkpoint},precision={precision},run.device={device}"
            if args.batch_size:
                spec += f",run.batch_size={args.batch_size}"
            cache, store = args.work / "harness_cache", args.work / f"harness-{arch}-{precision}.sqlite"
            shutil.rmtree(cache, ignore_errors=True)
            store.unlink(missing_ok=True)
            cold_t, cold = harness_run(root, spec, args.work, cache, store)
            warm_t, _ = harness_run(root, spec, args.work, cache, store)
            fl = floor(root, arch, checkpoint, device, precision, batch)
            if imports is None:
                imports = import_floor(device)
                results["imports of torch and open_clip in a fresh interpreter"] = imports
            results |= {f"{tag} harness cold": cold_t, f"{tag} harness warm": warm_t, f"{tag} floor": fl["total"]}
            phases = ", ".join(f"{k} {v:.2f}" for k, v in cold["timings"].items())
            print(f"\n{tag} harness cold, recorded timings (s): {phases}", flush=True)
            print(
                f"\n{tag} on {name}: harness cold {cold_t:.1f} s, warm {warm_t:.2f} s, floor {fl['total']:.1f} s "
                f"({cold_t / fl['total']:.2f}x the floor); the model alone: {fl['images_per_s']:.0f} images/s, "
                f"{fl['texts_per_s']:.0f} texts/s (batch {batch})\n  with the imports a fresh interpreter pays "
                f"({imports:.1f} s): floor {fl['total'] + imports:.1f} s, harness cold "
                f"{cold_t / (fl['total'] + imports):.2f}x that",
                flush=True,
            )
            if arch == archs[0] and precision == precisions[0]:
                decode_rates(root, {"arch": arch, "pretrained": str(checkpoint)})
            if official is None and precision == "fp32" and not args.skip_official:
                t_official, margins = official_loop(root, arch, checkpoint, args.subset, device)
                official = {"seconds": t_official * n_total / len(margins)}
                results[f"{tag} official loop, extrapolated to {n_total}"] = official["seconds"]
                print(
                    f"  official loop: {official['seconds']:.1f} s extrapolated ({official['seconds'] / cold_t:.1f}x "
                    f"the harness cold)",
                    flush=True,
                )
                check_agreement(args.subset, margins, cold["margins"])
            have_cb = not args.skip_clip_benchmark and (
                shutil.which("clip_benchmark") or Path(sys.executable).with_name("clip_benchmark").exists()
            )
            if have_cb and precision == "fp32":
                subsets = SUBSETS if (device.startswith("cuda") or args.cb_autocast_all) else (args.subset,)
                t, _ = run_clip_benchmark(cb_root, arch, checkpoint, args.work, True, device, subsets)
                scaled = (
                    t
                    if subsets == SUBSETS
                    else t
                    * n_total
                    / sum(len(json.loads((root / "sugarcrepe" / f"{s}.json").read_text())) for s in subsets)
                )
                results[f"{tag} CLIP_benchmark (autocast, as users run it)"] = scaled
                print(f"  CLIP_benchmark as users run it: {scaled:.1f} s ({scaled / cold_t:.1f}x the harness cold)")
    (args.work / "results.json").write_text(json.dumps(results, indent=1))
    print(f"\n{'what':<60} {'wall s':>8}")
    for what, t in results.items():
        print(f"{what:<60} {t:8.2f}")


def check_agreement(subset: str, official: dict[str, float], harness: dict[str, float]) -> None:
    """The harness and the official loop agree on every instance but float-rounding near-ties."""
    disagree = [iid for iid, m in official.items() if (m > 0) != (harness[iid] > 0)]
    near = [iid for iid in disagree if abs(official[iid]) < 1e-6]
    print(
        f"  {subset}: harness and the official fp32 loop disagree on {len(disagree)} instances, "
        f"{len(near)} of them with |margin| < 1e-6; max |margin difference| "
        f"{max(abs(official[i] - harness[i]) for i in official):.2e}"
    )
    if len(disagree) != len(near):
        raise SystemExit("accuracy mismatch beyond float rounding")


if __name__ == "__main__":
    main()
