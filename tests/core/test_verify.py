"""vlc-harness verify: our numbers next to the paper's, for a model whose scores we control."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlc_harness.errors import UserError
from vlc_harness.params import build
from vlc_harness.store import CellRecord
from vlc_harness.types import ReferenceRow
from vlc_harness.verify import compare_cell
from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe

MATCH = "open_clip:ViT-B-32/openai"


def _scores_file(root: Path, path: Path, shift_subset: str | None = None) -> None:
    """Precomputed scores giving each subset Table 6's accuracy for OpenAI ViT-B-32."""
    bench = SugarCrepe(build(SugarCrepe.Params, {}), root)
    table6 = {r.category: r.value for r in bench.reference_rows() if r.matches == MATCH and r.table == "Table 6"}
    by_subset: dict[str, list] = {}
    for inst in bench.load_instances():
        by_subset.setdefault(inst.category, []).append(inst)
    # Subsets share (image, caption) pairs, so each pair gets one score: set the free one of each
    # instance's two pairs to give the wanted outcome (a few instances with both set may not).
    score: dict[tuple[str, str], float] = {}
    lines = []
    for subset, instances in by_subset.items():
        right = round(table6[subset] * len(instances)) - (50 if subset == shift_subset else 0)
        for k, inst in enumerate(instances):
            pos, neg = ((inst.images[0].path.name, t) for t in inst.texts)
            sign = 1.0 if k < right else -1.0
            if pos not in score and neg not in score:
                score[pos], score[neg] = float(len(score)), float(len(score)) - sign
            elif pos not in score:
                score[pos] = score[neg] + sign
            elif neg not in score:
                score[neg] = score[pos] - sign
            for j, pair in enumerate((pos, neg)):
                line = {"benchmark": "sugarcrepe", "version": "paper-7512", "instance": inst.id}
                lines.append(json.dumps(line | {"image": 0, "text": j, "score": score[pair]}))
    path.write_text("\n".join(lines) + "\n")


def _registry(tmp_path: Path, scores: Path) -> Path:
    path = tmp_path / "verify.yaml"
    path.write_text(
        "models:\n"
        f"  - {{id: replay, type: precomputed, params: {{path: ./{scores.name}}}, meta: {{paper_match: '{MATCH}'}}}}\n"
        "  - {id: nomatch, type: random}\n"
        "benchmarks:\n  - {id: sugarcrepe, type: sugarcrepe}\n"
    )
    return path


@pytest.mark.slow  # a stand-in image for every SugarCrepe file
def test_verify_reports_agreement_and_differences(vlc_cli, tmp_path, full_root):
    scores = tmp_path / "scores.jsonl"
    _scores_file(full_root, scores)
    registry = _registry(tmp_path, scores)
    common = ["--registry", str(registry), "--data-root", str(full_root), "--no-progress", "--executor", "inprocess"]
    out = vlc_cli("verify", "-m", "replay", "--store", f"sqlite:///{tmp_path / 'a.sqlite'}", *common)
    assert out.exit_code == 0, out.output
    assert "11 numbers compared, 0 problem(s)" in out.output  # 7 subsets, the mean, 3 types (Table 5)
    assert "i2t_accuracy_macro" in out.output and "REPLACE" in out.output

    _scores_file(full_root, scores, shift_subset="swap_att")
    out = vlc_cli("verify", "-m", "replay", "--store", f"sqlite:///{tmp_path / 'b.sqlite'}", *common)
    assert out.exit_code == 1
    assert "DIFFERS" in out.output and "swap_att" in out.output

    with pytest.raises(UserError, match="meta.paper_match"):
        vlc_cli("verify", "-m", "nomatch", "--store", f"sqlite:///{tmp_path / 'c.sqlite'}", *common)


def _row(**changes: object) -> ReferenceRow:
    fields = {"benchmark": "eqben", "metric": "group_score", "category": "all", "value": 0.25, "citation": "c"}
    fields |= {"table": "T", "source": "s", "protocol": "p", "matches": "x", "data_version": None}
    return ReferenceRow(**(fields | changes))  # type: ignore[arg-type]


def test_a_row_is_compared_on_its_entry_metric_category_and_data_version_only():
    metrics = [{"metric": "group_score", "category": c, "value": v} for c, v in (("all", 0.2), ("eqbenk", 0.1))]
    cell = CellRecord("m", "eqben-mini", "eqben", "ok", data_version="mini-abc", metrics=metrics)
    rows = [
        _row(),  # no data version: any data the benchmark reads
        _row(category="eqbenk", value=0.3, data_version="mini-abc"),
        _row(value=0.4, data_version="full-def"),  # the paper's other data: never compared
        _row(matches="y"),
        _row(metric="text_score"),
        _row(category="eqbensd"),  # a category the cell lacks
    ]
    got = compare_cell(cell, rows, "x")
    assert [(c.metric, c.category, c.ours, c.paper) for c in got] == [
        ("group_score", "all", 0.2, 0.25),
        ("group_score", "eqbenk", 0.1, 0.3),
    ]
    assert got[0].within(0.05) and not got[0].within(0.049)
