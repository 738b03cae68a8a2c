"""The ggpkit web app: a JSON API over ggpkit, and the pages on top of it.

``create_app(db_path)`` builds a FastAPI app whose state lives in the SQLite match
store: play sessions are match records written step by step, so a restart loses
no step. The routes are in :mod:`ggpkit.web.routes`, one router per area; the
state they share is :class:`~ggpkit.web.state.AppState`. The API is documented by
its OpenAPI schema (``/docs``); the front end in ``static/`` is plain HTML, CSS
and JavaScript modules that call it.

Bad input never crashes the server: game errors, illegal moves, stale versions,
unknown ids and malformed or oversized rules all become a 4xx with a message,
the status read from :data:`ERROR_STATUS`.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from ggpkit.agents.base import AgentError
from ggpkit.agents.specs import make_agent
from ggpkit.games.api import GameError
from ggpkit.games.registry import UnknownGameError, games, load
from ggpkit.gdl.kif import GdlSyntaxError
from ggpkit.search.contract import SimultaneousMovesError
from ggpkit.store.sqlite import MatchExistsError, StoreError
from ggpkit.tools.warmup import warm_up
from ggpkit.web.docs import add_docs
from ggpkit.web.guards import LOCAL_HOSTS, MAX_BODY_BYTES, RequestGuard
from ggpkit.web.kif_jobs import TooManyLoads
from ggpkit.web.kif_upload import KifRejected, RulesTooLarge
from ggpkit.web.library import warm_outlines
from ggpkit.web.routes import ROUTERS
from ggpkit.web.routes.pages import STATIC_DIR
from ggpkit.web.sessions import (
    ForbiddenError,
    NotFoundError,
    SessionError,
    StaleVersionError,
)
from ggpkit.web.state import TOKEN_HEADER, AppState

MAX_IMPORT_BYTES = 5_000_000
"""Largest match JSON ``/api/matches/import`` reads (the rules are embedded in it)."""

ERROR_STATUS: dict[type[Exception], int] = {
    GameError: 400,
    UnknownGameError: 404,
    GdlSyntaxError: 400,
    AgentError: 400,
    SimultaneousMovesError: 400,
    SessionError: 400,
    NotFoundError: 404,
    ForbiddenError: 403,
    StaleVersionError: 409,
    TooManyLoads: 429,
    KifRejected: 422,
    RulesTooLarge: 413,
    StoreError: 404,
    MatchExistsError: 409,
}
"""The HTTP status of each error a request can cause. An error takes the status of the
first of its classes (along its MRO) listed here: an UnknownGameError is a 404, any
other GameError a 400. An error of no listed class is a fault of the server (500)."""


def error_status(error: Exception) -> int:
    """The status of ``error`` by :data:`ERROR_STATUS`; 500 for a class it does not list."""
    for cls in type(error).__mro__:
        status = ERROR_STATUS.get(cls)
        if status is not None:
            return status
    return 500


async def error_response(request: Request, exc: Exception) -> JSONResponse:
    """``{"error": message}`` (and the ``problems`` of rejected rules) with its status."""
    body: dict[str, Any] = {"error": str(exc)}
    if isinstance(exc, KifRejected):
        body["problems"] = exc.problems
    return JSONResponse(body, status_code=error_status(exc))


def create_app(
    db_path: Path | str,
    games_dir: Path | str | None = None,
    allowed_hosts: Iterable[str] = LOCAL_HOSTS,
) -> FastAPI:
    """The web app over the match store at ``db_path``, answering for ``allowed_hosts``.

    The Play page offers the registered games and the game library's; the GDL page lists
    the library, or the ``.kif`` files of ``games_dir`` when one is given.
    """
    gdir = Path(games_dir) if games_dir else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        st = AppState(Path(db_path), gdir, make_agent)
        app.state.ggpkit = st
        for name in games():  # load and compile the games before the first request needs them
            await run_in_threadpool(warm_up, load(name))
        await run_in_threadpool(_restore_sessions, st)
        threading.Thread(target=warm_outlines, name="ggpkit-library", daemon=True).start()
        yield
        st.store.close()

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
    for error in ERROR_STATUS:
        app.add_exception_handler(error, error_response)
    for router in ROUTERS:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def _restore_sessions(st: AppState) -> None:
    """Rebuild the unfinished web sessions from the store after a restart."""
    from ggpkit.web.restore import restore_sessions

    restore_sessions(st.store, st.sessions, st.add_upload)


__all__ = ["ERROR_STATUS", "MAX_IMPORT_BYTES", "TOKEN_HEADER", "create_app", "error_status"]
