"""Stored matches: listed, shown for replay, downloaded and imported as ggp.org match JSON.

A match of a game of imperfect information is replayed from the true state or from
one role's view, and only once it is over: while it is played the true state is
nobody's to see (its players see their views on the play page).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ggpkit.games.registry import games, load
from ggpkit.match.records import MatchRecord, RecordError
from ggpkit.web.role_views import hides_state, replay_role_view
from ggpkit.web.sessions import ForbiddenError
from ggpkit.web.state import AppState, State
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
def get_match(match_id: str, st: State, view: str = "true") -> dict[str, Any]:
    """A stored match for replay: ``view=true`` (the default) the true state, every move
    and percept; ``view=ROLE`` that role's moves and percepts only. 403 for a match of
    imperfect information that is still being played."""
    record = _replayable(st, match_id)
    if view == "true":
        return record_view(st.boards, record)
    game = load(record.game_name) if record.game_name in games() else None
    return replay_role_view(game, record, view)


@router.get("/api/matches/{match_id}/json")
def download_match(match_id: str, st: State) -> Response:
    """The match as ggp.org match JSON with the rules embedded."""
    record = _replayable(st, match_id)
    return Response(
        record.dumps(),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{record.match_id}.json"'},
    )


def _replayable(st: AppState, match_id: str) -> MatchRecord:
    """The stored record, unless it would show a hidden state still in play (403)."""
    record = st.store.load(match_id)
    live = st.sessions.is_live(record.match_id) and st.sessions.get(record.match_id).hidden
    over = record.is_completed or record.is_aborted
    if live or (hides_state(record) and not over):
        raise ForbiddenError(
            f"{record.match_id} is a game of hidden information still being played: its "
            "replay opens when it ends"
        )
    return record


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
