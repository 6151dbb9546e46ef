"""VQAScore with Qwen2.5-VL and Qwen3-VL (``Qwen/Qwen2.5-VL-*-Instruct``, ``Qwen/Qwen3-VL-*-Instruct``).

P("Yes") to ``Does this figure show "{caption}"? Please answer yes or no.`` as
:mod:`vlc_harness_builtins.models.vqascore` computes it, over the checkpoint's processor (dynamic resolution:
each image keeps its aspect ratio, 2x2 patches merged per token) and M-RoPE positions.

Prompt template (``prompt: auto``, the checkpoints' own chat templates, image before the question)::

    Qwen2.5-VL: <|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n<|im_start|>user\\n
                <|vision_start|><|image_pad|><|vision_end|>{question}<|im_end|>\\n<|im_start|>assistant\\n
    Qwen3-VL:   <|im_start|>user\\n<|vision_start|><|image_pad|><|vision_end|>{question}<|im_end|>\\n
                <|im_start|>assistant\\n

Qwen3-VL adds DeepStack: features of early vision layers are added to the hidden states of the
first decoder layers at the image positions. The scorer keeps them per image and passes them with
its own embeddings (``visual_pos_masks``, ``deepstack_visual_embeds``), so that the grouped scoring
equals the model's forward pass (the self-check compares them on the first batch). Needs
transformers >= 4.49.0 (Qwen2.5-VL) or >= 4.57.0 (Qwen3-VL); an older one makes the cells
``unavailable``.

``prompt: t2v_metrics`` scores Qwen2.5-VL as t2v_metrics 3.0 does (its Qwen2VLModel loads Qwen2-VL
and Qwen2.5-VL alike: :mod:`vlc_harness_builtins.models.t2v_metrics_recipes`); t2v_metrics has no
Qwen3-VL scorer, so Qwen3-VL takes our prompt only and the preset is refused for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from vlc_harness import hookimpl
from vlc_harness_builtins.models.generative import VlmScorer
from vlc_harness_builtins.models.vqascore_family import FamilyVqaScore

QWEN_IMAGE = "<|vision_start|><|image_pad|><|vision_end|>"


class Qwen3VlScorer(VlmScorer):
    """:class:`VlmScorer` for Qwen3-VL: DeepStack features go with the image embeddings."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deepstack: dict[int, list[Any]] = {}
        self._pending: tuple[Any, list[Any]] | None = None
        self.runner = _DeepstackRunner(self)

    def _features(
        self, images: Sequence[dict[str, Any]], owners: Sequence[int] | None = None, texts: Sequence[str] = ()
    ) -> list[Any]:
        """Per image: its merged patch features; its DeepStack features are kept beside them."""
        out = self.model.get_image_features(**self._batch(images), return_dict=True)
        feats = [f.reshape(-1, f.shape[-1]) for f in out.pooler_output]
        for k, f in enumerate(feats):
            self._deepstack[id(f)] = [layer[k] for layer in out.deepstack_features]
        return feats

    def _request_features(self, images: Sequence[dict[str, Any]], requests: Sequence[Any], reuse: str) -> list[Any]:
        self._deepstack = {}
        return super()._request_features(images, requests, reuse)

    def _embed(self, ids: Any, feats: Sequence[Any] | None) -> Any:
        """Embeddings as the base class builds them, plus the DeepStack inputs for the next forward."""
        embeds = super()._embed(ids, feats)
        if feats is None:
            self._pending = None
        else:
            torch = self.torch
            layers = len(self._deepstack[id(feats[0])])
            stacked = [torch.cat([self._deepstack[id(f)][n] for f in feats]) for n in range(layers)]
            self._pending = (ids == self.image_token_id, stacked)
        return embeds


class _DeepstackRunner:
    """The Qwen3-VL decoder called on embeddings with the pending DeepStack inputs, then the LM head."""

    def __init__(self, scorer: Qwen3VlScorer) -> None:
        self.scorer = scorer
        self.config = scorer.model.config

    def forward(
        self,
        inputs_embeds: Any,
        attention_mask: Any,
        position_ids: Any,
        use_cache: bool,
        cache: Any = None,
        logits_to_keep: Any = 0,
        return_dict: bool = True,
    ) -> Any:
        """Hidden states of the decoder (DeepStack added at the image positions) and their logits."""
        pending, self.scorer._pending = self.scorer._pending, None
        masks, stacked = pending if pending is not None else (None, None)
        model = self.scorer.model
        out = model.model.language_model(
            inputs_embeds=inputs_embeds,
            attention_mask=attention_mask,
            position_ids=position_ids,
            cache=cache,
            use_cache=use_cache,
            visual_pos_masks=masks,
            deepstack_visual_embeds=stacked,
        )
        hidden = out.last_hidden_state
        if isinstance(logits_to_keep, int):
            hidden = hidden[:, -logits_to_keep:] if logits_to_keep else hidden
        else:
            hidden = hidden[:, logits_to_keep]
        return SimpleNamespace(logits=model.lm_head(hidden), cache=out.cache)

    __call__ = forward


class VqaScoreQwenVl(FamilyVqaScore):
    """VQAScore with Qwen2.5-VL or Qwen3-VL (P("Yes"), M-RoPE, DeepStack for Qwen3-VL)."""

    type_name = "vqascore_qwen_vl"
    model_types = {"qwen2_5_vl": VlmScorer, "qwen3_vl": Qwen3VlScorer}
    chat_templates = {
        "qwen2_5_vl": "<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n<|im_start|>user\\n"
        f"{QWEN_IMAGE}{{question}}<|im_end|>\\n<|im_start|>assistant\\n",
        "qwen3_vl": f"<|im_start|>user\\n{QWEN_IMAGE}{{question}}<|im_end|>\\n<|im_start|>assistant\\n",
    }
    prompt_template = f"Qwen2.5-VL: {chat_templates['qwen2_5_vl']}; Qwen3-VL: {chat_templates['qwen3_vl']}"

    def chat_template(self, model_type: str) -> str:
        """Qwen2.5-VL's template has a system turn, Qwen3-VL's none."""
        return self.chat_templates[model_type]


@hookimpl
def register_models(register: Any) -> None:
    """Register the Qwen-VL VQAScore type."""
    register(VqaScoreQwenVl)
