"""MCTS over a propnet: whole iterations in compiled code, wins-in-one at new nodes, and the
tree behind a GDL game's contract.
"""
