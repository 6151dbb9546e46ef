"""Shared plumbing of the generative scorers (VQAScore, captioning likelihood, CLIP-FlanT5): a
transformers VLM's per-token answer log-probabilities, computed once per image group.

No hooks: a helper module the generative model plugins import.

Reuse (run option ``reuse``, never a score change): pairs come grouped by image. ``vision`` computes
each image's vision features once and reuses them for all its texts; ``prefix`` (default) also
reuses, in decoder-only models, the key/value cache of the token prefix the texts share (the image
tokens and the question up to the caption), so each text only runs its own suffix; ``none`` is
per-pair scoring (the baseline of ``bench/generative_reuse.py``). Encoder-decoder language models
(T5) see the caption in a bidirectional encoder, so only the vision features are shared; InstructBLIP's
Q-Former reads the question, so its query tokens (and any prefix after them) depend on the text.
On the first batch the scores of one image are checked once against the model's own forward pass
over the processor's inputs (run option ``self_check``); a mismatch raises instead of scoring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from vlc_harness.kit.precision import autocast
from vlc_harness.models import PairGroup, PairScoringModel, RunOptions

FAMILY_OF_MODEL_TYPE = {"llava": "llava", "blip-2": "blip2", "instructblip": "instructblip"}
PREFIX_LM_TYPES = ("paligemma", "gemma3")  # bidirectional attention over the image needs token types
SELF_CHECK_ATOL = {"fp32": 1e-3, "fp16": 5e-2, "bf16": 1e-1}
Reuse = Literal["prefix", "vision", "none"]


@dataclass(frozen=True)
class GenerativeRun(RunOptions):
    """Run options of the generative scorers (none of them changes a score)."""

    reuse: Reuse = "prefix"
    """``prefix``: vision features and the shared key/value prefix once per image; ``vision``: vision
    features once per image; ``none``: every pair from scratch (per-pair baseline)."""
    self_check: bool = True
    """Compare one image's scores with the model's own forward pass before scoring the first batch."""


@dataclass(frozen=True)
class Request:
    """One text of a group as the scorer sees it: its prompt and the answer tokens to score."""

    group: int
    prompt: str
    answer: tuple[int, ...]


OWN_SCORERS = {"qwen3_vl": "vqascore_qwen_vl"}
"""Model types with a scorer of their own (a plugin file beside this one)."""


def resolve_family(family: str, model_type: str) -> str:
    """The family of a checkpoint (``auto`` reads its ``model_type``); prefix-LM models are refused."""
    if model_type in PREFIX_LM_TYPES:
        raise ValueError(f"{model_type} attends bidirectionally over its image prefix; it is not supported here")
    if model_type in OWN_SCORERS:  # the generic path would drop what these feed the decoder (Qwen3-VL's DeepStack)
        raise ValueError(f"{model_type} checkpoints need the {OWN_SCORERS[model_type]} model type, not vqascore")
    if family != "auto":
        return family
    return FAMILY_OF_MODEL_TYPE.get(model_type, "image_text_to_text")


def answer_score(logprobs: Sequence[float], scoring: str, n_core: int) -> float:
    """``p_yes``: exp of the summed log-probabilities of the answer's own tokens (no EOS);
    ``t2v_metrics``: exp of the mean log-probability over the answer's tokens and EOS."""
    import math

    if scoring == "p_yes":
        return math.exp(sum(logprobs[:n_core]))
    return math.exp(sum(logprobs) / len(logprobs))


class VlmScorer:
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

    def _pad(self, rows: Sequence[Sequence[int]], value: int) -> tuple[Any, Any]:
        torch = self.torch
        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), value, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            ids[i, : len(row)] = torch.tensor(row, dtype=torch.long)
            mask[i, : len(row)] = 1
        return ids.to(self.device), mask.to(self.device)

    def _embed(self, ids: Any, feats: Sequence[Any] | None) -> Any:
        """Token embeddings with each row's image features in its image-token positions."""
        embeds = self.model.get_input_embeddings()(ids.clamp(min=0))  # a negative id marks an image slot
        if feats is not None:
            slots = ids == self.image_token_id
            embeds = embeds.clone()
            for i, f in enumerate(feats):
                if int(slots[i].sum()) != f.shape[0]:
                    raise ValueError(f"{int(slots[i].sum())} image tokens for {f.shape[0]} image features")
                embeds[i, slots[i]] = f.to(embeds.dtype)
        return embeds

    def _positions(self, ids: Any, mask: Any, images: Sequence[dict[str, Any]]) -> Any:
        """Position ids of right-padded full sequences: ``[B, T]``, or M-RoPE's ``[3, B, T]``."""
        torch = self.torch
        if self.rope is None:
            return torch.arange(ids.shape[1], device=self.device).expand(ids.shape[0], -1)
        grid = self._batch(images).get("image_grid_thw")
        types = (ids == self.image_token_id).int()
        return self.rope(input_ids=ids, mm_token_type_ids=types, image_grid_thw=grid, attention_mask=mask)[0]

    def _run(self, **kwargs: Any) -> Any:
        import inspect

        params = inspect.signature(self.runner.forward).parameters
        if "cache" not in params and "cache" in kwargs:
            kwargs["past_key_values"] = kwargs.pop("cache")
        if "logits_to_keep" not in params:
            kwargs.pop("logits_to_keep", None)
        return self.runner(**kwargs, return_dict=True)

    def _gather(
        self, logits: Any, rows: Sequence[int], starts: Sequence[int], answers: Sequence[Sequence[int]]
    ) -> list[list[float]]:
        """Log-probabilities of each answer token; ``starts[k]`` is the logits position predicting
        the first answer token of request ``k`` in row ``rows[k]``."""
        torch = self.torch
        logp = torch.log_softmax(logits.float(), dim=-1)
        out = []
        for row, start, answer in zip(rows, starts, answers, strict=True):
            pos = torch.arange(start, start + len(answer), device=logp.device)
            tok = torch.tensor(answer, device=logp.device)
            out.append(logp[row, pos, tok].double().cpu().tolist())
        return out

    def _causal_full(self, images, requests, feats, prompts) -> list[list[float]]:
        """Each request's whole sequence (image features already computed) in one padded forward."""
        torch = self.torch
        full = [p + list(r.answer) for p, r in zip(prompts, requests, strict=True)]
        ids, mask = self._pad(full, self.pad_id)
        positions = self._positions(ids, mask, [images[r.group] for r in requests])
        keep = sorted({len(p) - 1 + k for p, r in zip(prompts, requests, strict=True) for k in range(len(r.answer))})
        where = {pos: i for i, pos in enumerate(keep)}
        out = self._run(
            inputs_embeds=self._embed(ids, feats),
            attention_mask=mask,
            position_ids=positions,
            use_cache=False,
            logits_to_keep=torch.tensor(keep, device=self.device),
        )
        logits = out.logits
        if logits.shape[1] != len(keep):  # the runner ignored logits_to_keep
            logits = logits[:, keep]
        result = []
        for k, (p, r) in enumerate(zip(prompts, requests, strict=True)):
            idx = [where[len(p) - 1 + t] for t in range(len(r.answer))]
            lp = torch.log_softmax(logits[k, idx].float(), dim=-1)
            rows, tokens = torch.arange(len(idx), device=lp.device), torch.tensor(r.answer, device=lp.device)
            result.append(lp[rows, tokens].double().cpu().tolist())
        return result

    def _causal_prefix(self, images, requests, feats, prompts) -> list[list[float]]:
        """Shared prefix (image tokens and the question up to the caption) once per group, then
        every text's own suffix on a copy of its group's key/value cache.

        Groups whose image tokens end at the same position are batched; their prefix is cut at the
        shortest common prefix among them (at least one prompt token is left to every suffix).
        """
        groups: dict[int, list[int]] = {}
        for k, r in enumerate(requests):
            groups.setdefault(r.group, []).append(k)
        buckets: dict[int, list[int]] = {}
        cut: dict[int, int] = {}
        for g, ks in groups.items():
            first = prompts[ks[0]]
            length = min(len(prompts[k]) for k in ks) - 1
            for k in ks[1:]:
                length = min(length, next((i for i, (a, b) in enumerate(zip(first, prompts[k])) if a != b), length))
            image_end = max(i for i, t in enumerate(first) if t == self.image_token_id) + 1
            if length < image_end:  # the image does not come before the text: no shared prefix
                return self._causal_full(images, requests, feats, prompts)
            buckets.setdefault(image_end, []).append(g)
            cut[g] = length
        result: dict[int, list[float]] = {}
        for bucket in buckets.values():
            length = min(cut[g] for g in bucket)
            ks = [k for g in bucket for k in groups[g]]
            scored = self._prefix_bucket(images, requests, feats, prompts, bucket, groups, length)
            result.update(zip(ks, scored, strict=True))
        return [result[k] for k in range(len(requests))]

    def _prefix_bucket(self, images, requests, feats, prompts, bucket, groups, length) -> list[list[float]]:
        torch = self.torch
        ks = [k for g in bucket for k in groups[g]]
        full = [prompts[k] + list(requests[k].answer) for k in ks]
        ids, mask = self._pad(full, self.pad_id)
        positions = self._positions(ids, mask, [images[requests[k].group] for k in ks])
        heads = [ks.index(groups[g][0]) for g in bucket]
        pre = self._run(
            inputs_embeds=self._embed(ids[heads, :length], [feats[ks[h]] for h in heads]),
            attention_mask=mask[heads, :length],
            position_ids=positions[..., heads, :length],
            use_cache=True,
            logits_to_keep=1,
        )
        cache = pre.cache if hasattr(pre, "cache") else pre.past_key_values
        owner = torch.tensor([bucket.index(requests[k].group) for k in ks], device=self.device)
        cache.batch_select_indices(owner)
        suffix_ids, suffix_mask = ids[:, length:], mask[:, length:]
        width = int(suffix_mask.sum(dim=1).max())
        suffix_ids, suffix_mask = suffix_ids[:, :width], suffix_mask[:, :width]
        if bool((suffix_ids == self.image_token_id).any()):
            raise ValueError("an image token after the shared prefix")
        out = self._run(
            inputs_embeds=self._embed(suffix_ids, None),
            attention_mask=torch.cat([mask[:, :length], suffix_mask], dim=1),
            position_ids=positions[..., length : length + width],
            cache=cache,
            use_cache=True,
        )
        starts = [len(prompts[k]) - 1 - length for k in ks]
        return self._gather(out.logits, list(range(len(ks))), starts, [requests[k].answer for k in ks])

    def _seq2seq(self, images, requests, feats, prompts, reuse) -> list[list[float]]:
        """Encoder over (image tokens, prompt); the decoder teacher-forces each answer. Requests of
        one image with the same prompt share one encoder pass (unless ``reuse='none'``)."""
        torch = self.torch
        keys = (
            list(range(len(requests)))
            if reuse == "none"
            else [(r.group, tuple(p)) for r, p in zip(requests, prompts, strict=True)]
        )
        unique = list(dict.fromkeys(keys))
        first = {key: keys.index(key) for key in unique}
        ids, mask = self._pad([prompts[first[key]] for key in unique], self.pad_id)
        encoder = self.runner.get_encoder()(
            inputs_embeds=self._embed(ids, [feats[first[key]] for key in unique]), attention_mask=mask, return_dict=True
        )
        index = torch.tensor([unique.index(key) for key in keys], device=self.device)
        start = self.runner.config.decoder_start_token_id
        decoder_ids, decoder_mask = self._pad([[start, *r.answer[:-1]] for r in requests], self.pad_id)
        out = self.runner(
            encoder_outputs=(encoder.last_hidden_state[index],),
            attention_mask=mask[index],
            decoder_input_ids=decoder_ids,
            decoder_attention_mask=decoder_mask,
            return_dict=True,
        )
        return self._gather(out.logits, list(range(len(requests))), [0] * len(requests), [r.answer for r in requests])

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


class GenerativePairModel(PairScoringModel):
    """Shared plumbing of the generative pair scorers: loading, preprocessing, grouping, self-check."""

    Run = GenerativeRun

    def _requests(self, groups: list[PairGroup]) -> list[Request]:
        raise NotImplementedError

    def _score(self, requests: Sequence[Request], logprobs: Sequence[Sequence[float]]) -> list[float]:
        raise NotImplementedError

    def preprocess(self, image: Any) -> Any:
        """The scorer's image tensors for one image."""
        return self._scorer.preprocess(image)

    def score_pairs(self, groups: list[PairGroup]) -> list[list[float]]:
        """Score every text of every group, sharing the work of an image as ``run.reuse`` says."""
        import math

        requests = self._requests(groups)
        images = [g.image for g in groups]
        logprobs = self._scorer.token_logprobs(images, requests, self.run.reuse)
        if self.run.self_check and not getattr(self, "_checked", False):
            mine = [k for k, r in enumerate(requests) if r.group == 0]
            self._scorer.self_check(images[0], [requests[k] for k in mine], [logprobs[k] for k in mine])
            self._checked = True
        flat = self._score(requests, logprobs)
        if not all(math.isfinite(s) for s in flat):
            raise ValueError("a generative score is not finite")
        out, start = [], 0
        for group in groups:
            out.append(flat[start : start + len(group.texts)])
            start += len(group.texts)
        return out
