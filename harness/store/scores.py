"""Score rows: models by fingerprint, (image, text) scores, text-text scores, multiple-choice answers,
abstentions."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from vlc_harness.choices import question_key
from vlc_harness.errors import ScoreError
from vlc_harness.store import schema
from vlc_harness.store.base import _writes, inserted_id, now

ABSTAINED_KIND = "yes_no"
"""Question kind under which a pair-scoring model's abstentions are stored in ``answers``."""
_CHUNK = 500


def text_pair_key(text_a: str, text_b: str) -> tuple[str, str]:
    """The store key of a text-text pair: the two texts in code-point order.

    Text-text similarities are symmetric (the cosine by default; a model's own must be too), so
    ``s(a, b)`` and ``s(b, a)`` are one stored row, computed once.
    """
    return (text_a, text_b) if text_a <= text_b else (text_b, text_a)


class ScoreRows:
    """The store's score tables (mixed into :class:`~vlc_harness.store.store.Store`)."""

    engine: Engine

    @_writes
    def register_model(self, fingerprint: str, model_type: str, identity: dict[str, Any]) -> int:
        """The row id of a model fingerprint, inserting it on first sight (two processes that
        register the same fingerprint at once get the same row)."""
        find = select(schema.models.c.id).where(schema.models.c.fingerprint == fingerprint)
        try:
            with self.engine.begin() as conn:
                row = conn.execute(find).first()
                if row:
                    return int(row[0])
                result = conn.execute(
                    insert(schema.models).values(
                        fingerprint=fingerprint,
                        model_type=model_type,
                        identity=json.dumps(identity, sort_keys=True),
                        created_at=now(),
                    )
                )
                return inserted_id(result)
        except IntegrityError:  # the other process inserted it first
            with self.engine.connect() as conn:
                return int(conn.execute(find).scalar_one())

    def model_row(self, fingerprint: str) -> int | None:
        """The row id of a model fingerprint, or ``None`` when it was never registered."""
        find = select(schema.models.c.id).where(schema.models.c.fingerprint == fingerprint)
        with self.engine.connect() as conn:
            row = conn.execute(find).first()
        return int(row[0]) if row else None

    def stored_pairs(self, model: int) -> set[tuple[str, str]]:
        """Every (image key, text) already scored for a model."""
        q = select(schema.scores.c.image_key, schema.scores.c.text).where(schema.scores.c.model == model)
        with self.engine.connect() as conn:
            return {(k, t) for k, t in conn.execute(q)}

    @_writes
    def add_scores(self, model: int, rows: Iterable[tuple[str, str, float]]) -> int:
        """Store a batch of scores in one transaction; a non-finite score is refused.

        Pairs already present are left as they are (the first computed score wins).
        """
        values = []
        for image_key, text, score in rows:
            score = float(score)
            if not math.isfinite(score):
                raise ScoreError(
                    f"refusing to store score {score} for image {image_key or '(blind)'} and text {text!r}"
                )
            values.append({"model": model, "image_key": image_key, "text": text, "score": score})
        if not values:
            return 0
        with self.engine.begin() as conn:
            for start in range(0, len(values), _CHUNK):
                conn.execute(self._insert_ignore(schema.scores), values[start : start + _CHUNK])
        return len(values)

    def _insert_ignore(self, table: Any) -> Any:
        name = self.engine.dialect.name
        if name == "sqlite":
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            return sqlite_insert(table).on_conflict_do_nothing()
        if name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as postgresql_insert

            return postgresql_insert(table).on_conflict_do_nothing()
        return insert(table).prefix_with("IGNORE") if name == "mysql" else insert(table)

    def scores_for(self, model: int, image_keys: Iterable[str] | None = None) -> dict[tuple[str, str], float]:
        """Stored scores of a model (optionally only for some image keys)."""
        q = select(schema.scores.c.image_key, schema.scores.c.text, schema.scores.c.score).where(
            schema.scores.c.model == model
        )
        out: dict[tuple[str, str], float] = {}
        with self.engine.connect() as conn:
            if image_keys is None:
                for k, t, s in conn.execute(q):
                    out[(k, t)] = s
                return out
            keys = sorted(set(image_keys))
            for start in range(0, len(keys), _CHUNK):
                chunk = keys[start : start + _CHUNK]
                for k, t, s in conn.execute(q.where(schema.scores.c.image_key.in_(chunk))):
                    out[(k, t)] = s
        return out

    # -- text-text scores --------------------------------------------------------------------
    def stored_text_pairs(self, model: int) -> set[tuple[str, str]]:
        """Every text pair (as :func:`text_pair_key` orders it) already scored for a model."""
        t = schema.text_scores.c
        with self.engine.connect() as conn:
            return {(a, b) for a, b in conn.execute(select(t.text_a, t.text_b).where(t.model == model))}

    @_writes
    def add_text_scores(self, model: int, rows: Iterable[tuple[str, str, float]]) -> int:
        """Store a batch of text-text scores in one transaction, each pair under its
        :func:`text_pair_key`; a non-finite score is refused, a pair already stored is left as it is."""
        values: dict[tuple[str, str], dict[str, Any]] = {}
        for text_a, text_b, score in rows:
            score = float(score)
            if not math.isfinite(score):
                raise ScoreError(f"refusing to store score {score} for the texts {text_a!r} and {text_b!r}")
            a, b = text_pair_key(text_a, text_b)
            values.setdefault((a, b), {"model": model, "text_a": a, "text_b": b, "score": score})
        batch = list(values.values())
        if not batch:
            return 0
        with self.engine.begin() as conn:
            for start in range(0, len(batch), _CHUNK):
                conn.execute(self._insert_ignore(schema.text_scores), batch[start : start + _CHUNK])
        return len(batch)

    def text_scores_for(self, model: int) -> dict[tuple[str, str], float]:
        """Every stored text-text score of a model, by :func:`text_pair_key`."""
        t = schema.text_scores.c
        with self.engine.connect() as conn:
            return {(a, b): s for a, b, s in conn.execute(select(t.text_a, t.text_b, t.score).where(t.model == model))}

    # -- multiple-choice answers -------------------------------------------------------------
    def stored_answers(self, model: int) -> dict[str, int | None]:
        """Every stored answer of a model: question key -> choice (``None``: abstained)."""
        a = schema.answers.c
        with self.engine.connect() as conn:
            return {k: c for k, c in conn.execute(select(a.question_key, a.answer).where(a.model == model))}

    @_writes
    def add_answers(self, model: int, rows: Iterable[tuple[str, dict[str, Any], int | None, str]]) -> int:
        """Store answers ``(question key, question, choice or None, raw reply)`` in one transaction."""
        values = [
            {
                "model": model,
                "question_key": key,
                "question": json.dumps(question, sort_keys=True),
                "answer": choice,
                "raw": raw,
                "created_at": now(),
            }
            for key, question, choice, raw in rows
        ]
        if values:
            with self.engine.begin() as conn:
                conn.execute(self._insert_ignore(schema.answers), values)
        return len(values)

    # -- abstentions of pair-scoring models ---------------------------------------------------
    @_writes
    def add_abstentions(self, model: int, rows: Iterable[tuple[str, str, str]]) -> int:
        """Store pairs the model declined to score ``(image key, text, raw reply)``.

        They live in the ``answers`` table as yes/no questions answered with no choice (never as
        a score), keyed like any question, so a rerun does not ask them again.
        """
        return self.add_answers(
            model,
            [
                (
                    question_key(ABSTAINED_KIND, [key], [text]),
                    {"kind": ABSTAINED_KIND, "images": [key], "texts": [text]},
                    None,
                    raw,
                )
                for key, text, raw in rows
            ],
        )

    def abstained_pairs(self, model: int) -> dict[tuple[str, str], str]:
        """Pairs a model declined to score: (image key, text) -> raw reply."""
        a = schema.answers.c
        q = select(a.question, a.raw).where((a.model == model) & a.answer.is_(None))
        out: dict[tuple[str, str], str] = {}
        with self.engine.connect() as conn:
            for question, raw in conn.execute(q):
                content = json.loads(question)
                if content.get("kind") == ABSTAINED_KIND:
                    out[(content["images"][0], content["texts"][0])] = raw or ""
        return out
