"""ggpkit: a General Game Playing toolkit.

Games defined by rules (native engines and any GDL game), played, solved and
served. The core API::

    import ggpkit
    game = ggpkit.load("peg")
    state = game.initial_state()
    moves = game.legal_moves(state, "jumper")
    state = game.next_state(state, {"jumper": moves[0]})
    ggpkit.display(game, state)   # draws itself in a notebook (SVG)
"""

from ggpkit import games
from ggpkit.errors import GgpkitError
from ggpkit.games.api import (
    Dynamics,
    Game,
    GameError,
    GameInfo,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
    UnknownRoleError,
    Utility,
)
from ggpkit.games.board.display import display
from ggpkit.games.capabilities import Capabilities
from ggpkit.games.registry import load, load_kif
from ggpkit.gdl.kif import GdlSyntaxError, parse_term
from ggpkit.gdl.terms import Const, Func, Term, Var

__version__ = "0.1.0"

__all__ = [
    "Capabilities",
    "Const",
    "Dynamics",
    "Func",
    "Game",
    "GameError",
    "GameInfo",
    "GameOverError",
    "GdlSyntaxError",
    "GgpkitError",
    "IllegalMoveError",
    "InvalidMoveError",
    "MoveError",
    "Term",
    "UnknownRoleError",
    "Utility",
    "Var",
    "__version__",
    "display",
    "games",
    "load",
    "load_kif",
    "parse_term",
]
