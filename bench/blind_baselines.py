"""Blind baselines for real: Harper lint count and MiniLM centroid similarity on SugarCrepe and VL-CheckList.

The models are image-blind, so only the annotations are read (no images). Instances come from
the benchmark plugins: SugarCrepe version ``paper-7512`` (7 subsets, pinned by sha256) and
VL-CheckList (``plugins/benchmarks/vl_checklist.py``, version ``partial-12files``; if that plugin
is absent or fails, the upstream JSON under ``vl_checklist/data`` is read directly). Each unique
text is scored once; an instance is right when s(positive) > s(negative), a tie when they are
equal. Printed per subset and overall (micro: pooled over instances; macro: unweighted mean
over subsets): strict accuracy (a tie is wrong, as upstream), the tie rate, and accuracy with a
tie counted half. The benchmark plugin's own strict headline is printed as a cross-check.

The MiniLM centroid is fitted on the OTHER benchmark's positive captions: VL-CheckList POS
captions (all files present) when scoring SugarCrepe, SugarCrepe captions (the 7 top-level
upstream files) when scoring VL-CheckList.

    python bench/blind_baselines.py [--data-root ../shared/data] [--models harper,minilm]
        [--benchmarks sugarcrepe,vl_checklist] [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from vlc_harness.models import RunOptions  # noqa: E402
from vlc_harness.params import build  # noqa: E402
from vlc_harness.types import Instance  # noqa: E402


def default_root() -> Path:
    if os.environ.get("VLC_HARNESS_DATA"):
        return Path(os.environ["VLC_HARNESS_DATA"])
    return REPO.parent / "shared" / "data"


def sugarcrepe_instances(root: Path) -> tuple[list[Instance], Any, str]:
    from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe

    bench = SugarCrepe(build(SugarCrepe.Params, {"version": "paper-7512"}), root)
    bench.check_data()
    return bench.load_instances(), bench, "plugin sugarcrepe:version=paper-7512"


def vl_checklist_instances(root: Path) -> tuple[list[Instance], Any, str]:
    try:
        from vlc_harness_builtins.benchmarks.vl_checklist import VLCheckList

        bench = VLCheckList(build(VLCheckList.Params, {}), root)
        bench.check_data()
        return bench.load_instances(), bench, f"plugin vl_checklist:version={bench.params.version}"
    except Exception as exc:  # the plugin is written concurrently: fall back to the upstream JSON
        print(f"vl_checklist plugin unusable ({type(exc).__name__}: {exc}); reading the JSON directly")
    from vlc_harness.types import ImageSource

    out = []
    data = root / "vl_checklist" / "data"
    for path in sorted(data.rglob("*.json")):
        category = path.relative_to(data).with_suffix("").as_posix()
        for k, (image, texts) in enumerate(json.loads(path.read_text())):
            out.append(
                Instance(
                    f"{category}/{k}",
                    category,
                    (ImageSource(Path(image)),),
                    (texts["POS"][0], texts["NEG"][0]),
                    {"positive": 0},
                )
            )
    return out, None, "upstream JSON (direct)"


def make_model(name: str, scored: str, root: Path, batch_size: int) -> Any:
    if name == "harper":
        from vlc_harness_builtins.models.blind_harper import HarperLint as cls

        params: dict[str, Any] = {}
    else:
        from vlc_harness_builtins.models.blind_minilm import MiniLMCentroid as cls

        if scored == "sugarcrepe":
            params = {"fit_format": "vl_checklist", "fit_dir": str(root / "vl_checklist" / "data")}
        else:
            params = {"fit_format": "sugarcrepe", "fit_dir": str(root / "sugarcrepe")}
    model = cls(build(cls.Params, params), RunOptions(batch_size=batch_size))
    return model


def summarise(instances: list[Instance], scores: dict[str, float]) -> dict[str, dict[str, float]]:
    per: dict[str, list[tuple[int, int]]] = defaultdict(list)  # (right, tie)
    for inst in instances:
        pos = int(inst.gold["positive"])
        s_pos = scores[inst.texts[pos]]
        others = [scores[t] for j, t in enumerate(inst.texts) if j != pos]
        best = max(others)
        per[inst.category].append((int(s_pos > best), int(s_pos == best)))
    table: dict[str, dict[str, float]] = {}
    for category, rows in per.items():
        n = len(rows)
        right, ties = sum(r for r, _ in rows), sum(t for _, t in rows)
        table[category] = {"n": n, "strict": right / n, "tie_rate": ties / n, "ties_half": (right + ties / 2) / n}
    pooled = [r for rows in per.values() for r in rows]
    n = len(pooled)
    right, ties = sum(r for r, _ in pooled), sum(t for _, t in pooled)
    table["overall (micro)"] = {"n": n, "strict": right / n, "tie_rate": ties / n, "ties_half": (right + ties / 2) / n}
    subsets = [v for k, v in table.items() if not k.startswith("overall")]
    table["overall (macro)"] = {
        "n": len(subsets),
        **{m: sum(v[m] for v in subsets) / len(subsets) for m in ("strict", "tie_rate", "ties_half")},
    }
    return table


def plugin_headline(bench: Any, instances: list[Instance], scores: dict[str, float]) -> dict[str, float]:
    import numpy as np

    from vlc_harness.benchmarks import InstanceScores

    if bench is None:
        return {}
    results = [
        InstanceScores(i, np.array([[scores[t] for t in i.texts]] * len(i.images), dtype=float)) for i in instances
    ]
    return {
        f"{v.metric}" + ("" if v.category == "all" else f"[{v.category}]"): v.value
        for v in bench.compute(results)
        if v.metric in ("i2t_accuracy_macro", "i2t_accuracy_micro") or v.metric == "i2t_accuracy_type"
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-root", type=Path, default=default_root())
    ap.add_argument("--models", default="harper,minilm")
    ap.add_argument("--benchmarks", default="sugarcrepe,vl_checklist")
    ap.add_argument("--limit", type=int, default=None, help="first N instances per benchmark (smoke runs)")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    loaders = {"sugarcrepe": sugarcrepe_instances, "vl_checklist": vl_checklist_instances}
    report: dict[str, Any] = {"data_root": str(args.data_root), "results": []}
    for bname in args.benchmarks.split(","):
        instances, bench, source = loaders[bname](args.data_root)
        instances = instances[: args.limit] if args.limit else instances
        texts = sorted({t for i in instances for t in i.texts})
        print(f"\n=== {bname}: {len(instances)} instances, {len(texts)} unique texts ({source})")
        for mname in args.models.split(","):
            model = make_model(mname, bname, args.data_root, args.batch_size)
            t0 = time.time()
            identity = model.identify()
            model.load("cpu")
            t_load = time.time() - t0
            values: list[float] = []
            for start in range(0, len(texts), args.batch_size):
                values.extend(model.score_texts(texts[start : start + args.batch_size]))
            t_score = time.time() - t0 - t_load
            scores = dict(zip(texts, values))
            table = summarise(instances, scores)
            headline = plugin_headline(bench, instances, scores)
            print(f"\n--- {mname} on {bname}  (load+fit {t_load:.0f}s, scoring {t_score:.0f}s)")
            print(f"    weights={identity.weights}\n    protocol={identity.protocol}")
            print(f"    {'subset':34s} {'n':>7s} {'strict':>8s} {'ties':>8s} {'ties-half':>9s}")
            for category, row in table.items():
                print(
                    f"    {category:34s} {int(row['n']):7d} {100 * row['strict']:8.2f} "
                    f"{100 * row['tie_rate']:8.2f} {100 * row['ties_half']:9.2f}"
                )
            if headline:
                shown = ", ".join(f"{k}={100 * v:.2f}" for k, v in headline.items())
                print(f"    plugin metrics (strict): {shown}")
            report["results"].append(
                {
                    "model": mname,
                    "benchmark": bname,
                    "source": source,
                    "identity": {"weights": identity.weights, "protocol": identity.protocol},
                    "unique_texts": len(texts),
                    "seconds": {"load_fit": t_load, "score": t_score},
                    "table": table,
                    "plugin_metrics": headline,
                }
            )
            model.close()
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
