"""Games defined by GDL rules: the game contract on top of any reasoner, with the propnet that
is still compiling and the playout probe.
"""
