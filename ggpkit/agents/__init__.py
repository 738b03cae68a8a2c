"""Agents that choose moves through the game API: random, MCTS, alpha-beta, solvers, human."""
