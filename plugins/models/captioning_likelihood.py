"""Captioning likelihood (CapPa-style, VisualGPTScore): log P(caption | image) from a captioner.

The score is the teacher-forced log-probability of the caption's tokens given the image (and a
fixed prompt), reduced by one of two named protocols (``reduction``):

* ``sum``: the sum over tokens, as BiVLC's Open CapPa code scores (``OSCapPa_BiVLC.py``: negative
  masked cross-entropy summed, no length normalisation); favours short captions.
* ``mean``: the per-token mean, as t2v_metrics' VisualGPTScore (``question_template=""``,
  ``answer_template="{}"``; t2v_metrics reports ``exp`` of it, the same order).

``include_eos`` scores the end-of-sequence token too (BiVLC's labels run to the tokenizer's last
token; t2v_metrics' T5 labels end with ``</s>``). ``normalize: bivlc`` rewrites the caption as
BiVLC does before tokenizing: lower-case; ``, ; : / )`` and ``.`` become comma-space breaks, ``-``
a space, ``" (`` a comma, ``"`` a spaced quote; stray commas, spaces and ``?`` trimmed from the
ends; whitespace collapsed. ``normalize: none`` scores the caption as given.

``family`` picks the model: ``blip`` (``BlipForConditionalGeneration``, BLIP's captioning decoder
with cross-attention; prompt ``a picture of ``, first token BLIP's ``[DEC]`` as its ``generate``
does), ``clip_flant5`` (:mod:`vlc_harness_builtins.models.clip_flant5`, t5_chat with an empty question, as
t2v_metrics' VisualGPTScore), or any VQAScore family (:mod:`vlc_harness_builtins.models.vqascore`: the caption
is the answer to ``question``; ``auto`` is an empty question in the chat template, or no prompt
at all for BLIP-2/InstructBLIP). Vision features are computed once per image; decoder-only VLMs
also reuse the key/value cache of the image and prompt, which every caption of an image shares.

Open CapPa itself (``boris/cappa-large-patch16-256-jax``, BiVLC's model) is a JAX/Flax checkpoint
(orbax) of ``clip_jax``'s encoder-decoder; no transformers class holds it. Supporting it needs
either ``clip_jax`` + JAX in a separate environment (an adapter like ``t2v_metrics_adapter``), or a
PyTorch port: its ViT-L/16 with registers and 12-layer decoder rebuilt in torch, and a converter
from the orbax parameter tree (names and shapes read from the checkpoint) checked against
``clip_jax`` outputs on a few images. Its tokenizer is a transformers ``AutoTokenizer`` already.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.kit.precision import autocast, check_precision
from vlc_harness.kit.weights import checkpoint_config, checkpoint_identity, pinned_revision
from vlc_harness.models import Identity, PairGroup
from vlc_harness_builtins.models.generative import GenerativePairModel, Request, VlmScorer, resolve_family

BIVLC_REPLACEMENTS = (
    (",", ", "),
    (".", ". "),
    ("-", " "),
    (";", ", "),
    (":", ", "),
    ('"', ' " '),
    ("/", ", "),
    (".", ", "),
    (")", ", "),
    (" (", ", "),
)
"""BiVLC's caption rewriting, in its order (``process_text`` in IMirandaM/BiVLC ``OSCapPa_BiVLC.py``)."""
BLIP_PROMPT = "a picture of "


def bivlc_normalize(text: str) -> str:
    """A caption as BiVLC feeds it to Open CapPa: lower-cased, punctuation turned into comma
    breaks, ends trimmed of ``, ?`` and newlines, whitespace collapsed."""
    out = text.lower()
    for old, new in BIVLC_REPLACEMENTS:
        out = out.replace(old, new)
    return " ".join(out.strip(", ?\n").split()).replace(" ,", ",")


@dataclass(frozen=True)
class CaptioningLikelihoodParams:
    """Which captioner, which prompt, how the caption is normalised and reduced."""

    checkpoint: str
    revision: str | None = None
    family: Literal["auto", "blip", "clip_flant5", "llava", "blip2", "instructblip", "image_text_to_text"] = "auto"
    reduction: Literal["sum", "mean"] = "sum"
    include_eos: bool = True
    normalize: Literal["bivlc", "none"] = "bivlc"
    question: str = "auto"
    tokenizer: str = "google/flan-t5-xxl"
    """``clip_flant5`` only: the tokenizer repo or folder."""
    vision_tower: str | None = None
    """``clip_flant5`` only: overrides the checkpoint's ``mm_vision_tower``."""
    precision: Literal["fp32", "fp16", "bf16"] = "fp32"


class BlipCaptionScorer(VlmScorer):
    """``BlipForConditionalGeneration`` behind the :class:`VlmScorer` interface: the vision tower
    once per image, the text decoder (cross-attending to it) once per caption."""

    def __init__(self, checkpoint: str, revision: str | None, device: str, precision: str) -> None:
        import torch
        from transformers import AutoProcessor, BlipForConditionalGeneration

        # revision None: a local folder, where no revision is read
        model = BlipForConditionalGeneration.from_pretrained(checkpoint, revision=revision or "main")
        self.model = model.to(device).eval()
        self.processor = AutoProcessor.from_pretrained(checkpoint, revision=revision)
        self.tokenizer = self.processor.tokenizer
        self.family, self.device, self.precision, self.torch = "blip", device, precision, torch
        text_config = self.model.config.text_config
        self.bos_id, self.eos_id = int(text_config.bos_token_id), int(text_config.sep_token_id)
        self.pad_id = int(self.tokenizer.pad_token_id or 0)

    def render(self, question: str, prompt: str = "auto") -> str:
        """The decoder's prompt (BLIP's captioning prompt for ``auto``)."""
        return BLIP_PROMPT if question == "auto" else question

    def answer_ids(self, text: str, eos: bool) -> tuple[int, ...]:
        """Caption tokens (no special tokens), then ``[SEP]`` when ``eos``."""
        ids = list(self.tokenizer(text, add_special_tokens=False).input_ids)
        if not ids:
            raise ValueError(f"caption {text!r} has no tokens")
        return (*ids, self.eos_id) if eos else tuple(ids)

    def prompt_ids(self, prompt: str, n_image: int = 0) -> list[int]:
        """``[DEC]`` then the prompt's tokens."""
        return [self.bos_id, *self.tokenizer(prompt, add_special_tokens=False).input_ids]

    def token_logprobs(
        self, images: Sequence[dict[str, Any]], requests: Sequence[Request], reuse: str
    ) -> list[list[float]]:
        """Log P(caption token | image, prompt, earlier tokens) per request and token."""
        torch = self.torch
        with torch.no_grad(), autocast(self.precision):
            if reuse == "none":
                vision = self._vision([images[r.group] for r in requests])
            else:
                vision = self._vision(images)[torch.tensor([r.group for r in requests], device=self.device)]
            prompts = [self.prompt_ids(r.prompt) for r in requests]
            ids, mask = self._pad([p + list(r.answer) for p, r in zip(prompts, requests, strict=True)], self.pad_id)
            logits = self.model.text_decoder(
                input_ids=ids, attention_mask=mask, encoder_hidden_states=vision, return_dict=True
            ).logits
            starts = [len(p) - 1 for p in prompts]
            return self._gather(logits, list(range(len(requests))), starts, [r.answer for r in requests])

    def _vision(self, images: Sequence[dict[str, Any]]) -> Any:
        return self.model.vision_model(pixel_values=self._batch(images)["pixel_values"]).last_hidden_state

    def reference_logprobs(self, image: dict[str, Any], requests: Sequence[Request]) -> list[list[float]]:
        """The model's own forward (``BlipForConditionalGeneration``) per caption."""
        torch = self.torch
        out = []
        with torch.no_grad(), autocast(self.precision):
            pixels = self.processor(images=[image["pil"]], return_tensors="pt")["pixel_values"].to(self.device)
            for r in requests:
                prompt = self.prompt_ids(r.prompt)
                ids = torch.tensor([prompt + list(r.answer)], device=self.device)
                logits = self.model(pixel_values=pixels, input_ids=ids).logits[0]
                lp = torch.log_softmax(logits.float(), dim=-1)
                pos = torch.arange(len(prompt) - 1, len(prompt) - 1 + len(r.answer), device=self.device)
                out.append(lp[pos, torch.tensor(r.answer, device=self.device)].double().cpu().tolist())
        return out


class CaptioningLikelihood(GenerativePairModel):
    """log P(caption | image) from an image-conditioned language model, summed or averaged per token."""

    type_name = "captioning_likelihood"
    Params = CaptioningLikelihoodParams

    def _family(self, identity: str) -> str:
        if self.params.family != "auto":
            return self.params.family
        model_type = str(checkpoint_config(self.params.checkpoint, identity).get("model_type", ""))
        if model_type == "blip":
            return "blip"
        if model_type == "clip_t5":
            return "clip_flant5"
        return resolve_family("auto", model_type)

    def identify(self) -> Identity:
        """The captioner's weights; the protocol names reduction, EOS and normalisation."""
        p = self.params
        weights = checkpoint_identity(p.checkpoint, p.revision)
        self._family_name, self._checkpoint_id, self._source = self._family(weights), weights, None
        if self._family_name == "clip_flant5":
            from vlc_harness_builtins.models.clip_flant5 import ClipFlanT5Source

            self._source = ClipFlanT5Source.resolve(p.checkpoint, p.revision, p.tokenizer, p.vision_tower)
            weights = self._source.weights
        eos = "eos" if p.include_eos else "no-eos"
        protocol = f"score_pairs/caption_logprob/{p.reduction}/{eos}/norm-{p.normalize}/{self._family_name}"
        if self._family_name == "clip_flant5":  # its images as t2v_metrics makes them (PIL image processor)
            protocol += "/t2v_metrics-3.0"
        return Identity(weights, p.precision, protocol)

    def load(self, device: str) -> None:
        """The captioner and its processor or tokenizer; the fixed prompt every caption follows."""
        p = self.params
        check_precision(p.precision, device)
        if not hasattr(self, "_family_name"):
            self.identify()
        family, revision = self._family_name, pinned_revision(self._checkpoint_id)
        question = "" if p.question == "auto" else p.question
        if family == "clip_flant5":
            assert self._source is not None, "identify() resolves the clip_flant5 source"
            self._scorer: VlmScorer = self._source.scorer(device, p.precision)
            self._prompt = self._scorer.render(question)
        elif family == "blip":
            self._scorer = BlipCaptionScorer(p.checkpoint, revision, device, p.precision)
            self._prompt = self._scorer.render(p.question)
        else:
            self._scorer = VlmScorer(p.checkpoint, revision, family, device, p.precision)
            self._prompt = self._scorer.render(question, "auto")

    def _requests(self, groups: list[PairGroup]) -> list[Request]:
        normalize = bivlc_normalize if self.params.normalize == "bivlc" else str
        eos = self.params.include_eos
        return [
            Request(g, self._prompt, self._scorer.answer_ids(normalize(text), eos))
            for g, group in enumerate(groups)
            for text in group.texts
        ]

    def _score(self, requests: Sequence[Request], logprobs: Sequence[Sequence[float]]) -> list[float]:
        if self.params.reduction == "sum":
            return [float(sum(lp)) for lp in logprobs]
        return [float(sum(lp) / len(lp)) for lp in logprobs]


@hookimpl
def register_models(register: Any) -> None:
    """Register the captioning-likelihood model type."""
    register(CaptioningLikelihood)
