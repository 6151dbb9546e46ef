"""Model types that misbehave on purpose, loaded through VLC_HARNESS_PLUGINS_DIR in tests."""

from __future__ import annotations

import ctypes
import json
import os
import time

from vlc_harness import hookimpl
from vlc_harness.models import ChoiceAnswer, ChoiceModel, Identity, PairScoringModel, TextOnlyModel
from vlc_harness_builtins.models.random_baseline import hashed_uniform


class Slow(PairScoringModel):
    """Hashed scores, slowly, logging every pair it computes (for the resume test).

    The log path and the delay come from the environment, so they do not change the fingerprint.
    """

    type_name = "test_slow"
    needs_pixels = False

    def identify(self):
        return Identity("none", "fp64", "score_pairs/test")

    def score_pairs(self, groups):
        time.sleep(float(os.environ.get("TEST_SLOW_SLEEP", "0")))
        log = os.environ.get("TEST_SLOW_LOG")
        if log:
            with open(log, "a") as f:
                for g in groups:
                    for t in g.texts:
                        f.write(json.dumps([g.image_key, t, os.getpid()]) + "\n")
        return [[hashed_uniform(7, g.image_key, t) for t in g.texts] for g in groups]


class Segfault(PairScoringModel):
    """Dies from SIGSEGV on its first batch."""

    type_name = "test_segfault"
    needs_pixels = False

    def identify(self):
        return Identity("none", "fp64", "score_pairs/test")

    def score_pairs(self, groups):
        ctypes.string_at(0)  # reads address 0: SIGSEGV
        return []


class Exits(PairScoringModel):
    """Calls os._exit(3) on load."""

    type_name = "test_exit"
    needs_pixels = False

    def identify(self):
        return Identity("none", "fp64", "score_pairs/test")

    def load(self, device):
        os._exit(3)


class Hangs(PairScoringModel):
    """Never answers."""

    type_name = "test_hang"
    needs_pixels = False

    def identify(self):
        return Identity("none", "fp64", "score_pairs/test")

    def score_pairs(self, groups):
        time.sleep(3600)
        return []


class NaNs(PairScoringModel):
    """Returns NaN for captions mentioning a dog."""

    type_name = "test_nan"
    needs_pixels = False

    def identify(self):
        return Identity("none", "fp64", "score_pairs/test")

    def score_pairs(self, groups):
        return [[float("nan") if "dog" in t.lower() else 0.5 + 0.01 * len(t) for t in g.texts] for g in groups]


class Pixels(PairScoringModel):
    """Mean pixel value plus caption length: reads every image."""

    type_name = "test_pixels"

    def identify(self):
        return Identity("none", "fp64", "score_pairs/test")

    def preprocess(self, image):
        import numpy as np

        return int(np.asarray(image.convert("L"), dtype=np.int64).sum()) / (image.width * image.height)

    def score_pairs(self, groups):
        return [[g.image + len(t) for t in g.texts] for g in groups]


class CaptionLength(TextOnlyModel):
    """Blind: longer captions score higher."""

    type_name = "test_length"

    def identify(self):
        return Identity("none", "fp64", "score_texts/length")

    def score_texts(self, texts):
        return [float(len(t)) for t in texts]


class AlwaysFirst(ChoiceModel):
    """Answers (1) to everything: pure position bias. Refuses captions that mention a dog;
    its 'network' fails for captions that mention a cat unless TEST_NETWORK_UP is set."""

    type_name = "test_first"

    def identify(self):
        return Identity("none", "-", "choose/first")

    def choose(self, questions):
        out = []
        for q in questions:
            text = " ".join(q.texts).lower()
            if " cat" in text and not os.environ.get("TEST_NETWORK_UP"):
                out.append(ChoiceAnswer(None, error="HTTP 503 after 3 retries"))
            elif "dog" in text:
                out.append(ChoiceAnswer(None, raw="I cannot tell."))
            else:
                out.append(ChoiceAnswer(0, raw="(1)"))
        return out


class OutOfMemory(PairScoringModel):
    """Raises CUDA's out-of-memory error for batches of more than two images."""

    type_name = "test_oom"
    needs_pixels = False

    def identify(self):
        return Identity("none", "fp64", "score_pairs/test")

    def score_pairs(self, groups):
        if len(groups) > 2:
            import torch

            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return [[hashed_uniform(7, g.image_key, t) for t in g.texts] for g in groups]


class Raises(PairScoringModel):
    """Raises from its scoring code."""

    type_name = "test_raises"
    needs_pixels = False

    def identify(self):
        return Identity("none", "fp64", "score_pairs/test")

    def score_pairs(self, groups):
        raise RuntimeError("the plugin's own bug")


class WrongShape(PairScoringModel):
    """Returns one score too few."""

    type_name = "test_wrong_shape"
    needs_pixels = False

    def identify(self):
        return Identity("none", "fp64", "score_pairs/test")

    def score_pairs(self, groups):
        return [[0.5] * len(g.texts) for g in groups][:-1]


class HostOutOfMemory(PairScoringModel):
    """Runs out of host memory in its scoring code (no batch size helps)."""

    type_name = "test_memory"
    needs_pixels = False

    def identify(self):
        return Identity("none", "fp64", "score_pairs/test")

    def score_pairs(self, groups):
        raise MemoryError("cannot allocate 64 GiB")


class VersionGated(PairScoringModel):
    """Needs a numpy no installation has: the built-in version gate refuses it."""

    type_name = "test_version_gate"
    needs_pixels = False

    def identify(self):
        from vlc_harness_builtins.models.versions import require

        require({"numpy": "999.0"}, "a model from the future")
        return Identity("none", "fp64", "score_pairs/test")

    def score_pairs(self, groups):
        raise AssertionError("never scored")


@hookimpl
def register_models(register):
    for cls in (
        Slow,
        Segfault,
        Exits,
        Hangs,
        NaNs,
        Pixels,
        CaptionLength,
        AlwaysFirst,
        OutOfMemory,
        Raises,
        WrongShape,
        HostOutOfMemory,
        VersionGated,
    ):
        register(cls)
