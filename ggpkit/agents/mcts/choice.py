"""The move to play from a search's root statistics, and what they say to a person.

Shared by the Python tree (:mod:`~ggpkit.agents.mcts.python_tree`) and the compiled
tree's report (:class:`~ggpkit.search.contract.TreeReport`): both choose the most
visited move, but never one proven worse than another.
"""

from __future__ import annotations

from collections.abc import Sequence

from ggpkit.agents.base import Thoughts
from ggpkit.gdl.terms import Term
from ggpkit.search.contract import TreeReport

TOP = 1.0 - 1e-9
"""A reward at or above this is the top goal (100): nothing can be better."""


def choose(exact: Sequence[float | None], visits: Sequence[float], means: Sequence[float]) -> int:
    """The move to play from root statistics: a proven win, or the best proven value when
    every move is proven; else the most visited move not proven worse than another."""
    proven = {i: v for i, v in enumerate(exact) if v is not None}
    if proven:
        best = max(proven.values())
        if best >= TOP or len(proven) == len(visits):
            return max(proven, key=lambda i: (proven[i], visits[i]))
    return max(candidates(exact), key=lambda i: (visits[i], means[i]))


def candidates(exact: Sequence[float | None]) -> list[int]:
    """Indexes of the root moves not proven worse than another move (``exact``: each
    move's proven value for the mover, or None).

    A move proven to lose may still have the most visits (it was searched a lot before
    its proof): neither the choice nor the merge of parallel searches may pick it.
    """
    best = max((v for v in exact if v is not None), default=0.0)
    if best <= 0.0 and None in exact:  # only losses are proven: any open move is as good
        best = 1e-9
    return [i for i, v in enumerate(exact) if v is None or v >= best]


def report_visits(report: TreeReport, role: str) -> dict[Term, int]:
    """The root visits of ``role``'s moves in ``report``, but the moves proven worse than
    another (none where ``role`` does not choose at the root)."""
    if report.mover != role:
        return {}
    return {report.moves[i]: round(report.visits[i]) for i in candidates(report.exact)}


def report_choice(report: TreeReport) -> int:
    """Index of the move to play: as the Python tree's final choice, from root statistics."""
    return choose(report.exact, report.visits, report.means)


def report_thoughts(report: TreeReport, role: str) -> Thoughts | None:
    """What the compiled search thinks for ``role``: only the mover's view is kept."""
    total = sum(report.visits)
    if report.proven is not None and role in report.proven:
        value = 100 * report.proven[role]
        verdict: str | None = f"proved: {role} gets {round(value)}"
    elif report.mover == role and total:
        value = 100 * sum(m * v for m, v in zip(report.means, report.visits, strict=True)) / total
        verdict = None
    else:
        return None
    if report.mover != role or not report.moves:
        return Thoughts(value, (), verdict)
    chosen = report_choice(report)
    others = [i for i in range(len(report.visits)) if i != chosen and report.visits[i]]
    ranked = [chosen, *sorted(others, key=lambda i: -report.visits[i])][:3]
    shares = tuple((report.moves[i], report.visits[i] / max(total, 1)) for i in ranked)
    return Thoughts(value, shares, verdict)
