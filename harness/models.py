"""Model base classes: one per scoring protocol.

A model type is a class registered through the ``register_models`` hook. A registry entry picks
a type, gives it ``params`` (fingerprinted: they change the scores) and ``run`` options (not
fingerprinted: batch size, device, ...). The harness instantiates the class with both, asks it
for its :class:`Identity` (cheap; may raise :class:`~vlc_harness.errors.WeightsUnavailable`), and
only then calls :meth:`Model.load` in a worker process. Keep heavy imports (torch, open_clip,
transformers, openai) inside ``identify``/``load`` so listing plugins stays instant. Before either,
the model is given the run's :class:`~vlc_harness.config.RunConfig` (:attr:`Model.run_config`).

Protocols (one per registry entry):

* :class:`EmbeddingModel` (``embed``): vectors for images and texts plus the declared
  similarity; each unique image and text is encoded once. The same text vectors give the
  text-text similarity that text-only tasks read (SugarCrepe++'s TOT; cosine by default).
* :class:`PairScoringModel` (``score_pairs``): joint scores grouped by image, so an image's
  features are computed once and reused for all its texts.
* :class:`TextOnlyModel` (image-blind): a score per unique text; no image files are needed and
  every image gets the same score for a text, so text-to-image choices tie (and ties are wrong).
* :class:`ChoiceModel` (``choose``): multiple-choice answers from models that give no scores.

API models (``paid_requests``) also report their :class:`Usage` (requests, tokens, cost) through ``take_usage`` and
respect the run's cost allowance given to :meth:`Model.begin_job`. A pair-scoring model that may decline to score a
pair (``can_abstain``) returns an :class:`Abstention` for it; a type replaying submitted scores adds ``ReplaysScores``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from vlc_harness.config import RunConfig
from vlc_harness.params import NoParams
from vlc_harness.reasons import Reason
from vlc_harness.requires import Requires

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image

PROTOCOLS = ("embed", "score_pairs", "score_texts", "choose")


@dataclass(frozen=True)
class RunOptions:
    """Options of a registry entry's ``run`` section: how to run, never what is computed.

    Model types may subclass this to add their own (an API price, the NAME of a secret's env var).
    """

    batch_size: int = 0
    """Items per model call; ``0`` picks for the device: 256 for embedding models on CUDA (halved on
    out-of-memory), else 32."""
    device: str = "auto"
    timeout_s: float = 900.0
    """Seconds without any progress from the worker before it is killed and its cell fails."""


@dataclass(frozen=True)
class Identity:
    """What a model's scores depend on beyond its params; part of the fingerprint.

    ``weights`` names the exact weights (``hf:<repo>@<revision>``, ``sha256:<hex>`` of a local
    file, ``random-init:...``); ``dtype`` the compute precision; ``protocol`` the scoring
    protocol and its variant. ``details`` is shown in provenance but not fingerprinted.
    """

    weights: str
    dtype: str
    protocol: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PairGroup:
    """One image and the texts to score against it (the ``score_pairs`` unit of work)."""

    image_key: str
    image: Any
    texts: Sequence[str]
    origins: Sequence[Sequence[tuple[str, str, str, int, int]]] | None = None
    """Per text, the (benchmark id, data version, instance id, i, j) it was needed for; only
    filled for models with ``needs_origins`` (the precomputed-scores model)."""


@dataclass(frozen=True)
class Usage:
    """What an API model spent since its last report.

    ``requests`` counts HTTP attempts sent (retries included); ``cost_usd`` is ``None`` when the
    entry gives no prices. ``stopped`` says why the model stopped sending (the cost budget).
    """

    requests: int = 0
    retries: int = 0
    failed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    stopped: str | None = None

    def __bool__(self) -> bool:
        return bool(
            self.requests or self.retries or self.failed or self.input_tokens or self.output_tokens or self.stopped
        )

    def plus(self, other: Usage) -> Usage:
        """The sum of two reports (cost stays ``None`` only when both are unpriced)."""
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        return Usage(
            self.requests + other.requests,
            self.retries + other.retries,
            self.failed + other.failed,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            sum(costs) if costs else None,
            other.stopped or self.stopped,
        )


@dataclass(frozen=True)
class Abstention:
    """In place of a pair's score: the model declined to score it, or its request failed.

    Without ``error`` it is a real answer (an API reply with neither Yes nor No among its top tokens): stored as an
    abstention, never asked again, counted wrong. With ``error`` the request failed (rate limit, timeout): nothing is
    stored, the cell is ``partial``, a rerun asks again; ``code`` says why (``Reason.AUTH``; default
    ``Reason.REQUEST_FAILED``).
    """

    raw: str = ""
    error: str | None = None
    code: str | None = None


@dataclass(frozen=True)
class PairError:
    """In place of a pair's score (or a text's, for image-blind models): this pair has no score.

    For a fault that touches only some pairs (a precomputed file that lacks a pair). Nothing is
    stored for the pair; only the instances that need it fail, each listed with ``reason``;
    ``code`` is the reason code (``Reason.SCORES_MISSING`` for a scores file that lacks the pair).
    """

    reason: str
    code: str = Reason.PAIR_ERROR


class Model:
    """Base of every model type. Subclass one of the protocol classes below, not this one."""

    type_name: ClassVar[str]
    """The ``type`` that registry entries use to pick this class."""
    protocol: ClassVar[str]
    image_blind: ClassVar[bool] = False
    needs_pixels: ClassVar[bool] = True
    """False for models that score an image by its key alone (the seeded random baseline)."""
    needs_origins: ClassVar[bool] = False
    """True for models that look scores up by (benchmark, instance, i, j): ``precomputed``."""
    scoring_version: ClassVar[str] = "1"
    """Bump when the scoring code changes results: it is part of the fingerprint."""
    Params: ClassVar[type[Any]] = NoParams
    Run: ClassVar[type[RunOptions]] = RunOptions
    requires: ClassVar[Requires] = Requires()
    """What the type needs installed and which distributions can change its scores."""

    def __init__(self, params: Any, run: RunOptions) -> None:
        self.params = params
        self.run = run
        self.loaded_on: str | None = None
        """The device :meth:`load` was given (set by the worker)."""

    @property
    def run_config(self) -> RunConfig:
        """The run's configuration (``run_config.data_root``: where relative file params are), set
        before :meth:`identify` and :meth:`load` in every process (:func:`build_model`). A model
        built by hand outside a run sees the defaults, as a run without options: ``RunConfig()``.
        """
        config = self.__dict__.get("_run_config")
        return config if config is not None else RunConfig()

    @run_config.setter
    def run_config(self, config: RunConfig) -> None:
        self.__dict__["_run_config"] = config

    @classmethod
    def check_params(cls, params: Any) -> None:
        """Raise ``ValueError`` when params cannot work (an unknown architecture name), so that a
        registry load fails at once, naming the entry, rather than a cell later. Must be cheap and
        offline; the default checks nothing."""

    @classmethod
    def check_run(cls, params: Any, run: Any) -> None:
        """As :meth:`check_params`, for run options that only some params allow (an API key's variable and
        its hosts): raise ``ParamError`` naming ``run.<key>`` or ``params.<key>``; the default checks nothing."""

    weights: ClassVar[str] = "none"
    """What :meth:`identify` names as the weights by default: ``none`` for a model whose code is
    the whole model (a rule, a seeded baseline). A model with weights overrides :meth:`identify`."""
    dtype: ClassVar[str] = "fp64"
    """The compute precision :meth:`identify` names by default."""

    def identify(self) -> Identity:
        """Name the exact weights, dtype and protocol, without loading the model.

        The default suits a deterministic model without weights: :attr:`weights`, :attr:`dtype`
        and the protocol (with the similarity, for embedding models). Its params, type name and
        :attr:`scoring_version` are fingerprinted anyway. A model with weights must override this
        and name them exactly (``hf:<repo>@<commit>``, ``sha256:<hex>``), raising
        :class:`~vlc_harness.errors.WeightsUnavailable` when they are neither present locally nor
        downloadable now (use short timeouts).
        """
        protocol = self.protocol
        similarity = getattr(self, "similarity", None)
        return Identity(self.weights, self.dtype, f"{protocol}/{similarity}" if similarity else protocol)

    paid_requests: ClassVar[bool] = False
    """True for API models that pay per request: they report :class:`Usage`, honour the run's
    ``--max-cost`` and are never sharded over several workers (each would pace itself alone)."""
    can_abstain: ClassVar[bool] = False
    """True for pair-scoring models that may decline a pair (an :class:`Abstention`): their cells
    report metrics over all asked instances (an abstention is wrong), over answered ones, and
    coverage."""

    def load(self, device: str) -> None:
        """Load weights onto ``device`` (``cpu``, ``cuda``, ``cuda:1``). Heavy imports go here."""

    def begin_job(self, max_cost_usd: float | None) -> None:
        """Called before each job with what the run may still spend in USD (``None``: no limit).

        Models with ``paid_requests`` must send no request that could exceed it; others ignore it.
        """

    def take_usage(self) -> Usage | None:
        """Paid usage since the previous call (``None``: nothing to report, or not an API model)."""
        return None

    def close(self) -> None:
        """Release resources; called once when the worker is done."""

    @classmethod
    def conformance_example(cls, tmp_path: Path) -> dict[str, Any] | None:
        """Params of a tiny instance that runs offline, for the shared conformance test.

        Build any files it needs (a random-weight checkpoint, a scores file) under ``tmp_path``.
        Return ``None`` only when no offline example is possible (then say why in the docstring).
        The default suits a model without weights: its default params (``None`` when some param
        has no default).
        """
        import dataclasses

        fields = dataclasses.fields(cls.Params)
        if any(f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING for f in fields):
            return None
        return {}


def build_model(cls: type[Model], params: Any, run: RunOptions, config: RunConfig) -> Model:
    """A model for one run, given the run's configuration: how planning, workers and Ray actors build one."""
    model = cls(params, run)
    model.run_config = config
    return model


class EmbeddingModel(Model):
    """``embed`` protocol: encode images and texts separately; score = the declared similarity."""

    protocol = "embed"
    similarity: ClassVar[str] = "cosine"

    def preprocess(self, image: Image.Image) -> Any:
        """Turn a decoded RGB image into the model's input (may run in a decode thread)."""
        raise NotImplementedError

    def embed_images(self, batch: list[Any]) -> np.ndarray:
        """Vectors ``[len(batch), d]`` for a batch of preprocessed images."""
        raise NotImplementedError

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        """Vectors ``[len(texts), d]`` for a batch of texts."""
        raise NotImplementedError

    def pair_scores(self, image_vecs: np.ndarray, text_vecs: np.ndarray) -> np.ndarray:
        """Score row ``k`` of ``image_vecs`` against row ``k`` of ``text_vecs``.

        The default is cosine similarity. Override to declare another similarity (SigLIP's
        pre-sigmoid logit, so that saturation creates no ties) and set :attr:`similarity`.
        """
        import numpy as np

        a = image_vecs / np.linalg.norm(image_vecs, axis=1, keepdims=True)
        b = text_vecs / np.linalg.norm(text_vecs, axis=1, keepdims=True)
        return np.einsum("nd,nd->n", a.astype(np.float64), b.astype(np.float64))

    text_similarity: ClassVar[str] = "cosine"
    """What :meth:`text_pair_scores` computes (recorded in the provenance of cells that read it)."""

    def text_pair_scores(self, a_vecs: np.ndarray, b_vecs: np.ndarray) -> np.ndarray:
        """Text-text similarity of row ``k`` of ``a_vecs`` and row ``k`` of ``b_vecs`` (both from
        :meth:`embed_texts`), for text-only tasks such as SugarCrepe++'s TOT.

        The default is the cosine of the two text vectors, as upstream computes it for every
        model. It must be symmetric: each unordered pair of texts is computed and stored once. An
        override declares itself in :attr:`text_similarity` and bumps :attr:`scoring_version`.
        """
        import numpy as np

        a = a_vecs / np.linalg.norm(a_vecs, axis=1, keepdims=True)
        b = b_vecs / np.linalg.norm(b_vecs, axis=1, keepdims=True)
        return np.einsum("nd,nd->n", a.astype(np.float64), b.astype(np.float64))


class PairScoringModel(Model):
    """``score_pairs`` protocol: joint image-text scores, grouped by image."""

    protocol = "score_pairs"

    def preprocess(self, image: Image.Image) -> Any:
        """Turn a decoded RGB image into the model's input (may run in a decode thread)."""
        return image

    def score_pairs(self, groups: list[PairGroup]) -> Sequence[Sequence[float | Abstention | PairError]]:
        """For each group, one score per text, in order (an :class:`Abstention` where the model
        declines a pair: only for models with ``can_abstain``; a :class:`PairError` where this
        pair has no score). Lists do: ``list[list[float]]`` for a model that always scores."""
        raise NotImplementedError


class TextOnlyModel(Model):
    """Image-blind protocol: one score per unique text; images are never read."""

    protocol = "score_texts"
    image_blind = True
    needs_pixels = False

    def score_texts(self, texts: list[str]) -> Sequence[float | PairError]:
        """One score per text, in order (a :class:`PairError` where a text has no score); a list does."""
        raise NotImplementedError


@dataclass(frozen=True)
class ChoiceQuestion:
    """A multiple-choice question as a model sees it.

    ``kind`` is ``"i2t"`` (one image, pick one of ``texts``), ``"t2i"`` (one text, pick one of
    ``images``) or ``"vqa"`` (answer ``question`` about ``images[0]`` with one of ``texts``, the
    options). Candidates are in presented order; ``images`` hold what ``preprocess`` returned.
    """

    kind: str
    images: Sequence[Any]
    texts: Sequence[str]
    image_keys: Sequence[str] = ()
    question: str = ""


@dataclass(frozen=True)
class ChoiceAnswer:
    """A model's answer: the chosen candidate's index, or ``None`` for an abstention.

    An abstention with ``error`` set is a request that failed (network, rate limit): it is never
    stored, so a rerun asks again (``code``: why, as for :class:`Abstention`). An abstention
    without ``error`` (a refusal, an unparsable reply) is a real answer and is stored like any other.
    """

    choice: int | None
    raw: str = ""
    error: str | None = None
    code: str | None = None


class ChoiceModel(Model):
    """``choose`` protocol: pick one candidate, for models that expose no scores (API models).

    Answers are stored as answers, keyed by the question with its candidates in presented
    order, and scored as the benchmark's reference protocol does (SugarCrepe's GPT-4V protocol:
    both candidate orders, the mean of the two per-order accuracies).
    """

    protocol = "choose"
    question_kinds: ClassVar[tuple[str, ...]] = ("i2t", "t2i")
    """The question kinds this model answers; a benchmark asking others is skipped for it."""

    def preprocess(self, image: Image.Image) -> Any:
        """Turn a decoded RGB image into what :meth:`choose` receives (default: the image)."""
        return image

    def choose(self, questions: list[ChoiceQuestion]) -> list[ChoiceAnswer]:
        """One answer per question, in order (a batch, so API models can send them concurrently)."""
        raise NotImplementedError
