"""What the web app's routes share: the store, the sessions, uploaded games, board layouts.

The app makes one :class:`AppState` when it starts and keeps it on ``app.state``; a
route asks for it with the :data:`State` dependency, so the routers of
:mod:`ggpkit.web.routes` hold no state of their own.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, Request

from ggpkit.games.api import Game
from ggpkit.games.capabilities import Solver
from ggpkit.store.sqlite import MatchStore
from ggpkit.web.kif_jobs import LoadJob, LoadJobs
from ggpkit.web.role_views import NoSuchViewError
from ggpkit.web.sessions import (
    HUMAN,
    AgentFactory,
    ForbiddenError,
    Session,
    SessionError,
    SessionManager,
)
from ggpkit.web.views import Boards

TOKEN_HEADER = "X-Session-Token"
"""The header that carries a session's token on every request that changes the session."""


class AppState:
    """Everything the routes share: the store, the sessions, uploaded games, layouts."""

    def __init__(self, db_path: Path, games_dir: Path | None, make_agent: AgentFactory) -> None:
        self.store = MatchStore(db_path)
        self.sessions = SessionManager(self.store, make_agent)
        self.uploaded: dict[str, tuple[str, str, Game[Any] | None]] = {}  # kif_id -> rules
        self._loaded: dict[tuple[str, str], dict[str, Any]] = {}  # (name, sha256) -> result
        self._uploaded_lock = threading.Lock()
        self.boards = Boards()
        self.loads = LoadJobs(self.loaded)
        self.games_dir = games_dir

        self._hinters: dict[str, tuple[Solver, threading.Lock]] = {}
        self._hinters_lock = threading.Lock()
        self._token_key = self.store.secret("web-session-tokens")

    def add_upload(self, name: str, text: str, game: Game[Any] | None = None) -> str:
        """Keep uploaded rules (already checked and loaded once) and their game; a new kif id."""
        with self._uploaded_lock:
            kif_id = f"kif-{secrets.token_hex(6)}"
            self.uploaded[kif_id] = (name, text, game)
        return kif_id

    def loaded(self, name: str, text: str, game: Game[Any]) -> dict[str, Any]:
        """Keep a loaded game with its board (inferred now, not at the first move); its kif id."""
        self.boards.of(game)
        kif_id = self.add_upload(name, text, game)
        result = {"kif_id": kif_id, "name": game.name, "roles": list(game.seats),
                  "chance_role": game.info.chance_role, "imperfect": game.info.imperfect,
                  "reasoner": game.info.reasoner, "notes": list(game.info.notes)}  # fmt: skip
        with self._uploaded_lock:
            self._loaded[name, _digest(text)] = result
        return result

    def kept_load(self, name: str, text: str) -> LoadJob | None:
        """A finished load of ``text`` under ``name`` if these rules were loaded before (a
        library game started twice is compiled once); None when they were not."""
        with self._uploaded_lock:
            result = self._loaded.get((name, _digest(text)))
        return self.loads.finished(name, result) if result is not None else None

    def token(self, session_id: str) -> str:
        """The session's token: given to its creator only, required to change the session.

        A signature of the id with the store's key, so it survives restarts and needs
        no table of its own.
        """
        return hmac.new(self._token_key, session_id.encode(), hashlib.sha256).hexdigest()[:32]

    def authorised(self, session_id: str, request: Request) -> Session:
        """The session, if ``request`` carries its token; ForbiddenError otherwise."""
        session = self.sessions.get(session_id)
        given = request.headers.get(TOKEN_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.token(session.id).encode()):
            raise ForbiddenError(
                f"this session can only be changed by the browser that started it "
                f"(missing or wrong {TOKEN_HEADER})"
            )
        return session

    def viewer(self, session_id: str, role: str, request: Request) -> Session:
        """The session, if ``request`` may see ``role``'s view of it: it carries the
        session's token, ``role`` is a seat, and while the game goes on a person plays it
        (an agent's view is its own). ForbiddenError or NoSuchViewError otherwise."""
        session = self.authorised(session_id, request)
        if role not in session.seats:
            raise NoSuchViewError(f"{role!r} has no view: the seats are {', '.join(session.seats)}")
        if not session.finished and session.seats[role] != HUMAN:
            raise ForbiddenError(
                f"{role} is played by {session.seats[role]}: its view is not shown while "
                "the game goes on"
            )
        return session

    def hint(self, session: Session) -> dict[str, Any]:
        """The hint solver's best move for the person to move and the score it reaches.

        One solver per game for the whole server (its memo of solved positions is kept
        between hints), used by one request at a time.
        """
        declared = session.game.info.capabilities.hint
        if session.hidden:
            raise SessionError("no hints where roles see only percepts: a hint reads the state")
        if declared is None:
            raise SessionError(f"{session.game.name} offers no hints")
        movers = session.humans_to_move() or session.whose_turn()
        if not movers:
            raise SessionError("the game is over: there is no move to hint")
        with self._hinters_lock:
            if session.record.game_name not in self._hinters:
                self._hinters[session.record.game_name] = (declared(), threading.Lock())
            solver, lock = self._hinters[session.record.game_name]
        with lock:
            solution = solver.solve(session.game, session.state, movers[0])
        move = solution.move
        return {"move": None if move is None else str(move), "score": solution.goals[movers[0]]}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()


async def app_state(request: Request) -> AppState:
    """The state of the app that serves ``request`` (made when the app started)."""
    state: AppState = request.app.state.ggpkit
    return state


State = Annotated[AppState, Depends(app_state)]
"""A route's parameter of this type receives the app's :class:`AppState`."""
