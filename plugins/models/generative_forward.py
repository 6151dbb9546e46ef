"""The teacher-forced forward passes of :class:`~.generative_scorer.VlmScorer`: per-token answer
log-probabilities from image features already computed, with the work an image's texts share done once.

* :meth:`ForwardPasses._causal_full`: each request's whole sequence, in one padded batch.
* :meth:`ForwardPasses._causal_prefix`: a decoder-only model's shared prefix (image tokens and the
  question up to the caption) once per image, then each text's suffix on a copy of its key/value cache.
* :meth:`ForwardPasses._seq2seq`: an encoder-decoder (T5) language model; the encoder once per
  (image, prompt), the decoder per answer.

A mixin: the scorer gives it ``torch``, ``device``, ``model``, ``runner`` (the language model that
is called), ``image_token_id``, ``pad_id``, ``rope`` (M-RoPE's index function or ``None``) and ``_batch``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class ForwardPasses:
    """Forward passes over prompt ids with image slots, answers teacher-forced (see the module docstring)."""

    torch: Any
    device: str
    model: Any
    runner: Any
    image_token_id: int
    pad_id: int
    rope: Any

    def _batch(self, images: Sequence[dict[str, Any]]) -> dict[str, Any]:
        raise NotImplementedError

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
        keys: list[object] = (
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
