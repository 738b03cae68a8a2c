"""The web app's routes, one router per area, in the order the app includes them."""

from fastapi import APIRouter

from ggpkit.web.routes import gdl, matches, pages, play, tournaments

ROUTERS: tuple[APIRouter, ...] = (
    play.router,
    matches.router,
    tournaments.router,
    gdl.router,
    pages.router,
)
"""Play (games, agents, sessions), stored matches, tournaments, GDL upload, pages."""

__all__ = ["ROUTERS"]
