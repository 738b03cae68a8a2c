"""Rebuilding unfinished web sessions from the match store after a server restart.

Stored records are untrusted input (a record can be imported, or the file edited),
and nothing in them may stop the server from starting:

- sessions of registered games are replayed at start-up on ggpkit's own engines;
- sessions of uploaded rules are restored afterwards, in a background thread, each
  through the same staged, time-limited loader as an upload (compiled in a killable
  child, first moves under a query time limit: :func:`~ggpkit.web.kif_upload.load_checked_kif`);
- a game of chance draws nature's moves from the record's own seed (its random token),
  and the percepts the store keeps are read back (a record without them has them found
  again by the match driver);
- a record that does not replay (bad rules, a move that is not legal, anything
  else) is marked aborted, with the reason logged, and never tried again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.registry import games, load
from ggpkit.match.records import MatchRecord
from ggpkit.store.sqlite import MatchStore
from ggpkit.web.kif_upload import load_checked_kif
from ggpkit.web.sessions import HUMAN, Session, SessionManager

log = logging.getLogger("ggpkit.web")

AddUpload = Callable[[str, str], str]
"""Keeps uploaded rules (name, text) for new sessions; returns their kif id."""


def restore_sessions(store: MatchStore, manager: SessionManager, add_upload: AddUpload) -> int:
    """Restore the sessions of registered games now and start restoring the rest; how many now."""
    registered: list[MatchRecord] = []
    other: list[MatchRecord] = []
    for record in _unfinished_web_records(store):
        (registered if record.game_name in games() else other).append(record)
    restored = sum(_restore(store, manager, add_upload, r) for r in registered)
    if other:
        threading.Thread(
            target=lambda: [_restore(store, manager, add_upload, r) for r in other],
            name="ggpkit-restore",
            daemon=True,
        ).start()
    return restored


def _unfinished_web_records(store: MatchStore) -> list[MatchRecord]:
    records = []
    for summary in store.matches():
        if summary.source == "web" and not (summary.is_completed or summary.is_aborted):
            try:
                records.append(store.load(summary.match_id))
            except Exception as e:  # an unreadable row must not stop the server
                log.warning("stored match %s cannot be read: %s", summary.match_id, e)
    return records


def _restore(
    store: MatchStore, manager: SessionManager, add_upload: AddUpload, rec: MatchRecord
) -> bool:
    """Replay one record into a live session; False (and the record marked) when it fails."""
    try:
        game = _game_of(rec)
        states = _replayed(game, rec)
    except Exception as e:  # whatever the record holds, the server goes on
        log.warning("web session %s not restored (%s: %s); marked aborted", rec.match_id,
                    type(e).__name__, str(e)[:200])  # fmt: skip
        rec.is_aborted = True
        store.match_ended(rec)
        return False
    seats = {
        role: (HUMAN if human else name)
        for role, name, human in zip(rec.roles, rec.player_names, rec.is_human, strict=False)
        if role in game.seats  # nature is no seat: the session draws its moves
    }
    if rec.game_name not in games():
        add_upload(rec.game_name, rec.rules)
    manager.adopt(Session(rec.match_id, game, seats, rec.play_clock or 1.0, rec, states))
    return True


def _game_of(record: MatchRecord) -> Game[Any]:
    if record.game_name in games():
        return load(record.game_name)
    return load_checked_kif(record.rules, record.game_name)


def _replayed(game: Game[Any], record: MatchRecord) -> list[Hashable]:
    """Every state of the record, each joint move checked against the rules."""
    states = [game.initial_state()]
    for joint in record.moves:
        moves = [game.check_move(states[-1], role, move) for role, move in zip(
            game.roles, joint, strict=True)]  # fmt: skip
        states.append(game.next_state(states[-1], moves))
    return states
