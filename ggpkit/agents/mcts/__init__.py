"""Monte Carlo tree search for any game: the agent, its Python tree, the driver of a game's
compiled tree, the heuristics decided per game, and root-parallel workers.
"""
