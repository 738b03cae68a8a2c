"""MCTS over a native game: its own bitboard kernels stepped in the generic array tree."""
