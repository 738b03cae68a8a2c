"""GDL rules from the page: checked, uploaded (at once or as a background load with
progress), and the public games of the configured folder."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ggpkit.web.kif_upload import MAX_KIF_CHARS, check_kif_text, load_checked_kif
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
    """The public GDL games of the configured folder (empty when there is none)."""
    gdir = st.games_dir
    if gdir is None or not gdir.is_dir():
        return []
    return sorted(p.name for p in gdir.glob("*.kif"))


@router.get("/api/kif/public/{name}")
def public_game_text(name: str, st: State) -> dict[str, str]:
    gdir = st.games_dir
    if gdir is None or "/" in name or "\\" in name or not name.endswith(".kif"):
        raise HTTPException(404, f"no public game {name!r}")
    path = (gdir / name).resolve()
    if path.parent != gdir.resolve() or not path.is_file():
        raise HTTPException(404, f"no public game {name!r}")
    if path.stat().st_size > MAX_KIF_CHARS * 4:
        raise HTTPException(413, f"{name} is larger than uploaded rules may be")
    return {"name": name, "text": path.read_text(encoding="utf-8", errors="replace")}
