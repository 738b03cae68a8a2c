"""The prover: GDL rules answered by resolution (the oracle), and its join code compiled to
Python for rules that do not ground.
"""
