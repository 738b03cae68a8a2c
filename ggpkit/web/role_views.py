"""What the pages show of a game of imperfect information: a role's view, never the state.

In GDL-II a role knows its own moves as played and its percepts, nothing else
(:class:`~ggpkit.games.views.RoleView`). A live session of such a game is shown to
everyone as its public part only (turn, seats, who is to move, the result at the end);
a role's view is added for the one role a request names, and the routes give it only
to the browser that plays that seat. The other roles' moves, nature's included, are
shown as having happened, never as what they were, unless the role perceived them.

A finished match is replayed either from the true state (every state, every move,
every percept: see :func:`ggpkit.web.views.record_view`) or from one role's view
(:func:`replay_role_view`).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ggpkit.games.api import Game, GameError
from ggpkit.games.notation import short_form
from ggpkit.gdl.kif import parse_terms
from ggpkit.gdl.terms import Term
from ggpkit.match.records import MatchRecord
from ggpkit.web.outcome import result_text
from ggpkit.web.sessions import Session, SessionError


class NoSuchViewError(SessionError):
    """A view asked for a role that has none: nature, or a role the game does not have."""


def seats_of(record: MatchRecord) -> list[str]:
    """The roles players took in ``record``: every role but nature."""
    return [r for r in record.roles if r != record.chance_role]


def hides_state(record: MatchRecord) -> bool:
    """True for a record of a game of imperfect information (it holds percepts)."""
    return bool(record.percepts)


def hidden_session_view(session: Session, role: str | None) -> dict[str, Any]:
    """The JSON of a live session of imperfect information: its public part, and
    ``view``, the view of ``role`` (None: no role's view)."""
    game = session.game
    ended = session.finished
    goals = _seat_goals(game, session.state) if ended else None
    humans = session.humans_to_move()
    view = None
    if role is not None:
        legal = game.legal_moves(session.state, role) if role in humans else []
        view = role_view(game, session.record, role, legal)
    return {
        "id": session.id,
        "game": session.record.game_name,
        "imperfect": True,
        "roles": list(game.seats),
        "chance_role": game.info.chance_role,
        "seats": session.seats,
        "agent_time": session.agent_time,
        "version": session.version,
        "turn": session.record.steps,
        "finished": ended,
        "goals": goals,
        "result": result_text(list(goals), goals) if goals else None,
        "to_move": session.whose_turn(),
        "humans_to_move": humans,
        "can_undo": False,
        "can_redo": False,
        "hint": False,
        "thoughts": {},
        "view": view,
    }


def role_view(
    game: Game[Any] | None, record: MatchRecord, role: str, legal: list[Term]
) -> dict[str, Any]:
    """``role``'s view of ``record``: its moves and percepts per turn, its legal moves now."""
    if role not in seats_of(record):
        raise NoSuchViewError(f"{role!r} has no view: the seats are {', '.join(seats_of(record))}")
    return {
        "role": role,
        "turn": record.steps,
        "steps": role_steps(game, record, role),
        "legal": [_move(game, m) for m in legal],
    }


def role_steps(game: Game[Any] | None, record: MatchRecord, role: str) -> list[dict[str, Any]]:
    """Per joint move: ``role``'s move as played, what it perceived, and the roles that
    also moved (nature first) whose moves it was not shown."""
    index = record.roles.index(role)
    others = [r for r in record.roles if r != role]
    if record.chance_role in others:
        others.remove(record.chance_role)
        others.insert(0, record.chance_role)
    steps = []
    for k, joint in enumerate(record.moves):
        seen = record.percepts[k][index] if k < len(record.percepts) else []
        move = _move(game, parse_terms(joint[index])[0]) if joint[index] else {"move": ""}
        steps.append({"turn": k + 1, **move, "percepts": list(seen), "unseen": others})
    return steps


def replay_role_view(game: Game[Any] | None, record: MatchRecord, role: str) -> dict[str, Any]:
    """A stored match as ``role`` saw it, for the replay page: no state, no other moves."""
    return {
        "summary": record_summary(record),
        "view": role,
        "imperfect": hides_state(record),
        "seats": seats_of(record),
        "chance_role": record.chance_role,
        "steps": role_view(game, record, role, [])["steps"],
    }


def record_summary(record: MatchRecord) -> dict[str, Any]:
    """What the replay page heads a stored match with."""
    return {
        "id": record.match_id,
        "game": record.game_name,
        "roles": record.roles,
        "players": record.player_names,
        "goals": record.goal_values,
        "completed": record.is_completed,
        "aborted": record.is_aborted,
        "source": record.source,
        "start_time": record.start_time,
    }


def _move(game: Game[Any] | None, move: Term) -> dict[str, Any]:
    return {"move": str(move), "short": short_form(game, move) if game is not None else None}


def _seat_goals(game: Game[Any], state: Hashable) -> dict[str, int] | None:
    """The seats' goals (nature's is never scored); None where the rules define none."""
    try:
        goals = game.goals(state)
    except GameError:
        return None
    return {r: goals[r] for r in game.seats if r in goals}
