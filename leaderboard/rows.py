"""A model's row on the board and what each of its cells shows.

A row's kind (vision-language model, image-blind, baseline) comes from its registry entry or, for a
model known only to the store, from what its cells recorded. A cell shows numbers only when it is
complete (``ok``); otherwise its status and the stored reason's first line. Each value keeps its
interval, counts, tie rule and (once ranked, :mod:`vlc_leaderboard.ranking`) its rank.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from vlc_harness.overlap import OverlapMark, entry_overlap
from vlc_harness.results import CellRecord, StoredValue, stored_value, stored_values
from vlc_harness.status import Status
from vlc_leaderboard.columns import BenchmarkColumn
from vlc_leaderboard.intervals import no_interval_reason
from vlc_leaderboard.public import page_slug, public_id, public_reason

if TYPE_CHECKING:
    from vlc_harness.plugins import Plugins
    from vlc_harness.registry import Registry

KINDS = ("model", "blind", "baseline")
"""Row kinds of registry models: vision-language models, image-blind text-only ones, baselines."""
TIE_HEAVY = 0.5
"""A value whose outcomes are at least this share of ties (50% or more) is ranked, shown and plotted by its
ties-broken value (``<metric>_ties_half``, the expected value when ties are broken at random)."""
MIN_COVERAGE = 0.5
"""A model ranked on at least this share of the benchmarks that rank models (half or more) is ordered by its
mean headline rank over the benchmarks it has; one ranked on fewer is listed below them."""


@dataclass(frozen=True)
class PaperValue:
    """A paper's number for one of our values (the model's ``meta.paper_match`` rows)."""

    value: float
    source: str
    table: str
    citation: str
    data_version: str | None
    compared: bool
    """The paper states the data version and it is the cell's: the interval check means something."""
    outside: bool
    """Compared, and outside our 95% interval."""
    diff: float | None
    """Ours minus the paper's."""


@dataclass(frozen=True)
class Value:
    """One published number with its interval, rank and counts."""

    value: float
    ci95: tuple[float, float] | None = None
    n: int = 0
    ties: int = 0
    tie_rule: str = ""
    averaging: str = ""
    rank: int | None = None
    expected_ties_half: float | None = None
    """The stored ``<metric>_ties_half``: the expected value when ties are broken at random."""
    ranked_on_ties_half: bool = False
    """Ranked by the ties-half replicates (a tie-heavy value)."""
    ranked_among: int = 0
    """How many models this value was ranked against (itself included)."""
    significantly_better: tuple[str, ...] = ()
    """The ids of the models significantly better on the same resamples (the rank is 1 + their number)."""
    ties_half_ci95: tuple[float, float] | None = None
    """The stored ``<metric>_ties_half``'s 95% interval."""
    no_interval: str = ""
    """Why the value shown first has no stored interval (:mod:`vlc_leaderboard.intervals`); empty when it has one."""

    @property
    def ties_half(self) -> float:
        """The value with ties broken at random: the stored ``<metric>_ties_half`` where the cell
        has one, else ties counted half (exact for pooled two-way accuracies only)."""
        if self.expected_ties_half is not None:
            return self.expected_ties_half
        if self.tie_rule != "wrong" or not self.n:
            return self.value
        return self.value + 0.5 * self.ties / self.n

    @property
    def tie_share(self) -> float:
        """The share of the value's outcomes that are ties."""
        return self.ties / self.n if self.n else 0.0

    @property
    def tie_heavy(self) -> bool:
        """At least half of the outcomes are ties."""
        return self.n > 0 and self.tie_share >= TIE_HEAVY

    @property
    def ties_broken_first(self) -> bool:
        """Dominated by ties (ranked on its ties-half replicates, or at least :data:`TIE_HEAVY` ties) with a
        stored ties-broken value: the pages show that value first and the strict one beside it."""
        return self.expected_ties_half is not None and (self.ranked_on_ties_half or self.tie_heavy)

    @property
    def tie_dominated_unbroken(self) -> bool:
        """At least :data:`TIE_HEAVY` ties and no stored ties-broken value: its gap and plot point are n/a."""
        return self.tie_heavy and self.expected_ties_half is None

    @property
    def shown(self) -> float:
        """The number shown first: the ties-broken value where ties dominate, else the value."""
        half = self.expected_ties_half
        return half if half is not None and self.ties_broken_first else self.value

    @property
    def shown_ci95(self) -> tuple[float, float] | None:
        """The interval of :attr:`shown`."""
        return self.ties_half_ci95 if self.ties_broken_first else self.ci95

    @property
    def sort_value(self) -> float:
        """What the tables sort by within a rank: the value shown first (the one it is ranked by)."""
        return self.shown

    @property
    def best(self) -> bool:
        """Holds the best-rank badge: rank 1, earned without ties."""
        return self.rank == 1 and not self.ranked_on_ties_half and not self.tie_heavy


@dataclass
class CellView:
    """What a (model, benchmark) cell shows: numbers when complete, else its status and reason."""

    status: Status
    reason: str = ""
    """The stored reason's first line, as it is (the CLI and the JSON download show it)."""
    values: dict[str, Value] = field(default_factory=dict)
    coverage: float | None = None
    cell: CellRecord | None = None
    overlap: OverlapMark | None = None
    """Whether the model's training image pools (``meta.trained_on``) overlap the benchmark's
    (``image_pools``); ``None`` when either side declares none (see :mod:`vlc_harness.overlap`)."""
    reported: dict[str, PaperValue] = field(default_factory=dict)
    """Paper-reported values of this model, by metric (category ``all``)."""
    drill: dict[str, Value] = field(default_factory=dict)
    """The drilldown metric's values, by category."""
    tie_heavy: bool = False
    """The headline's outcomes are at least half ties: every value is ranked on its ties-half credit."""
    off_pin: str = ""
    """Computed with installed versions other than the pins: which (:mod:`vlc_leaderboard.stacks`); '' on the pins."""
    submitted: bool = False
    """Its model's entry is a lab's submitted scores (``meta.submitted``): what a failure reason may call submitted."""

    @property
    def published(self) -> bool:
        """Only complete cells show numbers."""
        return self.status == Status.OK and bool(self.values)

    @property
    def public_reason(self) -> str:
        """Why there is no number, worded for readers by the cell's reason code (its text is not read)."""
        cell = self.cell
        if cell is None:
            return public_reason(self.status, None)
        return public_reason(self.status, cell.reason_code, cell.n_failed, cell.n_instances, self.submitted)

    def direction_pair(self, metrics: tuple[str, str] | None) -> tuple[float, float] | None:
        """(I2T, T2I) as the gap and the plot use them: both ties-broken where either is dominated by
        ties, else both strict; ``None`` when either is missing, or dominated by ties without a stored
        ties-broken value (n/a: a strict value made of ties would read as a real direction)."""
        if metrics is None or not self.published or not all(m in self.values for m in metrics):
            return None
        pair = [self.values[m] for m in metrics]
        if not any(v.ties_broken_first or v.tie_dominated_unbroken for v in pair):
            return pair[0].value, pair[1].value
        first, second = (v.expected_ties_half for v in pair)
        if first is None or second is None:
            return None
        return first, second

    def gap_ties_broken(self, metrics: tuple[str, str] | None) -> bool:
        """The gap is taken between ties-broken values (either direction is dominated by ties)."""
        if metrics is None or not self.published or not all(m in self.values for m in metrics):
            return False
        return any(self.values[m].ties_broken_first for m in metrics)

    def gap_not_available(self, metrics: tuple[str, str] | None) -> bool:
        """Both directions are published but their gap is n/a (see :meth:`direction_pair`)."""
        published = metrics is not None and self.published and all(m in self.values for m in metrics)
        return published and self.direction_pair(metrics) is None

    def gap(self, metrics: tuple[str, str] | None) -> float | None:
        """I2T minus T2I from :meth:`direction_pair`: ties-broken where ties dominate, else strict."""
        pair = self.direction_pair(metrics)
        return None if pair is None else pair[0] - pair[1]


@dataclass
class Overall:
    """A model's overall standing: its headline ranks and their mean."""

    ranks: dict[str, int]
    """Benchmark id -> headline rank, over the benchmarks that count."""
    of: int
    """How many benchmarks count (rank anyone)."""
    position: int | None = None
    """1-based place among the models ordered by mean rank (:attr:`by_mean`)."""
    place: int | None = None
    """1-based place in the overall order among every model with a headline rank (what the column sorts on)."""

    @property
    def k(self) -> int:
        """Benchmarks with a headline rank."""
        return len(self.ranks)

    @property
    def complete(self) -> bool:
        """Ranked on every benchmark that counts."""
        return self.of > 0 and self.k == self.of

    @property
    def by_mean(self) -> bool:
        """Ranked on at least :data:`MIN_COVERAGE` of the benchmarks that count: ordered by its mean rank."""
        return self.of > 0 and self.k > 0 and self.k >= MIN_COVERAGE * self.of

    @property
    def mean_rank(self) -> float | None:
        """Mean headline rank over the benchmarks it has."""
        return sum(self.ranks.values()) / len(self.ranks) if self.ranks else None

    @property
    def exact_mean_rank(self) -> Fraction | None:
        """The mean rank as an exact fraction: what the order compares (no rounding can reorder two models)."""
        return Fraction(sum(self.ranks.values()), len(self.ranks)) if self.ranks else None


@dataclass
class Row:
    """One model of the registry (or a store-only model) with its cells."""

    id: str
    name: str
    kind: str
    meta: dict[str, Any]
    cells: dict[str, CellView] = field(default_factory=dict)
    overall: Overall | None = None
    """``None`` for baselines: they are references, never ranked."""
    stack_note: str = ""
    """Its published cells were computed under different scoring stacks: which versions differ where."""
    magnitude: Any = None
    """Its place between chance (0) and human (1) over its benchmarks (:class:`vlc_leaderboard.magnitude.Magnitude`)."""

    @property
    def slug(self) -> str:
        """The file name of the model's page (a local path in an inline spec never shows)."""
        return page_slug(self.id)

    @property
    def public_id(self) -> str:
        """The id as published (an inline spec's local path redacted)."""
        return public_id(self.id)


def model_row(model_id: str, registry: Registry, plugins: Plugins, cells: list[CellRecord]) -> Row:
    """The row of ``model_id`` (its cells not filled yet): display name, meta and kind."""
    entry = registry.models.get(model_id)
    meta = dict(entry.meta) if entry else {}
    if entry is not None:
        model_type, blind = entry.type, None
    else:  # known only to the store (an inline spec): its cells say what it was
        model = next((c.provenance.get("model") or {} for c in cells if c.provenance.get("model")), {})
        model_type = str(model.get("type", ""))
        flags = [c.provenance["image_blind"] for c in cells if "image_blind" in c.provenance]
        blind = any(flags) if flags else None
    if blind is None:  # the registered class says (cells from before image_blind was recorded)
        registered = plugins.models.entries.get(model_type)
        blind = registered is not None and registered.cls.image_blind
    kind = "model"
    if meta.get("family") == "baseline" or model_type == "random":
        kind = "baseline"
    elif blind:
        kind = "blind"
    return Row(model_id, str(meta.get("display_name") or public_id(model_id)), kind, meta)


def cell_overlap(row: Row, col: BenchmarkColumn) -> OverlapMark | None:
    """The overlap mark of a (model, benchmark) cell from the entry's ``meta.trained_on``."""
    pools = col.card.image_pools if col.card is not None else ()
    own = col.card.own_pools if col.card is not None else {}
    try:
        return entry_overlap(row.meta, pools, own)
    except ValueError as exc:
        raise ValueError(f"model {row.id}, benchmark {col.id}: {exc}") from None


def _value(stored: StoredValue, half: StoredValue | None, cell: CellRecord) -> Value:
    value = Value(
        stored.value,
        stored.ci95,
        stored.n,
        stored.ties,
        stored.tie_rule,
        stored.averaging,
        expected_ties_half=half.value if half is not None else None,
        ties_half_ci95=half.ci95 if half is not None else None,
    )
    shown = half if value.ties_broken_first and half is not None else stored
    return replace(value, no_interval=no_interval_reason(cell, shown.metric, shown.category))


def cell_view(cell: CellRecord, col: BenchmarkColumn) -> CellView:
    """What ``cell`` shows in ``col``: its overall values and the drilldown's, or its status and reason."""
    if cell.status != Status.OK or not cell.complete:
        reason = (cell.error or "").splitlines()[0] if cell.error else ""
        if cell.status == Status.PARTIAL:
            reason = reason or "partial (limited or interrupted): not published"
        return CellView(cell.status, reason, cell=cell)
    values = {}
    coverage = None
    overall = {v.metric: v for v in stored_values(cell, "all")}
    for v in overall.values():
        if v.metric == "coverage":
            coverage = v.value
        values[v.metric] = _value(v, overall.get(v.metric + "_ties_half"), cell)
    drill = {}
    if col.drill is not None:
        for category in col.drill.categories:
            found = stored_value(cell, col.drill.metric, category)
            if found is not None:
                drill[category] = _value(found, stored_value(cell, col.drill.metric + "_ties_half", category), cell)
    headline = values.get(col.metrics[0].metric) if col.metrics else None
    return CellView(Status.OK, "", values, coverage, cell, drill=drill, tie_heavy=bool(headline and headline.tie_heavy))
