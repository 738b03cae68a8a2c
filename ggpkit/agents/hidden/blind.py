"""The ``blind`` baseline: the default search from views, but deaf to its percepts.

To show that a player uses what it sees, it must beat the same player that does not.
This one keeps its bag of histories as the default player does, but samples histories
that give its own moves only (:mod:`~ggpkit.games.information` with ``use_percepts``
off): every state its moves could have led to counts as possible, whatever it was told.
"""

from __future__ import annotations

from ggpkit.agents.base import Limit
from ggpkit.agents.hidden.ismcts import DEFAULT_C, ISMCTSAgent


class BlindAgent(ISMCTSAgent):
    """SO-ISMCTS over histories sampled from its own moves only, ignoring its percepts."""

    name = "blind"

    def __init__(
        self,
        limit: Limit | None = None,
        seed: int | None = None,
        bag: int = 16,
        c: float = DEFAULT_C,
        opponents: int = 1,
    ) -> None:
        super().__init__(limit, seed, bag, c, opponents, use_percepts=False)
