"""The MCTS agent's options: its searches' (:class:`~ggpkit.search.options.SearchOptions`)
and its own, each stated once with its default, parser and help (``mcts:threads=4``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ggpkit.agents.mcts.batch_split import LANES
from ggpkit.agents.mcts.python_tree import PYTHON_TREE_NODES
from ggpkit.search.options import SearchOptions, flag, option, positive_int


@dataclass(frozen=True, slots=True)
class MCTSOptions(SearchOptions):
    """How the MCTS agent searches: its trees' options and its own."""

    threads: int = field(
        default=1, metadata=option(positive_int, "N: parallel searches, one per core")
    )
    compiled: bool = field(
        default=True,
        metadata=option(
            flag, "0: the tree in Python even where the game has a compiled one (1: the game's)"
        ),
    )
    nodes: int | None = field(
        default=None,
        metadata=option(
            positive_int,
            "N: most nodes the tree holds",
            f"the compiled tree's share of memory, {PYTHON_TREE_NODES:,} in Python",
        ),
    )


def clamped(options: MCTSOptions) -> MCTSOptions:
    """``options`` within their ranges (what a spec's parsers check, for options given in
    code): shares within 0..1, at least one playout a leaf, 1 to 64 paths."""

    def unit(value: float) -> float:
        return min(1.0, max(0.0, value))

    o = options
    return replace(
        o,
        leaf=max(1, o.leaf),
        grave=max(0, o.grave),
        paths=None if o.paths is None else min(LANES, max(1, o.paths)),
        goals=None if o.goals is None else unit(o.goals),
        material=None if o.material is None else unit(o.material),
        minimax=unit(o.minimax),
        mobility=unit(o.mobility),
        nested=unit(o.nested),
        dfs=unit(o.dfs),
    )
