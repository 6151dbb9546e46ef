"""The image tensors of ``prompt: t2v_metrics`` (and CLIP-FlanT5) against t2v_metrics 3.0's rules:

* LLaVA-1.5 and CLIP-FlanT5: t2v_metrics' own ``expand2square`` (compiled from its installed
  source) with the processor's mean colour, then transformers 4.49's CLIP image processor, which
  t2v_metrics pins, restated here in numpy (PIL bicubic resize of the short side, centre crop,
  rescale, normalise).
* InstructBLIP: torchvision's ``Compose`` built from the constants ``ast`` reads in
  ``InstructBLIPModel.load_model``.
* Qwen2-VL: qwen-vl-utils' ``smart_resize`` against transformers' own Qwen2-VL ``smart_resize``
  with qwen-vl-utils' defaults.

What the entries fed their models before (llava-hf's centre crop, InstructBLIP's squash to a
square, the torchvision backend) fails the same comparisons.
"""

from __future__ import annotations

import ast

import numpy as np
import pytest

from tests.plugins.models.t2v_metrics_source import MODELS, definition, run_functions
from tests.plugins.models.test_upstream_t2v_metrics import LLAVA, _image, _vqascore, checkpoints  # noqa: F401
from vlc_harness.testing import require

require("transformers")
SIZES = ((45, 30), (30, 61), (64, 64), (301, 207), (207, 500))


def _expand2square():
    from PIL import Image

    return run_functions(f"{MODELS}/mm_utils.py", ("expand2square",), {"Image": Image})["expand2square"]


def _clip_slow(image, shortest: int, crop: int, mean, std) -> np.ndarray:
    """transformers 4.49's ``CLIPImageProcessor.preprocess`` (the PIL one): the short side resized to
    ``shortest`` (long side truncated) with PIL bicubic, a centre crop, ``x * (1/255)`` in float64
    cast to float32, ``(x - mean) / std``; ``[1, 3, crop, crop]``."""
    from PIL import Image

    width, height = image.size
    if width <= height:
        size = (shortest, int(shortest * height / width))
    else:
        size = (int(shortest * width / height), shortest)
    pixels = np.asarray(image.convert("RGB").resize(size, Image.BICUBIC))
    top, left = (size[1] - crop) // 2, (size[0] - crop) // 2
    pixels = pixels[top : top + crop, left : left + crop]
    scaled = (pixels.astype(np.float64) * (1 / 255)).astype(np.float32)
    normed = (scaled - np.asarray(mean, dtype=np.float32)) / np.asarray(std, dtype=np.float32)
    return normed.transpose(2, 0, 1)[None]


@pytest.mark.parametrize("size", SIZES)
def test_llava_images_are_padded_to_a_square_as_t2v_metrics(checkpoints, size):  # noqa: F811
    model = _vqascore(checkpoints["llava"], LLAVA)
    processor, image = model._scorer.pil_processor, _image(*size)
    square = _expand2square()(image, tuple(int(x * 255) for x in processor.image_mean))
    reference = _clip_slow(square, 32, 32, processor.image_mean, processor.image_std)
    ours = model.preprocess(image)["tensors"]["pixel_values"].numpy()
    np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-6)
    if size[0] != size[1]:  # llava-hf's processor as it stands (torchvision, centre crop): not t2v_metrics
        before = model._scorer.processor.image_processor(images=image, return_tensors="pt")["pixel_values"].numpy()
        assert np.abs(before - reference).max() > 0.1


@pytest.mark.parametrize("size", SIZES[:3])
def test_clip_flant5_images_are_padded_to_a_square_as_t2v_metrics(checkpoints, size):  # noqa: F811
    from tests.plugins.models.test_upstream_t2v_metrics import _model

    params = {"checkpoint": str(checkpoints["clip_flant5"]), "tokenizer": str(checkpoints["flan_t5_tokenizer"])}
    model = _model("vlc_harness_builtins.models.clip_flant5.ClipFlanT5", params)
    processor, image = model._scorer.image_processor, _image(*size)
    square = _expand2square()(image, tuple(int(x * 255) for x in processor.image_mean))
    reference = _clip_slow(square, 28, 28, processor.image_mean, processor.image_std)
    np.testing.assert_allclose(model.preprocess(image)["tensors"]["pixel_values"].numpy(), reference, atol=1e-6)


@pytest.mark.parametrize("size", SIZES)
def test_the_published_336_px_clip_processor_pads_as_t2v_metrics(tmp_path, size):
    """At CLIP ViT-L/14-336's size (LLaVA-1.5's and CLIP-FlanT5's tower), with the PIL backend."""
    from transformers import CLIPImageProcessor

    from vlc_harness_builtins.models.t2v_metrics_inputs import expand_to_square, pil_image_processor

    CLIPImageProcessor(size={"shortest_edge": 336}, crop_size={"height": 336, "width": 336}).save_pretrained(tmp_path)
    processor, image = pil_image_processor(str(tmp_path), None), _image(*size, seed=1)
    fill = tuple(int(x * 255) for x in processor.image_mean)
    assert fill == (122, 116, 104)
    ours = processor(images=expand_to_square(image, fill), return_tensors="pt")["pixel_values"].numpy()
    reference = _clip_slow(_expand2square()(image, fill), 336, 336, processor.image_mean, processor.image_std)
    np.testing.assert_allclose(ours, reference, rtol=0, atol=1e-6)


def _instructblip_transform(size: int | None = None):
    """torchvision's transform as ``InstructBLIPModel.load_model`` builds it, from its constants."""
    from torchvision import transforms

    source = definition(f"{MODELS}/instructblip_model.py", "load_model", "InstructBLIPModel")
    calls = {ast.unparse(n.func): n for n in ast.walk(source) if isinstance(n, ast.Call)}
    sizes = [
        n.value.value for n in ast.walk(source) if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "size"
    ]
    normalize = [ast.literal_eval(a) for a in calls["transforms.Normalize"].args]
    resize = calls["transforms.Resize"]
    assert ast.unparse(resize.keywords[0].value) == "transforms.functional.InterpolationMode.BICUBIC"
    assert "transforms.CenterCrop" in calls and "transforms.ToTensor" in calls
    side = size or sizes[0]
    return (
        sizes[0],
        normalize,
        transforms.Compose(
            [
                transforms.Resize(side, interpolation=transforms.InterpolationMode.BICUBIC),
                transforms.CenterCrop((side, side)),
                transforms.ToTensor(),
                transforms.Normalize(*normalize),
            ]
        ),
    )


@pytest.mark.parametrize("size", SIZES)
def test_instructblip_images_are_resized_and_centre_cropped_as_t2v_metrics(size):
    require("torchvision")
    from vlc_harness_builtins.models.t2v_metrics_inputs import resize_center_crop
    from vlc_harness_builtins.models.t2v_metrics_recipes import CLIP_MEAN, CLIP_STD

    side, normalize, transform = _instructblip_transform()
    assert side == 224 and normalize == [CLIP_MEAN, CLIP_STD]
    image = _image(*[4 * s for s in size])
    reference = transform(image)[None].numpy()
    np.testing.assert_allclose(resize_center_crop(image, side).numpy(), reference, rtol=0, atol=1e-6)


def test_the_instructblip_entry_feeds_that_transform(checkpoints):  # noqa: F811
    require("torchvision")
    from tests.plugins.models.test_upstream_t2v_metrics import INSTRUCTBLIP

    model = _vqascore(checkpoints["instructblip"], INSTRUCTBLIP)
    image = _image(61, 40)
    reference = _instructblip_transform(32)[2](image)[None].numpy()
    np.testing.assert_allclose(model.preprocess(image)["tensors"]["pixel_values"].numpy(), reference, atol=1e-6)
    before = _vqascore(checkpoints["instructblip"], {"scoring": "t2v_metrics"})  # BLIP's squash to a square
    assert np.abs(before.preprocess(image)["tensors"]["pixel_values"].numpy() - reference).max() > 0.1


@pytest.mark.parametrize("size", [(480, 640), (30, 40), (1080, 1920), (28, 5000), (3000, 4000), (100, 100)])
def test_qwen_vl_utils_resize_is_the_qwen_rule(size):
    from transformers.models.qwen2_vl.image_processing_qwen2_vl import smart_resize

    from vlc_harness_builtins.models.t2v_metrics_inputs import qwen_smart_resize
    from vlc_harness_builtins.models.t2v_metrics_recipes import QWEN_IMAGE_FACTOR, QWEN_MAX_PIXELS, QWEN_MIN_PIXELS

    height, width = size
    theirs = smart_resize(height, width, QWEN_IMAGE_FACTOR, QWEN_MIN_PIXELS, QWEN_MAX_PIXELS)
    assert qwen_smart_resize(height, width) == tuple(theirs)
    assert qwen_smart_resize(480, 640) == (476, 644)


def test_qwen2_vl_7b_processor_settings_make_the_pre_resize_exact(tmp_path):
    """With Qwen2-VL-7B-Instruct's processor limits (qwen-vl-utils' own), the processor's resize of
    the pre-resized image is the identity: one PIL bicubic resize, as t2v_metrics makes it."""
    from transformers import Qwen2VLImageProcessor

    from vlc_harness_builtins.models.t2v_metrics_inputs import pil_image_processor, qwen_vl_utils_image

    Qwen2VLImageProcessor(min_pixels=3136, max_pixels=12845056, patch_size=14, merge_size=2).save_pretrained(tmp_path)
    processor, image = pil_image_processor(str(tmp_path), None), _image(301, 207)
    resized = qwen_vl_utils_image(image)
    once = processor(images=resized, return_tensors="pt")
    assert [int(x) for x in once["image_grid_thw"][0][1:]] == [resized.height // 14, resized.width // 14]
    again = processor(images=image, return_tensors="pt")
    np.testing.assert_array_equal(once["pixel_values"].numpy(), again["pixel_values"].numpy())
