"""``api_test(game)``: the reusable contract test of any :class:`~ggpkit.games.api.Game`.

In the spirit of PGX's ``api_test``: it plays a few seeded random games and checks,
at every state, what every implementation must guarantee, so a new native game, a
new reasoner or a user's own ``Game`` subclass is checked by the same code:

* every role has a legal move in every non-terminal state;
* a terminal state gives exactly one goal per role, an int in 0..100 and inside the
  declared ``goal_range``;
* the same joint move from the same state gives an equal next state, and playing a
  move leaves the state it was played from unchanged (states are immutable values);
* percepts: every role gets a frozenset of ground terms for each joint move, the same
  twice over, and none at all in a game of perfect information; a declared chance
  role is one of the roles, and goal range and utility speak of the seats;
* states are hashable, refuse attribute assignment, and round-trip through pickle
  and through their facts (``state_from_facts(facts(s)) == s``);
* what ``game.info`` declares holds on the states seen (dynamics, utility, maximum
  length, compiled playouts);
* **threads agree with a serial run**: several threads share the one game object and
  ask it again for every answer of the serial run (percepts included), in shuffled
  orders; any answer that differs (or an exception) is a failure.

A failure raises :class:`ApiTestFailure` naming the check, the game and the step.
"""

from __future__ import annotations

import pickle
import random
import threading
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game, GameError, Utility
from ggpkit.gdl.terms import Term, is_ground


class ApiTestFailure(GgpkitError, AssertionError):
    """A game broke its contract; the message names the check, the game and where."""


@dataclass(frozen=True, slots=True)
class _Visit:
    """One state of the serial run with every answer the game gave there."""

    state: Hashable
    legal: tuple[tuple[Term, ...], ...]
    terminal: bool
    goals: tuple[int, ...] | None
    joint: tuple[Term, ...] | None
    after: Hashable | None
    percepts: tuple[frozenset[Term], ...] | None = None
    """What each role perceived of ``joint``, in role order."""


@dataclass(frozen=True, slots=True)
class ApiReport:
    """What ``api_test`` checked: states visited, matches played, answers compared in threads."""

    states: int
    matches: int
    finished: int
    """Matches that reached a terminal state within the step bound."""
    thread_checks: int
    wrong_answers: int


def _fail(game: Game[Any], check: str, where: str) -> ApiTestFailure:
    return ApiTestFailure(f"{game.name}: {check} ({where})")


def api_test(
    game: Game[Any],
    *,
    matches: int = 3,
    max_steps: int = 200,
    seed: int = 0,
    threads: int = 4,
    rounds: int = 2,
    facts_round_trip: bool = True,
    time_budget: float = 20.0,
) -> ApiReport:
    """Check ``game`` against the contract; see the module docstring. Raises ApiTestFailure.

    ``matches`` random matches of at most ``max_steps`` joint moves each (stopped early
    after ``time_budget`` seconds of play), then ``threads`` threads each ask again for
    every answer ``rounds`` times. ``facts_round_trip=False`` skips the facts round
    trip for games that cannot build states from facts (toy games).
    """
    _check_declared_chance(game)
    rng = random.Random(seed)
    deadline = time.monotonic() + time_budget
    visits: list[_Visit] = []
    finished = 0
    played = 0
    for match in range(matches):
        if match and time.monotonic() > deadline:
            break
        played += 1
        finished += _play(game, rng, max_steps, deadline, visits, facts_round_trip, match)
    _check_constant_sum(game, visits)
    _check_declared_playouts(game)
    wrong = _thread_check(game, visits, threads, rounds, seed) if threads > 0 else 0
    if wrong:
        raise _fail(game, f"{wrong} answers differ from the serial run under {threads} threads",
                    f"{len(visits)} states, {rounds} rounds")  # fmt: skip
    return ApiReport(len(visits), played, finished, threads * rounds * len(visits), wrong)


def _play(
    game: Game[Any],
    rng: random.Random,
    max_steps: int,
    deadline: float,
    visits: list[_Visit],
    facts_round_trip: bool,
    match: int,
) -> int:
    """One random match, checking every state; 1 when it reached a terminal state."""
    state = game.initial_state()
    for step in range(max_steps + 1):
        where = f"match {match}, step {step}"
        _check_value(game, state, where, facts_round_trip)
        visit = _visit(game, state, rng, where)
        visits.append(visit)
        if visit.terminal:
            _check_terminal(game, visit, step, where)
            return 1
        if step == max_steps or time.monotonic() > deadline:
            return 0
        assert visit.after is not None
        state = visit.after
    return 0


def _visit(game: Game[Any], state: Hashable, rng: random.Random, where: str) -> _Visit:
    """Every answer of the game in ``state``, checked, with a random joint move played."""
    terminal = game.is_terminal(state)
    legal = tuple(tuple(game.legal_moves(state, r)) for r in game.roles)
    if terminal:
        if any(legal):
            raise _fail(game, "a terminal state gives legal moves", where)
        return _Visit(state, legal, True, _goals(game, state, where), None, None)
    for role, moves in zip(game.roles, legal, strict=True):
        if not moves:
            raise _fail(game, f"{role} has no legal move in a non-terminal state", where)
    choosers = sum(1 for moves in legal if len(moves) > 1)
    if game.info.turn_taking and choosers > 1:
        raise _fail(game, f"declared turn-taking but {choosers} roles choose at once", where)
    joint = tuple(rng.choice(moves) for moves in legal)
    before = game.facts(state)
    after = game.next_state(state, list(joint))
    again = game.next_state(state, list(joint))
    if after != again or hash(after) != hash(again):
        raise _fail(game, f"the joint move {_text(joint)} gave two different states", where)
    if game.facts(state) != before:
        raise _fail(game, f"playing {_text(joint)} changed the state it was played from", where)
    return _Visit(state, legal, False, None, joint, after, _percepts(game, state, joint, where))


def _percepts(
    game: Game[Any], state: Hashable, joint: tuple[Term, ...], where: str
) -> tuple[frozenset[Term], ...]:
    """Each role's percepts of ``joint``, checked: sets of ground terms, one per role, the
    same when asked again, and empty where the game declares perfect information."""
    seen = game.percepts(state, list(joint))
    if list(seen) != list(game.roles):
        raise _fail(game, f"percepts are given for {list(seen)}, not one set per role", where)
    for role, percepts in seen.items():
        if type(percepts) is not frozenset or not all(
            isinstance(p, Term) and is_ground(p) for p in percepts
        ):
            raise _fail(game, f"the percepts of {role} are no frozenset of ground terms", where)
        if percepts and not game.info.imperfect:
            raise _fail(game, f"{role} has percepts in a game of perfect information", where)
    if game.percepts(state, list(joint)) != seen:
        raise _fail(game, f"the joint move {_text(joint)} gave two different percepts", where)
    return tuple(seen[r] for r in game.roles)


def _goals(game: Game[Any], state: Hashable, where: str) -> tuple[int, ...]:
    try:
        goals = game.goals(state)
    except GameError as e:
        raise _fail(game, f"a terminal state has no proper goals: {e}", where) from None
    if list(goals) != list(game.roles):
        raise _fail(game, f"goals are given for {list(goals)}, not one per role", where)
    for role, value in goals.items():
        # nature's goal is never scored: the declared range is the seats'
        low, high = (0, 100) if role == game.info.chance_role else game.info.goal_range
        if type(value) is not int or not 0 <= value <= 100 or not low <= value <= high:
            raise _fail(game, f"goal {value!r} of {role} is outside {low}..{high}", where)
    return tuple(goals[r] for r in game.roles)


def _seat_sum(game: Game[Any], goals: Sequence[int]) -> int:
    """The goals of the seats added up (nature's is never scored)."""
    return sum(g for r, g in zip(game.roles, goals, strict=True) if r != game.info.chance_role)


def _check_declared_chance(game: Game[Any]) -> None:
    chance = game.info.chance_role
    if chance is not None and chance not in game.roles:
        raise _fail(game, f"the declared chance role {chance!r} is no role", "info")
    if game.seats != tuple(r for r in game.roles if r != chance):
        raise _fail(game, f"the seats {game.seats} are not the roles but {chance}", "info")


def _check_terminal(game: Game[Any], visit: _Visit, steps: int, where: str) -> None:
    assert visit.goals is not None
    total = _seat_sum(game, visit.goals)
    utility = game.info.utility
    if utility is Utility.ZERO_SUM and total != 100:
        raise _fail(game, f"declared zero-sum but the goals {visit.goals} sum to {total}", where)
    limit = game.info.max_length
    if limit is not None and steps > limit:
        raise _fail(game, f"a match lasted {steps} joint moves, declared at most {limit}", where)


def _check_constant_sum(game: Game[Any], visits: Sequence[_Visit]) -> None:
    sums = {_seat_sum(game, v.goals) for v in visits if v.goals is not None}
    if game.info.utility is Utility.CONSTANT_SUM and len(sums) > 1:
        raise _fail(game, f"declared constant-sum but terminal goal sums {sorted(sums)}", "all")


def _check_value(game: Game[Any], state: Hashable, where: str, facts_round_trip: bool) -> None:
    """States are hashable, immutable values that round-trip through pickle and facts."""
    hash(state)
    try:
        object.__setattr__(state, "_api_test_probe", 1)
    except (AttributeError, TypeError):
        pass
    else:
        raise _fail(game, "a state accepts attribute assignment (states must be immutable)", where)
    if pickle.loads(pickle.dumps(state)) != state:
        raise _fail(game, "a state does not survive pickling", where)
    if facts_round_trip:
        facts = game.facts(state)
        if game.state_from_facts(facts) != state:
            raise _fail(game, "state_from_facts(facts(state)) is another state", where)


def _check_declared_playouts(game: Game[Any]) -> None:
    """Compiled playouts, where declared, give totals a game of this kind can give."""
    if not game.info.capabilities.compiled_playouts:
        return
    count = 16
    stats = game.playout_stats(game.initial_state(), count, 7)
    low, high = game.info.goal_range
    if stats.playouts != count or len(stats.goal_sums) != len(game.roles):
        raise _fail(game, f"playout_stats gave {stats} for {count} playouts", "initial state")
    for role, total in zip(game.roles, stats.goal_sums, strict=True):
        if role != game.info.chance_role and not count * low <= total <= count * high:
            raise _fail(game, f"playout goal sum {total} outside the goal range", "initial state")
    limit = game.info.max_length
    if limit is not None and not 0 <= stats.moves <= count * limit:
        raise _fail(game, f"playouts made {stats.moves} moves, above the declared length",
                    "initial state")  # fmt: skip


def _thread_check(
    game: Game[Any], visits: Sequence[_Visit], threads: int, rounds: int, seed: int
) -> int:
    """Threads re-ask every answer of the serial run at once; the number that differ."""
    wrong = [0] * threads
    barrier = threading.Barrier(threads)

    def worker(index: int) -> None:
        order = list(visits)
        rng = random.Random(seed * 1000 + index)
        barrier.wait()
        for _ in range(rounds):
            rng.shuffle(order)
            for visit in order:
                try:
                    same = _same_answers(game, visit)
                except Exception:  # an exception is a wrong answer too
                    same = False
                if not same:
                    wrong[index] += 1

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sum(wrong)


def _same_answers(game: Game[Any], visit: _Visit) -> bool:
    state = visit.state
    if game.is_terminal(state) != visit.terminal:
        return False
    if tuple(tuple(game.legal_moves(state, r)) for r in game.roles) != visit.legal:
        return False
    if visit.goals is not None:
        return tuple(game.goals(state)[r] for r in game.roles) == visit.goals
    assert visit.joint is not None
    seen = game.percepts(state, list(visit.joint))
    if tuple(seen[r] for r in game.roles) != visit.percepts:
        return False
    return bool(game.next_state(state, list(visit.joint)) == visit.after)


def _text(joint: Sequence[Term]) -> str:
    return " ".join(str(m) for m in joint)
