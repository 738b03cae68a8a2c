"""Compiled search over any way of stepping states: the MCTS trees, their solver proofs, and
the one-role searches.

A layer between reasoning and games: the trees here step a propnet
(:mod:`ggpkit.search.propnet`) or a native game's own kernels (:mod:`ggpkit.search.native`)
in the generic array tree (:mod:`ggpkit.search.tree`). Games declare a tree as a capability;
the MCTS agent (:mod:`ggpkit.agents.mcts`) drives it.
"""
