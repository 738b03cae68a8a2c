"""Play: the games (registered and in the game library) and agents, and the play sessions a
page drives.

A session changes only with its token (``X-Session-Token``, given to the browser that
started it); anyone may watch it, ask for a hint, or follow its events.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ggpkit.games.api import Game, GameError
from ggpkit.games.notation import move_from_text
from ggpkit.games.registry import games, load, rules_path
from ggpkit.web.kif_upload import load_checked_kif
from ggpkit.web.library import library_rules, playable_games
from ggpkit.web.sessions import HUMAN, NotFoundError, Session, SessionError
from ggpkit.web.state import AppState, State
from ggpkit.web.views import session_view

router = APIRouter()


class NewSession(BaseModel):
    """Start a game: a registered game (``game``) or loaded rules (``kif_id``: uploaded
    rules, or a library game loaded by ``POST /api/games/{name}/load``)."""

    game: str | None = None
    engine: str = "native"
    kif_id: str | None = None
    seats: dict[str, str] = Field(default_factory=dict)
    agent_time: float = Field(default=1.0, gt=0, le=60)


class MoveRequest(BaseModel):
    role: str
    move: str
    version: int | None = None


# ---- games and agents --------------------------------------------------------------------


@router.get("/api/games")
def list_games() -> list[dict[str, Any]]:
    """The registered games with their roles, then the game library's playable games
    (``library``: true, with their ``source`` and ``origin``) that no registered game of
    the same name hides. A library game is loaded with ``POST /api/games/{name}/load``."""
    out: list[dict[str, Any]] = []
    for name, description in games().items():
        game = load(name)
        out.append({"name": name, "description": description, "roles": list(game.seats),
                    "library": False, "source": "registered", "origin": "registered"})  # fmt: skip
    return out + playable_games(games())


@router.post("/api/games/{name}/load", status_code=202)
def load_library_game(name: str, st: State) -> dict[str, Any]:
    """Start loading a game of the library (as uploaded rules are loaded: staged, under time
    limits); poll ``/api/kif/loads/{id}``, whose ``result`` holds the ``kif_id`` that
    starts sessions of it. Rules loaded before are not loaded again."""
    if name in games():
        raise SessionError(f"{name} is a registered game: start it by name ('game')")
    text = library_rules(name)
    kept = st.kept_load(name, text)
    return (kept or st.loads.start(text, name)).view()


@router.get("/api/agents")
def list_agents() -> list[str]:
    """Agent specs offered in the seat menus (``human`` is a person at this screen)."""
    return [HUMAN, "random", "mcts", "alphabeta", "solver"]


# ---- sessions ----------------------------------------------------------------------------


@router.post("/api/sessions", status_code=201)
async def new_session(req: NewSession, st: State) -> dict[str, Any]:
    """Start a game with the given seats (role -> ``human`` or an agent spec)."""

    def start() -> dict[str, Any]:
        game, rules = _game_and_rules(st, req)
        session = st.sessions.create(game, rules, req.seats, req.agent_time)
        return {**session_view(st.boards, session), "token": st.token(session.id)}

    return await run_in_threadpool(start)


@router.get("/api/sessions/{session_id}")
def get_session(session_id: str, st: State) -> dict[str, Any]:
    """The session as anyone may see it: in a game of imperfect information, its public
    part only (turn, seats, who moves, the result at the end), never the state."""
    return session_view(st.boards, st.sessions.get(session_id))


@router.get("/api/sessions/{session_id}/view/{role}")
def get_role_view(session_id: str, role: str, request: Request, st: State) -> dict[str, Any]:
    """The session with ``role``'s view (``view``: its moves, percepts, legal moves), for
    the browser that plays that seat; 403 for an agent's seat while the game goes on."""
    return session_view(st.boards, st.viewer(session_id, role, request), role)


@router.post("/api/sessions/{session_id}/move")
async def post_move(
    session_id: str, req: MoveRequest, request: Request, st: State
) -> dict[str, Any]:
    """A person's move; 400 with the reason when illegal, 409 when the view was stale."""
    session = st.authorised(session_id, request)
    text = move_from_text(session.game, req.move)  # a short form (d2-d4) or a GDL term
    move = partial(st.sessions.move, role=req.role, move=text, version=req.version)
    return await _act(st, session, move, req.role)


@router.post("/api/sessions/{session_id}/agent")
async def agent_move(
    session_id: str, request: Request, st: State, role: str | None = None
) -> dict[str, Any]:
    """Let the agent(s) to move play one step (no-op when a person must move); with
    ``role`` (a person's seat), the answer holds that role's view."""
    session = st.authorised(session_id, request) if role is None else st.viewer(
        session_id, role, request)  # fmt: skip
    await st.sessions.agent_step(session)  # agents think without holding a worker thread
    return await run_in_threadpool(session_view, st.boards, session, role)


@router.post("/api/sessions/{session_id}/undo")
async def undo(session_id: str, request: Request, st: State) -> dict[str, Any]:
    """Take back moves to the last turn of a person."""
    return await _act(st, st.authorised(session_id, request), st.sessions.undo)


@router.post("/api/sessions/{session_id}/redo")
async def redo(session_id: str, request: Request, st: State) -> dict[str, Any]:
    """Replay the joint move that the last undo took back."""
    return await _act(st, st.authorised(session_id, request), st.sessions.redo)


@router.get("/api/sessions/{session_id}/hint")
async def hint(session_id: str, st: State) -> dict[str, Any]:
    """The best move and the best reachable score, for games that declare a hint."""
    session = st.sessions.get(session_id)
    return await run_in_threadpool(st.hint, session)


@router.get("/api/sessions/{session_id}/events")
async def events(session_id: str, request: Request, st: State) -> StreamingResponse:
    """Server-sent events: one ``version`` event each time the session changes."""
    session = st.sessions.get(session_id)

    async def stream() -> AsyncIterator[str]:
        seen = -1
        for _ in range(36_000):  # at most an hour per connection
            if await request.is_disconnected():
                break
            if session.version != seen:
                seen = session.version
                payload = {"version": seen, "finished": session.finished}
                yield f"event: version\ndata: {json.dumps(payload)}\n\n"
            await asyncio.sleep(0.1)

    return StreamingResponse(stream(), media_type="text/event-stream")


async def _act(
    st: AppState, session: Session, action: Callable[[Session], object], role: str | None = None
) -> dict[str, Any]:
    """Run a session action and build the new view, both in one worker thread.

    Off the event loop (agents think there; GDL games can be slow to ask), in one
    hop because each hop between the loop and a thread costs a GIL hand-over.
    """

    def act() -> dict[str, Any]:
        action(session)
        return session_view(st.boards, session, role)

    return await run_in_threadpool(act)


def _game_and_rules(st: AppState, req: NewSession) -> tuple[Game[Any], str]:
    if req.kif_id is not None:
        if req.kif_id not in st.uploaded:
            raise NotFoundError(f"no uploaded game {req.kif_id!r}; upload the rules again")
        name, text, game = st.uploaded[req.kif_id]
        return (game or load_checked_kif(text, name)), text
    if not req.game:
        raise SessionError("say which game: 'game' (a registered name) or 'kif_id'")
    if req.game not in games():
        # Never a path: this server loads its registered games by name, and other rules
        # (uploaded, or a library game's) through a load that gives a kif id.
        raise NotFoundError(
            f"no registered game {req.game!r}; a library game is loaded first "
            "(/api/games/NAME/load), other rules are uploaded (/api/kif/games)"
        )
    game = load(req.game, engine=req.engine)
    try:
        rules = rules_path(req.game).read_text(encoding="utf-8")
    except (GameError, OSError):
        rules = ""
    return game, rules
