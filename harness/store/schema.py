"""Tables of the score store (SQLAlchemy Core), schema version 6.

* ``models``: one row per model fingerprint (type, normalised params with local paths by content,
  weights identity, dtype, protocol, scoring_version and the scoring stack hashed together: the
  public versions of the distributions that can change its scores, and a third-party type's own
  distribution), with the identity spelled out as JSON.
* ``scores``: raw pair scores, keyed by (model, image key, text); the image key is the image's
  sha256 (plus transform spec), or '' for image-blind models. Never verdicts.
* ``text_scores``: raw text-text similarities of embedding models (SugarCrepe++'s text-only task),
  keyed by (model, text_a, text_b) with ``text_a <= text_b`` (Python's code-point order): the
  similarity is symmetric, so each unordered pair is computed and stored once, whichever
  benchmark or order asked for it (:func:`vlc_harness.store.scores.text_pair_key`).
* ``answers``: multiple-choice answers, keyed by (model, question key); the question key hashes
  the ordered candidates (the order is part of the question). A pair-scoring model's abstention
  (an API reply with neither Yes nor No) is stored here too, as a ``yes_no`` question (one
  image, one text) with no answer: it is a reply, never a score.
* ``runs``: provenance of each ``vlc-harness run``.
* ``cells``: one record per (model, benchmark) evaluation, with its status and metrics, the
  metrics version they were computed under (``NULL``: by v0.1, to be rebuilt), a digest of the
  (image, text) pairs they read, and every value's bootstrap replicates (one compressed blob).
  A cell that is not ``ok`` keeps its human text (``error``) and a reason code (``reason_code``,
  a :class:`vlc_harness.reasons.Reason` value).
* ``outcomes``: what each instance's metrics were computed from: its score matrix (and, for a
  benchmark with text-text metrics, its text-text matrix), or for a multiple-choice cell its
  answers (question order, choice, correct candidate).
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

SCHEMA_VERSION = 6
APP_NAME = "vlc-harness"

metadata = MetaData()

schema_info = Table(
    "schema_info",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

models = Table(
    "models",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("fingerprint", String(64), nullable=False, unique=True),
    Column("model_type", String(200), nullable=False),
    Column("identity", Text, nullable=False),
    Column("created_at", String(32), nullable=False),
)

scores = Table(
    "scores",
    metadata,
    Column("model", Integer, ForeignKey("models.id"), nullable=False),
    Column("image_key", String(400), nullable=False),
    Column("text", Text, nullable=False),
    Column("score", Float(precision=53), nullable=False),
    PrimaryKeyConstraint("model", "image_key", "text", name="pk_scores_pair"),
)

text_scores = Table(
    "text_scores",
    metadata,
    Column("model", Integer, ForeignKey("models.id"), nullable=False),
    Column("text_a", Text, nullable=False),
    Column("text_b", Text, nullable=False),
    Column("score", Float(precision=53), nullable=False),
    PrimaryKeyConstraint("model", "text_a", "text_b", name="pk_text_scores_pair"),
)

answers = Table(
    "answers",
    metadata,
    Column("model", Integer, ForeignKey("models.id"), nullable=False),
    Column("question_key", String(64), nullable=False),
    Column("question", Text, nullable=False),
    Column("answer", Integer, nullable=True),
    Column("raw", Text, nullable=True),
    Column("created_at", String(32), nullable=False),
    PrimaryKeyConstraint("model", "question_key", name="pk_answers_question"),
)

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("started_at", String(32), nullable=False),
    Column("finished_at", String(32), nullable=True),
    Column("status", String(32), nullable=False),
    Column("provenance", Text, nullable=False),
)

cells = Table(
    "cells",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("runs.id"), nullable=True),
    Column("model_id", String(300), nullable=False),
    Column("fingerprint", String(64), nullable=False),
    Column("benchmark_id", String(300), nullable=False),
    Column("benchmark_type", String(200), nullable=False),
    Column("data_version", String(100), nullable=False),
    Column("manifest_hash", String(64), nullable=False),
    Column("n_instances", Integer, nullable=False),
    Column("n_scored", Integer, nullable=False),
    Column("n_failed", Integer, nullable=False),
    Column("instance_limit", Integer, nullable=True),
    Column("complete", Boolean, nullable=False),
    Column("status", String(16), nullable=False),
    Column("error", Text, nullable=True),
    Column("metrics", Text, nullable=False),
    Column("provenance", Text, nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("metrics_version", String(100), nullable=True),
    Column("inputs_hash", String(64), nullable=True),
    Column("replicates", LargeBinary, nullable=True),
    Column("reason_code", String(32), nullable=True),
    UniqueConstraint("model_id", "fingerprint", "benchmark_id", "manifest_hash", name="uq_cells_key"),
    sqlite_autoincrement=True,  # a replaced cell gets a new id, never a reused one
)
Index("ix_cells_model_benchmark", cells.c.model_id, cells.c.benchmark_id)

outcomes = Table(
    "outcomes",
    metadata,
    Column("cell", Integer, ForeignKey("cells.id", ondelete="CASCADE"), nullable=False),
    Column("instance_id", String(300), nullable=False),
    Column("category", String(200), nullable=False),
    Column("scores", Text, nullable=True),
    Column("answers", Text, nullable=True),
    Column("error", Text, nullable=True),
    Column("text_scores", Text, nullable=True),
    PrimaryKeyConstraint("cell", "instance_id", name="pk_outcomes"),
)
