"""What a page says about the end of a game: who won and why it ended.

A game that declares ``capabilities.end_reason`` says why in its own words (the
last peg in the centre, a piece on the far row). For other games the reason is
read from the rules' vocabulary: a counter at the highest value it can take is a
step limit; otherwise the rules' end condition simply holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ggpkit.gdl.terms import Func, Term

CounterLimits = Mapping[str, int]
"""Relation name -> the highest number a one-argument counter fact can hold."""


def counter_limits(possible: Iterable[Term]) -> dict[str, int]:
    """The highest value of every one-number relation among a game's possible facts."""
    limits: dict[str, int] = {}
    for fact in possible:
        if isinstance(fact, Func) and len(fact.args) == 1 and str(fact.args[0]).isdigit():
            limits[fact.name] = max(limits.get(fact.name, 0), int(str(fact.args[0])))
    return limits


def generic_reason(facts: Iterable[Term], limits: CounterLimits) -> str:
    """Why a terminal state ended a game that does not say: a counter at its limit, or the rules."""
    for fact in facts:
        if isinstance(fact, Func) and len(fact.args) == 1 and fact.name in limits:
            value = str(fact.args[0])
            if value.isdigit() and int(value) == limits[fact.name] and limits[fact.name] > 1:
                return f"the {fact.name} limit was reached ({fact})"
    return "the rules' end condition holds"


def result_text(roles: list[str], goals: Mapping[str, int]) -> str:
    """``white wins``, ``a draw`` or ``score 90`` (one role), followed by every goal."""
    scores = ", ".join(f"{r} {goals[r]}" for r in roles)
    if len(roles) == 1:
        return f"score {scores.split(' ', 1)[1]}"
    best = max(goals.values())
    winners = [r for r in roles if goals[r] == best]
    if len(winners) == 1:
        return f"{winners[0]} wins ({scores})"
    if len(winners) == len(roles):
        return f"a draw ({scores})"
    return f"{' and '.join(winners)} share the best score ({scores})"
