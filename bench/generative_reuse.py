"""Generative scorers: per-pair scoring against grouped scoring with vision and key/value-prefix reuse.

A tiny random LLaVA (``LlavaForConditionalGeneration``) shaped like LLaVA-1.5 in the proportions
that matter here: a 336-pixel image in 14-pixel patches gives 576 image tokens ahead of a
~30-token question, so the image dominates each sequence as it does in the real model. Captions
are SugarCrepe's (the fixture sample, or ``--annotations`` pointing at the real files), two per
image: the positive and its negative. Every timing comes from this run, on this machine:

* ``none``: per-pair scoring, each pair its own vision pass and full sequence (batched as the
  harness batches pairs): the baseline;
* ``vision``: each image's vision features once, full sequences per text;
* ``prefix``: vision features once and the image + question prefix once per image (KV cache),
  then each text's suffix only (the default).

The scores of the three modes are compared (max |diff|) and the speed-up printed.

    python bench/generative_reuse.py [--groups 32] [--batch-groups 8] [--repeats 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def sugarcrepe_pairs(folder: Path, limit: int) -> list[tuple[str, list[str]]]:
    """(file name, [positive, negative]) from SugarCrepe's JSON files, round-robin over subsets."""
    subsets = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    rows = [list(s.values()) for s in subsets]
    out: list[tuple[str, list[str]]] = []
    k = 0
    while len(out) < limit and any(k < len(r) for r in rows):
        for r in rows:
            if k < len(r) and len(out) < limit:
                out.append((r[k]["filename"], [r[k]["caption"], r[k]["negative_caption"]]))
        k += 1
    return out


def main() -> None:
    """Build the tiny model, time the three reuse modes over the same groups, print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--annotations", type=Path, default=REPO / "tests" / "fixtures" / "sugarcrepe_sample")
    parser.add_argument("--groups", type=int, default=32, help="images (2 captions each)")
    parser.add_argument("--batch-groups", type=int, default=8, help="images per score_pairs call")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scoring", default="p_yes", choices=["p_yes", "t2v_metrics"])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", default="fp32", choices=["fp32", "fp16", "bf16"])
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (0: torch's default; 1 is steadier on shared CPUs)"
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

    import torch

    from vlc_harness.models import PairGroup
    from vlc_harness.params import build
    from vlc_harness.testing import standin_image
    from vlc_harness_builtins.models.generative import GenerativeRun
    from vlc_harness_builtins.models.vqascore import VqaScore
    from vlc_harness_builtins.testing.tiny_generative import save_tiny_llava

    if args.threads:
        torch.set_num_threads(args.threads)
    work = Path(tempfile.mkdtemp(prefix="vlc-gen-bench-"))
    folder = save_tiny_llava(work / "llava", image_size=336, patch_size=14, hidden=64, layers=2)
    pairs = sugarcrepe_pairs(args.annotations, args.groups)
    images = {name: standin_image(name, (640, 480)) for name, _ in pairs}

    def model(reuse: str) -> VqaScore:
        m = VqaScore(
            build(VqaScore.Params, {"checkpoint": str(folder), "scoring": args.scoring, "precision": args.precision}),
            GenerativeRun(reuse=reuse, self_check=False),
        )
        m.identify()
        m.load(args.device)
        return m

    def sync() -> None:
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()

    models = {reuse: model(reuse) for reuse in ("none", "vision", "prefix")}
    pre = models["prefix"]
    groups = [PairGroup(name, pre.preprocess(images[name]), texts) for name, texts in pairs]
    batches = [groups[i : i + args.batch_groups] for i in range(0, len(groups), args.batch_groups)]
    timings: dict[str, list[float]] = {r: [] for r in models}
    scores: dict[str, list[float]] = {}
    for m in models.values():  # warm-up
        m.score_pairs(batches[0])
    for _ in range(args.repeats):
        for reuse, m in models.items():  # interleaved, so that load changes hit every mode alike
            sync()
            start = time.perf_counter()
            flat = [s for batch in batches for row in m.score_pairs(batch) for s in row]
            sync()
            timings[reuse].append(time.perf_counter() - start)
            scores[reuse] = flat
    n_pairs = sum(len(g.texts) for g in groups)
    base = statistics.median(timings["none"])
    print(f"tiny LLaVA (576 image tokens, hidden 64, 2+2 layers), {len(groups)} images x 2 SugarCrepe captions")
    print(
        f"device {args.device} ({args.precision}), torch threads {torch.get_num_threads()}, "
        f"{os.cpu_count()} CPUs visible, batches of {args.batch_groups} images"
    )
    print(f"{'reuse':8} {'median s':>9} {'pairs/s':>8} {'speed-up':>9} {'max |diff| vs none':>19}")
    for reuse, t in timings.items():
        median = statistics.median(t)
        diff = max(abs(a - b) for a, b in zip(scores[reuse], scores["none"], strict=True))
        print(f"{reuse:8} {median:9.3f} {n_pairs / median:8.1f} {base / median:8.2f}x {diff:19.2e}")


if __name__ == "__main__":
    main()
