"""Sizes of the instance browser's page data: a synthetic VL-CheckList-sized benchmark (123,000
instances of 1 image x 2 captions, captions not published, as VL-CheckList's license requires) and the
registry's 67 models, against the budget of :mod:`vlc_leaderboard.instance_files` (no file over 1 MiB).

Per model it writes the verdict file and the score shards of a few models (every model's files have
the same shape: random scores and verdicts), and prints the largest file, the benchmark's own files,
one model's files, what one view loads, and the total for all the models. Nothing is downloaded.

    python bench/instance_sizes.py [--instances 123000] [--models 67] [--written 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from vlc_leaderboard.board import Board, Row
from vlc_leaderboard.instance_files import BUDGET, write_instance_files
from vlc_leaderboard.instances import BenchmarkInstances, ImageEntry, ModelInstances

CATEGORIES = [
    f"{kind}/{sub}/{source}"
    for kind, sub in [("Attribute", "color"), ("Attribute", "material"), ("Attribute", "size"), ("Attribute", "state"),
                      ("Attribute", "action"), ("Relation", "action"), ("Relation", "spatial"), ("Object", "Location"),
                      ("Object", "Size")]
    for source in ("vg", "vaw", "swig", "hake")
]  # fmt: skip


def synthetic(n: int, n_models: int, seed: int = 0) -> BenchmarkInstances:
    """A benchmark of ``n`` VL-CheckList-like instances and ``n_models`` models' random results."""
    rng = np.random.default_rng(seed)
    per = -(-n // len(CATEGORIES))
    categories = [CATEGORIES[k // per] for k in range(n)]
    data = BenchmarkInstances("vl_checklist", "i2t_accuracy", "wrong")
    data.ids = [f"{c}/{k}" for k, c in enumerate(categories)]
    data.categories = categories
    data.roles = [["gold", "foil"]] * n
    data.gold = [[[0, 0]]] * n
    data.images = [[ImageEntry(f"vl_checklist/images/vg/VG_100K/{2_300_000 + k}.jpg")] for k in range(n)]
    for m in range(n_models):
        scores = rng.normal(0.27, 0.03, size=(n, 1, 2))
        letters = np.where(scores[:, 0, 0] > scores[:, 0, 1], "R", "W")
        data.models[f"model-{m:02d}"] = ModelInstances("".join(letters.tolist()), scores)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", type=int, default=123_000)
    parser.add_argument("--models", type=int, default=67, help="models on the board (the registry's 67)")
    parser.add_argument("--written", type=int, default=3, help="models whose files are written and measured")
    args = parser.parse_args()
    data = synthetic(args.instances, args.written)
    board = Board([], [Row(model_id, model_id, "model", {}) for model_id in data.models])
    out = Path(tempfile.mkdtemp(prefix="vlc-instance-sizes-"))
    start = time.perf_counter()
    indexes, missing = write_instance_files(board, {"vl_checklist": data}, out)
    seconds = time.perf_counter() - start
    assert indexes and not missing, missing
    folder = out / "data" / "instances" / "vl_checklist"
    files = [p for p in folder.rglob("*") if p.is_file()]
    sizes = {p: p.stat().st_size for p in files}
    own = sum(s for p, s in sizes.items() if p.parent == folder)
    model = folder / "models" / "model-00"
    verdicts = sizes[folder / "models" / "model-00.js"]
    scores = sum(s for p, s in sizes.items() if p.parent == model)
    shards = len(list(folder.glob("shard-*.js")))
    first_view = sizes[folder / "index.js"] + 3 * verdicts + sizes[folder / "shard-0.js"]
    first_view += 3 * sizes[model / "shard-0.js"]
    mb = 1e6
    print(f"{args.instances:,} instances, {shards} shards of at most {BUDGET.shard_instances:,} instances; "
          f"cap {BUDGET.max_file_bytes:,} bytes per file; written in {seconds:.1f} s")  # fmt: skip
    print(f"largest file: {max(sizes.values()):,} bytes ({max(sizes, key=sizes.__getitem__).relative_to(folder)})")
    print(f"benchmark files (index + shards): {own / mb:.2f} MB; index {sizes[folder / 'index.js']:,} bytes")
    print(f"per model: verdicts {verdicts:,} bytes + scores {scores / mb:.2f} MB in {shards} files")
    print(f"first view of 3 models (index, 3 verdict files, 1 shard, 3 score shards): {first_view / mb:.2f} MB")
    total = own + args.models * (verdicts + scores)
    print(f"all {args.models} models: {total / mb:.1f} MB in {1 + shards + args.models * (1 + shards):,} files")


if __name__ == "__main__":
    main()
