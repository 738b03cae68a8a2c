"""The generic compiled UCT tree: its arrays, selection, virtual losses, solver proofs and
compaction, over any way of stepping states.
"""
