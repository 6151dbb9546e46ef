"""The open_clip plugins score as open_clip itself does when an evaluation calls it.

Each case builds one set of tiny random weights and scores the same image files and captions two
ways: through the plugin, as the engine calls it (``identify``, ``load``, ``preprocess`` of the
decoded image, ``embed_images``, ``embed_texts``, ``pair_scores``), and through open_clip as the
papers' evaluation scripts call it (``open_clip.create_model_and_transforms(name, pretrained=...)``,
``open_clip.get_tokenizer(name)``, ``encode_image``/``encode_text`` with ``normalize=True``, the dot
product; RAIVNLab/sugar-crepe ``main_eval.py`` and ARO's ``model_zoo/__init__.py`` line 71). Scores
agree to float tolerance and every SugarCrepe-style verdict (``s(image, a) > s(image, b)``) is the
same.

The tiny architectures are open_clip's own configs with small widths and depths, registered with
``open_clip.add_model_config``: ``ViT-B-32`` and ``ViT-B-32-quickgelu`` (which open_clip defines as
the same config plus ``quick_gelu: true``, checked below), and both SigLIP 2 configs
(``ViT-SO400M-16-SigLIP2-384``, ``ViT-gopt-16-SigLIP2-384``) with every other key kept: the text
tower's flags, the tokenizer's ``clean: canonicalize``, the timm tower's MAP pooling. The SigLIP 2
vision trunks are timm's own ``vit_so400m_patch16_siglip_384`` / ``vit_giantopt_patch16_siglip_384``
functions called with a small ``embed_dim``, ``depth`` and ``num_heads``; their text tokenizer is
transformers' ``GemmaTokenizer`` (the class those repositories' tokenizers load as) over a small
vocabulary built here, saved in a local Hugging Face cache with the weights under a pretrained tag
that copies the real ``webli`` tag's preprocessing (0.5 mean and std, bicubic, ``squash``).
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from vlc_harness.testing import require

PAIRS = [  # SugarCrepe-style positives and their swapped or replaced negatives
    ("a red square above a blue circle", "a blue circle above a red square"),
    ("two dogs running on the beach", "two people running on the beach"),
    ("a man riding a horse on the street", "a horse riding a man on the street"),
    ("the cat is sitting on the table", "the table is sitting on the cat"),
    ("a yellow car next to a green tree", "a green car next to a yellow tree"),
    ("a woman holding an umbrella in the rain", "a woman holding a dog in the rain"),
    ("three birds on a wooden fence", "one bird on a wooden fence"),
    ("a boy throwing a ball to his father", "a father throwing a ball to his boy"),
    ("a plate of pasta on a white table", "a plate of pasta under a white table"),
    ("an old clock on a brick wall", "a new clock on a brick wall"),
    ("people crossing a busy street at night", "people crossing a quiet street at night"),
    ("a small boat on a calm lake", "a large boat on a calm lake"),
]
TEXTS = [text for pair in PAIRS for text in pair]
SIZES = [(40, 30), (32, 32), (24, 48), (64, 40), (36, 36), (50, 26), (33, 57), (80, 20), (45, 45), (28, 35)]
ATOL = 2e-5


@pytest.fixture(scope="module")
def open_clip_module():
    require("open_clip")
    import open_clip

    return open_clip


def _register(open_clip, folder: Path, name: str, config: dict) -> str:
    """Make ``config`` known to open_clip as ``name`` (open_clip names a config file by its stem)."""
    if name not in open_clip.list_models():
        path = folder / f"{name}.json"
        path.write_text(json.dumps(config))
        open_clip.add_model_config(path)
    return name


def _tiny_vit_b_32(open_clip) -> dict:
    """open_clip's ViT-B-32 config with small widths and depths (everything else as published)."""
    config = copy.deepcopy(open_clip.get_model_config("ViT-B-32"))
    config["embed_dim"] = 32
    config["vision_cfg"].update(image_size=32, layers=2, width=64, patch_size=8, head_width=32)
    config["text_cfg"].update(width=64, heads=2, layers=2)
    return config


@pytest.fixture(scope="module")
def images(tmp_path_factory) -> list[Path]:
    """Random RGB images of several sizes and aspect ratios, saved as PNG files."""
    from PIL import Image

    folder = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(0)
    paths = []
    for k, (w, h) in enumerate(SIZES):
        path = folder / f"{k}.png"
        Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)).save(path)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def clip_towers(open_clip_module, tmp_path_factory) -> dict:
    """The tiny ViT-B-32 pair (GELU and QuickGELU) and one random state dict for it, saved plainly
    and as an open_clip training checkpoint (``module.``-prefixed ``state_dict``, as NegCLIP's)."""
    import torch

    open_clip = open_clip_module
    published = open_clip.get_model_config("ViT-B-32")
    assert open_clip.get_model_config("ViT-B-32-quickgelu") == {**published, "quick_gelu": True}
    folder = tmp_path_factory.mktemp("tiny_vit")
    gelu = _tiny_vit_b_32(open_clip)
    names = {
        "gelu": _register(open_clip, folder, "vlc-test-ViT-tiny-32", gelu),
        "quickgelu": _register(open_clip, folder, "vlc-test-ViT-tiny-32-quickgelu", {**gelu, "quick_gelu": True}),
    }
    torch.manual_seed(0)
    state = open_clip.create_model(names["gelu"], pretrained=None).state_dict()
    plain = folder / "weights.pt"
    torch.save(state, plain)
    training = folder / "epoch_5.pt"
    torch.save({"epoch": 5, "name": "tiny", "state_dict": {"module." + k: v for k, v in state.items()}}, training)
    return {"names": names, "config": gelu, "plain": str(plain), "training": str(training)}


def plugin_scores(cls, params: dict, images: list[Path]) -> np.ndarray:
    """``[images, texts]`` scores through a plugin, called as the engine calls it."""
    from vlc_harness.images import load_image
    from vlc_harness.params import build

    model = cls(build(cls.Params, params), cls.Run())
    model.identify()
    model.load("cpu")
    image_vecs = model.embed_images([model.preprocess(load_image(p)) for p in images])
    text_vecs = model.embed_texts(TEXTS)
    rows = [model.pair_scores(np.repeat(image_vecs[[i]], len(TEXTS), axis=0), text_vecs) for i in range(len(images))]
    return np.array(rows)


def open_clip_scores(name: str, pretrained: str, images: list[Path]) -> np.ndarray:
    """``[images, texts]`` scores as SugarCrepe's main_eval.py computes them with open_clip."""
    import open_clip
    import torch
    from PIL import Image

    model, _, transform = open_clip.create_model_and_transforms(model_name=name, pretrained=pretrained, device="cpu")
    tokenizer = open_clip.get_tokenizer(name)
    model.eval()
    with torch.no_grad():
        text = model.encode_text(tokenizer(TEXTS), normalize=True)
        rows = [model.encode_image(transform(Image.open(p)).unsqueeze(0), normalize=True) @ text.T for p in images]
    return torch.cat(rows).numpy().astype(np.float64)


def verdicts(scores: np.ndarray) -> np.ndarray:
    """Every SugarCrepe-style verdict: for each image and caption pair ``a < b``, ``s(a) > s(b)``."""
    a, b = np.triu_indices(scores.shape[1], k=1)
    return scores[:, a] > scores[:, b]


def assert_same(ours: np.ndarray, theirs: np.ndarray) -> None:
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=ATOL)
    assert (verdicts(ours) == verdicts(theirs)).all()
    assert float(np.ptp(theirs)) > 100 * ATOL  # the scores differ enough for the verdicts to mean something


def test_a_gelu_tower_scores_as_open_clip_does(clip_towers, images):
    from vlc_harness_builtins.models.openclip import OpenClip

    ours = plugin_scores(OpenClip, {"arch": clip_towers["config"], "pretrained": clip_towers["plain"]}, images)
    assert_same(ours, open_clip_scores(clip_towers["names"]["gelu"], clip_towers["plain"], images))


def test_a_quickgelu_tower_scores_as_open_clip_does(clip_towers, images):
    from vlc_harness_builtins.models.openclip import OpenClip

    theirs = open_clip_scores(clip_towers["names"]["quickgelu"], clip_towers["plain"], images)
    by_name = {"arch": clip_towers["names"]["quickgelu"], "pretrained": clip_towers["plain"]}
    assert_same(plugin_scores(OpenClip, by_name, images), theirs)
    # force_quick_gelu on the GELU config (DataComp's paper loading) is the -quickgelu config
    forced = {"arch": clip_towers["config"], "pretrained": clip_towers["plain"], "force_quick_gelu": True}
    assert_same(plugin_scores(OpenClip, forced, images), theirs)


def _tuned_entry(clip_towers, tmp_path):
    """A NegCLIP-like registry entry: QuickGELU on the board, the paper's GELU in paper_params."""
    from vlc_harness.plugins import get_plugins
    from vlc_harness.registry import load_registry

    registry = tmp_path / "tuned.yaml"
    shutil.copyfile(clip_towers["training"], tmp_path / "epoch_5.pt")  # a registry names files in its own folder
    spec = {"arch": clip_towers["config"], "checkpoint": "./epoch_5.pt"}
    meta = {"paper_match": "negclip:ViT-B-32", "paper_params": {"quick_gelu": False}}
    registry.write_text(
        json.dumps({"models": [{"id": "tuned", "type": "open_clip_tuned", "params": spec, "meta": meta}]})
    )
    return load_registry([registry], get_plugins()).models["tuned"]


def test_open_clip_tuned_loads_as_the_board_and_as_the_papers_did(clip_towers, images, tmp_path):
    """quick_gelu true: open_clip's -quickgelu config with the training checkpoint; the paper's
    loading (``paper_params: {quick_gelu: false}``, what ``verify`` runs): ARO's
    ``create_model_and_transforms('ViT-B-32', pretrained=path)``, GELU."""
    from vlc_harness.verify import PAPER_SUFFIX, paper_entry
    from vlc_harness_builtins.models.openclip_tuned import OpenClipTuned

    entry = _tuned_entry(clip_towers, tmp_path)
    board = {"arch": clip_towers["config"], "checkpoint": clip_towers["training"]}
    assert entry.params.quick_gelu
    theirs_quick = open_clip_scores(clip_towers["names"]["quickgelu"], clip_towers["training"], images)
    assert_same(plugin_scores(OpenClipTuned, board, images), theirs_quick)

    paper = paper_entry(entry)
    assert paper.id == "tuned" + PAPER_SUFFIX and not paper.params.quick_gelu
    theirs_gelu = open_clip_scores(clip_towers["names"]["gelu"], clip_towers["training"], images)
    assert_same(plugin_scores(OpenClipTuned, {**board, "quick_gelu": False}, images), theirs_gelu)


def test_a_wrong_activation_changes_verdicts(clip_towers, images):
    """GELU weights scored with QuickGELU are another model: the scores move and verdicts flip,
    so the comparisons above can fail."""
    from vlc_harness_builtins.models.openclip_tuned import OpenClipTuned

    theirs = open_clip_scores(clip_towers["names"]["gelu"], clip_towers["training"], images)
    wrong = plugin_scores(OpenClipTuned, {"arch": clip_towers["config"], "checkpoint": clip_towers["training"]}, images)
    assert float(np.abs(wrong - theirs).max()) > 100 * ATOL
    flipped = int((verdicts(wrong) != verdicts(theirs)).sum())
    assert flipped > 0, "QuickGELU on GELU weights left every verdict unchanged"


SIGLIP2 = {  # real config -> (its timm trunk's small dimensions, the text tower's width)
    "ViT-SO400M-16-SigLIP2-384": ({"embed_dim": 32, "depth": 2, "num_heads": 2, "img_size": 32}, 32),
    "ViT-gopt-16-SigLIP2-384": ({"embed_dim": 48, "depth": 2, "num_heads": 2, "img_size": 32}, 32),
}
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _hub_snapshot(cache: Path, repo: str) -> Path:
    """The snapshot folder of ``repo`` at :data:`COMMIT` in a Hugging Face cache (``main`` points to it)."""
    folder = cache / f"models--{repo.replace('/', '--')}"
    (folder / "refs").mkdir(parents=True, exist_ok=True)
    (folder / "refs" / "main").write_text(COMMIT)
    snapshot = folder / "snapshots" / COMMIT
    snapshot.mkdir(parents=True, exist_ok=True)
    return snapshot


def _tiny_timm_trunk(timm_name: str, dims: dict) -> str:
    """Register a timm model that calls timm's own entry point ``timm_name`` with small dimensions."""
    import timm
    from timm.models import register_model, vision_transformer

    name = f"vlc_test_tiny_{timm_name}"
    if name not in timm.list_models():
        real = getattr(vision_transformer, timm_name)

        def build(pretrained: bool = False, **kwargs):
            return real(pretrained=False, **{**kwargs, **dims})

        build.__name__ = name
        register_model(build)
    return name


def _gemma_tokenizer(folder: Path):
    """transformers' GemmaTokenizer over a character vocabulary (lower-case letters, digits, space)."""
    from transformers import GemmaTokenizer

    vocab = {"<pad>": 0, "<eos>": 1, "<bos>": 2, "<unk>": 3, "<mask>": 4, "▁": 5}
    for char in "abcdefghijklmnopqrstuvwxyz0123456789":
        vocab[char] = len(vocab)
    tokenizer = GemmaTokenizer(vocab=vocab, merges=[])
    tokenizer.save_pretrained(folder)
    return tokenizer


@pytest.fixture(scope="module")
def siglip2_hub(open_clip_module, tmp_path_factory) -> dict:
    """For each SigLIP 2 config: a tiny copy registered with open_clip, and a Hugging Face cache
    holding its random weights and its tokenizer in one repository, as timm/ViT-*-SigLIP2-384 do."""
    import torch
    from safetensors.torch import save_file

    open_clip = open_clip_module
    require("timm")
    require("transformers")
    cache = tmp_path_factory.mktemp("hub")
    configs = tmp_path_factory.mktemp("siglip2_configs")
    out = {}
    for arch, (dims, text_width) in SIGLIP2.items():
        repo = f"vlc-test/tiny-{arch}"
        snapshot = _hub_snapshot(cache, repo)
        tokenizer = _gemma_tokenizer(snapshot)
        config = copy.deepcopy(open_clip.get_model_config(arch))
        config["embed_dim"] = dims["embed_dim"]
        trunk = _tiny_timm_trunk(config["vision_cfg"]["timm_model_name"], dims)
        # the repository's timm config, which transformers' AutoTokenizer reads before the tokenizer
        (snapshot / "config.json").write_text(json.dumps({"architecture": trunk, "num_classes": 0}))
        config["vision_cfg"].update(image_size=32, timm_model_name=trunk)
        config["text_cfg"].update(
            vocab_size=len(tokenizer), hf_tokenizer_name=repo, width=text_width, heads=2, layers=2
        )
        name = _register(open_clip, configs, f"vlc-test-tiny-{arch}", config)
        torch.manual_seed(1)
        state = open_clip.create_model(name, pretrained=None).state_dict()
        save_file({k: v.contiguous() for k, v in state.items()}, str(snapshot / "open_clip_model.safetensors"))
        tag = {**open_clip.get_pretrained_cfg(arch, "webli"), "hf_hub": repo + "/"}
        out[arch] = {"name": name, "repo": repo, "tag": tag, "snapshot": snapshot}
    return {"cache": cache, "archs": out}


@pytest.fixture
def hub_cache(siglip2_hub, monkeypatch):
    """The local Hugging Face cache and the tiny models' ``webli`` tags, for one test."""
    import huggingface_hub.constants
    import open_clip

    monkeypatch.setenv("HF_HUB_CACHE", str(siglip2_hub["cache"]))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(siglip2_hub["cache"]))
    for case in siglip2_hub["archs"].values():
        monkeypatch.setitem(open_clip.pretrained._PRETRAINED, case["name"], {"webli": case["tag"]})
    return siglip2_hub


@pytest.mark.parametrize("arch", sorted(SIGLIP2))
def test_siglip2_configs_score_as_open_clip_does(hub_cache, images, arch):
    """The tag's preprocessing (squash resize, 0.5 mean and std), the Gemma tokenizer with
    ``clean: canonicalize`` and the bidirectional text tower (never truncated), as open_clip runs them."""
    from vlc_harness_builtins.models.openclip import OpenClip

    case = hub_cache["archs"][arch]
    assert case["tag"]["resize_mode"] == "squash" and case["tag"]["mean"] == (0.5, 0.5, 0.5)
    model = OpenClip(OpenClip.Params(arch=case["name"], pretrained="webli"), OpenClip.Run())
    assert model.identify().weights == f"hf:{case['repo']}@{COMMIT}"
    model.load("cpu")
    assert not model._truncate  # no causal mask: padding changes the pooled features
    ours = plugin_scores(OpenClip, {"arch": case["name"], "pretrained": "webli"}, images)
    assert_same(ours, open_clip_scores(case["name"], "webli", images))


def _registry_entries() -> list[dict]:
    import yaml

    return yaml.safe_load((Path(__file__).resolve().parents[3] / "registry.yaml").read_text())["models"]


def test_registry_open_clip_entries_load_with_the_activation_of_their_weights(open_clip_module):
    """The activation each entry builds (its config's ``quick_gelu`` or ``force_quick_gelu``) is the
    one its pretrained tag declares, else the one of the config open_clip lists the tag under (the
    config it was trained with): OpenAI's tags need the -quickgelu configs since open_clip 2.29, and
    DataComp small/medium are GELU (their paper's QuickGELU loading is ``meta.paper_params``)."""
    open_clip = open_clip_module
    seen = 0
    for entry in _registry_entries():
        params = entry["params"]
        if entry["type"] != "open_clip" or not params.get("pretrained") or not isinstance(params["arch"], str):
            continue
        config = open_clip.get_model_config(params["arch"])
        tag = open_clip.get_pretrained_cfg(params["arch"], params["pretrained"])
        built = bool(config.get("quick_gelu", False) or params.get("force_quick_gelu", False))
        assert built == tag.get("quick_gelu", config.get("quick_gelu", False)), entry["id"]
        seen += 1
    assert seen >= 30


def test_entries_loaded_otherwise_by_their_papers_say_so():
    """The board row keeps the activation the weights were trained with; the paper's loading is in
    ``paper_params`` and its rows are real rows of the benchmarks' cards."""
    from vlc_harness.plugins import get_plugins
    from vlc_harness.verify import board_paper_match

    registered = get_plugins().benchmarks.entries.values()
    matches = {row.matches for reg in registered for row in reg.cls.references}
    entries = {e["id"]: e for e in _registry_entries()}
    expected = {
        "negclip-vit-b-32": {"quick_gelu": False},
        "ce-clip-vit-b-32": {"quick_gelu": False},
        "datacomp-small-vit-b-32": {"force_quick_gelu": True},
        "datacomp-medium-vit-b-32": {"force_quick_gelu": True},
    }
    for entry_id, paper_params in expected.items():
        meta = entries[entry_id]["meta"]
        assert meta["paper_params"] == paper_params, entry_id
        assert board_paper_match(meta) is None
        assert "force_quick_gelu" not in entries[entry_id]["params"] and "quick_gelu" not in entries[entry_id]["params"]
        if "paper_match" in meta:
            assert meta["paper_match"] in matches, entry_id
    for entry in entries.values():
        match = (entry.get("meta") or {}).get("paper_match", "")
        if entry["type"] in ("open_clip", "open_clip_tuned") and match and not match.startswith("paper-only"):
            assert match in matches, (entry["id"], match)
