"""GDL rules from the page: checked, uploaded (at once or as a background load with
progress), and the public games: the game library, or the folder the server was given."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ggpkit.web.kif_upload import MAX_KIF_CHARS, check_kif_text, load_checked_kif
from ggpkit.web.library import public_names, public_text
from ggpkit.web.sessions import NotFoundError
from ggpkit.web.state import State

router = APIRouter()


class KifText(BaseModel):
    text: str = Field(max_length=MAX_KIF_CHARS)
    name: str = "uploaded.kif"


@router.post("/api/kif/check")
async def check_kif(req: KifText) -> dict[str, Any]:
    """Check rules: problems as ``line:col: severity: message`` (200 even when invalid)."""
    problems = await run_in_threadpool(check_kif_text, req.text, req.name)
    return {"ok": not any(p["severity"] == "error" for p in problems), "problems": problems}


@router.post("/api/kif/games", status_code=201)
async def upload_kif(req: KifText, st: State) -> dict[str, Any]:
    """Check and load uploaded rules (time-limited); the id starts sessions of it."""
    game = await run_in_threadpool(load_checked_kif, req.text, req.name)
    return await run_in_threadpool(st.loaded, req.name, req.text, game)


@router.post("/api/kif/loads", status_code=202)
def start_load(req: KifText, st: State) -> dict[str, Any]:
    """Start loading rules in the background; poll ``/api/kif/loads/{id}`` for its stage."""
    return st.loads.start(req.text, req.name).view()


@router.get("/api/kif/loads/{job_id}")
def load_progress(job_id: str, st: State) -> dict[str, Any]:
    """A load's stage and seconds; at the end its ``result`` (a kif id) or ``error``."""
    job = st.loads.get(job_id)
    if job is None:
        raise NotFoundError(f"no load {job_id!r}")
    return job.view()


@router.get("/api/kif/public")
def public_games(st: State) -> list[str]:
    """The public GDL games as file names (``NAME.kif``): every game of the game library,
    or the ``.kif`` files of the folder given by ``ggpkit web --games-dir``."""
    return public_names(st.games_dir)


@router.get("/api/kif/public/{name}")
def public_game_text(name: str, st: State) -> dict[str, str]:
    """A public game's rules (``NAME.kif`` or ``NAME``): 404 when it is not listed, 413 when
    the file is larger than uploaded rules may be."""
    return public_text(name, st.games_dir)
