"""Image-blind Hugging Face baselines: classifier (Grammar), Vera, causal-LM log-likelihood.

Every model here is built from a tiny config with random weights and a tokenizer made locally
(no hub). The real checkpoints' structure is checked on the meta device: the real architecture
config gives the key names and shapes, a synthetic state dict with the same key names (tiny
widths, real depth) is saved in the real file layout and loaded through the plugin.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from vlc_harness.models import RunOptions
from vlc_harness.params import build
from vlc_harness.testing import require
from vlc_harness_builtins.models.blind_causal_lm import CausalLMLogLikelihood
from vlc_harness_builtins.models.blind_classifier import SequenceClassifierScorer
from vlc_harness_builtins.models.blind_hf import checkpoint_identity
from vlc_harness_builtins.models.blind_vera import Vera
from vlc_harness_builtins.testing.tiny_blind import (
    build_tiny_classifier,
    build_tiny_gpt2,
    build_tiny_vera,
    tiny_bert_tokenizer,
    tiny_gpt2_tokenizer,
    tiny_t5_tokenizer,
)

torch: Any = None
transformers: Any = None


@pytest.fixture(autouse=True, scope="module")
def _needs_transformers() -> None:
    """torch and transformers, imported when these tests run rather than when pytest collects the file
    (a collection that needs neither stays seconds shorter); skips, or fails under CI=true, without them."""
    global torch, transformers
    require("torch")
    require("transformers")
    import torch as torch_module
    import transformers as transformers_module

    torch, transformers = torch_module, transformers_module


TEXTS = [
    "a man riding a horse on the beach",
    "a red square above a blue circle",
    "two people standing next to a car",
    "a",
]

# The published config.json values of the real checkpoints (architecture fields only).
COLA_CONFIG = dict(
    vocab_size=30522, dim=768, hidden_dim=3072, n_layers=6, n_heads=12, max_position_embeddings=512, num_labels=2
)
VERA_CONFIG = dict(  # T5-v1.1-XXL encoder
    vocab_size=32128,
    d_model=4096,
    d_kv=64,
    d_ff=10240,
    num_layers=24,
    num_heads=64,
    relative_attention_num_buckets=32,
    feed_forward_proj="gated-gelu",
    tie_word_embeddings=False,
)
GPT2_CONFIG = dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12)


def make(cls: Any, params: dict[str, Any]) -> Any:
    model = cls(build(cls.Params, params), RunOptions())
    model.identify()
    model.load("cpu")
    return model


def meta_state(factory: Any) -> dict[str, tuple[int, ...]]:
    """Key -> shape of a model built on the meta device (no memory for the real sizes)."""
    with torch.device("meta"):
        model = factory()
    return {k: tuple(v.shape) for k, v in model.state_dict().items()}


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("blind_tiny")


@pytest.fixture(scope="module")
def classifier_dir(tiny_dir: Path) -> Path:
    return build_tiny_classifier(tiny_dir / "classifier")


@pytest.fixture(scope="module")
def vera_dir(tiny_dir: Path) -> Path:
    return build_tiny_vera(tiny_dir / "vera")


@pytest.fixture(scope="module")
def gpt2_dir(tiny_dir: Path) -> Path:
    return build_tiny_gpt2(tiny_dir / "gpt2")


# --- shared: identities -------------------------------------------------------------------------


def test_local_folder_identity_follows_its_content(tmp_path: Path, classifier_dir: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(classifier_dir, copy)
    assert checkpoint_identity(str(copy)) == checkpoint_identity(str(classifier_dir))
    assert checkpoint_identity(str(copy)).startswith("local-dir:sha256:")
    (copy / "config.json").write_text((copy / "config.json").read_text() + "\n")
    assert checkpoint_identity(str(copy)) != checkpoint_identity(str(classifier_dir))
    with pytest.raises(FileNotFoundError):
        checkpoint_identity(str(tmp_path / "absent"))


def test_hub_names_are_unavailable_offline_when_not_cached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from huggingface_hub import constants

    from vlc_harness.errors import WeightsUnavailable

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))  # even where they are cached
    for cls in (SequenceClassifierScorer, Vera, CausalLMLogLikelihood):
        model = cls(build(cls.Params, {}), RunOptions())  # the default hub checkpoint
        with pytest.raises(WeightsUnavailable):
            model.identify()


# --- (a) sequence classifier ---------------------------------------------------------------------


def test_classifier_score_is_the_pipelines_p_label_1(classifier_dir: Path) -> None:
    model = make(SequenceClassifierScorer, {"checkpoint": str(classifier_dir)})
    scores = model.score_texts(TEXTS)
    # SugarCrepe's Grammar model: pipeline top label, score if LABEL_1 else 1 - score
    hf = transformers.AutoModelForSequenceClassification.from_pretrained(classifier_dir)
    tok = transformers.AutoTokenizer.from_pretrained(classifier_dir)
    pipe = transformers.pipeline("text-classification", model=hf, tokenizer=tok, device="cpu")
    for text, score in zip(TEXTS, scores):
        (out,) = pipe([text])
        expected = out["score"] if out["label"] == "LABEL_1" else 1 - out["score"]
        assert score == pytest.approx(expected, abs=1e-6)
    # batching with padding changes nothing
    assert [model.score_texts([t])[0] for t in TEXTS] == pytest.approx(scores, abs=1e-6)
    other = make(SequenceClassifierScorer, {"checkpoint": str(classifier_dir), "label_index": 0})
    assert [a + b for a, b in zip(scores, other.score_texts(TEXTS))] == pytest.approx([1.0] * len(TEXTS), abs=1e-6)


def test_classifier_rejects_a_label_index_it_does_not_have(classifier_dir: Path) -> None:
    with pytest.raises(ValueError, match="label_index 2"):
        make(SequenceClassifierScorer, {"checkpoint": str(classifier_dir), "label_index": 2})


def test_cola_checkpoint_structure_loads(tmp_path: Path) -> None:
    """textattack/distilbert-base-uncased-CoLA: a pytorch_model.bin of DistilBertForSequenceClassification."""
    real = meta_state(
        lambda: transformers.DistilBertForSequenceClassification(transformers.DistilBertConfig(**COLA_CONFIG))
    )
    assert real["classifier.weight"] == (2, 768) and real["distilbert.embeddings.word_embeddings.weight"] == (
        30522,
        768,
    )
    tokenizer = tiny_bert_tokenizer()
    tiny_cfg = transformers.DistilBertConfig(
        **{**COLA_CONFIG, "vocab_size": len(tokenizer), "dim": 8, "hidden_dim": 16, "n_heads": 2}
    )
    torch.manual_seed(1)
    source = transformers.DistilBertForSequenceClassification(tiny_cfg)
    synthetic = {k: v.clone() for k, v in source.state_dict().items()}
    assert set(synthetic) == set(real), "tiny model must carry exactly the real key names"
    assert all(len(synthetic[k].shape) == len(real[k]) for k in real)
    folder = tmp_path / "cola"
    folder.mkdir()
    tiny_cfg.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    torch.save(synthetic, folder / "pytorch_model.bin")
    model = make(SequenceClassifierScorer, {"checkpoint": str(folder)})
    loaded = model._model.state_dict()
    assert all(torch.equal(loaded[k], v) for k, v in synthetic.items())
    assert len(model.score_texts(TEXTS)) == len(TEXTS)

    # a base-model checkpoint (no classifier head) is refused rather than scored with a random head
    headless = folder.parent / "headless"
    headless.mkdir()
    tiny_cfg.save_pretrained(headless)
    tokenizer.save_pretrained(headless)
    torch.save({k: v for k, v in synthetic.items() if k.startswith("distilbert.")}, headless / "pytorch_model.bin")
    with pytest.raises(ValueError, match="missing"):
        make(SequenceClassifierScorer, {"checkpoint": str(headless)})


# --- (b) Vera ------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def vera_parts(folder: Path) -> tuple[Any, Any]:
    return transformers.AutoTokenizer.from_pretrained(folder), transformers.T5EncoderModel.from_pretrained(
        folder
    ).eval()


def vera_reference(folder: Path, statement: str) -> float:
    """Vera's model-card recipe, one statement at a time (no padding, no mask, position -1)."""
    tokenizer, encoder = vera_parts(folder)
    dim = encoder.shared.embedding_dim
    linear = torch.nn.Linear(dim, 1)
    linear.weight = torch.nn.Parameter(encoder.shared.weight[32099, :].unsqueeze(0))
    linear.bias = torch.nn.Parameter(encoder.shared.weight[32098, 0].unsqueeze(0))
    t = encoder.shared.weight[32097, 0].item()
    ids = tokenizer(
        [statement], return_tensors="pt", padding="longest", truncation="longest_first", max_length=128
    ).input_ids
    with torch.no_grad():
        hidden = encoder(ids).last_hidden_state[0, -1, :]
        return float((linear(hidden).squeeze(-1) / t).sigmoid())


def test_vera_matches_the_model_card_recipe_batched(vera_dir: Path) -> None:
    model = make(Vera, {"checkpoint": str(vera_dir)})
    scores = model.score_texts(TEXTS)
    assert all(0.0 < s < 1.0 for s in scores)
    assert len(set(scores)) == len(scores)
    for text, score in zip(TEXTS, scores):
        assert score == pytest.approx(vera_reference(vera_dir, text), abs=1e-6)


def test_vera_temperature_divides_the_logit(vera_dir: Path, tmp_path: Path) -> None:
    import math
    import shutil

    from safetensors.torch import load_file, save_file

    hot = tmp_path / "hot"
    shutil.copytree(vera_dir, hot)
    state = load_file(hot / "model.safetensors")
    state["shared.weight"][32097, 0] = 4.0  # the tiny checkpoint has t = 2.0
    save_file(state, hot / "model.safetensors", metadata={"format": "pt"})

    def logit(p: float) -> float:
        return math.log(p / (1 - p))

    cold = make(Vera, {"checkpoint": str(vera_dir)}).score_texts(TEXTS)
    warm = make(Vera, {"checkpoint": str(hot)}).score_texts(TEXTS)
    for a, b in zip(cold, warm):
        assert logit(a) * 2.0 == pytest.approx(logit(b) * 4.0, abs=1e-4)


def test_vera_truncates_to_128_tokens_keeping_eos(vera_dir: Path) -> None:
    model = make(Vera, {"checkpoint": str(vera_dir)})
    long = " ".join(["red"] * 300)
    ids = model._tokenizer([long], truncation=True, max_length=128)["input_ids"][0]
    assert len(ids) == 128 and ids[-1] == model._tokenizer.eos_token_id
    assert model.score_texts([long])[0] == pytest.approx(vera_reference(vera_dir, long), abs=1e-6)


def test_vera_checkpoint_structure_loads(tmp_path: Path) -> None:
    """liujch1998/vera: a T5-v1.1-XXL encoder; synthetic weights with its 24-block key names."""
    real = meta_state(lambda: transformers.T5EncoderModel(transformers.T5Config(**VERA_CONFIG)))
    assert real["shared.weight"] == (32128, 4096)
    assert real["encoder.block.0.layer.1.DenseReluDense.wi_1.weight"] == (10240, 4096)
    assert "encoder.block.23.layer.1.layer_norm.weight" in real
    assert "encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight" not in real
    folder = build_tiny_vera(tmp_path / "vera_struct", seed=3, num_layers=VERA_CONFIG["num_layers"])
    reloaded = transformers.T5EncoderModel.from_pretrained(folder)
    synthetic = {k: v.clone() for k, v in reloaded.state_dict().items()}
    assert set(synthetic) == set(real), "tiny model must carry exactly the real key names"

    # the real checkpoint is large: save it sharded, as from_pretrained expects big checkpoints
    sharded = tmp_path / "vera_sharded"
    reloaded.save_pretrained(sharded, max_shard_size="200KB")
    tiny_t5_tokenizer().save_pretrained(sharded)
    assert (sharded / "model.safetensors.index.json").is_file()
    model = make(Vera, {"checkpoint": str(sharded)})
    loaded = model._model.state_dict()
    assert all(torch.equal(loaded[k], v) for k, v in synthetic.items())
    assert model.score_texts(TEXTS) == pytest.approx(make(Vera, {"checkpoint": str(folder)}).score_texts(TEXTS))

    # a full encoder-decoder T5 checkpoint loads as its encoder (decoder keys are ignored)
    full_cfg = transformers.T5Config(**{**json.loads((folder / "config.json").read_text()), "num_decoder_layers": 1})
    full = transformers.T5ForConditionalGeneration(full_cfg)
    full.encoder.load_state_dict({k[len("encoder.") :]: v for k, v in synthetic.items() if k.startswith("encoder.")})
    full.shared.weight.data.copy_(synthetic["shared.weight"])
    full_dir = tmp_path / "t5_full"
    full.save_pretrained(full_dir)
    tiny_t5_tokenizer().save_pretrained(full_dir)
    assert make(Vera, {"checkpoint": str(full_dir)}).score_texts(TEXTS) == pytest.approx(
        model.score_texts(TEXTS), abs=1e-6
    )


def test_vera_needs_the_head_rows(tmp_path: Path) -> None:
    config = transformers.T5Config(vocab_size=200, d_model=8, d_kv=4, d_ff=16, num_layers=1, num_heads=2)
    folder = tmp_path / "small_vocab"
    transformers.T5EncoderModel(config).save_pretrained(folder)
    tiny_t5_tokenizer().save_pretrained(folder)
    with pytest.raises(ValueError, match="row 32099"):
        make(Vera, {"checkpoint": str(folder)})


# --- (c) causal-LM log-likelihood ----------------------------------------------------------------


def manual_logprobs(folder: Path, ids: list[int]) -> list[float]:
    """log p(ids[k] | ids[:k]) for k >= 1, one unpadded sequence."""
    lm = transformers.AutoModelForCausalLM.from_pretrained(folder).eval()
    with torch.no_grad():
        logits = lm(torch.tensor([ids])).logits[0].float()
    logp = torch.log_softmax(logits, dim=-1)
    return [float(logp[k - 1, ids[k]]) for k in range(1, len(ids))]


def test_causal_lm_sum_and_mean_with_bos(gpt2_dir: Path) -> None:
    summed = make(CausalLMLogLikelihood, {"checkpoint": str(gpt2_dir), "reduction": "sum"})
    mean = make(CausalLMLogLikelihood, {"checkpoint": str(gpt2_dir), "reduction": "mean"})
    tok = transformers.AutoTokenizer.from_pretrained(gpt2_dir)
    s_scores, m_scores = summed.score_texts(TEXTS), mean.score_texts(TEXTS)
    for text, s, m in zip(TEXTS, s_scores, m_scores):
        caption = tok(text, add_special_tokens=False)["input_ids"]
        ids = [tok.bos_token_id, *caption]
        assert summed.token_ids(text) == ids
        per_token = manual_logprobs(gpt2_dir, ids)
        assert len(per_token) == len(caption)  # every caption token is scored
        assert s == pytest.approx(sum(per_token), abs=1e-4)
        assert m == pytest.approx(sum(per_token) / len(caption), abs=1e-6)
    assert [summed.score_texts([t])[0] for t in TEXTS] == pytest.approx(s_scores, abs=1e-4)


def test_causal_lm_without_bos_leaves_the_first_token_unscored(gpt2_dir: Path) -> None:
    model = make(CausalLMLogLikelihood, {"checkpoint": str(gpt2_dir), "prepend_bos": False})
    tok = transformers.AutoTokenizer.from_pretrained(gpt2_dir)
    text = TEXTS[0]
    ids = tok(text, add_special_tokens=False)["input_ids"]
    assert model.token_ids(text) == ids
    assert model.score_texts([text])[0] == pytest.approx(sum(manual_logprobs(gpt2_dir, ids)), abs=1e-4)
    assert model.score_texts(["x"]) == [0.0]  # one token: nothing is scored
    assert make(CausalLMLogLikelihood, {"checkpoint": str(gpt2_dir), "prepend_bos": False, "reduction": "mean"})


def test_causal_lm_refuses_prepend_bos_without_a_start_token(tmp_path: Path) -> None:
    folder = build_tiny_gpt2(tmp_path / "no_bos", with_bos=False)
    with pytest.raises(ValueError, match="neither a BOS nor an EOS"):
        make(CausalLMLogLikelihood, {"checkpoint": str(folder)})
    assert make(CausalLMLogLikelihood, {"checkpoint": str(folder), "prepend_bos": False}).score_texts(TEXTS)


def test_causal_lm_protocol_names_reduction_and_bos(gpt2_dir: Path) -> None:
    ids = {}
    for reduction in ("sum", "mean"):
        for bos in (True, False):
            cls = CausalLMLogLikelihood
            model = cls(
                build(cls.Params, {"checkpoint": str(gpt2_dir), "reduction": reduction, "prepend_bos": bos}),
                RunOptions(),
            )
            ids[(reduction, bos)] = model.identify().protocol
    assert len(set(ids.values())) == 4
    assert "/sum/prepend-bos-or-eos/" in ids[("sum", True)] and "/mean/no-bos" in ids[("mean", False)]


def test_gpt2_checkpoint_structure_loads(tmp_path: Path) -> None:
    """openai-community/gpt2: base-model keys without the ``transformer.`` prefix, LM head tied."""
    real = meta_state(lambda: transformers.GPT2LMHeadModel(transformers.GPT2Config(**GPT2_CONFIG)))
    assert real["transformer.wte.weight"] == (50257, 768) and real["transformer.h.11.attn.c_attn.weight"] == (768, 2304)
    tokenizer = tiny_gpt2_tokenizer()
    tiny_cfg = transformers.GPT2Config(
        **{**GPT2_CONFIG, "vocab_size": len(tokenizer), "n_positions": 64, "n_embd": 8, "n_head": 2},
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(2)
    source = transformers.GPT2LMHeadModel(tiny_cfg)
    state = source.state_dict()
    assert set(state) == set(real), "tiny model must carry exactly the real key names"
    from safetensors.torch import save_file

    folder = tmp_path / "gpt2_struct"
    folder.mkdir()
    tiny_cfg.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    hub_keys = {k[len("transformer.") :]: v.clone().contiguous() for k, v in state.items() if k != "lm_head.weight"}
    save_file(hub_keys, folder / "model.safetensors", metadata={"format": "pt"})
    model = make(CausalLMLogLikelihood, {"checkpoint": str(folder)})
    loaded = model._model.state_dict()
    assert all(torch.equal(loaded[k], v) for k, v in state.items())
    assert torch.equal(loaded["lm_head.weight"], state["transformer.wte.weight"])
    assert all(s < 0 for s in model.score_texts(TEXTS))


# --- every blind model, end to end: one score per unique text, under the blind image key --------


def write_custom_sugarcrepe(root: Path) -> set[str]:
    """A custom SugarCrepe with repeated captions and NO image files; returns its unique texts."""
    folder = root / "sugarcrepe"
    folder.mkdir(parents=True)
    cases = {
        "swap_obj": [("a red square above a blue circle", "a blue square above a red circle")] * 2,
        "add_att": [
            ("a red square above a blue circle", "a red square above a big blue circle"),
            ("a man riding a horse", "a man riding a horse on a horse"),
        ],
    }
    texts = set()
    for subset, pairs in cases.items():
        records = {
            str(k): {"filename": f"{k}.jpg", "caption": p, "negative_caption": n} for k, (p, n) in enumerate(pairs)
        }
        (folder / f"{subset}.json").write_text(json.dumps(records))
        texts.update(t for pair in pairs for t in pair)
    return texts


def stored_rows(url: str) -> list[tuple[str, str]]:
    from sqlalchemy import select

    from vlc_harness.store import open_store, schema

    store = open_store(url)
    try:
        with store.engine.connect() as conn:
            return [(k, t) for k, t in conn.execute(select(schema.scores.c.image_key, schema.scores.c.text))]
    finally:
        store.close()


def test_cli_run_scores_each_unique_text_once_without_images(vlc_run: Any, tmp_path: Path, gpt2_dir: Path) -> None:
    from vlc_harness.store import open_store
    from vlc_harness.types import BLIND_IMAGE_KEY

    root = tmp_path / "data"
    texts = write_custom_sugarcrepe(root)
    url = vlc_run.store_url
    spec = f"blind_causal_lm:checkpoint={gpt2_dir},reduction=mean"
    args = ["-m", spec, "-b", "sugarcrepe:version=custom"]
    result = vlc_run(*args, data_root=root)
    assert result.exit_code == 0, result.output
    store = open_store(url)
    (cell,) = store.latest_cells()
    assert cell.status == "ok" and cell.n_scored == 4
    store.close()
    rows = stored_rows(url)
    assert {k for k, _ in rows} == {BLIND_IMAGE_KEY}
    assert sorted(t for _, t in rows) == sorted(texts)  # each unique text exactly once
    again = vlc_run(*args, data_root=root)
    assert again.exit_code == 0, again.output
    assert len(stored_rows(url)) == len(texts)  # nothing recomputed or duplicated


@pytest.mark.parametrize("kind", ["classifier", "vera"])
def test_evaluate_scores_each_unique_text_once(kind: str, tmp_path: Path, classifier_dir: Path, vera_dir: Path) -> None:
    from vlc_harness.api import evaluate
    from vlc_harness.types import BLIND_IMAGE_KEY

    cls, folder = {"classifier": (SequenceClassifierScorer, classifier_dir), "vera": (Vera, vera_dir)}[kind]
    root = tmp_path / "data"
    texts = write_custom_sugarcrepe(root)
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    model = cls(build(cls.Params, {"checkpoint": str(folder)}), RunOptions(batch_size=3))
    results = evaluate(model, [{"type": "sugarcrepe", "params": {"version": "custom"}}], data_root=root, store=url)
    (cell,) = results.cells
    assert cell.status == "ok" and cell.n_scored == 4, cell.error
    rows = stored_rows(url)
    assert {k for k, _ in rows} == {BLIND_IMAGE_KEY}
    assert sorted(t for _, t in rows) == sorted(texts)
    # the swap_obj pair scored the same way both times (the text alone decides)
    assert results.value("sugarcrepe", "i2t_accuracy", "swap_obj") in (0.0, 1.0)
