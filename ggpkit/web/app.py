"""The ggpkit web app: a JSON API over the library, and the pages on top of it.

``create_app(db_path)`` builds a FastAPI app whose state lives in the SQLite match
store: play sessions are match records written step by step, so a restart loses
no step. The API is documented by its OpenAPI schema (``/docs``); the front end
in ``static/`` is plain HTML, CSS and JavaScript modules that call it.

Bad input never crashes the server: game errors, illegal moves, stale versions,
unknown ids and malformed or oversized rules all become a 4xx with a message.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import secrets
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    Response,
    StreamingResponse,
)
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ggpkit.agents.specs import make_agent
from ggpkit.games.api import Game, GameError
from ggpkit.games.capabilities import Solver
from ggpkit.games.notation import move_from_text
from ggpkit.games.registry import UnknownGameError, games, load, rules_path
from ggpkit.gdl.kif import GdlSyntaxError
from ggpkit.match.records import MatchRecord, RecordError
from ggpkit.store.sqlite import MatchExistsError, MatchStore, StoreError
from ggpkit.store.tournaments import TournamentStore
from ggpkit.tools.warmup import warm_up
from ggpkit.web.docs import add_docs
from ggpkit.web.guards import LOCAL_HOSTS, MAX_BODY_BYTES, RequestGuard
from ggpkit.web.kif_jobs import LoadJobs, TooManyLoads
from ggpkit.web.kif_upload import MAX_KIF_CHARS, KifRejected, check_kif_text, load_checked_kif
from ggpkit.web.sessions import (
    HUMAN,
    NotFoundError,
    Session,
    SessionError,
    SessionManager,
    StaleVersionError,
)
from ggpkit.web.tournament_page import tournament_data, tournament_html, tournaments_html
from ggpkit.web.views import Boards, record_view, session_view

STATIC_DIR = Path(str(resources.files("ggpkit.web") / "static"))

MAX_IMPORT_BYTES = 5_000_000
"""Largest match JSON ``/api/matches/import`` reads (the rules are embedded in it)."""

TOKEN_HEADER = "X-Session-Token"
"""The header that carries a session's token on every request that changes the session."""


class ForbiddenError(SessionError):
    """A request to change a session without that session's token."""


class NewSession(BaseModel):
    """Start a game: a registered game (``game``) or an uploaded one (``kif_id``)."""

    game: str | None = None
    engine: str = "native"
    kif_id: str | None = None
    seats: dict[str, str] = Field(default_factory=dict)
    agent_time: float = Field(default=1.0, gt=0, le=60)


class MoveRequest(BaseModel):
    role: str
    move: str
    version: int | None = None


class KifText(BaseModel):
    text: str = Field(max_length=MAX_KIF_CHARS)
    name: str = "uploaded.kif"


class AppState:
    """Everything the routes share: the store, the sessions, uploaded games, layouts."""

    def __init__(self, db_path: Path, games_dir: Path | None) -> None:
        self.store = MatchStore(db_path)
        self.sessions = SessionManager(self.store, make_agent)
        self.uploaded: dict[str, tuple[str, str, Game[Any] | None]] = {}  # kif_id -> rules
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
        return {"kif_id": kif_id, "name": game.name, "roles": list(game.roles),
                "reasoner": game.info.reasoner, "notes": list(game.info.notes)}  # fmt: skip

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

    def hint(self, session: Session) -> dict[str, Any]:
        """The hint solver's best move for the person to move and the score it reaches.

        One solver per game for the whole server (its memo of solved positions is kept
        between hints), used by one request at a time.
        """
        declared = session.game.info.capabilities.hint
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


def _game_and_rules(st: AppState, req: NewSession) -> tuple[Game[Any], str]:
    if req.kif_id is not None:
        if req.kif_id not in st.uploaded:
            raise NotFoundError(f"no uploaded game {req.kif_id!r}; upload the rules again")
        name, text, game = st.uploaded[req.kif_id]
        return (game or load_checked_kif(text, name)), text
    if not req.game:
        raise SessionError("say which game: 'game' (a registered name) or 'kif_id'")
    if req.game not in games():
        # Never a path: this server loads only its registered games and uploaded rules.
        raise NotFoundError(
            f"no registered game {req.game!r}; other games are uploaded (/api/kif/games)"
        )
    game = load(req.game, engine=req.engine)
    try:
        rules = rules_path(req.game).read_text(encoding="utf-8")
    except (GameError, OSError):
        rules = ""
    return game, rules


def create_app(
    db_path: Path | str,
    games_dir: Path | str | None = None,
    allowed_hosts: Iterable[str] = LOCAL_HOSTS,
) -> FastAPI:
    """The web app over the match store at ``db_path``, answering for ``allowed_hosts``."""
    gdir = Path(games_dir) if games_dir else _default_games_dir()
    holder: dict[str, AppState] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        holder["st"] = AppState(Path(db_path), gdir)
        for name in games():  # load and compile the games before the first request needs them
            await run_in_threadpool(warm_up, load(name))
        await run_in_threadpool(_restore_sessions, holder["st"])
        yield
        holder["st"].store.close()

    app = FastAPI(
        title="ggpkit",
        summary="Play, watch and replay General Game Playing games.",
        lifespan=lifespan,
        docs_url=None,  # served from packaged assets by add_docs (no CDN)
        redoc_url=None,
    )
    add_docs(app)

    app.add_middleware(
        RequestGuard,
        allowed_hosts=allowed_hosts,
        body_limit=lambda path: (
            MAX_IMPORT_BYTES if path == "/api/matches/import" else MAX_BODY_BYTES
        ),
    )

    def st() -> AppState:
        return holder["st"]

    @app.exception_handler(GameError)
    async def _game_error(request: Request, exc: GameError) -> JSONResponse:
        status = 400
        if isinstance(exc, NotFoundError | UnknownGameError):
            status = 404
        elif isinstance(exc, ForbiddenError):
            status = 403
        elif isinstance(exc, StaleVersionError):
            status = 409
        elif isinstance(exc, TooManyLoads):
            status = 429
        return JSONResponse({"error": str(exc)}, status_code=status)

    @app.exception_handler(GdlSyntaxError)
    async def _syntax_error(request: Request, exc: GdlSyntaxError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    @app.exception_handler(StoreError)
    async def _store_error(request: Request, exc: StoreError) -> JSONResponse:
        status = 409 if isinstance(exc, MatchExistsError) else 404
        return JSONResponse({"error": str(exc)}, status_code=status)

    @app.exception_handler(KifRejected)
    async def _kif_rejected(request: Request, exc: KifRejected) -> JSONResponse:
        return JSONResponse({"error": str(exc), "problems": exc.problems}, status_code=422)

    # ---- games and agents --------------------------------------------------------------

    @app.get("/api/games")
    def list_games() -> list[dict[str, Any]]:
        """The registered games with their roles."""
        out = []
        for name, description in games().items():
            game = load(name)
            out.append({"name": name, "description": description, "roles": list(game.roles)})
        return out

    @app.get("/api/agents")
    def list_agents() -> list[str]:
        """Agent specs offered in the seat menus (``human`` is a person at this screen)."""
        return [HUMAN, "random", "mcts", "alphabeta", "solver"]

    # ---- sessions -------------------------------------------------------------------------

    @app.post("/api/sessions", status_code=201)
    async def new_session(req: NewSession) -> dict[str, Any]:
        """Start a game with the given seats (role -> ``human`` or an agent spec)."""

        def start() -> dict[str, Any]:
            game, rules = _game_and_rules(st(), req)
            session = st().sessions.create(game, rules, req.seats, req.agent_time)
            return {**session_view(st().boards, session), "token": st().token(session.id)}

        return await run_in_threadpool(start)

    @app.get("/api/sessions/{session_id}")
    def get_session(session_id: str) -> dict[str, Any]:
        return session_view(st().boards, st().sessions.get(session_id))

    @app.post("/api/sessions/{session_id}/move")
    async def post_move(session_id: str, req: MoveRequest, request: Request) -> dict[str, Any]:
        """A person's move; 400 with the reason when illegal, 409 when the view was stale."""
        session = st().authorised(session_id, request)
        text = move_from_text(session.game, req.move)  # a short form (d2-d4) or a GDL term
        move = partial(st().sessions.move, role=req.role, move=text, version=req.version)
        return await _act(session, move)

    @app.post("/api/sessions/{session_id}/agent")
    async def agent_move(session_id: str, request: Request) -> dict[str, Any]:
        """Let the agent(s) to move play one step (no-op when a person must move)."""
        session = st().authorised(session_id, request)
        await st().sessions.agent_step(session)  # agents think without holding a worker thread
        return await run_in_threadpool(session_view, st().boards, session)

    @app.post("/api/sessions/{session_id}/undo")
    async def undo(session_id: str, request: Request) -> dict[str, Any]:
        """Take back moves to the last turn of a person."""
        return await _act(st().authorised(session_id, request), st().sessions.undo)

    @app.post("/api/sessions/{session_id}/redo")
    async def redo(session_id: str, request: Request) -> dict[str, Any]:
        """Replay the joint move that the last undo took back."""
        return await _act(st().authorised(session_id, request), st().sessions.redo)

    async def _act(session: Session, action: Callable[[Session], object]) -> dict[str, Any]:
        """Run a session action and build the new view, both in one worker thread.

        Off the event loop (agents think there; GDL games can be slow to ask), in one
        hop because each hop between the loop and a thread costs a GIL hand-over.
        """

        def act() -> dict[str, Any]:
            action(session)
            return session_view(st().boards, session)

        return await run_in_threadpool(act)

    @app.get("/api/sessions/{session_id}/hint")
    async def hint(session_id: str) -> dict[str, Any]:
        """The best move and the best reachable score, for games that declare a hint."""
        session = st().sessions.get(session_id)
        return await run_in_threadpool(st().hint, session)

    @app.get("/api/sessions/{session_id}/events")
    async def events(session_id: str, request: Request) -> StreamingResponse:
        """Server-sent events: one ``version`` event each time the session changes."""
        session = st().sessions.get(session_id)

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

    # ---- stored matches ---------------------------------------------------------------------

    @app.get("/api/matches")
    def list_matches(
        game: str | None = None, source: str | None = None, limit: int = 200
    ) -> list[dict[str, Any]]:
        """Stored matches, newest first; filter by game and by source."""
        rows = st().store.matches(game=game, limit=max(1, min(limit, 1000)))
        return [
            {
                "id": m.match_id,
                "game": m.game_name,
                "start_time": m.start_time,
                "steps": m.steps,
                "players": m.players,
                "goals": m.goal_values,
                "completed": m.is_completed,
                "aborted": m.is_aborted,
                "source": m.source,
                "live": st().sessions.is_live(m.match_id),
            }
            for m in rows
            if source is None or m.source == source
        ]

    @app.get("/api/matches/{match_id}")
    def get_match(match_id: str) -> dict[str, Any]:
        return record_view(st().boards, st().store.load(match_id))

    @app.get("/api/matches/{match_id}/json")
    def download_match(match_id: str) -> Response:
        """The match as ggp.org match JSON with the rules embedded."""
        record = st().store.load(match_id)
        return Response(
            record.dumps(),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{record.match_id}.json"'},
        )

    @app.post("/api/matches/import", status_code=201)
    async def import_match(request: Request) -> dict[str, Any]:
        """Store a ggp.org match JSON (a JSON body of at most 5 MB); 409 if its id is taken.

        An imported match is a stored match only: it never becomes a live session.
        """
        body = await request.body()  # the guard has checked its type and size
        try:
            record = MatchRecord.loads(body.decode("utf-8", errors="replace"))
        except RecordError as e:
            raise HTTPException(400, f"not a match record: {e}") from None
        if record.source == "web":
            record.source = "import"
        await run_in_threadpool(st().store.add, record)
        return {"id": record.match_id}

    # ---- tournaments ------------------------------------------------------------------------

    @app.get("/api/tournaments/{tournament_id}")
    def get_tournament(tournament_id: str) -> dict[str, Any]:
        """Standings, cross-table, rating history and matches of a stored tournament."""
        return tournament_data(TournamentStore(st().store), tournament_id)

    @app.get("/tournaments", include_in_schema=False)
    def tournaments_page() -> HTMLResponse:
        return HTMLResponse(tournaments_html(TournamentStore(st().store)))

    @app.get("/tournaments/{tournament_id}", include_in_schema=False)
    def tournament_page(tournament_id: str) -> HTMLResponse:
        return HTMLResponse(tournament_html(get_tournament(tournament_id)))

    # ---- GDL upload -----------------------------------------------------------------------

    @app.post("/api/kif/check")
    async def check_kif(req: KifText) -> dict[str, Any]:
        """Check rules: problems as ``line:col: severity: message`` (200 even when invalid)."""
        problems = await run_in_threadpool(check_kif_text, req.text, req.name)
        return {"ok": not any(p["severity"] == "error" for p in problems), "problems": problems}

    @app.post("/api/kif/games", status_code=201)
    async def upload_kif(req: KifText) -> dict[str, Any]:
        """Check and load uploaded rules (time-limited); the id starts sessions of it."""
        game = await run_in_threadpool(load_checked_kif, req.text, req.name)
        return await run_in_threadpool(st().loaded, req.name, req.text, game)

    @app.post("/api/kif/loads", status_code=202)
    def start_load(req: KifText) -> dict[str, Any]:
        """Start loading rules in the background; poll ``/api/kif/loads/{id}`` for its stage."""
        return st().loads.start(req.text, req.name).view()

    @app.get("/api/kif/loads/{job_id}")
    def load_progress(job_id: str) -> dict[str, Any]:
        """A load's stage and seconds; at the end its ``result`` (a kif id) or ``error``."""
        job = st().loads.get(job_id)
        if job is None:
            raise NotFoundError(f"no load {job_id!r}")
        return job.view()

    @app.get("/api/kif/public")
    def public_games() -> list[str]:
        """The public GDL games of the configured folder (empty when there is none)."""
        gdir = st().games_dir
        if gdir is None or not gdir.is_dir():
            return []
        return sorted(p.name for p in gdir.glob("*.kif"))

    @app.get("/api/kif/public/{name}")
    def public_game_text(name: str) -> dict[str, str]:
        gdir = st().games_dir
        if gdir is None or "/" in name or "\\" in name or not name.endswith(".kif"):
            raise HTTPException(404, f"no public game {name!r}")
        path = (gdir / name).resolve()
        if path.parent != gdir.resolve() or not path.is_file():
            raise HTTPException(404, f"no public game {name!r}")
        if path.stat().st_size > MAX_KIF_CHARS * 4:
            raise HTTPException(413, f"{name} is larger than uploaded rules may be")
        return {"name": name, "text": path.read_text(encoding="utf-8", errors="replace")}

    # ---- pages ------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def _restore_sessions(st: AppState) -> None:
    """Rebuild the unfinished web sessions from the store after a restart."""
    from ggpkit.web.restore import restore_sessions

    restore_sessions(st.store, st.sessions, st.add_upload)


def _default_games_dir() -> Path | None:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    if env:
        return Path(env)
    candidate = Path.cwd().parent / "shared" / "ggp-games"
    return candidate if candidate.is_dir() else None
