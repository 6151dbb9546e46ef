"""A transformers VLM behind one interface: per-token log-probabilities of answers given (image,
prompt), with an image's work shared across its texts, and a self-check against the model's own
forward pass (see :mod:`vlc_harness_builtins.models.generative` for the reuse modes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vlc_harness.kit.precision import autocast
from vlc_harness_builtins.models.generative_forward import ForwardPasses

SELF_CHECK_ATOL = {"fp32": 1e-3, "fp16": 5e-2, "bf16": 1e-1}


@dataclass(frozen=True)
class Request:
    """One text of a group as the scorer sees it: its prompt and the answer tokens to score."""

    group: int
    prompt: str
    answer: tuple[int, ...]


class VlmScorer(ForwardPasses):
    """Per-token log-probabilities of answers given (image, prompt) from a transformers VLM.

    ``token_logprobs`` takes the preprocessed images of a batch of groups and one
    :class:`Request` per text; it returns, per request, the log-probability of each answer token
    (teacher-forced), computed with the reuse the caller asks for.
    """

    def __init__(self, checkpoint: str, revision: str | None, family: str, device: str, precision: str) -> None:
        import torch
        import transformers
        from transformers import AutoProcessor

        classes = {
            "llava": "LlavaForConditionalGeneration",
            "blip2": "Blip2ForConditionalGeneration",
            "instructblip": "InstructBlipForConditionalGeneration",
            "image_text_to_text": "AutoModelForImageTextToText",
        }
        cls = getattr(transformers, classes[family])
        self.model = cls.from_pretrained(checkpoint, revision=revision).to(device).eval()
        self.processor = AutoProcessor.from_pretrained(checkpoint, revision=revision)
        self.tokenizer = self.processor.tokenizer
        self.family, self.device, self.precision, self.torch = family, device, precision, torch
        config = self.model.config
        self.image_token_id = int(getattr(config, "image_token_id", None) or config.image_token_index)
        self.blip = family in ("blip2", "instructblip")
        self.seq2seq = bool(self.blip and not config.use_decoder_only_language_model)
        self.text_conditioned = family == "instructblip"
        self.runner = self.model.language_model if self.blip else self.model
        self.rope = getattr(getattr(self.model, "model", None), "get_rope_index", None)
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0

    # -- text -----------------------------------------------------------------------------------

    def render(self, question: str, prompt: str) -> str:
        """The prompt text for a question: the chat template (image first) or a format string."""
        if prompt != "auto":
            return prompt.format(question=question)
        if self.blip or not getattr(self.processor, "chat_template", None):
            return question
        content = [{"type": "image"}, {"type": "text", "text": question}]
        messages = [{"role": "user", "content": content}]
        return self.processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def answer_ids(self, text: str, eos: bool) -> tuple[int, ...]:
        """The tokens of an answer (no special tokens), plus the end-of-sequence token if asked."""
        ids = list(self.tokenizer(text, add_special_tokens=False).input_ids)
        if not ids:
            raise ValueError(f"answer {text!r} has no tokens")
        if eos:
            ids.append(int(self.tokenizer.eos_token_id))
        return tuple(ids)

    def prompt_ids(self, prompt: str, n_image: int) -> list[int]:
        """Prompt tokens with the image placeholder expanded to the image's ``n_image`` features."""
        bos = self.tokenizer.bos_token
        special = not (bos and prompt.startswith(bos))
        ids = list(self.tokenizer(prompt, add_special_tokens=special).input_ids)
        if self.blip:
            return [self.image_token_id] * n_image + ids
        if ids.count(self.image_token_id) != 1:
            raise ValueError(f"the prompt must hold exactly one image placeholder: {prompt!r}")
        at = ids.index(self.image_token_id)
        return ids[:at] + [self.image_token_id] * n_image + ids[at + 1 :]

    # -- images ---------------------------------------------------------------------------------

    def preprocess(self, image: Any) -> dict[str, Any]:
        """The image processor's tensors for one image (and the image, for the self-check)."""
        out = self.processor.image_processor(images=image, return_tensors="pt")
        return {"pil": image, "tensors": {k: v for k, v in out.items() if hasattr(v, "dim")}}

    def _batch(self, images: Sequence[dict[str, Any]]) -> dict[str, Any]:
        torch = self.torch
        keys = images[0]["tensors"].keys()
        return {k: torch.cat([im["tensors"][k] for im in images]).to(self.device) for k in keys}

    def _features(
        self, images: Sequence[dict[str, Any]], owners: Sequence[int] | None = None, texts: Sequence[str] = ()
    ) -> list[Any]:
        """Image features as the language model sees them, ``[n_tokens, hidden]`` each: one per
        image, or (InstructBLIP, whose Q-Former reads the text) one per (``owners[k]``, ``texts[k]``)."""
        torch = self.torch
        inputs = self._batch(images)
        if self.family == "instructblip":
            return self._instructblip_features(inputs, owners or [], texts)
        out = self.model.get_image_features(**inputs)
        pooled = getattr(out, "pooler_output", out)
        rows = pooled if isinstance(pooled, list | tuple) else torch.unbind(pooled)
        return [f.reshape(-1, f.shape[-1]) for f in rows]

    def _instructblip_features(self, inputs: dict[str, Any], owners: Sequence[int], texts: Sequence[str]) -> list[Any]:
        """The vision tower once per image, then the Q-Former per (image, instruction), as
        ``InstructBlipForConditionalGeneration.get_image_features`` does for one pair."""
        torch, model = self.torch, self.model
        vision = model.vision_model(pixel_values=inputs["pixel_values"], return_dict=True).last_hidden_state
        image_embeds = vision[torch.tensor(list(owners), device=self.device)]
        q = self.processor.qformer_tokenizer(list(texts), padding=True, return_tensors="pt").to(self.device)
        query = model.query_tokens.expand(len(texts), -1, -1)
        ones = torch.ones(query.shape[:-1], dtype=torch.long, device=self.device)
        out = model.qformer(
            input_ids=q["input_ids"],
            attention_mask=torch.cat([ones, q["attention_mask"]], dim=1),
            query_embeds=query,
            encoder_hidden_states=image_embeds,
            encoder_attention_mask=torch.ones(image_embeds.shape[:-1], dtype=torch.long, device=self.device),
            return_dict=True,
        )
        return list(model.language_projection(out[0][:, : query.shape[1], :]))

    def _request_features(self, images: Sequence[dict[str, Any]], requests: Sequence[Request], reuse: str) -> list[Any]:
        """Features per request: once per image (InstructBLIP: the vision tower once per image, the
        Q-Former once per distinct (image, prompt)); with ``reuse='none'``, once per request."""
        if reuse == "none":
            n = len(requests)
            return self._features([images[r.group] for r in requests], range(n), [r.prompt for r in requests])
        if not self.text_conditioned:
            feats = self._features(images)
            return [feats[r.group] for r in requests]
        keys = list(dict.fromkeys((r.group, r.prompt) for r in requests))
        feats = self._features(images, [g for g, _ in keys], [p for _, p in keys])
        index = {k: i for i, k in enumerate(keys)}
        return [feats[index[(r.group, r.prompt)]] for r in requests]

    # -- scoring --------------------------------------------------------------------------------

    def token_logprobs(
        self, images: Sequence[dict[str, Any]], requests: Sequence[Request], reuse: str
    ) -> list[list[float]]:
        """Log P(answer token | image, prompt, earlier answer tokens), per request and token."""
        with self.torch.no_grad(), autocast(self.precision):
            feats = self._request_features(images, requests, reuse)
            prompts = [self.prompt_ids(r.prompt, f.shape[0]) for r, f in zip(requests, feats, strict=True)]
            if self.seq2seq:
                return self._seq2seq(images, requests, feats, prompts, reuse)
            if reuse == "prefix" and not self.text_conditioned:
                return self._causal_prefix(images, requests, feats, prompts)
            return self._causal_full(images, requests, feats, prompts)

    # -- the self-check -------------------------------------------------------------------------

    def reference_logprobs(self, image: dict[str, Any], requests: Sequence[Request]) -> list[list[float]]:
        """The same log-probabilities from the model's own forward over the processor's inputs."""
        torch = self.torch
        out = []
        with torch.no_grad(), autocast(self.precision):
            for r in requests:
                inputs = self.processor(images=[image["pil"]], text=[r.prompt], return_tensors="pt").to(self.device)
                answer = torch.tensor([r.answer], device=self.device)
                if self.seq2seq:
                    logits = self.model(**inputs, labels=answer).logits[0]
                    start = 0
                else:
                    inputs["input_ids"] = torch.cat([inputs["input_ids"], answer], dim=1)
                    inputs["attention_mask"] = torch.ones_like(inputs["input_ids"])
                    if "mm_token_type_ids" in inputs:
                        inputs["mm_token_type_ids"] = (inputs["input_ids"] == self.image_token_id).int()
                    logits = self.model(**inputs).logits[0]
                    start = inputs["input_ids"].shape[1] - len(r.answer) - 1
                lp = torch.log_softmax(logits.float(), dim=-1)
                pos = torch.arange(start, start + len(r.answer), device=lp.device)
                out.append(lp[pos, answer[0]].double().cpu().tolist())
        return out

    def self_check(self, image: dict[str, Any], requests: Sequence[Request], ours: Sequence[Sequence[float]]) -> None:
        """Raise if our log-probabilities for one image differ from the model's own forward pass."""
        reference = self.reference_logprobs(image, requests)
        worst = max(abs(a - b) for x, y in zip(ours, reference, strict=True) for a, b in zip(x, y, strict=True))
        if worst > SELF_CHECK_ATOL[self.precision]:
            raise RuntimeError(
                f"{type(self.model).__name__}: scores differ from the model's own forward pass by {worst:.2e}; "
                "this architecture is not supported by the grouped scorer"
            )
