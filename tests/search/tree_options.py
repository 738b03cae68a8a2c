"""Options for the tests that search a compiled tree directly."""

from __future__ import annotations

from typing import Any

from ggpkit.search.options import SearchOptions


def plain_options(**given: Any) -> SearchOptions:
    """``given`` over what a tree searched with unless told before its options were the
    agent's: no proofs of wins in one, no depth-first solver, no goal-monotonicity."""
    return SearchOptions(**{"wins": False, "dfs": 0.0, "monotone": False, **given})
