"""ggpkit: a General Game Playing toolkit.

Games defined by rules (native engines and any GDL game), played, solved and
served. The core API::

    import ggpkit
    game = ggpkit.load("peg")
    state = game.initial_state()
    moves = game.legal_moves(state, "jumper")
    state = game.next_state(state, {"jumper": moves[0]})
"""

from ggpkit.games.api import (
    Game,
    GameError,
    GameInfo,
    GameOverError,
    IllegalMoveError,
    UnknownRoleError,
)
from ggpkit.games.registry import games, load, load_kif
from ggpkit.gdl.kif import GdlSyntaxError, parse_term
from ggpkit.gdl.terms import Const, Func, Term, Var

__version__ = "0.1.0"

__all__ = [
    "Const",
    "Func",
    "Game",
    "GameError",
    "GameInfo",
    "GameOverError",
    "GdlSyntaxError",
    "IllegalMoveError",
    "Term",
    "UnknownRoleError",
    "Var",
    "__version__",
    "games",
    "load",
    "load_kif",
    "parse_term",
]
