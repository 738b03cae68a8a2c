"""Stored tournaments: their data as JSON, and their pages rendered on the server."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from ggpkit.store.tournaments import TournamentStore
from ggpkit.web.state import State
from ggpkit.web.tournament_page import tournament_data, tournament_html, tournaments_html

router = APIRouter()


@router.get("/api/tournaments/{tournament_id}")
def get_tournament(tournament_id: str, st: State) -> dict[str, Any]:
    """Standings, cross-table, rating history and matches of a stored tournament."""
    return tournament_data(TournamentStore(st.store), tournament_id)


@router.get("/tournaments", include_in_schema=False)
def tournaments_page(st: State) -> HTMLResponse:
    return HTMLResponse(tournaments_html(TournamentStore(st.store)))


@router.get("/tournaments/{tournament_id}", include_in_schema=False)
def tournament_page(tournament_id: str, st: State) -> HTMLResponse:
    return HTMLResponse(tournament_html(get_tournament(tournament_id, st)))
