"""Searches for one-role games (puzzles): nested Monte Carlo search, a depth-first solver, goal
monotony.
"""
