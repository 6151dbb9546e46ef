"""Train the shapes CLIP (``plugins/models/shapes_clip.py``) on CPU and write its weights.

Recipe (the defaults; every number is a command-line option and is recorded in the output):

* Data: scenes 0 .. 49,151 of the random stream ``train`` (seed 0) of
  ``plugins/benchmarks/shapes_scenes.py``; the benchmark uses the stream ``bench``. Each scene is
  rendered exactly as the benchmark renders it (128 px), then box-resized to 64 px as the model's
  preprocessing does. Scenes 49,152 .. 50,151 are held out for the final checks.
* Captions: every epoch, each scene's caption is drawn in one of its 8 wordings (size synonyms x
  relation synonyms x converse order: the same scene, so the same meaning).
* Loss: symmetric InfoNCE with a learned temperature (init 1/0.07, capped at 100) over random
  batches, as CLIP. Pairs whose scenes mean the same (e.g. two single red squares) count as
  positives of each other (the target is spread evenly over them), not as negatives.
  By default NO hard negatives are added to batches. ``--hard-negatives`` (an ablation, not the
  shipped model) adds, for each image, the caption of one hard negative of its scene (a random
  SugarCrepe kind, same wording) as an extra candidate in the image-to-text softmax.
* Network: image: 4x4 patches -> 48 channels, 3x3 conv stride 2 -> 96, 3x3 conv -> 64 (GroupNorm
  and GELU after each), the 8x8x64 map flattened -> 128; text: word embeddings (width 128) plus
  learned positions, 2 pre-norm transformer blocks (4 heads, MLP 256), mean pool -> 128.
* Optimiser: AdamW (lr 2e-3, betas 0.9/0.98, weight decay 0.05 on weight matrices), batch 256,
  10 epochs (1,920 steps), linear warm-up over 100 steps then cosine to 0; torch seed 0; 2 threads.
* Checks on the held-out scenes: caption retrieval top-1 among 1,000, and per hard-negative kind
  the share of images that score their caption above the negative caption (I2T, chance 0.5).
* Output: fp16 safetensors (config, vocabulary and recipe in its metadata) and a JSON beside it
  with the recipe, the time of every epoch, the checks, the machine's load and the sha256.

Run: ``python scripts/train_shapes_clip.py [--threads 2] [--out PATH]``; it prints the time of
each epoch (and per step) and the final numbers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from vlc_harness_builtins.benchmarks.shapes_scenes import (  # noqa: E402
    COLOURS,
    GENERATOR_VERSION,
    NEGATIVE_KINDS,
    RELATION_WORDS,
    SHAPES,
    SIZE_WORDS,
    Picture,
    Style,
    caption,
    facts,
    negative,
    random_picture,
    render,
    scene_rng,
)
from vlc_harness_builtins.models.shapes_clip import MEAN, PAD, SHIPPED_WEIGHTS, STD, UNK, build_network, tokenize  # noqa: E402

STREAM = "train"
STYLES = [Style(s, r, c) for s in (0, 1) for r in (0, 1) for c in (False, True)]
CONFIG: dict[str, Any] = {
    "image_size": 64,
    "channels": [48, 96, 64],
    "strides": [4, 2, 1],
    "embed_dim": 128,
    "text_width": 128,
    "text_heads": 4,
    "text_layers": 2,
    "max_len": 32,
}


def vocabulary() -> list[str]:
    """``<pad>``, ``<unk>``, then every word of the shapes grammar and the comma (sorted)."""
    words = {"a", "and", ",", *SHAPES, *COLOURS}
    words |= {w for forms in SIZE_WORDS.values() for f in forms for w in f.split()}
    words |= {w for forms in RELATION_WORDS.values() for f in forms for w in f.split()}
    return [PAD, UNK, *sorted(words)]


def _render_small(job: tuple[Picture, int, int]) -> np.ndarray:
    from PIL import Image

    picture, render_size, input_size = job
    image = render(picture, render_size).resize((input_size, input_size), Image.Resampling.BOX)
    return np.asarray(image, dtype=np.uint8)


def render_all(pictures: list[Picture], render_size: int, input_size: int, workers: int) -> np.ndarray:
    """uint8 ``[n, size, size, 3]``: rendered as the benchmark does, resized as the model does."""
    jobs = [(p, render_size, input_size) for p in pictures]
    if workers <= 1:
        return np.stack([_render_small(j) for j in jobs])
    with Pool(workers) as pool:
        return np.stack(pool.map(_render_small, jobs, chunksize=256))


def token_table(scenes: list[Any], word_ids: dict[str, int], max_len: int, width: int) -> np.ndarray:
    """Word ids ``[len(scenes), len(STYLES), width]`` (uint8) of each scene in every wording (0: none)."""
    out = np.zeros((len(scenes), len(STYLES), width), dtype=np.uint8)
    for k, scene in enumerate(scenes):
        if scene is not None:
            ids = tokenize([caption(scene, s) for s in STYLES], word_ids, max_len)
            out[k, :, : ids.shape[1]] = ids
    return out


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n-train", type=int, default=49_152)
    p.add_argument("--n-val", type=int, default=1_000)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--weight-decay", type=float, default=0.05)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--render-size", type=int, default=128)
    p.add_argument("--hard-negatives", action="store_true", help="ablation: one hard-negative caption per image")
    p.add_argument("--out", type=Path, default=SHIPPED_WEIGHTS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, check on the held-out scenes, write the weights and the JSON record."""
    import torch

    args = parse(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    load_start = os.getloadavg()
    t_start = time.perf_counter()

    vocab = vocabulary()
    word_ids = {w: i for i, w in enumerate(vocab)}
    config = {**CONFIG, "vocab_size": len(vocab)}
    n_total = args.n_train + args.n_val
    pictures = [random_picture(STREAM, args.seed, i) for i in range(n_total)]
    pixels = render_all(pictures, args.render_size, config["image_size"], args.threads)
    width = config["max_len"]
    tokens = token_table([p.scene for p in pictures], word_ids, config["max_len"], width)
    # hard negatives of every scene for the ablation, else of the held-out scenes only (for the checks)
    neg_tokens = np.zeros((n_total, len(NEGATIVE_KINDS), len(STYLES), width), dtype=np.uint8)
    first = 0 if args.hard_negatives else args.n_train
    for j, kind in enumerate(NEGATIVE_KINDS):
        negs = [negative(pictures[i], kind, scene_rng(STREAM, args.seed, i, kind)) for i in range(first, n_total)]
        neg_tokens[first:, j] = token_table([n.picture.scene if n else None for n in negs], word_ids, width, width)
    has_neg = neg_tokens[:, :, 0, 0] != 0
    meaning: dict[Any, int] = {}
    meaning_id = np.array([meaning.setdefault(facts(p.scene), len(meaning)) for p in pictures])
    t_data = time.perf_counter() - t_start
    print(f"data: {n_total} scenes rendered and tokenised in {t_data:.1f} s ({len(meaning)} distinct meanings)")

    images_t = torch.from_numpy(pixels).permute(0, 3, 1, 2).contiguous()
    tokens_t, neg_tokens_t = torch.from_numpy(tokens), torch.from_numpy(neg_tokens)
    has_neg_t, meaning_t = torch.from_numpy(has_neg), torch.from_numpy(meaning_id)
    net = build_network(config)
    decay = [p for n, p in net.named_parameters() if p.ndim >= 2 and "embedding" not in n]
    rest = [p for n, p in net.named_parameters() if not (p.ndim >= 2 and "embedding" not in n)]
    groups = [{"params": decay, "weight_decay": args.weight_decay}, {"params": rest, "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=args.lr, betas=(0.9, 0.98))
    steps_per_epoch = args.n_train // args.batch_size
    total = steps_per_epoch * args.epochs

    def lr_at(step: int) -> float:
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        return 0.5 * args.lr * (1 + math.cos(math.pi * (step - args.warmup) / max(1, total - args.warmup)))

    def trim(t: torch.Tensor) -> torch.Tensor:
        return t[:, : max(1, int((t != 0).sum(1).max()))].long()

    gen = torch.Generator().manual_seed(args.seed)
    step, epochs = 0, []
    net.train()
    for epoch in range(args.epochs):
        t0, losses = time.perf_counter(), []
        order = torch.randperm(args.n_train, generator=gen)
        for b in range(steps_per_epoch):
            idx = order[b * args.batch_size : (b + 1) * args.batch_size]
            style = torch.randint(len(STYLES), (len(idx),), generator=gen)
            x = (images_t[idx].float() / 255.0 - MEAN) / STD
            for group in opt.param_groups:
                group["lr"] = lr_at(step)
            img, txt = net.encode_image(x), net.encode_text(trim(tokens_t[idx, style]))
            scale = net.logit_scale.clamp(max=math.log(100)).exp()
            same = (meaning_t[idx, None] == meaning_t[None, idx]).float()
            target = same / same.sum(1, keepdim=True)
            logits = scale * img @ txt.T
            t2i = -(target * logits.log_softmax(0)).sum(0).mean()
            if args.hard_negatives:
                weights = has_neg_t[idx].float()
                kind = torch.multinomial(weights, 1, generator=gen)[:, 0]
                neg = net.encode_text(trim(neg_tokens_t[idx, kind, style]))
                logits = torch.cat([logits, scale * (img * neg).sum(1, keepdim=True)], 1)
                target = torch.cat([target, torch.zeros(len(idx), 1)], 1)
            i2t = -(target * logits.log_softmax(1)).sum(1).mean()
            loss = 0.5 * (i2t + t2i)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
            step += 1
        seconds = time.perf_counter() - t0
        epochs.append({"epoch": epoch + 1, "loss": round(float(np.mean(losses)), 4), "seconds": round(seconds, 1)})
        print(
            f"epoch {epoch + 1}/{args.epochs}: loss {np.mean(losses):.4f}, {seconds:.1f} s "
            f"({1000 * seconds / steps_per_epoch:.0f} ms/step), load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    t_train = time.perf_counter() - t_start - t_data

    net.eval()
    val = slice(args.n_train, n_total)
    with torch.no_grad():
        img = net.encode_image((images_t[val].float() / 255.0 - MEAN) / STD)
        txt = net.encode_text(trim(tokens_t[val, 0]))
        sims = img @ txt.T
        same = (meaning_t[val, None] == meaning_t[None, val]).numpy()
        checks: dict[str, Any] = {
            "scenes": args.n_val,
            "retrieval_i2t_top1": float(np.mean(same[np.arange(args.n_val), sims.argmax(1).numpy()])),
            "retrieval_t2i_top1": float(np.mean(same[sims.argmax(0).numpy(), np.arange(args.n_val)])),
        }
        positive = (img * txt).sum(1)
        for j, kind in enumerate(NEGATIVE_KINDS):
            present = has_neg_t[val, j]
            neg = net.encode_text(trim(neg_tokens_t[val, j, 0][present]))
            checks[f"i2t_{kind}"] = float((positive[present] > (img[present] * neg).sum(1)).float().mean())
    print("held-out checks:", json.dumps({k: round(v, 3) for k, v in checks.items()}))

    recipe = {**vars(args), "out": str(args.out), "config": config, "steps": total, "styles": len(STYLES)}
    recipe |= {"generator_version": GENERATOR_VERSION, "stream": STREAM}
    state = {k: v.detach().to(torch.float16).contiguous() for k, v in net.state_dict().items()}
    from safetensors.torch import save_file

    args.out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"config": json.dumps(config), "vocab": json.dumps(vocab), "recipe": json.dumps(recipe, sort_keys=True)}
    save_file(state, str(args.out), metadata=meta)
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    record = {
        "weights": args.out.name,
        "sha256": digest,
        "bytes": args.out.stat().st_size,
        "parameters": int(sum(v.numel() for v in state.values())),
        "recipe": recipe,
        "epochs": epochs,
        "seconds": {
            "data": round(t_data, 1),
            "train": round(t_train, 1),
            "total": round(time.perf_counter() - t_start, 1),
        },
        "ms_per_step": round(1000 * t_train / total),
        "held_out": checks,
        "machine": {
            "cpus": os.cpu_count(),
            "threads": args.threads,
            "affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
            "load_average_start": [round(v, 2) for v in load_start],
            "load_average_end": [round(v, 2) for v in os.getloadavg()],
            "platform": platform.platform(),
            "processor": platform.processor(),
            "torch": torch.__version__,
            "python": platform.python_version(),
        },
    }
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({record['bytes'] / 1e6:.2f} MB, sha256 {digest[:12]}...), seconds {record['seconds']}")
    return record


if __name__ == "__main__":
    main()
