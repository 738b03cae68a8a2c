"""Stored matches: listed, shown for replay, downloaded and imported as ggp.org match JSON."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ggpkit.match.records import MatchRecord, RecordError
from ggpkit.web.state import State
from ggpkit.web.views import record_view

router = APIRouter()


@router.get("/api/matches")
def list_matches(
    st: State, game: str | None = None, source: str | None = None, limit: int = 200
) -> list[dict[str, Any]]:
    """Stored matches, newest first; filter by game and by source."""
    rows = st.store.matches(game=game, limit=max(1, min(limit, 1000)))
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
            "live": st.sessions.is_live(m.match_id),
        }
        for m in rows
        if source is None or m.source == source
    ]


@router.get("/api/matches/{match_id}")
def get_match(match_id: str, st: State) -> dict[str, Any]:
    return record_view(st.boards, st.store.load(match_id))


@router.get("/api/matches/{match_id}/json")
def download_match(match_id: str, st: State) -> Response:
    """The match as ggp.org match JSON with the rules embedded."""
    record = st.store.load(match_id)
    return Response(
        record.dumps(),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{record.match_id}.json"'},
    )


@router.post("/api/matches/import", status_code=201)
async def import_match(request: Request, st: State) -> dict[str, Any]:
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
    await run_in_threadpool(st.store.add, record)
    return {"id": record.match_id}
