"""The material heuristic: pieces found by random matches, counted at the leaves.

In breakthrough-like games the goals say nothing before the end, and random playouts
say little: Sancho (the 2014 champion) beat ggpkit's player on breakthroughSmall and
breakthroughSmallHoles with a small fraction of its iterations, valuing its leaves partly
by a piece count it finds while metagaming. This module finds such pieces for any game,
from the facts of its states alone: facts that share a relation and one argument (the
``white`` of ``(cell 3 4 white)``) form a candidate piece set, and a role's pieces are
the set whose count in the second half of random matches goes best with the role's
final goal (Pearson correlation, at least :data:`MIN_CORRELATION`). A leaf of the
compiled tree is then worth :data:`MATERIAL_WEIGHT` of what the pieces say (each role's
gain or loss since the root, :func:`~ggpkit.search.tree.kernels.material_goals`), the
rest of its playouts (the ``pieces`` of :class:`~ggpkit.search.options.SearchOptions`).

Every role must have its own set, or there is no heuristic, and pieces must be lost
somewhere in the probe's matches (captured, not only ever added). With two roles the pair of
sets is chosen whose count difference goes best with both roles' results.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from itertools import pairwise, permutations
from typing import Any

from ggpkit.agents.mcts.probe import ProbeMatch
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Func, Term

MIN_CORRELATION = 0.1
"""A role's piece count must correlate at least this much with its final goal, or with
two roles the difference of their counts must, in the second half of the probe's
matches (the breakthrough games' counts clear it there, not always in the middle
third; Sancho asks for less)."""

MATERIAL_WEIGHT = 0.5
"""The share of a leaf's value its pieces give where the heuristic is used."""

MIN_SET_SIZE = 6
"""Distinct facts a candidate set must show (fewer are flags, not pieces on a board)."""

MIN_ARITY, MAX_ARITY = 3, 4
"""Arities of the facts that can hold pieces: two or three coordinates and the piece."""

MAX_PIECE_TYPES = 12
"""Most values the piece type's argument can take (chess: 12 pieces and no more)."""

MAX_CANDIDATE_SETS = 48
"""Most candidate piece sets tried (chess shows 12): pairs are tried in pure Python over
thousands of samples, and rules with hundreds of board-like relations would spend the
start clock on it."""

PieceKey = tuple[str, int, int, str]
"""(relation, arity, argument position, that argument): facts that count as one piece set."""


def material_sets(
    game: Game[Any], matches: Sequence[ProbeMatch]
) -> tuple[frozenset[Term], ...] | None:
    """Each role's pieces (in ``game.roles`` order), or None where no role-by-role
    piece count foretells the results of ``matches``."""
    facts_of = {id(s): game.facts(s) for m in matches for s in m.late}
    seen = _candidates(facts_of.values(), len(game.roles))
    if len(seen) > MAX_CANDIDATE_SETS:
        return None
    counts = _counts(matches, facts_of, list(seen))
    finals = {r: [m.final[r] for m in matches for _ in m.late] for r in game.roles}
    if len(game.roles) == 2:
        pair = _best_pair(finals[game.roles[0]], finals[game.roles[1]], counts, matches)
        return None if pair is None else (frozenset(seen[pair[0]]), frozenset(seen[pair[1]]))
    chosen: list[PieceKey] = []
    counts = {k: v for k, v in counts.items() if _can_be_lost(v, matches)}
    for role in game.roles:
        best = _best_key(finals[role], counts)
        if best is None or best in chosen:
            return None
        chosen.append(best)
    return tuple(frozenset(seen[key]) for key in chosen)


def _can_be_lost(column: list[int], matches: Sequence[ProbeMatch]) -> bool:
    """Whether the count drops somewhere within a match (a capture). Stones that are
    only ever added (connect5) count moves, not material: their difference says whose
    turn it is, and goes with the result by chance. Discs that change colour (reversi)
    never lower both roles' total: "more discs now" is a poor guide there (see
    :mod:`~ggpkit.agents.mcts.goal_heuristic`), and two roles' pieces must be lost."""
    at = 0
    for match in matches:
        line = column[at : at + len(match.late)]
        at += len(match.late)
        if any(b < a for a, b in pairwise(line)):
            return True
    return False


def _best_pair(
    first: list[int],
    second: list[int],
    counts: dict[PieceKey, list[int]],
    matches: Sequence[ProbeMatch],
) -> tuple[PieceKey, PieceKey] | None:
    """Two roles' piece sets: the pair whose count difference goes best with both
    roles' results (each role's own count alone can say little where the difference
    says more)."""
    if len(set(first)) < 2 or len(set(second)) < 2:
        return None
    best, best_r = None, MIN_CORRELATION
    for a, b in permutations(counts, 2):
        if a[:3] != b[:3]:  # one relation, one piece-type argument
            continue
        diff = [x - y for x, y in zip(counts[a], counts[b], strict=True)]
        if len(set(diff)) < 2:
            continue
        total = [x + y for x, y in zip(counts[a], counts[b], strict=True)]
        if not _can_be_lost(total, matches):
            continue
        r = min(statistics.correlation(diff, first), -statistics.correlation(diff, second))
        if r >= best_r:
            best, best_r = (a, b), r
    return best


def _candidates(states: Any, nroles: int) -> dict[PieceKey, set[Term]]:
    """The piece sets the sampled states show, each with the facts seen in it.

    A relation of arity 3 or 4 (a square's coordinates and what stands there) gives
    one argument as the piece type: the one with the fewest values seen, if that is a
    multiple of the roles' number (or one more: an "empty" value) and at most
    :data:`MAX_PIECE_TYPES`; its values split the facts into candidate sets. Columns,
    rows and the like are never candidates: a column "owns" no result.
    """
    facts = {f for state in states for f in state if isinstance(f, Func)}
    ranges: dict[tuple[str, int], list[set[str]]] = {}
    for f in facts:
        if MIN_ARITY <= len(f.args) <= MAX_ARITY:
            values = ranges.setdefault((f.name, len(f.args)), [set() for _ in f.args])
            for k, a in enumerate(f.args):
                values[k].add(str(a))
    found: dict[PieceKey, set[Term]] = defaultdict(set)
    for (name, arity), values in ranges.items():
        kind = _type_position(values, nroles)
        if kind is None:
            continue
        for f in facts:
            if f.name == name and len(f.args) == arity:
                found[(name, arity, kind, str(f.args[kind]))].add(f)
    return {key: v for key, v in found.items() if len(v) >= MIN_SET_SIZE}


def _type_position(values: list[set[str]], nroles: int) -> int | None:
    fits = [
        (len(v), k)
        for k, v in enumerate(values)
        if nroles <= len(v) <= MAX_PIECE_TYPES and len(v) % nroles in (0, 1)
    ]
    return min(fits)[1] if fits else None


def _keys(fact: Term) -> list[PieceKey]:
    if not isinstance(fact, Func) or not MIN_ARITY <= len(fact.args) <= MAX_ARITY:
        return []
    n = len(fact.args)
    return [(fact.name, n, k, str(a)) for k, a in enumerate(fact.args)]


def _best_key(finals: list[int], counts: dict[PieceKey, list[int]]) -> PieceKey | None:
    """The key whose count goes best with a role's ``finals`` (its final goal in each
    sampled state's match); None where none goes well enough."""
    if len(set(finals)) < 2:
        return None
    best, best_r = None, MIN_CORRELATION
    for key, column in counts.items():
        if len(set(column)) < 2:
            continue
        r = statistics.correlation(column, finals)
        if r >= best_r:
            best, best_r = key, r
    return best


def _counts(
    matches: Sequence[ProbeMatch], facts_of: dict[int, frozenset[Term]], keys: list[PieceKey]
) -> dict[PieceKey, list[int]]:
    """Per key, its count in every sampled state, in the order of ``matches``."""
    wanted = set(keys)
    columns: dict[PieceKey, list[int]] = {k: [] for k in keys}
    for state in _states(matches):
        tally: Counter[PieceKey] = Counter(
            key for fact in facts_of[id(state)] for key in _keys(fact) if key in wanted
        )
        for key in keys:
            columns[key].append(tally[key])
    return columns


def _states(matches: Sequence[ProbeMatch]) -> list[Hashable]:
    return [s for m in matches for s in m.late]
