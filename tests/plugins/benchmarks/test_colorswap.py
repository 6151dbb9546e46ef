"""ColorSwap: the authors' schema, Winoground scores, the gated export (stand-in ``datasets``), the
golden reproduction of the abstract's VLM group scores from the released per-example answers,
the real-data counts and the board with its I2T/T2I gap."""

from __future__ import annotations

import hashlib
import json
import sys
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest
import yaml

from tests.conftest import shared_data_dir
from tests.plugins.benchmarks.hf_standins import StandInSplit, stand_in_datasets
from vlc_harness.benchmarks import InstanceScores
from vlc_harness.errors import DataUnavailable
from vlc_harness.params import build
from vlc_harness_builtins.benchmarks.colorswap import ColorSwap
from vlc_harness_builtins.testing.data_colorswap import write_example

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "colorswap_sample"
REFERENCE = ColorSwap.references  # the card's rows
REGISTRY = Path(__file__).resolve().parents[3] / "registry.yaml"
ITM_ABSTRACT = "Abstract (main ITM metric)"
VLM_RESULTS = {  # github.com/Top34051/colorswap @ 4f2c9e4, vlm_results/
    "text-gpt4v-colorswap.json": "46232e65cf3d837f0db1abe9ec124f0c19cd51489a862a6b21e95afada196853",
    "image-gpt4v-colorswap.json": "abae4b46aaa74e9e8e2e1c2ebc72457042c92ad0b62e60c75f0e48dc21ba0850",
    "text-llava-colorswap.json": "5ab9ca9bf7a087cdbed2271a259880fdf7755f9fc53c6ade5d269b39106f81fe",
    "image-llava-colorswap.json": "947702c5e6c455b16070038256db1d4aac7d3ea30e93e2fa207faec8686656ae",
}


def bench(root: Path, **params) -> ColorSwap:
    return ColorSwap(build(ColorSwap.Params, params), root)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    write_example(data, 6)
    assert (data / "colorswap" / "test.json").read_text() == (FIXTURE / "colorswap" / "test.json").read_text()
    return data


def values(metrics) -> dict[tuple[str, str], object]:
    return {(m.metric, m.category): m for m in metrics}


def scores_for(booleans: tuple[bool, bool, bool, bool]) -> np.ndarray:
    """A 2x2 matrix scores[image, caption] whose comparisons (image 0 picks caption 0, image 1 picks
    caption 1, caption 0 picks image 0, caption 1 picks image 1) give these outcomes."""
    for p in permutations(range(4)):
        s = np.array(p, dtype=float).reshape(2, 2)
        if (s[0, 0] > s[0, 1], s[1, 1] > s[1, 0], s[0, 0] > s[1, 0], s[1, 1] > s[0, 1]) == booleans:
            return s
    raise AssertionError(f"no strict ordering gives {booleans}")


def test_loads_the_authors_schema(root):
    b = bench(root, version="custom")
    b.check_data()
    instances = b.load_instances()
    assert [i.id for i in instances][:3] == ["midjourney/3", "dalle3/13", "stable_diffusion/23"]
    first = instances[0]
    assert [p.path.name for p in first.images] == ["img_3_1.png", "img_3_2.png"]
    assert first.texts[0].startswith("someone holding a red umbrella") and first.gold["caption_source"] == "gpt-4"
    with pytest.raises(DataUnavailable, match="6 examples, expected 300"):
        bench(root).check_data()
    with pytest.raises(DataUnavailable, match="gated"):
        bench(root, split="train").check_data()  # no train.json here


def test_winoground_scores_with_strict_ties_per_source_and_caption_tag(root):
    b = bench(root, version="custom")
    instances = b.load_instances()
    outcomes = [
        (True, True, True, True),
        (True, True, False, True),
        (False, True, True, True),
        (True, True, True, True),
        (True, False, True, True),
        (True, True, True, True),
    ]
    got = values(b.compute([InstanceScores(i, scores_for(o)) for i, o in zip(instances, outcomes)]))
    assert got[("text_score", "all")].value == pytest.approx(4 / 6)
    assert got[("image_score", "all")].value == pytest.approx(5 / 6)
    assert got[("group_score", "all")].value == pytest.approx(3 / 6)
    assert got[("group_score", "midjourney")].value == 1.0 and got[("group_score", "midjourney")].n == 2
    assert got[("group_score", "caption: human")].n == 3
    tied = values(b.compute([InstanceScores(i, np.full((2, 2), 0.3)) for i in instances]))
    assert tied[("group_score", "all")].value == 0.0 and tied[("group_score", "all")].ties == 6
    assert tied[("group_score_ties_half", "all")].value == pytest.approx(1 / 6)
    assert tied[("text_score", "all")].tie_rule == "wrong"


# -- fetch from Hugging Face (stand-in datasets module; no network) -----------------------------


def test_fetch_exports_the_split_into_the_authors_layout(tmp_path, monkeypatch, root):
    records = json.loads((root / "colorswap" / "test.json").read_text())
    png = (root / "colorswap" / "images" / "img_3_1.png").read_bytes()
    rows = [{**r, "image_1": {"bytes": png, "path": None}, "image_2": {"bytes": png, "path": None}} for r in records]
    calls: list = []
    module = stand_in_datasets(load_dataset=lambda name, split: calls.append((name, split)) or StandInSplit(rows))
    monkeypatch.setitem(sys.modules, "datasets", module)
    target = tmp_path / "fetched"
    lines = bench(target).fetch(progress=False)
    assert calls == [("stanfordnlp/colorswap", "test")] and "6 examples" in lines[0]
    exported = json.loads((target / "colorswap" / "test.json").read_text())
    assert exported == records  # same schema and paths as the authors' files
    assert (target / "colorswap" / "images" / "img_23_2.png").read_bytes() == png
    assert bench(target).data_version.startswith("hf-test-")
    assert bench(target).fetch(progress=False)[0].startswith("present") and len(calls) == 1


# -- golden: the abstract's VLM group scores from the released per-example answers ----------------


def _options(prompt: str) -> list[str]:
    text = prompt.removeprefix("Does this image present (A) ")
    for tail in (
        "? Note, you must choose one of the two options",
        "? First, describe the image information relevant to the question. Then, provide your answer. "
        "Note you must choose one of the two options",
    ):
        text = text.removesuffix(tail)
    return text.split(", or (B) ")


def _bare(text: str) -> str:
    for word in (" a ", " an ", " the ", " with ", " and "):
        text = text.replace(word, " ")
    for word in ("a ", "an ", "the "):
        text = text.removeprefix(word)
    return text


def _names_option(answer: str, mine: str, other: str, letter: str, other_letter: str) -> bool:
    """Upstream vlm_eval.py's rules for 'the answer names option <letter>' (restated, not copied)."""
    low = answer.lower()
    if mine.lower() in low and other.lower() not in low:
        return True
    phrases = [f"image presents ({letter})", f"image presents option ({letter})", f"image presents option {letter}"]
    phrases += [f"it would imply ({letter})", f"it could metaphorically represent ({letter})", f"it is ({letter})"]
    phrases += [f"this image presents {mine}"]
    if any(p.lower() in low for p in phrases) or answer == letter:
        return True
    if any(answer.startswith(p) for p in (f"{letter})", f"({letter})", f"Option {letter}", f"Option ({letter})")):
        return True
    named = any(p.lower() in low for p in (f"option {letter}", f"option ({letter})", f"option {letter})"))
    if named and not (f"({other_letter})".lower() in low or f"{other_letter})".lower() in low):
        return True
    return _bare(mine).lower() in _bare(answer).lower() and _bare(other).lower() not in _bare(answer).lower()


def _names_image(answer: str, mine: str, other: str) -> bool:
    low = answer.lower()
    if mine in low and other not in low:
        return True
    return any(
        p in low
        for p in (f"{mine} image better aligns", f"{mine} image aligns better", f"the {mine} image is more relevant")
    )


def _choice(first: bool, second: bool, a: str, b: str) -> str | None:
    return {(True, False): a, (False, True): b}.get((first, second))


def released_outcomes(folder: Path, model: str) -> dict[int, tuple[bool, bool, bool, bool]]:
    """Per example id: (image 1 picks its caption, image 2 picks its caption, caption 1 picks its
    image, caption 2 picks its image), parsed from the released answers."""
    text = json.loads((folder / f"text-{model}-colorswap.json").read_text())
    image = json.loads((folder / f"image-{model}-colorswap.json").read_text())
    assert [s["id"] for s in text] == [s["id"] for s in image]  # upstream pairs the two files by position
    out = {}
    for t, i in zip(text, image):
        verdicts = []
        for k in (1, 2):
            opts = _options(t[f"prompt_image_{k}"])
            answer = t[f"response_image_{k}"]
            picked = _choice(
                _names_option(answer, opts[0], opts[1], "A", "B"),
                _names_option(answer, opts[1], opts[0], "B", "A"),
                "A",
                "B",
            )
            verdicts.append(picked == t[f"log_{k}"]["correct_answer"])
        for k in (1, 2):
            answer = i[f"response_caption_{k}"]
            picked = _choice(
                _names_image(answer, "first", "second"), _names_image(answer, "second", "first"), "first", "second"
            )
            verdicts.append(picked == i[f"log_{k}"]["correct_answer"])
        out[t["id"]] = tuple(verdicts)
    return out


def test_golden_vlm_group_scores_of_the_abstract(tmp_path):
    shared = shared_data_dir()
    folder = shared / "colorswap" / "vlm_results" if shared else None
    if folder is None or not all((folder / name).is_file() for name in VLM_RESULTS):
        pytest.skip("ColorSwap's vlm_results/ (github.com/Top34051/colorswap @ 4f2c9e4) are not in ../shared/data")
    for name, sha in VLM_RESULTS.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == sha, name
    # the test split's ids and captions, in dataset order, from the image-prompt logs (caption k of image k)
    logs = json.loads((folder / "image-gpt4v-colorswap.json").read_text())
    records = [
        {
            "id": s["id"],
            "caption_1": s["log_1"]["caption"],
            "caption_2": s["log_2"]["caption"],
            "image_1": f"images/img_{s['id']}_1.png",
            "image_2": f"images/img_{s['id']}_2.png",
            "image_source": "unknown",
            "caption_source": "unknown",
        }
        for s in logs
    ]
    root = tmp_path / "data"
    (root / "colorswap").mkdir(parents=True)
    (root / "colorswap" / "test.json").write_text(json.dumps(records))
    b = bench(root, version="custom")
    instances = b.load_instances()
    assert len(instances) == 300
    refs = {r.source: r for r in REFERENCE if r.metric == "group_score" and r.matches != "chance"}
    for model, source in (("gpt4v", "GPT-4V"), ("llava", "LLaVA")):
        outcomes = released_outcomes(folder, model)
        # VLM answers to the text and image questions are independent, so their four verdicts need not come
        # from one score matrix (text right but both captions wrong has none); the declared scores depend only
        # on (text, image), so each example gets a matrix with its text and image verdicts
        results = []
        for inst in instances:
            v = outcomes[int(inst.id.split("/")[1])]
            text, image = v[0] and v[1], v[2] and v[3]
            results.append(
                InstanceScores(
                    inst,
                    scores_for(
                        (text, text, True, image) if text else (False, image, True, True) if image else (False,) * 4
                    ),
                )
            )
        got = values(b.compute(results))
        assert got[("group_score", "all")].value == pytest.approx(refs[source].value), source
        text = np.mean([v[0] and v[1] for v in outcomes.values()])
        assert got[("text_score", "all")].value == pytest.approx(text)
        assert got[("group_score", "all")].n == 300 and got[("group_score", "all")].ties == 0


# -- the abstract's ITM numbers, and verify comparing a cell with them ------------------------------


def test_abstract_itm_rows_are_group_scores_no_registry_entry_claims():
    """CLIP 12%, SigLIP 30%, BLIP ITM 87% (arXiv:2402.04492 abstract). Their checkpoints and split are
    in the ITM table, which could not be read here, so no shipped entry may be compared with them."""
    rows = [r for r in REFERENCE if r.table == ITM_ABSTRACT]
    assert {r.source: r.value for r in rows} == {"CLIP": 0.12, "SigLIP": 0.30, "BLIP ITM": 0.87}
    assert {(r.metric, r.category, r.data_version) for r in rows} == {("group_score", "all", None)}
    assert all(r.matches.startswith("paper-only: ") and "checkpoint not read here" in r.matches for r in rows)
    entries = yaml.safe_load(REGISTRY.read_text())["models"]
    claimed = {(e.get("meta") or {}).get("paper_match") for e in entries}
    assert not claimed & {r.matches for r in rows}


def _verify_registry(tmp_path: Path, root: Path, paper_match: str, right: int) -> Path:
    """A registry replaying scores that make the first ``right`` of the examples wholly right, the rest wholly wrong."""
    b = bench(root, version="custom")
    lines = []
    for k, inst in enumerate(b.load_instances()):
        s = scores_for((True,) * 4) if k < right else scores_for((False,) * 4)
        for i in (0, 1):
            for j in (0, 1):
                key = {"benchmark": "colorswap", "version": b.data_version, "instance": inst.id}
                lines.append(json.dumps(key | {"image": i, "text": j, "score": float(s[i, j])}))
    scores = tmp_path / f"scores-{right}.jsonl"
    scores.write_text("\n".join(lines) + "\n")
    registry = tmp_path / f"verify-{right}.yaml"
    registry.write_text(
        f"models:\n  - {{id: replay, type: precomputed, params: {{path: './{scores.name}'}}, "
        f"meta: {{paper_match: '{paper_match}'}}}}\n"
        "benchmarks:\n  - {id: colorswap, type: colorswap, params: {version: custom}}\n"
    )
    return registry


def test_verify_prints_our_group_score_next_to_the_abstract_row(vlc_cli, tmp_path):
    root = tmp_path / "data"
    write_example(root, 100)
    (clip,) = [r for r in REFERENCE if r.table == ITM_ABSTRACT and r.source == "CLIP"]
    common = ["-m", "replay", "--data-root", str(root), "--no-progress", "--executor", "inprocess"]
    registry = _verify_registry(tmp_path, root, clip.matches, right=12)
    out = vlc_cli("verify", "--registry", str(registry), "--store", f"sqlite:///{tmp_path / 'a.sqlite'}", *common)
    assert out.exit_code == 0, out.output
    assert "1 numbers compared, 0 problem(s)" in out.output
    (line,) = [x for x in out.output.splitlines() if x.startswith("colorswap ")]
    assert line.split()[1:3] == ["group_score", "all"] and "ours  12.00  paper  12.00" in line
    assert line.endswith(f"ok  ({ITM_ABSTRACT})")

    registry = _verify_registry(tmp_path, root, clip.matches, right=20)
    out = vlc_cli("verify", "--registry", str(registry), "--store", f"sqlite:///{tmp_path / 'b.sqlite'}", *common)
    assert out.exit_code == 1
    assert "ours  20.00  paper  12.00  diff  +8.00 pts  DIFFERS" in out.output


def test_real_splits_have_the_published_sizes():
    shared = shared_data_dir()
    if shared is None or not (shared / "colorswap" / "test.json").is_file():
        pytest.skip("ColorSwap's test.json is not in ../shared/data (export it with `vlc-harness data fetch`)")
    b = bench(shared)
    b.check_data()
    assert len(b.load_instances()) == 300
    if (shared / "colorswap" / "train.json").is_file():  # the paper's 1,000 examples: 700 train, 300 test
        assert len(bench(shared, split="train").load_instances()) == 700


def test_board_renders_colorswap_with_its_gap(vlc_run, tmp_path, root):
    registry = tmp_path / "registry.yaml"
    registry.write_text(
        "models:\n  - {id: random, type: random, params: {seed: 1}, meta: {display_name: Random, family: baseline}}\n"
        "benchmarks:\n  - {id: colorswap, type: colorswap, params: {version: custom}}\n"
    )
    ran = vlc_run("--all", "--registry", str(registry), data_root=root)
    assert ran.exit_code == 0, ran.output
    out = tmp_path / "site"
    assert vlc_run.cli("render", "--out", str(out), "--registry", str(registry)).exit_code == 0
    assert "ColorSwap" in (out / "benchmarks" / "colorswap.html").read_text()
    assert 'class="num gap' in (out / "index.html").read_text()
