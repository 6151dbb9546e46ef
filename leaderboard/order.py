"""The overall order's dominance rule: no model is listed below a model it strictly dominates.

B strictly dominates A when B's point value is at least A's on every benchmark both have (at least two
shared), and better on at least one, each benchmark read in its own direction (higher or lower is
better). Mean ranks alone can contradict that (issue 41: ranks out of pools of different sizes), so the
order is the mean-rank order (:func:`vlc_leaderboard.ranking.order_key`) bent only where it would put a
model above one that dominates it.

Under unequal coverage dominance can go round in a circle (A over B on two benchmarks, B over C on two
others, C over A on two more), and then no order honours it all. The rule that breaks a circle: the
models of one strongly connected part of the dominance graph are listed together, in their mean-rank
order; between parts, dominance decides, and where it does not the part holding the best mean rank
comes first. So B is listed above A whenever B dominates A and A does not (through others) dominate B.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

from vlc_leaderboard.columns import BenchmarkColumn
from vlc_leaderboard.rows import Row

T = TypeVar("T")

MIN_SHARED = 2
"""Benchmarks two models must share before one can dominate the other."""


def point_values(row: Row, columns: Sequence[BenchmarkColumn]) -> dict[str, float]:
    """Benchmark id -> the row's headline value on it, signed so that larger is better: the value the
    column ranks it on (the ties-broken one where it is ranked on that), published cells only."""
    out: dict[str, float] = {}
    for col in columns:
        cv = row.cells.get(col.id)
        if not col.metrics or cv is None or not cv.published:
            continue
        head = col.metrics[0]
        value = cv.values.get(head.metric)
        if value is None:
            continue
        point = value.ties_half if value.ranked_on_ties_half else value.value
        out[col.id] = point if head.higher_is_better else -point
    return out


def dominates(b: dict[str, float], a: dict[str, float]) -> bool:
    """B's points strictly dominate A's: at least :data:`MIN_SHARED` shared benchmarks, B at least A's
    value on each, and higher on one."""
    shared = b.keys() & a.keys()
    if len(shared) < MIN_SHARED:
        return False
    return all(b[k] >= a[k] for k in shared) and any(b[k] > a[k] for k in shared)


def dominance_order(items: Sequence[T], points: Sequence[dict[str, float]], key: Callable[[T], Hashable]) -> list[T]:
    """``items`` ordered by ``key`` (ascending; equal keys keep their input order) except that none is
    placed below an item it dominates, circles broken as the module says (``points``: each item's
    signed point values)."""
    n = len(items)
    beats = [[j for j in range(n) if j != i and dominates(points[i], points[j])] for i in range(n)]
    part = _components(beats)
    rank = {i: (key(items[i]), i) for i in range(n)}
    members: dict[int, list[int]] = {}
    for i in range(n):
        members.setdefault(part[i], []).append(i)
    waiting = {p: 0 for p in members}  # dominating parts not placed yet
    for i in range(n):
        for j in beats[i]:
            if part[i] != part[j]:
                waiting[part[j]] += 1
    out: list[T] = []
    ready = [p for p in members if waiting[p] == 0]
    while ready:
        best = min(ready, key=lambda p: min(rank[i] for i in members[p]))
        ready.remove(best)
        placed = sorted(members[best], key=lambda i: rank[i])
        out.extend(items[i] for i in placed)
        for i in placed:
            for j in beats[i]:
                if part[j] != best:
                    waiting[part[j]] -= 1
                    if waiting[part[j]] == 0:
                        ready.append(part[j])
    return out


def _components(edges: list[list[int]]) -> list[int]:
    """Each node's strongly connected component id (Tarjan's algorithm, iterative)."""
    n = len(edges)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    comp = [-1] * n
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            v, child = work.pop()
            if child == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            if child < len(edges[v]):
                work.append((v, child + 1))
                w = edges[v][child]
                if index[w] == -1:
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = v
                    if w == v:
                        break
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return comp
