"""The JSON the pages draw: a live session, a stored match, with boards, notation and outcome.

Boards are inferred once per game from its possible facts (:class:`Boards`); a
stored match of a game the server does not know is drawn from the facts its own
states hold. Interfaces read only what a game declares (board style, notation,
end reason), never its name or class.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterable
from typing import Any

from ggpkit.agents.base import Thoughts
from ggpkit.games.api import Game, GameError
from ggpkit.games.board.facts import possible_facts
from ggpkit.games.board.layout import Layout, board_view, infer_layout, move_cells, move_column
from ggpkit.games.notation import short_form
from ggpkit.games.registry import games, load
from ggpkit.gdl.kif import parse_terms
from ggpkit.gdl.terms import Term, split_facts_text
from ggpkit.match.records import MatchRecord
from ggpkit.web.outcome import counter_limits, generic_reason, result_text
from ggpkit.web.role_views import hidden_session_view, hides_state, record_summary, seats_of
from ggpkit.web.sessions import Session


class GameBoard:
    """What is inferred once per game: its board layout and its counters' limits."""

    def __init__(self, game: Game[Any]) -> None:
        known = possible_facts(game)
        initial = game.facts(game.initial_state())
        self.layout: Layout | None = infer_layout(
            initial, known.facts, game.info.capabilities.board, known.complete
        )
        self.limits = counter_limits(known.facts) if known.complete else {}

    def end_reason(self, game: Game[Any], facts: frozenset[Term]) -> str:
        declared = game.info.capabilities.end_reason
        return declared(facts) if declared is not None else generic_reason(facts, self.limits)


class Boards:
    """The :class:`GameBoard` of every game a session has used (one per game object)."""

    def __init__(self) -> None:
        self._boards: dict[int, tuple[Game[Any], GameBoard]] = {}
        self._lock = threading.Lock()

    def of(self, game: Game[Any]) -> GameBoard:
        with self._lock:
            found = self._boards.get(id(game))
        if found is not None and found[0] is game:
            return found[1]
        board = GameBoard(game)  # outside the lock: the prover's playouts take a while
        with self._lock:
            self._boards[id(game)] = (game, board)  # the game is kept, so its id is not reused
        return board


def _move_view(game: Game[Any], layout: Layout | None, move: Term) -> dict[str, Any]:
    return {
        "move": str(move),
        "short": short_form(game, move),
        "cells": [",".join(c) for c in move_cells(layout, move)] if layout else [],
        "column": move_column(layout, move) if layout else None,
    }


def _joint_view(game: Game[Any], joint: Iterable[str]) -> list[dict[str, str | None]]:
    out = []
    for text in joint:
        term = parse_terms(text)[0] if text else None
        out.append({"move": text, "short": short_form(game, term) if term is not None else None})
    return out


def _last_cells(layout: Layout | None, moves: list[list[str]]) -> list[str]:
    if not moves or layout is None:
        return []
    for text in moves[-1]:
        cells = move_cells(layout, parse_terms(text)[0])
        if cells:
            return [",".join(c) for c in cells]
    return []


def _goals_or_none(game: Game[Any], state: Hashable) -> dict[str, int] | None:
    """Goals where the rules define them; many GDL games define goals only at the end."""
    try:
        return game.goals(state)
    except GameError:
        return None


def session_view(boards: Boards, session: Session, role: str | None = None) -> dict[str, Any]:
    """The JSON a page needs to draw a session and offer the legal clicks.

    In a game of imperfect information, never the state: the public part of the session
    and ``role``'s view (:func:`~ggpkit.web.role_views.hidden_session_view`).
    """
    if session.hidden:
        return hidden_session_view(session, role)
    game, state = session.game, session.state
    board = boards.of(game)
    layout = board.layout
    facts = game.facts(state)
    humans = session.humans_to_move()
    legal = {role: [_move_view(game, layout, m) for m in game.legal_moves(state, role)]
             for role in humans}  # fmt: skip
    goals = _goals_or_none(game, state)
    ended = session.finished
    return {
        "id": session.id,
        "game": session.record.game_name,
        "roles": list(game.roles),
        "seats": session.seats,
        "agent_time": session.agent_time,
        "version": session.version,
        "finished": ended,
        "goals": goals,
        "result": result_text(list(game.roles), goals) if ended and goals else None,
        "end_reason": board.end_reason(game, facts) if ended else None,
        "to_move": session.whose_turn(),
        "humans_to_move": humans,
        "board": board_view(layout, facts) if layout else None,
        "facts": sorted(str(f) for f in facts),
        "legal": legal,
        "moves": session.record.moves,
        "moves_short": [_joint_view(game, joint) for joint in session.record.moves],
        "last_move_cells": _last_cells(layout, session.record.moves),
        "can_undo": len(session.states) > 1,
        "can_redo": bool(session.redo),
        "hint": game.info.capabilities.hint is not None,
        "notation": _notation_help(game),
        "thoughts": _thoughts_view(game, layout, session),
    }


def _thoughts_view(
    game: Game[Any], layout: Layout | None, session: Session
) -> dict[str, dict[str, Any]]:
    """What each agent that chose the last move thinks: value, verdict, its best moves."""
    return {role: _one_thought(game, layout, session.seats[role], said)
            for role, said in session.thoughts.items()}  # fmt: skip


def _one_thought(
    game: Game[Any], layout: Layout | None, agent: str, said: Thoughts
) -> dict[str, Any]:
    best = [{**_move_view(game, layout, move), "share": round(share, 3)}
            for move, share in said.moves]  # fmt: skip
    value = None if said.value is None else round(said.value, 1)
    return {"agent": agent, "value": value, "verdict": said.verdict, "best": best}


def record_view(boards: Boards, record: MatchRecord) -> dict[str, Any]:
    """A stored match with a board for every state, for the replay page: the true
    state, every move (nature's too) and, in a game of imperfect information, every
    role's percepts."""
    states = [parse_terms(split_facts_text(s)) for s in record.states]
    game = load(record.game_name) if record.game_name in games() else None
    if game is not None:
        layout = boards.of(game).layout
    else:
        seen = [f for s in states for f in s]
        layout = infer_layout(states[0], seen) if states else None
    board_list = [board_view(layout, s) if layout else None for s in states]
    last_cells = [_last_cells(layout, record.moves[:i]) for i in range(len(states))]
    return {
        "summary": record_summary(record),
        "view": "true",
        "imperfect": hides_state(record),
        "seats": seats_of(record),
        "chance_role": record.chance_role,
        "percepts": record.percepts,
        "moves": record.moves,
        "moves_short": [_joint_view(game, j) for j in record.moves] if game else None,
        "errors": record.errors,
        "states": record.states,
        "boards": board_list,
        "last_cells": last_cells,
    }


def _notation_help(game: Game[Any]) -> str | None:
    notation = game.info.capabilities.notation
    return None if notation is None else notation.help
