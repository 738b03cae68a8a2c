"""The exception tree: every public error is a GgpkitError, and none is judged by its words."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import ggpkit
from ggpkit.errors import GgpkitError

PACKAGE_DIR = Path(ggpkit.__file__).parent

_OPTIONAL = ("ggpkit.envs", "ggpkit.tournament")  # extras whose dependencies may be missing
if importlib.util.find_spec("jax") is None or importlib.util.find_spec("ray") is None:
    _OPTIONAL += ("ggpkit.learn", "ggpkit.agents.learned")  # the learn extra (and ray)


def _modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages([str(PACKAGE_DIR)], "ggpkit."):
        if info.name.startswith(_OPTIONAL) or info.name.endswith("__main__"):
            continue
        names.append(info.name)
    return names


def _public_exception_classes() -> list[type[BaseException]]:
    found = []
    for name in _modules():
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
                and not attr.startswith("_")
            ):
                found.append(value)
    return found


def test_there_are_many_exception_classes_to_check() -> None:
    assert len(_public_exception_classes()) >= 15


@pytest.mark.parametrize("cls", _public_exception_classes(), ids=lambda c: c.__qualname__)
def test_every_public_exception_is_a_ggpkit_error(cls: type[BaseException]) -> None:
    assert issubclass(cls, GgpkitError), f"{cls.__module__}.{cls.__qualname__}"


def test_top_level_names_are_the_documented_errors() -> None:
    for name in ("GgpkitError", "GameError", "MoveError", "InvalidMoveError", "IllegalMoveError"):
        assert issubclass(getattr(ggpkit, name), GgpkitError)
    assert not issubclass(ggpkit.InvalidMoveError, ggpkit.IllegalMoveError)
    assert not issubclass(ggpkit.IllegalMoveError, ggpkit.InvalidMoveError)


_MESSAGE_MATCH = re.compile(
    r"""in\s+str\((e|exc|err|error)\)|str\((e|exc|err|error)\)\.(startswith|endswith)|"""
    r"""in\s+(problem|message|reason)\b"""
)


def test_no_decision_is_made_by_matching_message_text() -> None:
    offenders = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _MESSAGE_MATCH.search(line):
                offenders.append(f"{path.relative_to(PACKAGE_DIR)}:{number}: {line.strip()}")
    assert offenders == []


def test_import_forms_of_the_games_package() -> None:
    import ggpkit.games.api as by_path
    from ggpkit.games import api as by_from

    assert by_path is by_from
    assert "peg" in ggpkit.games()


def test_game_error_is_for_games_and_moves_only() -> None:
    """What plays, solves, referees or serves a game raises its own errors, not GameError."""
    from ggpkit.agents.alphabeta import AlphaBetaError
    from ggpkit.agents.base import AgentError, QuitGame
    from ggpkit.agents.solvers.generic import SolverError
    from ggpkit.match.arena import ArenaError
    from ggpkit.match.replay import ReplayError
    from ggpkit.search.contract import CannotSearchError
    from ggpkit.web.kif_jobs import TooManyLoads
    from ggpkit.web.kif_upload import KifRejected
    from ggpkit.web.sessions import SessionError

    others = (AgentError, AlphaBetaError, SolverError, QuitGame, ArenaError, ReplayError,
              CannotSearchError, SessionError, KifRejected, TooManyLoads)  # fmt: skip
    for cls in others:
        assert issubclass(cls, GgpkitError) and not issubclass(cls, ggpkit.GameError), cls
    assert issubclass(SolverError, AgentError) and issubclass(AlphaBetaError, AgentError)


def test_one_simultaneous_moves_error_for_trees_and_solvers() -> None:
    from ggpkit.search.contract import CannotSearchError, SimultaneousMovesError

    named = [c for c in _public_exception_classes() if c.__name__ == "SimultaneousMovesError"]
    assert named == [SimultaneousMovesError]
    assert issubclass(SimultaneousMovesError, CannotSearchError)
    error = SimultaneousMovesError("two choose", "pennies", ["a", "b"])
    assert (str(error), error.game, error.roles) == ("two choose", "pennies", ("a", "b"))
