"""Chat-completion API models: OpenAI and any OpenAI-compatible server (vLLM, SGLang, llama.cpp).

Two types, one per protocol (a registry entry's protocol is fixed by its type); their shared client
is :mod:`.openai_chat_client`, the wire format and reply parsing :mod:`.openai_chat_format`:

* ``openai_choice`` (``choose``): multiple choice with the SugarCrepe GPT-4V prompt (upstream
  ``gpt-4v-results/readme.md``, verbatim: ``Which caption best describes the image?\\n(1) {c1}\\n
  (2) {c2}\\nOutput (1) or (2).``), or for text-to-image questions the caption and two labelled
  images. The benchmark asks every instance in both candidate orders and scores the answers as
  its authors did (SugarCrepe: the mean of the two per-order accuracies). A reply naming no single
  candidate (a refusal, "Neither ...", "(1) and (2)") is an abstention: stored, counted wrong.
* ``openai_logprob`` (``score_pairs``): VQAScore over the API. The question template (default
  VQAScore's ``Does this figure show "{text}"? Please answer yes or no.``) is asked with
  ``max_tokens=1`` and ``top_logprobs``; the score is P(Yes) at the first answer token (the
  summed probability of the top tokens reading "yes", any case or spacing), else 1 - P(No) when
  only "No" appears, else an abstention (stored apart from scores, never given one).

Both send images as base64 data URLs, resized so the longest side is at most
``image_max_side``, with temperature 0 and ``seed`` (omit it with ``seed: null``). The model name,
base URL, protocol, prompt and image settings are params, so they are fingerprinted; every answer
is cached under that fingerprint and the question's content (image hashes, texts, candidate
order), so a rerun sends no request.

Under load (``run`` options, not fingerprinted): at most ``concurrency`` requests in flight,
``requests_per_minute`` / ``tokens_per_minute`` budgets, and retries with exponential backoff
and jitter on 429, 5xx, timeouts and connection errors, waiting at least the server's
Retry-After (:mod:`vlc_harness.kit.ratelimit`). A request that still fails is an abstention with its
error: never a score, never cached, and its cell is ``partial`` until a rerun asks again. A
malformed reply, a 4xx other than 429/408/409, or a reply without logprobs (``openai_logprob``)
fails at once, the same way.

Cost: ``price_in_per_mtok`` / ``price_out_per_mtok`` (USD per million tokens) price each request
from the usage the server reports; ``vlc-harness run --max-cost USD`` stops before a request
could exceed the budget (its worst case: estimated prompt tokens plus ``max_tokens``).

The API key is read from ``$OPENAI_API_KEY``, or from the variable that ``run.api_key_env``
names: ``OPENAI_API_KEY`` or ``VLC_API_KEY_<NAME>``, and it is sent only to a host bound to that
variable outside the registry (``OPENAI_API_KEY``: api.openai.com, in code; any other: the
environment's ``VLC_API_KEY_<NAME>_HOSTS``), else the entry is refused before any request
(:mod:`vlc_harness.kit.api_keys`). Only the name is ever recorded, and error messages are
redacted. A server on a loopback address needs no key (it is sent none). Example entries::

    - id: gpt-4o-sugarcrepe
      type: openai_choice
      params: {model: gpt-4o-2024-08-06}
      run: {price_in_per_mtok: 2.5, price_out_per_mtok: 10, requests_per_minute: 500}
    - id: qwen2-vl-vqascore
      type: openai_logprob
      params: {model: Qwen/Qwen2-VL-7B-Instruct, base_url: "http://127.0.0.1:8000/v1"}
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.choices import first_option_mentioned
from vlc_harness.models import Abstention, ChoiceAnswer, ChoiceModel, ChoiceQuestion, PairGroup, PairScoringModel
from vlc_harness_builtins.models.openai_chat_client import ChatAPI, ChatRun
from vlc_harness_builtins.models.openai_chat_format import (
    EncodedImage,
    encode_image,
    estimate_prompt_tokens,
    parse_choice,
    redact,
    text_part,
    yes_probability,
)

__all__ = [
    "I2T_PROMPT",
    "T2I_PROMPT",
    "VQASCORE_QUESTION",
    "ChatParams",
    "ChatRun",
    "ChoiceParams",
    "LogprobParams",
    "OpenAIChoice",
    "OpenAILogprob",
    "encode_image",
    "estimate_prompt_tokens",
    "parse_choice",
    "redact",
    "yes_probability",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
I2T_PROMPT = "Which caption best describes the image?\n(1) {c1}\n (2) {c2}\nOutput (1) or (2)."
"""SugarCrepe's GPT-4V prompt, byte for byte as upstream (note the space before ``(2)``)."""
T2I_PROMPT = "Which image best matches the caption?\nCaption: {caption}\n{images}\nOutput (1) or (2)."
"""Its text-to-image counterpart: ``{images}`` becomes each image after its label ``(k)``."""
VQASCORE_QUESTION = 'Does this figure show "{text}"? Please answer yes or no.'
"""VQAScore's default question (Lin et al., 2024, t2v_metrics)."""


@dataclass(frozen=True)
class ChatParams:
    """What is asked and of whom (all fingerprinted)."""

    model: str
    base_url: str = DEFAULT_BASE_URL
    image_max_side: int = 512
    """Images are shrunk (never enlarged) so their longest side is at most this; 0 keeps them."""
    image_format: Literal["png", "jpeg"] = "png"
    image_detail: Literal["auto", "low", "high"] | None = None
    seed: int | None = 0
    system_prompt: str | None = None


@dataclass(frozen=True)
class ChoiceParams(ChatParams):
    """Multiple choice: the prompts and the reply length."""

    i2t_prompt: str = I2T_PROMPT
    t2i_prompt: str = T2I_PROMPT
    max_tokens: int = 32


@dataclass(frozen=True)
class LogprobParams(ChatParams):
    """VQAScore: the question and how many top tokens to read."""

    question_template: str = VQASCORE_QUESTION
    top_logprobs: int = 20


class OpenAIChoice(ChatAPI, ChoiceModel):
    """Multiple choice over a chat-completions API (SugarCrepe's GPT-4V protocol), any compatible server.

    A ``vqa`` question (NaturalBench) is sent as the image, then the question; the reply's answer is
    the option it mentions first (:func:`~vlc_harness.choices.first_option_mentioned`).
    """

    type_name = "openai_choice"
    question_kinds = ("i2t", "t2i", "vqa")
    Params = ChoiceParams
    Run = ChatRun
    protocol_variant = "choose/openai-chat"

    def choose(self, questions: list[ChoiceQuestion]) -> list[ChoiceAnswer]:
        """Ask every question (concurrently); an unparsable reply is a stored abstention."""
        assert self._pool is not None, "load() first"
        return self._pool.map(self._choose_one, questions)

    def _choose_one(self, question: ChoiceQuestion) -> ChoiceAnswer:
        try:
            content = self._content(question)
        except (KeyError, IndexError, ValueError) as exc:
            return ChoiceAnswer(None, error=f"prompt template does not fit the question: {exc!r}")
        reply = self._ask(content, self.params.max_tokens)
        if reply.error is not None:
            return ChoiceAnswer(None, error=reply.error, code=reply.code)
        if question.kind == "vqa":
            return ChoiceAnswer(first_option_mentioned(reply.text, question.texts), raw=reply.text)
        n = len(question.texts) if question.kind == "i2t" else len(question.images)
        return ChoiceAnswer(parse_choice(reply.text, n), raw=reply.text)

    def _requests(self, job: Any, image: Any) -> Iterator[tuple[list[dict[str, Any]], int]]:
        for q in job.questions:
            question = ChoiceQuestion(q.kind, [image(path) for _, path, _ in q.images], q.texts, question=q.question)
            yield self._content(question), self.params.max_tokens

    def _content(self, q: ChoiceQuestion) -> list[dict[str, Any]]:
        if q.kind == "vqa":
            return [self._image(q.images[0]), text_part(q.question)]
        if q.kind == "i2t":
            text = self.params.i2t_prompt.format(**{f"c{k + 1}": t for k, t in enumerate(q.texts)})
            return [text_part(text), self._image(q.images[0])]
        before, _, after = self.params.t2i_prompt.partition("{images}")
        parts = [text_part(before.format(caption=q.texts[0]))]
        for k, image in enumerate(q.images):
            parts += [text_part(f"({k + 1})"), self._image(image)]
        if after.strip():
            parts.append(text_part(after.format(caption=q.texts[0])))
        return parts


class OpenAILogprob(ChatAPI, PairScoringModel):
    """VQAScore over a chat-completions API: P(Yes) from the first answer token's top logprobs."""

    type_name = "openai_logprob"
    can_abstain = True
    Params = LogprobParams
    Run = ChatRun
    protocol_variant = "score_pairs/openai-chat-vqascore"

    def score_pairs(self, groups: list[PairGroup]) -> list[list[float | Abstention]]:
        """One request per pair (concurrently); neither Yes nor No among the top tokens abstains."""
        items = [(g.image, t) for g in groups for t in g.texts]
        assert self._pool is not None, "load() first"
        flat = self._pool.map(self._score_one, items)
        out, k = [], 0
        for g in groups:
            out.append(flat[k : k + len(g.texts)])
            k += len(g.texts)
        return out

    def _requests(self, job: Any, image: Any) -> Iterator[tuple[list[dict[str, Any]], int]]:
        for task in job.tasks:
            for text in task.texts:
                yield [text_part(self.params.question_template.format(text=text)), self._image(image(task.path))], 1

    def _score_one(self, item: tuple[EncodedImage, str]) -> float | Abstention:
        image, text = item
        try:
            question = self.params.question_template.format(text=text)
        except (KeyError, IndexError, ValueError) as exc:
            return Abstention(error=f"question_template does not fit: {exc!r}")
        extra = {"logprobs": True, "top_logprobs": self.params.top_logprobs}
        reply = self._ask([text_part(question), self._image(image)], 1, extra)
        if reply.error is not None:
            return Abstention(error=reply.error, code=reply.code)
        score = yes_probability(reply.top)
        if score is None:
            shown = ", ".join(f"{t!r} {lp:.2f}" for t, lp in reply.top[:5])
            return Abstention(raw=f"neither Yes nor No in the top tokens: {shown}")
        return score


@hookimpl
def register_models(register: Any) -> None:
    """Register the two chat-completion API model types."""
    register(OpenAIChoice)
    register(OpenAILogprob)
