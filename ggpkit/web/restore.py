"""Rebuilding unfinished web sessions from the match store after a server restart."""

from __future__ import annotations

from typing import Any

from ggpkit.games.api import Game, GameError
from ggpkit.games.registry import games, load, load_kif
from ggpkit.store.sqlite import MatchStore
from ggpkit.web.sessions import HUMAN, Session, SessionManager


def _game_of(name: str, rules: str) -> Game[Any]:
    if name in games():
        return load(name)
    return load_kif(rules, name)


def restore_sessions(
    store: MatchStore, manager: SessionManager, uploaded: dict[str, tuple[str, str]]
) -> int:
    """Replay every unfinished ``web`` match into a live session; return how many."""
    restored = 0
    for summary in store.matches():
        if summary.source != "web" or summary.is_completed or summary.is_aborted:
            continue
        try:
            record = store.load(summary.match_id)
            game = _game_of(record.game_name, record.rules)
            states = [game.initial_state()]
            for joint in record.moves:
                states.append(game.next_state(states[-1], joint))
        except (GameError, ValueError):
            continue  # a record that no longer replays stays a stored match only
        seats = {
            role: (HUMAN if human else name)
            for role, name, human in zip(
                record.roles, record.player_names, record.is_human, strict=False
            )
        }
        if game.name not in games():
            uploaded[f"kif-{len(uploaded) + 1}"] = (record.game_name, record.rules)
        session = Session(record.match_id, game, seats, record.play_clock or 1.0, record, states)
        manager.adopt(session)
        restored += 1
    return restored
