"""``ggpkit.display(game, state)``: a state that draws itself in a notebook.

Jupyter shows an object by its ``_repr_svg_``; python-chess's boards do the same. The
board is the web app's: inferred once per game from the facts it may hold
(:mod:`~ggpkit.games.board.layout`), so any GDL game with a board draws, and a game
without one shows its facts. What the board does not show (whose turn, counters)
is written under it.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.board.facts import possible_facts
from ggpkit.games.board.layout import Layout, board_view, infer_layout, other_facts
from ggpkit.games.board.svg import board_svg, facts_svg

KEPT_LAYOUTS = 32
"""Games whose layout is kept (the oldest is dropped): each keeps its game alive."""

_layouts: dict[int, tuple[Game[Any], Layout | None]] = {}
_lock = threading.Lock()


def layout_of(game: Game[Any]) -> Layout | None:
    """The game's board layout (None: no board), inferred on first use and kept."""
    with _lock:
        found = _layouts.get(id(game))
    if found is not None and found[0] is game:
        return found[1]
    known = possible_facts(game)  # outside the lock: the prover's playouts take a while
    initial = game.facts(game.initial_state())
    layout = infer_layout(initial, known.facts, game.info.capabilities.board, known.complete)
    with _lock:
        _layouts[id(game)] = (game, layout)  # the game is kept, so its id is not reused
        while len(_layouts) > KEPT_LAYOUTS:
            del _layouts[next(iter(_layouts))]
    return layout


@dataclass(frozen=True)
class Display:
    """A game's state as a picture: ``svg()``, and ``_repr_svg_`` for notebooks."""

    game: Game[Any]
    state: Hashable

    def svg(self) -> str:
        """The state as one standalone SVG document: its board, else its facts."""
        facts = self.game.facts(self.state)
        layout = layout_of(self.game)
        if layout is None:
            return facts_svg(other_facts(None, facts))
        return board_svg(board_view(layout, facts), other_facts(layout, facts))

    def _repr_svg_(self) -> str:
        return self.svg()

    def __str__(self) -> str:
        return "\n".join(other_facts(None, self.game.facts(self.state)))


def display(game: Game[Any], state: Hashable | None = None) -> Display:
    """A view of ``state`` (default: the initial state) that draws itself in Jupyter."""
    return Display(game, game.initial_state() if state is None else state)
