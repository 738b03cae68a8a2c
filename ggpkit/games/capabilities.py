"""What a game can do beyond the GGP contract, declared in one place (``GameInfo.capabilities``).

Agents and interfaces never test a game's class or name: they read these
declarations. A native game lists the extras it ships with (a short move
notation, an evaluation for alpha-beta, an exact solver, a hint, a compiled
search, a board style); a GDL game gets the ones it can support (compiled
playouts on the propnet). Providers are zero-argument callables that import
their implementation on first use, so declaring a solver never compiles it.

The protocols here are the whole contract between a game's extras and the
agents or interfaces that use them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ggpkit.gdl.terms import Term
from ggpkit.search.contract import TreeSearch

if TYPE_CHECKING:
    from ggpkit.games.api import Game


class MoveNotation(Protocol):
    """A short move notation for people, such as peg's ``b4-d4``."""

    help: str
    """One line explaining the short form, shown by ``help``."""

    def short(self, move: Term) -> str:
        """The short form of a move."""
        ...

    def parse(self, text: str) -> Term | None:
        """The move a short form stands for (legal or not), or None if ``text`` is not one."""
        ...


class Evaluation(Protocol):
    """A static evaluation for alpha-beta, in goal points for one role (inside +-100)."""

    forced_tactics: bool
    """True when tactical moves are compulsory (checkers jumps): no standing pat."""

    def value(self, game: Game[Any], state: Hashable, role: int) -> float:
        """The state's worth for the role at index ``role``: own goal minus the opponent's."""
        ...

    def priority(self, game: Game[Any], state: Hashable, move: Term, role: int) -> int:
        """Higher first in move ordering (captures, jumps)."""
        ...

    def noisy(self, game: Game[Any], state: Hashable, moves: list[Term], role: int) -> bool:
        """True when the static value cannot be trusted (a capture is pending)."""
        ...


@dataclass(frozen=True, slots=True)
class Solution:
    """An exact answer for one state: every role's goal under perfect play, and a best move."""

    goals: Mapping[str, int]
    move: Term | None
    """A best move of the role asked for; None in a terminal state."""
    plies: int | None = None
    """Joint moves to the end under perfect play, where the solver knows it."""
    notes: tuple[str, ...] = ()
    """What the solver found on the way, one line each (positions searched, ...)."""


class Solver(Protocol):
    """An exact solver of one game: perfect play from any reachable state."""

    def solve(self, game: Game[Any], state: Hashable, role: str) -> Solution:
        """The exact value of ``state`` and a best move for ``role``."""
        ...


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a game's own compiled search found."""

    move: Term
    depth: int
    value: float
    """For the role that searched, in goal points (as :class:`Evaluation`)."""


class Searcher(Protocol):
    """A game's own compiled alpha-beta, which the alpha-beta agent uses instead of its own."""

    def search(
        self, game: Game[Any], state: Hashable, role: str, seconds: float | None, depth: int | None
    ) -> SearchResult:
        """The best move found within ``seconds`` of wall clock or ``depth`` plies."""
        ...


@dataclass(frozen=True, slots=True)
class BoardStyle:
    """How a board game looks: which facts hold the board and how its contents are drawn.

    ``relation`` names the facts ``(relation A B content)`` that hold the board;
    ``col_arg`` (1 or 2) says which argument is the column; ``rows_down`` says that
    row values grow downwards (letters a..g from the top) rather than upwards.
    ``pieces`` maps a content word to a look: ``{"color": "#1f2937", "label": "B"}``,
    or ``{"color": "hole"}`` for a cell that is not part of the board.
    ``look`` is how the squares are drawn: ``"checkered"`` (chess, draughts), ``"grid"``
    (plain squares with lines) or ``"holes"`` (pits in a board, as peg solitaire's);
    ``""`` leaves it to the interface to guess. ``col_labels`` renames column values for
    people (``{"1": "a"}``), as the game's notation writes them; a square is then
    named by its labelled coordinates in the facts' order (``b3``, peg's ``d2``).
    """

    relation: str
    col_arg: int = 1
    rows_down: bool = False
    pieces: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    look: str = ""
    col_labels: Mapping[str, str] = field(default_factory=dict)


EndReason = Callable[[frozenset[Term]], str]
"""Why the game ended, in one sentence, from a terminal state's facts."""

TableProgress = Callable[[str, int, int], None]
"""Told (phase, done, total) while a solver table is built."""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """The extras a game declares. ``None`` or ``False``: the game does not have it."""

    compiled_playouts: bool = False
    """``playout_stats`` and ``random_playout`` run in compiled code."""
    compiled_perft: bool = False
    """``perft`` runs in compiled code."""
    notation: MoveNotation | None = None
    board: BoardStyle | None = None
    evaluation: Callable[[], Evaluation] | None = None
    solver: Callable[[], Solver] | None = None
    hint: Callable[[], Solver] | None = None
    """A solver fast enough to answer while a person waits (the web coach)."""
    search: Callable[[], Searcher] | None = None
    solver_table: Callable[[TableProgress], Path] | None = None
    """Builds the solver's table of every reachable position (once; kept in the user cache)."""
    tree_search: Callable[[int | None], TreeSearch] | None = None
    """A new compiled MCTS tree over the game's states (the propnet's, for GDL games),
    holding at most the given number of nodes (None: as many as its memory budget allows)."""
    end_reason: EndReason | None = None
    """Says why a terminal state ended the game (goal row reached, no legal move, ...)."""

    def names(self) -> tuple[str, ...]:
        """The names of the capabilities present, for listings (``compiled_playouts``, ...)."""
        return tuple(f.name for f in fields(self) if getattr(self, f.name) not in (None, False))
