"""Frozen copy of every built-in benchmark's ``compute`` as it stood in v0.1 (commit a286a6d).

Each function takes the benchmark object (for its params and rules, which are data, not metric
code) and the per-instance score matrices, and returns what the v0.1 ``compute`` method returned.
Only ``bench/cell_cost.py`` and the golden-file generator (``tests/fixtures/golden``) use this;
nothing here may be edited except to keep it importable.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.legacy.metrics import Decision, accuracy_values, macro_value, micro_value, pick
from bench.legacy.metrics_auc import AUC_TIE_RULE, AucResult, binary_predictions, roc_auc, roc_auc_binary
from bench.legacy.metrics_group import group_decisions, group_values
from bench.legacy.types import MetricValue
from vlc_harness.errors import ScoreError
from vlc_harness.types import Instance


@dataclass(frozen=True)
class InstanceScores:
    """An instance and its score matrix (v0.1 ``vlc_harness.benchmarks.InstanceScores``)."""

    instance: Instance
    scores: np.ndarray


SUGARCREPE_TYPES = {
    "REPLACE": ("replace_obj", "replace_att", "replace_rel"),
    "SWAP": ("swap_obj", "swap_att"),
    "ADD": ("add_obj", "add_att"),
}
BIVLC_TYPES = {
    "replace": ("replace_obj", "replace_att", "replace_rel"),
    "swap": ("swap_obj", "swap_att"),
    "add": ("add_obj", "add_att"),
}
BIVLC_FULL = ("i2t_score", "t2i_score", "group_score", "i_pos2t", "i_neg2t", "t_pos2i", "t_neg2i")
WINOGROUND_METRICS = ("text_score", "image_score", "group_score")
HP_SCORE_METRICS = ("mean_score_original", "mean_score_positive", "mean_score_negative")
SHAPES_NEGATIVE_KINDS = ("replace_obj", "replace_att", "replace_rel", "swap_obj", "swap_att", "add_obj", "add_att")
SHAPES_KIND_TYPES = {
    "replace": SHAPES_NEGATIVE_KINDS[:3],
    "swap": SHAPES_NEGATIVE_KINDS[3:5],
    "add": SHAPES_NEGATIVE_KINDS[5:],
}
SHAPES_GROUP = ("i2t_score", "t2i_score", "group_score")
SHAPES_HP = ("orig_accuracy", "aug_accuracy", "brittleness", "accuracy_drop")
ORDER_PERTURBATIONS = (
    "shuffle_nouns_and_adj",
    "shuffle_allbut_nouns_and_adj",
    "shuffle_within_trigrams",
    "shuffle_trigrams",
)


# -- SugarCrepe --------------------------------------------------------------------------------
def _types_present(by_subset: dict[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    out = []
    for name, subsets in SUGARCREPE_TYPES.items():
        present = tuple(s for s in subsets if by_subset.get(s))
        if present:
            out.append((name, present))
    return out


def sugarcrepe(bench: Any, results: list[InstanceScores]) -> list[MetricValue]:
    decisions: dict[str, list[Decision]] = defaultdict(list)
    for r in results:
        pos = int(r.instance.gold["positive"])
        row = r.scores[0]
        others = [row[j] for j in range(len(row)) if j != pos]
        decisions[r.instance.category].append(pick(row[pos], others))
    per_subset = accuracy_values("i2t_accuracy", decisions, "wrong")
    per_type = []
    for name, subsets in _types_present(decisions):
        per_type.append(micro_value("i2t_accuracy_type", {s: decisions[s] for s in subsets}, "wrong", name))
        chosen = [v for v in per_subset if v.category in subsets]
        per_type.append(macro_value("i2t_accuracy_type_macro", chosen, name, what="subsets"))
    return [
        *per_subset,
        macro_value("i2t_accuracy_macro", per_subset, what="subsets"),
        micro_value("i2t_accuracy_micro", decisions, "wrong"),
        *per_type,
    ]


def sugarcrepe_choices(bench: Any, results: list[Any]) -> list[MetricValue]:
    from bench.legacy.metrics import CHOICE_TIE_RULE, choice_values, order_averaged_accuracy

    by_category: dict[str, list[Any]] = defaultdict(list)
    n_by_category: dict[str, int] = defaultdict(int)
    for r in results:
        by_category[r.instance.category].extend(r.answers)
        n_by_category[r.instance.category] += 1
    values = choice_values("i2t_accuracy", by_category, n_by_category)
    per_subset = [v for v in values if v.metric == "i2t_accuracy"]
    pooled = [a for answers in by_category.values() for a in answers]
    micro = MetricValue(
        "i2t_accuracy_micro",
        "all",
        order_averaged_accuracy(pooled),
        len(results),
        0,
        CHOICE_TIE_RULE,
        "micro: mean over candidate orders of each order's pooled accuracy",
    )
    per_type = []
    for name, subsets in _types_present(by_category):
        of_type = [a for s in subsets for a in by_category[s]]
        n_type = sum(n_by_category[s] for s in subsets)
        per_type.append(
            MetricValue(
                "i2t_accuracy_type",
                name,
                order_averaged_accuracy(of_type),
                n_type,
                0,
                CHOICE_TIE_RULE,
                "micro: mean over candidate orders of each order's accuracy pooled over the type",
            )
        )
        chosen = [v for v in per_subset if v.category in subsets]
        per_type.append(macro_value("i2t_accuracy_type_macro", chosen, name, what="subsets"))
    answered = sum(a.choice is not None for a in pooled)
    coverage = MetricValue(
        "coverage", "all", answered / len(pooled), len(results), 0, CHOICE_TIE_RULE, "answered / asked questions"
    )
    return [*values, macro_value("i2t_accuracy_macro", per_subset, what="subsets"), micro, coverage, *per_type]


# -- BiVLC -------------------------------------------------------------------------------------
def bivlc(bench: Any, results: list[InstanceScores]) -> list[MetricValue]:
    if bench.params.mode == "i2t-only":
        by_category: dict[str, list[Decision]] = defaultdict(list)
        for r in results:
            row = r.scores[0]
            by_category[r.instance.category].append(pick(row[0], [row[1]]))
        return group_values("i2t_only_i_pos2t", by_category, BIVLC_TYPES)
    decisions: dict[str, dict[str, list[Decision]]] = {m: defaultdict(list) for m in BIVLC_FULL}
    for r in results:
        g = group_decisions(r.scores)
        category = r.instance.category
        for metric, d in zip(BIVLC_FULL, (g.text, g.image, g.group, g.image0, g.image1, g.caption0, g.caption1)):
            decisions[metric][category].append(d)
    values = []
    for metric in BIVLC_FULL:
        values += group_values(metric, decisions[metric], BIVLC_TYPES)
    return values


# -- Winoground --------------------------------------------------------------------------------
def winoground(bench: Any, results: list[InstanceScores]) -> list[MetricValue]:
    by_category: dict[str, dict[str, list[Decision]]] = {m: defaultdict(list) for m in WINOGROUND_METRICS}
    by_tag: dict[str, dict[str, list[Decision]]] = {m: defaultdict(list) for m in WINOGROUND_METRICS}
    for r in results:
        g = group_decisions(r.scores)
        gold = r.instance.gold
        n = int(gold["num_main_preds"])
        tags = [f"{n} Main Pred" + ("s" if n != 1 else ""), *gold["secondary_tags"], *gold["why_hard_tags"]]
        for metric, d in zip(WINOGROUND_METRICS, (g.text, g.image, g.group)):
            by_category[metric][r.instance.category].append(d)
            for tag in tags:
                by_tag[metric][tag].append(d)
    values = []
    for metric in WINOGROUND_METRICS:
        values += group_values(metric, by_category[metric], extra=by_tag[metric])
    return values


# -- Hard positives ----------------------------------------------------------------------------
def triple_outcomes(c: np.ndarray, p: np.ndarray, n: np.ndarray) -> dict[str, np.ndarray]:
    scores = np.stack([c, p, n])
    if not np.all(np.isfinite(scores)):
        raise ScoreError("non-finite score among a hard-positive case's scores")
    c_above, p_above = c > n, p > n
    return {
        "orig": c_above,
        "aug": c_above & p_above,
        "brittle": (c_above & (n > p)) | (p_above & (n > c)),
        "orig_tie": c == n,
        "tie": (c == n) | (p == n),
    }


def hp_category_values(category: str, c: np.ndarray, p: np.ndarray, n: np.ndarray) -> list[MetricValue]:
    o = triple_outcomes(c, p, n)
    size, ties, orig_ties = len(c), int(o["tie"].sum()), int(o["orig_tie"].sum())
    mean = "mean over the category's cases"
    orig, aug = float(o["orig"].mean()), float(o["aug"].mean())
    values = [
        MetricValue("orig_accuracy", category, orig, size, orig_ties, "wrong", mean),
        MetricValue("aug_accuracy", category, aug, size, ties, "wrong", mean),
        MetricValue("brittleness", category, float(o["brittle"].mean()), size, ties, "wrong", mean),
        MetricValue("accuracy_drop", category, orig - aug, size, ties, "wrong", mean),
    ]
    for metric, vec in zip(HP_SCORE_METRICS, (c, p, n)):
        values.append(MetricValue(metric, category, float(vec.mean()), size, 0, "n/a", mean))
    return values


def hp_macro_values(category: str, parts: list[list[MetricValue]], what: str) -> list[MetricValue]:
    by_metric: dict[str, list[MetricValue]] = defaultdict(list)
    for part in parts:
        for v in part:
            by_metric[v.metric].append(v)
    out = []
    for metric, vs in by_metric.items():
        rules = {v.tie_rule for v in vs}
        out.append(
            MetricValue(
                metric,
                category,
                float(np.mean([v.value for v in vs])),
                int(sum(v.n for v in vs)),
                int(sum(v.ties for v in vs)),
                rules.pop() if len(rules) == 1 else "mixed",
                f"macro: unweighted mean over {len(vs)} {what}",
            )
        )
    return out


def hard_positives(bench: Any, results: list[InstanceScores]) -> list[MetricValue]:
    scores: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for r in results:
        g, row = r.instance.gold, r.scores[0]
        scores[r.instance.category].append((row[g["original"]], row[g["positive"]], row[g["negative"]]))
    by_category: dict[str, list[MetricValue]] = {}
    for category in sorted(scores):
        c, p, n = (np.array(x, dtype=float) for x in zip(*scores[category]))
        by_category[category] = hp_category_values(category, c, p, n)
    out = [v for vs in by_category.values() for v in vs]
    groups: dict[str, list[MetricValue]] = {}
    replace = [by_category[c] for c in ("replace_att", "replace_rel") if c in by_category]
    if replace:
        groups["replace"] = hp_macro_values("replace", replace, "REPLACE sub-splits")
    if "swap" in by_category:
        groups["swap_form"] = by_category["swap"]
    out += groups.get("replace", [])
    forms = [groups[k] for k in ("replace", "swap_form") if k in groups]
    out += hp_macro_values("all", forms, "forms (REPLACE, SWAP)")
    return out


# -- Shapes ------------------------------------------------------------------------------------
def shapes(bench: Any, results: list[InstanceScores]) -> list[MetricValue]:
    pairs: dict[str, dict[str, list[Decision]]] = {m: defaultdict(list) for m in SHAPES_GROUP}
    triples: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for r in results:
        kind = r.instance.category
        if kind in SHAPES_NEGATIVE_KINDS:
            g = group_decisions(r.scores)
            for metric, d in zip(SHAPES_GROUP, (g.text, g.image, g.group)):
                pairs[metric][kind].append(d)
        else:
            gold, row = r.instance.gold, r.scores[0]
            triples[kind].append((row[gold["original"]], row[gold["positive"]], row[gold["negative"]]))
    values: list[MetricValue] = []
    if any(pairs["group_score"].values()):
        for metric in SHAPES_GROUP:
            values += group_values(metric, pairs[metric], SHAPES_KIND_TYPES)
    if triples:
        for kind in sorted(triples):
            values += _hp_values(kind, triples[kind])
        values += _hp_values("all", [t for kind in sorted(triples) for t in triples[kind]])
    return values


def _hp_values(category: str, triples: list[tuple[float, float, float]]) -> list[MetricValue]:
    c, p, n = (np.array(x, dtype=float) for x in zip(*triples))
    return [v for v in hp_category_values(category, c, p, n) if v.metric in SHAPES_HP]


# -- SeeTRUE -----------------------------------------------------------------------------------
def seetrue(bench: Any, results: list[InstanceScores]) -> list[MetricValue]:
    scores: dict[str, list[float]] = defaultdict(list)
    labels: dict[str, list[int]] = defaultdict(list)
    for r in results:
        scores[r.instance.category].append(float(r.scores[0, 0]))
        labels[r.instance.category].append(int(r.instance.gold["label"]))
    continuous: dict[str, AucResult] = {}
    binary: dict[str, AucResult] = {}
    threshold = bench.params.threshold
    for source in sorted(scores):
        predictions = binary_predictions(scores[source], threshold)
        if len(set(labels[source])) < 2:
            continue
        continuous[source] = roc_auc(scores[source], labels[source])
        binary[source] = roc_auc_binary(predictions, labels[source])
    out = []
    for metric, by_source, what in (
        ("auc", continuous, "ROC AUC of the continuous score"),
        ("auc_binary", binary, f"ROC AUC of 1[score > {threshold}]"),
    ):
        averaging = f"per source: {what}; Mann-Whitney, a tied (positive, negative) pair counts 1/2"
        out += [
            MetricValue(metric, source, auc.value, auc.n, auc.tied_pairs, AUC_TIE_RULE, averaging)
            for source, auc in by_source.items()
        ]
        if by_source:
            names = sorted(by_source)
            out.append(
                MetricValue(
                    f"{metric}_macro",
                    "all",
                    sum(by_source[s].value for s in names) / len(names),
                    sum(by_source[s].n for s in names),
                    sum(by_source[s].tied_pairs for s in names),
                    AUC_TIE_RULE,
                    f"macro: unweighted mean over {len(names)} source{'s' * (len(names) > 1)}: {', '.join(names)}",
                )
            )
    return out


# -- VL-CheckList ------------------------------------------------------------------------------
def _ordered(names: Any) -> list[str]:
    return list(dict.fromkeys(names))


def _mean_of_means(metric: str, category: str, groups: dict[str, list[MetricValue]], what: str) -> MetricValue:
    means = [float(np.mean([v.value for v in values])) for values in groups.values()]
    members = [v for values in groups.values() for v in values]
    rules = {v.tie_rule for v in members}
    names = list(groups)
    label = what if len(names) > 1 else what.rstrip("s")
    return MetricValue(
        metric=metric,
        category=category,
        value=float(np.mean(means)),
        n=int(sum(v.n for v in members)),
        ties=int(sum(v.ties for v in members)),
        tie_rule=rules.pop() if len(rules) == 1 else "mixed",
        averaging=f"macro: unweighted mean over {len(names)} {label}: {', '.join(names)}",
    )


def vl_checklist(bench: Any, results: list[InstanceScores]) -> list[MetricValue]:
    from vlc_harness_builtins.benchmarks.vl_checklist import CORPUS

    decisions: dict[str, list[Decision]] = defaultdict(list)
    for r in results:
        row = r.scores[0]
        decisions[r.instance.category].append(pick(row[0], [row[1]]))
    per_file = accuracy_values("i2t_accuracy", decisions, "wrong")
    by_category = {v.category: v for v in per_file}
    files = [f for f in CORPUS if f.category in by_category]
    per_subtype = []
    for subtype in _ordered(f.subtype for f in files):
        by_source: dict[str, list[MetricValue]] = defaultdict(list)
        for f in files:
            if f.subtype == subtype:
                by_source[f.source].append(by_category[f.category])
        per_subtype.append(_mean_of_means("i2t_accuracy_subtype", subtype, by_source, "sources"))
    per_type = []
    for type_ in _ordered(v.category.split("/")[0] for v in per_subtype):
        parts = {v.category: [v] for v in per_subtype if v.category.split("/")[0] == type_}
        per_type.append(_mean_of_means("i2t_accuracy_type", type_, parts, "sub-types"))
    macro = _mean_of_means("i2t_accuracy_macro", "all", {v.category: [v] for v in per_type}, "types")
    return [*per_file, *per_subtype, *per_type, macro, micro_value("i2t_accuracy_micro", decisions, "wrong")]


# -- ARO ---------------------------------------------------------------------------------------
def _vg_decisions(results: list[InstanceScores]) -> dict[str, list[Decision]]:
    out: dict[str, list[Decision]] = defaultdict(list)
    for r in results:
        pos = int(r.instance.gold["positive"])
        row = r.scores[0]
        out[r.instance.category].append(pick(row[pos], [row[j] for j in range(len(row)) if j != pos]))
    return out


def aro_vg_relation(bench: Any, results: list[InstanceScores]) -> list[MetricValue]:
    decisions = _vg_decisions(results)
    per = accuracy_values("i2t_accuracy", decisions, "wrong", "mean over the relation's cases")
    excluded = bench.rules.symmetric if bench.params.exclude_symmetric else frozenset()
    kept = [v for v in per if v.category not in excluded]
    note = " (ARO's symmetric relations excluded)" if bench.params.exclude_symmetric else ""
    out = [*per]
    if kept:
        out.append(macro_value("i2t_accuracy_macro", kept, what=f"relations{note}"))
    for group, members in sorted(bench.rules.groups.items()):
        in_group = [v for v in kept if v.category in members]
        if in_group:
            out.append(macro_value("i2t_accuracy_macro", in_group, category=group, what=f"{group} relations"))
    out.append(micro_value("i2t_accuracy_micro", decisions, "wrong"))
    return out


def aro_vg_attribution(bench: Any, results: list[InstanceScores]) -> list[MetricValue]:
    decisions = _vg_decisions(results)
    per = accuracy_values("i2t_accuracy", decisions, "wrong", "mean over the attribute pair's cases")
    kept = [v for v in per if v.n >= bench.params.min_pair_count]
    out = [*per]
    if kept:
        what = f"attribute pairs with at least {bench.params.min_pair_count} cases"
        out.append(macro_value("i2t_accuracy_macro", kept, what=what))
    out.append(micro_value("i2t_accuracy_micro", decisions, "wrong"))
    return out


def aro_order(bench: Any, results: list[InstanceScores]) -> list[MetricValue]:
    by_seed: dict[str, list[Decision]] = defaultdict(list)
    pairwise: dict[str, list[Decision]] = defaultdict(list)
    identical: dict[str, list[bool]] = defaultdict(list)
    for r in results:
        row = r.scores[0]
        by_seed[r.instance.category].append(pick(row[0], row[1:]))
        for j, name in enumerate(ORDER_PERTURBATIONS, start=1):
            pairwise[name].append(pick(row[0], [row[j]]))
        flags = [bool(x) for x in r.instance.gold["identical"]]
        for name, flag in zip(ORDER_PERTURBATIONS, flags):
            identical[name].append(flag)
        identical["any"].append(any(flags))
    per_seed = accuracy_values("i2t_accuracy", by_seed, "right")
    out = [*per_seed]
    if per_seed:
        out.append(macro_value("i2t_accuracy", per_seed, what="seeds"))
    if len(per_seed) > 1:
        std = float(np.std([v.value for v in per_seed], ddof=1))
        n, ties = sum(v.n for v in per_seed), sum(v.ties for v in per_seed)
        out.append(MetricValue("i2t_accuracy_seed_std", "all", std, n, ties, "right", "sample std over seeds"))
    out += accuracy_values("i2t_pairwise_accuracy", pairwise, "right", "mean over all cases of all seeds")
    for name, flags in sorted(identical.items()):
        out.append(
            MetricValue("identical_rate", name, float(np.mean(flags)), len(flags), 0, "n/a", "share of all cases")
        )
    return out


COMPUTE: dict[str, Callable[[Any, list[InstanceScores]], list[MetricValue]]] = {
    "sugarcrepe": sugarcrepe,
    "bivlc": bivlc,
    "winoground": winoground,
    "hard_positives": hard_positives,
    "shapes": shapes,
    "seetrue": seetrue,
    "vl_checklist": vl_checklist,
    "aro_vg_relation": aro_vg_relation,
    "aro_vg_attribution": aro_vg_attribution,
    "aro_coco_order": aro_order,
    "aro_flickr30k_order": aro_order,
}
"""v0.1 ``compute`` per benchmark type."""
CHOICES: dict[str, Callable[[Any, list[Any]], list[MetricValue]]] = {"sugarcrepe": sugarcrepe_choices}
"""v0.1 ``compute_choices`` per benchmark type."""
