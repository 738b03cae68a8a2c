"""Replaying a match record: the game it was played in, and its states as game states.

Records store states as fact texts, which any tool can read; to draw a board
the replay needs the game's own states, so it plays the recorded moves again and
checks each resulting state against the recorded text. The game is the native
engine when the record names a registered game whose facts agree, else the
record's embedded rules loaded with the GDL engine.

A referee's record of a GDL-II match replays like any other: it keeps every role's
moves, nature's included, and the true states. A player's record of one holds only
its role's view (its moves and percepts; see :mod:`ggpkit.match.records`): it replays as
that view, checked against the rules by finding a line of play that gives it, and its
states are that line's, one of the lines the player could not tell apart, never known
to be the true one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game, GameError
from ggpkit.games.filtering import Frontier
from ggpkit.games.information import InformationSetError
from ggpkit.games.registry import games, load, load_kif, rules_path
from ggpkit.games.repair import repair_line
from ggpkit.games.sampling import sample_history
from ggpkit.games.views import RoleView
from ggpkit.gdl.kif import GdlSyntaxError, parse_term, parse_terms
from ggpkit.gdl.terms import Term, facts_text, strip_pos
from ggpkit.match.arena import MatchRecord as ArenaRecord
from ggpkit.match.records import UNKNOWN_STATE, MatchRecord

VIEW_BUDGET = 100_000
"""Expanded steps spent looking for a line of play that gives a player's recorded view."""
REPAIR_BUDGET = 500_000
"""Steps the local search for such a line may replay (see :func:`history_of`). Its
restarts make the steps it needs spread like waiting times, so the budget is several
times what a hard view typically needs (docs/results.md): a budget near that need
misses the line of a valid record now and then."""
FILTER_STATES = 4_000
"""States of the particle filter :func:`filtered_line` carries (as a player's bag does)."""
FILTER_SECONDS = 60.0
"""Most seconds :func:`filtered_line` filters a view."""


class ReplayError(GgpkitError):
    """A record whose moves do not lead to its recorded states in the game it names."""


@dataclass(frozen=True, slots=True)
class Replay:
    """A record with its game and the game states, one per recorded state."""

    record: MatchRecord
    game: Game[Any]
    states: list[Hashable]


def state_facts(text: str) -> frozenset[Term]:
    """The facts of a recorded state text such as ``"( ( cell 1 1 b ) (control white) )"``.

    ggp-base writes states with spaces inside the parentheses and in no fixed
    order, so states are compared as sets of terms, never as text.
    """
    inner = text.strip()
    if not (inner.startswith("(") and inner.endswith(")")):
        raise ReplayError(f"a recorded state must be a list of facts, found {text[:40]!r}")
    return frozenset(strip_pos(t) for t in parse_terms(inner[1:-1]))


def replay(record: MatchRecord, game: Game[Any]) -> list[Hashable]:
    """The game states of a record, checked against the recorded states (a player's
    record of a GDL-II match: see :func:`replay_view`)."""
    viewer = view_role(record)
    if viewer is not None:
        return replay_view(record, game, viewer)
    state: Hashable = game.initial_state()
    states = [state]
    if record.states and game.facts(state) != state_facts(record.states[0]):
        raise ReplayError(f"{game.name}: the initial state differs from the record's")
    for step, moves in enumerate(record.moves, 1):
        state = game.next_state(state, moves)
        if step < len(record.states) and game.facts(state) != state_facts(record.states[step]):
            raise ReplayError(f"{game.name}: step {step} leads to a state unlike the record's")
        states.append(state)
    return states


def view_role(record: MatchRecord) -> str | None:
    """The role whose view a player's record of a GDL-II match holds (the one role whose
    moves it knows); None for a record of whole joint moves."""
    if record.source != "player" or not record.percepts:
        return None
    known = [
        role
        for index, role in enumerate(record.roles)
        if all(index < len(m) and m[index] for m in record.moves)
    ]
    return known[0] if len(known) == 1 else None


def replay_view(record: MatchRecord, game: Game[Any], role: str) -> list[Hashable]:
    """States of a line of play that gives ``role`` the moves and percepts of its
    recorded view (drawn with a fixed seed); ReplayError when the rules allow none."""
    index = game.role_index(role)
    try:
        moves = tuple(parse_term(m[index]) for m in record.moves)
        seen = tuple(frozenset(parse_term(p) for p in step[index]) for step in record.percepts)
        view = RoleView(role, moves, seen)
    except (GdlSyntaxError, IndexError, ValueError) as e:
        raise ReplayError(f"{game.name}: {role}'s recorded view cannot be read: {e}") from None
    if record.states and game.facts(game.initial_state()) != state_facts(record.states[0]):
        raise ReplayError(f"{game.name}: the initial state differs from the record's")
    known = [s for s in record.states[1:] if s != UNKNOWN_STATE]
    if known:
        raise ReplayError(f"{game.name}: a view record with {len(known)} known later states")
    try:
        line = history_of(game, view)
    except InformationSetError as e:
        raise ReplayError(f"{game.name}: {e}") from None
    if line is None:
        raise ReplayError(f"{game.name}: no line of play gives {role} its recorded view")
    return list(line)


def history_of(game: Game[Any], view: RoleView) -> tuple[Hashable, ...] | None:
    """A line of play that gives ``view`` (drawn with a fixed seed): a short walk of the
    sampler first; else the local search of :mod:`~ggpkit.games.repair`, which mends
    one line (a view whose late percepts speak of many early hidden choices at once,
    as the counts of minesweeper speak of the mines: a walk that guesses whole layouts
    found none in 60 s for a view of 11 turns); else the walk with its whole budget,
    which also proves that no line exists. None when no line was found.

    Between the short walk and the local search, a particle filter over the view
    (:mod:`~ggpkit.games.filtering`): blind breakthrough's views of a hundred turns,
    which the walks and the repair took minutes over, it follows in seconds."""
    rng = random.Random(0)
    start = (game.initial_state(),)
    line = sample_history(game, view, rng, VIEW_BUDGET // 10)
    if line is None:
        line = filtered_line(game, view, rng)
    if line is None:
        line = repair_line(game, view, rng, start, REPAIR_BUDGET)
    if line is None:
        line = sample_history(game, view, rng, VIEW_BUDGET)
    return line


def filtered_line(
    game: Game[Any], view: RoleView, rng: random.Random
) -> tuple[Hashable, ...] | None:
    """A line of a particle filter's states that gives ``view`` (within
    :data:`FILTER_SECONDS`), or None."""
    frontier = Frontier.start(game, FILTER_STATES)
    deadline = time.perf_counter() + FILTER_SECONDS
    try:
        frontier.advance(game, view, rng, deadline, deadline)
    except InformationSetError:
        return None
    if frontier.broken_at is not None or not frontier.states:
        return None
    state = max(frontier.states, key=frontier.states.__getitem__)
    return frontier.lines[state]


def open_replay(record: MatchRecord) -> Replay:
    """Find a game in which the record replays: native engine first, then its own rules."""
    problems: list[str] = []
    candidates: list[Any] = []
    if record.game_name in games():
        candidates.append(lambda: load(record.game_name))
    if record.rules.strip():
        candidates.append(lambda: load_kif(record.rules, record.game_name or "<record>"))
    for make in candidates:
        try:
            game: Game[Any] = make()
            return Replay(record, game, replay(record, game))
        except (GameError, ReplayError, GdlSyntaxError, ValueError) as e:
            problems.append(str(e))
    reason = "; ".join(problems) or "it names no known game and embeds no rules"
    raise ReplayError(f"match {record.match_id} cannot be replayed: {reason}")


def record_from_arena(
    arena: ArenaRecord, game: Game[Any], match_id: str | None = None
) -> MatchRecord:
    """A store-ready record of an arena match (the arena's ``on_match_done`` hook)."""
    try:
        rules = rules_path(arena.game).read_text(encoding="utf-8")
    except (GameError, OSError):
        rules = ""
    record = MatchRecord(
        match_id=match_id or f"arena.{arena.game}.{arena.seed}.{arena.index}",
        game_name=arena.game,
        rules=rules,
        roles=list(arena.roles),
        start_clock=0.0,
        play_clock=0.0,
        player_names=list(arena.agents),
        is_human=[False for _ in arena.roles],
        source="arena",
        chance_role=arena.chance_role,
    )
    record.add_state(facts_text(game.facts(arena.states[0])))
    seen: list[list[list[str]] | None] = [[list(p) for p in s] for s in arena.percepts]
    seen = seen or [None] * len(arena.moves)
    for moves, state, percepts in zip(arena.moves, arena.states[1:], seen, strict=True):
        text = facts_text(game.facts(state))
        record.add_step(list(moves), ["" for _ in moves], text, None, percepts)
    record.finish([arena.goals[r] for r in arena.roles])
    return record
