"""The web app's statuses come from one table, read along each error's classes."""

from __future__ import annotations

from ggpkit.agents.solvers.generic import NodeLimitError
from ggpkit.errors import GgpkitError
from ggpkit.games.api import GameError, IllegalMoveError
from ggpkit.games.registry import UnknownGameError
from ggpkit.gdl.terms import const
from ggpkit.search.contract import SimultaneousMovesError
from ggpkit.store.sqlite import MatchExistsError, StoreError
from ggpkit.web.app import ERROR_STATUS, error_status
from ggpkit.web.kif_jobs import TooManyLoads
from ggpkit.web.kif_upload import KifRejected, RulesTooLarge
from ggpkit.web.sessions import ForbiddenError, NotFoundError, SessionError, StaleVersionError


def test_each_error_takes_the_status_of_its_nearest_listed_class() -> None:
    cases = [
        (GameError("x"), 400),
        (IllegalMoveError(const("m"), "r", "not legal"), 400),
        (UnknownGameError("x"), 404),
        (NodeLimitError("g", 10), 400),
        (SimultaneousMovesError("x"), 400),
        (SessionError("x"), 400),
        (NotFoundError("x"), 404),
        (ForbiddenError("x"), 403),
        (StaleVersionError("x"), 409),
        (TooManyLoads("x"), 429),
        (KifRejected("x"), 422),
        (RulesTooLarge("x"), 413),
        (StoreError("x"), 404),
        (MatchExistsError("x"), 409),
    ]
    assert [(type(e).__name__, error_status(e)) for e, _ in cases] == [
        (type(e).__name__, status) for e, status in cases
    ]


def test_an_error_of_no_listed_class_is_a_server_fault() -> None:
    assert error_status(GgpkitError("x")) == 500
    assert error_status(RuntimeError("x")) == 500
    assert all(400 <= status < 500 for status in ERROR_STATUS.values())
