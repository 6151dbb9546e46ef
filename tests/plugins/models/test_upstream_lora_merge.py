"""open_clip_tuned's LoRA merge (``layout: open_clip_lora``, DAC and FSC-CLIP) against the LoRA layers
the authors' code is built from, run here: microsoft's ``loralib`` 0.1.2 (PyPI), whose ``Linear`` and
``Conv2d`` both forks copy (DAC's ``src/open_clip/loralib/layers.py`` and FSC-CLIP's
``lora_layers.py`` keep loralib's shapes, ``scaling`` and ``train(False)`` merge at the lines below),
each layer loaded with the base weight and the factors and put in eval mode, which merges it; then
its scores against open_clip's own path on those merged weights. The re-typed formula stays as a
second reading.

The authors' LoRA layers (both forks of loralib) compute, with ``scaling = lora_alpha / r`` and
``lora_alpha`` left at its default 1:

* ``Linear`` (the MLP's ``c_fc``/``c_proj``, attention's ``out_proj``): ``W + (B @ A) * scaling``.
  DAC: SivanDoveh/DAC@ca23611c78669010ae145698ae00f79c4fd690d8 ``src/open_clip/loralib/layers.py``
  lines 132-135 (shapes, scaling) and 168 (merge); attention's ``out_proj`` is applied unmerged as
  ``linear(linear(x, A), B) * scaling``, lines 1001-1004. FSC-CLIP:
  ytaek-oh/fsc-clip@604015db3f009a8f7485f1fb7e21d8343c67664a
  ``src/training/models/lora_utils/lora_layers.py`` lines 63-66 and 101; line 789 for ``out_proj``.
* attention's packed input projection (``in_proj_weight_lora_A`` ``[r, d]``,
  ``in_proj_weight_lora_B`` ``[3d, r]``): ``qkv += linear(linear(x, A), B) * scaling``, i.e.
  ``W + (B @ A) * scaling``. DAC lines 436-438, 454-456 and 746-749; FSC-CLIP lines 248, 265-266
  and 553.
* the patch ``Conv2d`` (``A`` ``[r*k, in*k]``, ``B`` ``[out*k, r*k]``): ``W + (B @ A).view(W.shape)
  * scaling`` with ``scaling = lora_alpha / r`` (not ``r*k``). DAC lines 325-332 and 357-359;
  FSC-CLIP lines 145-152 and 175.

Where the layers sit: DAC's ``src/open_clip/model.py`` (same commit) builds ``attn`` as its LoRA
``MultiheadAttention`` (line 483), the MLP's ``c_fc``/``c_proj`` as LoRA ``Linear`` (504, 507) and
the patch ``conv1`` as LoRA ``Conv2d`` (596); FSC-CLIP's ``patch_vit_clip_lora``
(``src/training/models/lora_utils/patch.py`` lines 63-77) patches every ``nn.Linear`` outside
attention, every ``nn.Conv2d`` and every resblock's attention in both towers. The state dict keys
are therefore open_clip's names plus ``.lora_A``/``.lora_B`` (``_lora_A``/``_lora_B`` after
``in_proj_weight``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vlc_harness.params import build
from vlc_harness.testing import require

require("open_clip")
require("loralib", "loralib is not installed (pip install loralib: the dev extra)")

RANK = 4  # DAC (--lora 4) and FSC-CLIP (--lora-rank 4)
CASES = (
    (0, "a red cat on the table", "a table on the red cat"),
    (0, "a dog chasing a white horse", "a white dog chasing a horse"),
    (1, "a man holding a blue car", "a blue man holding a car"),
    (1, "a square", "a square left of a yellow triangle next to a black circle"),
    (2, "the woman behind the green dog", "the dog behind the green woman"),
    (2, "two circles above a large square", "a circle"),
)
TEXTS = sorted({t for _, pos, neg in CASES for t in (pos, neg)})


def _images():
    from PIL import Image

    rng = np.random.default_rng(1)
    return [Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)) for w, h in ((40, 32), (32, 48), (36, 36))]


def _base_model():
    """A tiny open_clip ViT (QuickGELU, as the OpenAI ViT-B/32 that DAC and FSC-CLIP start from)."""
    import open_clip
    import torch

    from vlc_harness_builtins.models.openclip import register_inline_config
    from vlc_harness_builtins.testing.tiny_openclip import TINY_CONFIG

    torch.manual_seed(0)
    name = register_inline_config(TINY_CONFIG)
    return name, open_clip.create_model(name, pretrained=None, force_quick_gelu=True)


def _published_factors(base: dict) -> dict:
    """LoRA factors (rank :data:`RANK`) with the authors' names and shapes, where their layers put them."""
    import torch

    generator = torch.Generator().manual_seed(1)

    def rand(*shape: int):
        return torch.randn(*shape, generator=generator) * 0.2

    factors = {}
    for key, w in base.items():
        if key.endswith(("mlp.c_fc.weight", "mlp.c_proj.weight", "attn.out_proj.weight")):
            stem = key[: -len("weight")]
            factors[stem + "lora_A"], factors[stem + "lora_B"] = rand(RANK, w.shape[1]), rand(w.shape[0], RANK)
        elif key.endswith("attn.in_proj_weight"):
            factors[key + "_lora_A"], factors[key + "_lora_B"] = rand(RANK, w.shape[1]), rand(w.shape[0], RANK)
        elif key == "visual.conv1.weight":
            out_c, in_c, k, _ = w.shape
            factors["visual.conv1.lora_A"] = rand(RANK * k, in_c * k)
            factors["visual.conv1.lora_B"] = rand(out_c * k, RANK * k)
    return factors


def _formula_merge(base: dict, factors: dict, alpha: float) -> dict:
    """The merged weights written out layer by layer from the authors' formulas (module docstring)."""
    merged = dict(base)
    scaling = alpha / RANK
    for key, w in base.items():
        if key.endswith(("mlp.c_fc.weight", "mlp.c_proj.weight", "attn.out_proj.weight")):
            stem = key[: -len("weight")]
            merged[key] = w + (factors[stem + "lora_B"] @ factors[stem + "lora_A"]) * scaling
        elif key.endswith("attn.in_proj_weight"):
            merged[key] = w + (factors[key + "_lora_B"] @ factors[key + "_lora_A"]) * scaling
        elif key == "visual.conv1.weight":
            merged[key] = w + (factors["visual.conv1.lora_B"] @ factors["visual.conv1.lora_A"]).view(w.shape) * scaling
    return merged


def _loralib_merge(base: dict, factors: dict, alpha: float) -> dict:
    """The merged weights as loralib's own layers merge them (``Linear.train(False)``, ``layers.py:126-141``;
    ``ConvLoRA.train(False)``, 272-285): each LoRA weight loaded into a loralib layer of its shape, which
    eval mode merges. Attention's packed ``in_proj_weight`` is a loralib ``Linear`` of ``d -> 3d``: DAC's
    and FSC-CLIP's attention add ``linear(linear(x, A), B) * scaling`` to the packed projection (DAC
    lines 746-749, FSC-CLIP 553), which is that layer's forward."""
    import loralib

    merged = dict(base)
    for key, w in base.items():
        if key.endswith(("mlp.c_fc.weight", "mlp.c_proj.weight", "attn.out_proj.weight", "attn.in_proj_weight")):
            a, b = (
                factors[key[: -len("weight")] + f"lora_{x}"]
                if not key.endswith("in_proj_weight")
                else factors[f"{key}_lora_{x}"]
                for x in "AB"
            )
            layer = loralib.Linear(w.shape[1], w.shape[0], r=RANK, lora_alpha=alpha, bias=False)
            parts = {"weight": w, "lora_A": a, "lora_B": b}
        elif key == "visual.conv1.weight":
            out_c, in_c, k, _ = w.shape
            layer = loralib.Conv2d(in_c, out_c, kernel_size=k, r=RANK, lora_alpha=alpha, bias=False)
            parts = {
                "conv.weight": w,
                "lora_A": factors["visual.conv1.lora_A"],
                "lora_B": factors["visual.conv1.lora_B"],
            }
        else:
            continue
        layer.load_state_dict(parts, strict=True)
        layer.train(False)  # loralib merges B @ A * (lora_alpha / r) into the weight here
        merged[key] = (layer.conv.weight if key == "visual.conv1.weight" else layer.weight).detach().clone()
        assert layer.merged
    return merged


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> tuple[Path, dict, dict]:
    """(a DDP training checkpoint with LoRA factors as the authors save it, the base weights, the factors)."""
    import torch

    _, model = _base_model()
    base = {k: v.detach().clone() for k, v in model.state_dict().items()}
    factors = _published_factors(base)
    assert sum(k.endswith("in_proj_weight_lora_A") for k in factors) == 4  # 2 layers x 2 towers
    path = tmp_path_factory.mktemp("lora") / "tiny_lora.pt"
    state = {"module." + k: v for k, v in (base | factors).items()}
    torch.save({"epoch": 5, "name": "tiny-lora", "state_dict": state, "optimizer": {}}, path)
    return path, base, factors


def _tuned(path: Path, alpha: float = 1.0):
    from vlc_harness_builtins.models.openclip_tuned import OpenClipTuned
    from vlc_harness_builtins.testing.tiny_openclip import TINY_CONFIG

    params = {"arch": TINY_CONFIG, "checkpoint": str(path), "layout": "open_clip_lora", "lora_alpha": alpha}
    model = OpenClipTuned(build(OpenClipTuned.Params, params), OpenClipTuned.Run())
    model.identify()
    model.load("cpu")
    return model


def _harness_grid(model) -> np.ndarray:
    images = model.embed_images([model.preprocess(im) for im in _images()])
    texts = model.embed_texts(TEXTS)
    rows, cols = np.repeat(images, len(TEXTS), axis=0), np.tile(texts, (len(images), 1))
    return model.pair_scores(rows, cols).reshape(len(images), len(TEXTS))


def _open_clip_grid(state: dict) -> np.ndarray:
    """open_clip's documented path on ``state``: its eval transform and tokenizer, ``encode_image`` /
    ``encode_text``, L2-normalised, cosine."""
    import open_clip
    import torch

    name, _ = _base_model()
    model, _, preprocess = open_clip.create_model_and_transforms(name, pretrained=None, force_quick_gelu=True)
    model.load_state_dict(state, strict=True)
    model.eval()
    with torch.no_grad():
        image = model.encode_image(torch.stack([preprocess(im) for im in _images()]), normalize=True)
        text = model.encode_text(open_clip.get_tokenizer(name)(TEXTS), normalize=True)
    return (image @ text.T).numpy()


def _verdicts(grid: np.ndarray) -> list[bool]:
    col = {t: j for j, t in enumerate(TEXTS)}
    return [bool(grid[i, col[pos]] > grid[i, col[neg]]) for i, pos, neg in CASES]


@pytest.mark.parametrize("alpha", [1.0, 2.0])
def test_the_loader_merges_as_loralibs_layers(published, alpha):
    import torch

    path, base, factors = published
    expected = _loralib_merge(base, factors, alpha)
    for key, value in _formula_merge(base, factors, alpha).items():  # the formula read from source agrees
        torch.testing.assert_close(expected[key], value, rtol=1e-6, atol=1e-6, msg=key)
    loaded = _tuned(path, alpha)._model.state_dict()
    assert set(loaded) == set(expected)
    for key, value in expected.items():
        torch.testing.assert_close(loaded[key], value, rtol=1e-6, atol=1e-6, msg=key)
    changed = [k for k in expected if not torch.equal(expected[k], base[k])]
    assert len(changed) == 1 + 2 * 2 * 4  # the patch conv, and per layer and tower: in, out, c_fc, c_proj


def test_the_merged_model_scores_as_open_clip_on_the_formula_merged_weights(published):
    path, base, factors = published
    ours = _harness_grid(_tuned(path))
    upstream = _open_clip_grid(_loralib_merge(base, factors, 1.0))
    np.testing.assert_allclose(ours, upstream, rtol=1e-5, atol=1e-5)
    assert _verdicts(ours) == _verdicts(upstream)
    # the factors matter: the base weights, or the patch conv scaled by alpha/(r*k), score otherwise
    assert np.abs(_open_clip_grid(base) - upstream).max() > 1e-3
    wrong = _formula_merge(base, factors, 1.0)
    kernel = base["visual.conv1.weight"].shape[-1]
    wrong["visual.conv1.weight"] = base["visual.conv1.weight"] + (
        factors["visual.conv1.lora_B"] @ factors["visual.conv1.lora_A"]
    ).view(base["visual.conv1.weight"].shape) / (RANK * kernel)
    assert np.abs(_open_clip_grid(wrong) - upstream).max() > 1e-2
