"""The core's metric family types, registered through ``register_metric_families`` as a plugin's are.

The plugin manager registers this module whatever the allow-list (as it does the core's commands),
so ``get_plugins().families`` holds these next to every plugin's, and a plugin family that claims
one of their names fails at load, naming both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vlc_harness.hookspecs import hookimpl
from vlc_harness.metrics.answers import QuestionImageGroup
from vlc_harness.metrics.auc import RocAuc
from vlc_harness.metrics.conjunction import AllCorrect
from vlc_harness.metrics.group import TextImageGroup
from vlc_harness.metrics.hard_positive import HardPositive, MeanScore
from vlc_harness.metrics.order import OrderAccuracy
from vlc_harness.metrics.pairwise import PairwiseAccuracy
from vlc_harness.metrics.text_only import TextOnlyTriplet

if TYPE_CHECKING:
    from vlc_harness.catalog import Registrar
    from vlc_harness.metrics.family import Family

CORE_FAMILIES: tuple[type[Family], ...] = (
    PairwiseAccuracy,
    TextImageGroup,
    RocAuc,
    HardPositive,
    MeanScore,
    OrderAccuracy,
    QuestionImageGroup,
    AllCorrect,
    TextOnlyTriplet,
)
"""Every family type the core defines (a test checks none is missing)."""


@hookimpl
def register_metric_families(register: Registrar[Family]) -> None:
    """Register the core's families."""
    for family in CORE_FAMILIES:
        register(family)
