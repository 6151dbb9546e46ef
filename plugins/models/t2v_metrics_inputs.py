"""The scorer side of ``prompt: t2v_metrics``: a mixin over :class:`VlmScorer` (or a family's own
scorer) that builds the prompt tokens, the answer, the image tensors and, where t2v_metrics reads
``generate``'s scores, the penalised next-token logits as the family's recipe
(:mod:`vlc_harness_builtins.models.t2v_metrics_recipes`) says. No hooks.

The grouped scoring and its run-time self-check are the base scorer's; the self-check compares
them with the model's own forward pass over these same tokens and tensors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from vlc_harness.kit.precision import autocast
from vlc_harness_builtins.models.generative import Request, VlmScorer
from vlc_harness_builtins.models.t2v_metrics_recipes import (
    CLIP_MEAN,
    CLIP_STD,
    QWEN_IMAGE_FACTOR,
    QWEN_MAX_PIXELS,
    QWEN_MIN_PIXELS,
    T2vRecipe,
)
from vlc_harness_builtins.models.versions import require_pil_backend

QWEN_MAX_RATIO = 200
UNMIRRORED_GENERATION = (
    "no_repeat_ngram_size",
    "bad_words_ids",
    "min_length",
    "min_new_tokens",
    "suppress_tokens",
    "begin_suppress_tokens",
    "forced_bos_token_id",
    "forced_eos_token_id",
    "sequence_bias",
    "exponential_decay_length_penalty",
    "guidance_scale",
)
"""``generation_config`` fields whose logits processors would also act on ``generate``'s first scores."""


def pil_image_processor(checkpoint: str, revision: str | None) -> Any:
    """The checkpoint's image processor with the PIL backend (transformers 4.49's, which t2v_metrics pins):
    ``backend="pil"`` from transformers 5.4.0, ``use_fast=False`` on 4.x; 5.0 to 5.3, which would drop
    ``backend`` silently, are refused (``versions.require_pil_backend``)."""
    import transformers
    from transformers import AutoImageProcessor

    require_pil_backend()

    major = int(transformers.__version__.split(".")[0])
    backend = {"backend": "pil"} if major >= 5 else {"use_fast": False}
    return AutoImageProcessor.from_pretrained(checkpoint, revision=revision, **backend)


def resize_center_crop(
    image: Any, size: int, mean: Sequence[float] = CLIP_MEAN, std: Sequence[float] = CLIP_STD
) -> Any:
    """InstructBLIP's transform in t2v_metrics (``instructblip_model.py:45-50``): torchvision's
    ``Resize(size, BICUBIC)`` of the short side (long side truncated), ``CenterCrop(size)``,
    ``ToTensor`` and ``Normalize``, on a PIL image; ``[1, 3, size, size]``."""
    import numpy as np
    import torch
    from PIL import Image

    width, height = image.size
    short, long = (width, height) if width <= height else (height, width)
    new_short, new_long = size, int(size * long / short)
    new_w, new_h = (new_short, new_long) if width <= height else (new_long, new_short)
    resized = image.convert("RGB").resize((new_w, new_h), Image.Resampling.BICUBIC)
    top, left = int(round((new_h - size) / 2.0)), int(round((new_w - size) / 2.0))
    cropped = resized.crop((left, top, left + size, top + size))
    pixels = torch.from_numpy(np.asarray(cropped, dtype=np.uint8).copy()).permute(2, 0, 1).float().div(255)
    mean_t = torch.tensor(mean, dtype=torch.float32).view(-1, 1, 1)
    std_t = torch.tensor(std, dtype=torch.float32).view(-1, 1, 1)
    return ((pixels - mean_t) / std_t).unsqueeze(0)


def qwen_smart_resize(height: int, width: int) -> tuple[int, int]:
    """qwen-vl-utils 0.0.10's ``smart_resize`` with its defaults (``vision_process.py:59-85``): both
    sides multiples of 28, the area within [4, 16384] x 28 x 28, the aspect ratio kept."""
    factor = QWEN_IMAGE_FACTOR
    if max(height, width) / min(height, width) > QWEN_MAX_RATIO:
        raise ValueError(f"aspect ratio {max(height, width) / min(height, width):.0f} is over {QWEN_MAX_RATIO}")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > QWEN_MAX_PIXELS:
        beta = math.sqrt((height * width) / QWEN_MAX_PIXELS)
        h_bar = math.floor(height / beta / factor) * factor
        w_bar = math.floor(width / beta / factor) * factor
    elif h_bar * w_bar < QWEN_MIN_PIXELS:
        beta = math.sqrt(QWEN_MIN_PIXELS / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def qwen_vl_utils_image(image: Any) -> Any:
    """``process_vision_info``'s image (``fetch_image``, ``vision_process.py:97-140``): RGB, then a
    PIL resize (Pillow's default filter, bicubic) to :func:`qwen_smart_resize`'s size."""
    rgb = image.convert("RGB")
    height, width = qwen_smart_resize(rgb.height, rgb.width)
    return rgb.resize((width, height))


def expand_to_square(image: Any, fill: tuple[int, ...]) -> Any:
    """``expand2square`` (``mm_utils.py:128-139``): the image centred on a square of ``fill``."""
    from PIL import Image

    width, height = image.size
    if width == height:
        return image
    side = max(width, height)
    square = Image.new(image.mode, (side, side), fill)
    square.paste(image, ((side - width) // 2, (side - height) // 2))
    return square


class T2vMetricsInputs(VlmScorer):
    """Mixin: t2v_metrics' prompt, tokens, image tensors and generation penalty for one recipe.

    Put it before a :class:`VlmScorer` (sub)class (:func:`t2v_metrics_scorer` does: its methods call
    that class's through ``super()``, so it derives from :class:`VlmScorer` too); ``recipe`` and
    the PIL image processor are set by :meth:`use_recipe` after the base class has loaded the model.
    """

    recipe: T2vRecipe

    def use_recipe(self, recipe: T2vRecipe, checkpoint: str, revision: str | None) -> None:
        """Load the PIL image processor and the generation penalty the recipe needs."""
        self.recipe = recipe
        self.pil_processor = pil_image_processor(checkpoint, revision)
        if recipe.image == "anyres_frames":  # the crops' features go where the video token stands
            self.image_token_id = int(self.model.config.video_token_id)
        self.penalty = None
        if recipe.generation:
            config = getattr(self.model, "generation_config", None)
            extra = [f for f in UNMIRRORED_GENERATION if config is not None and getattr(config, f, None)]
            if extra:
                unmirrored = ", ".join(extra)
                raise ValueError(f"generation_config sets {unmirrored}, whose effect on the scores is not mirrored")
            value = float(getattr(config, "repetition_penalty", None) or 1.0)
            if value != 1.0:
                from transformers import RepetitionPenaltyLogitsProcessor

                self.penalty = RepetitionPenaltyLogitsProcessor(penalty=value)
                self.runner = _PenalisedRunner(self, self.runner)

    # -- text -----------------------------------------------------------------------------------

    def render(self, question: str, prompt: str = "auto") -> str:
        """The recipe's conversation around the question, or the checkpoint's chat template."""
        if self.recipe.conversation:
            return self.recipe.conversation.replace("{question}", question)
        return VlmScorer.render(self, question, "auto")

    def prompt_ids(self, prompt: str, n_image: int) -> list[int]:
        """``tokenizer_image_token`` (each side of ``<image>`` on its own, BOS once) where the recipe
        says so, with the question's trailing-space token left to the answer; else the base's."""
        if not self.recipe.chunks:
            return super().prompt_ids(prompt, n_image)
        if prompt.count("<image>") != 1:
            raise ValueError(f"the prompt must hold exactly one <image>: {prompt!r}")
        before, after = prompt.split("<image>")
        first = list(self.tokenizer(before).input_ids)
        offset = 1 if first and first[0] == self.tokenizer.bos_token_id else 0
        ids = [*first, *[self.image_token_id] * n_image, *list(self.tokenizer(after).input_ids)[offset:]]
        if self.recipe.trailing_space and prompt.endswith(" "):
            ids = ids[:-1]
        return ids

    # -- images ---------------------------------------------------------------------------------

    def preprocess(self, image: Any) -> dict[str, Any]:
        """The recipe's image tensors (PIL-backend processor after padding or resizing; InstructBLIP's
        crop side is the processor's, 224 for the published checkpoint as t2v_metrics hard-codes)."""
        kind = self.recipe.image
        if kind == "resize_crop":
            size = self.pil_processor.size
            side = int(size["height"]) if "height" in size else int(size["shortest_edge"])
            return {"pil": image, "tensors": {"pixel_values": resize_center_crop(image, side)}}
        if kind == "pad_square":
            fill = tuple(int(x * 255) for x in self.pil_processor.image_mean)
            shown = expand_to_square(image.convert("RGB"), fill)
        elif kind == "qwen_vl_utils":
            shown = qwen_vl_utils_image(image)
        else:
            shown = image.convert("RGB")
        out = self.pil_processor(images=shown, return_tensors="pt")
        if kind == "anyres_frames":  # one image's crops, base view first, as the frames of one video
            return {"pil": shown, "tensors": {"pixel_values_videos": out["pixel_values"]}}
        return {"pil": shown, "tensors": {k: v for k, v in out.items() if hasattr(v, "dim")}}

    # -- scoring and the self-check -------------------------------------------------------------

    def token_logprobs(self, images: Sequence[Any], requests: Sequence[Request], reuse: str) -> list[list[float]]:
        """The base's, without the prefix cache when a penalty needs each row's whole sequence."""
        if self.penalty is not None and reuse == "prefix":
            reuse = "vision"
        return super().token_logprobs(images, requests, reuse)

    def _embed(self, ids: Any, feats: Any) -> Any:
        self._last_ids = ids
        return super()._embed(ids, feats)

    def reference_logprobs(self, image: dict[str, Any], requests: Sequence[Request]) -> list[list[float]]:
        """The model's own forward over these prompt tokens and image tensors, one request at a time."""
        import inspect

        torch = self.torch
        accepts = inspect.signature(self.model.forward).parameters
        tensors = {k: v.to(self.device) for k, v in image["tensors"].items()}
        out = []
        with torch.no_grad(), autocast(self.precision):
            feats = self._request_features([image], requests, "vision")
            for r, f in zip(requests, feats, strict=True):
                prompt = self.prompt_ids(r.prompt, f.shape[0])
                answer = torch.tensor([r.answer], device=self.device)
                if self.seq2seq:
                    ids = torch.tensor([prompt], device=self.device)
                    q = self.processor.qformer_tokenizer([r.prompt], return_tensors="pt").to(self.device)
                    extra = {"qformer_input_ids": q["input_ids"], "qformer_attention_mask": q["attention_mask"]}
                    mask = torch.ones_like(ids)
                    rows = self.model(input_ids=ids, attention_mask=mask, labels=answer, **tensors, **extra).logits[0]
                    start = 0
                else:
                    ids = torch.tensor([prompt + list(r.answer)], device=self.device)
                    types = (ids == self.image_token_id).int()
                    extra = {"mm_token_type_ids": types} if "mm_token_type_ids" in accepts else {}
                    rows = self.model(input_ids=ids, attention_mask=torch.ones_like(ids), **tensors, **extra).logits[0]
                    start = len(prompt) - 1
                picked = rows[start : start + len(r.answer)].float()
                if self.penalty is not None:
                    steps = range(len(r.answer))
                    picked = torch.cat([self.penalty(ids[:, : start + k + 1], picked[k : k + 1]) for k in steps])
                lp = torch.log_softmax(picked, dim=-1)
                out.append(lp[torch.arange(len(r.answer)), answer[0]].double().cpu().tolist())
        return out


class _PenalisedRunner:
    """The language model called as before, its logits then penalised as ``generate`` does: at each
    kept position, every token of the row so far (``RepetitionPenaltyLogitsProcessor``)."""

    def __init__(self, scorer: Any, runner: Any) -> None:
        self.scorer, self.inner = scorer, runner
        self.forward = runner.forward  # the base inspects its signature
        self.config = getattr(runner, "config", None)

    def get_encoder(self) -> Any:
        """The inner model's encoder (never used: penalties apply to decoder-only recipes)."""
        return self.inner.get_encoder()

    def __call__(self, **kwargs: Any) -> Any:
        out = self.inner(**kwargs)
        ids, logits = self.scorer._last_ids, out.logits
        keep = kwargs.get("logits_to_keep")
        if logits.shape[1] == ids.shape[1] or keep is None or isinstance(keep, int):
            positions = list(range(ids.shape[1] - logits.shape[1], ids.shape[1]))
        else:
            positions = [int(p) for p in keep]
        penalised = logits.float().clone()
        for row in range(ids.shape[0]):
            for j, pos in enumerate(positions):
                penalised[row, j] = self.scorer.penalty(ids[row : row + 1, : pos + 1], penalised[row, j][None])[0]
        out.logits = penalised
        return out


def t2v_metrics_scorer(
    base: type[VlmScorer], recipe: T2vRecipe, checkpoint: str, revision: str | None, *args: Any
) -> T2vMetricsInputs:
    """A scorer of class ``base`` with :class:`T2vMetricsInputs` in front, following ``recipe``."""
    cls = type(f"T2vMetrics{base.__name__}", (T2vMetricsInputs, base), {})
    scorer = cls(checkpoint, revision, *args)
    scorer.use_recipe(recipe, checkpoint, revision)
    return scorer


def check_t2v_answer(recipe: T2vRecipe, answer: Sequence[int]) -> None:
    """t2v_metrics reads one token's probability where it scores from ``generate``: refuse longer answers."""
    if recipe.scoring == "p_yes" and len(answer) != 1:
        raise ValueError(f"t2v_metrics scores {recipe.name} by the answer's first token; this answer has {len(answer)}")
