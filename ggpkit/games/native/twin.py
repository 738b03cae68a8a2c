"""What a native engine takes from its GDL twin: its vocabulary.

A native engine's facts and moves are its twin's (the tests compare them), and the
twin's grounded network lists them exhaustively, so the native engines lend them from
it rather than keep copies.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ggpkit.games.api import Game, Propositions


@cache
def twin(name: str) -> Game[Any]:
    """The GDL twin of a registered game, on the propnet, loaded once."""
    from ggpkit.games.gdl.game import load_kif_file
    from ggpkit.games.registry import rules_path

    return load_kif_file(rules_path(name), reasoner="propnet")


class FromTwin:
    """Mixin for native games: the twin's :meth:`propositions`."""

    name: str

    def propositions(self) -> Propositions:
        """The possible facts and moves, from the grounded GDL twin (the same vocabulary)."""
        return twin(self.name).propositions()
