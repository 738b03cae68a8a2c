"""Recognition: a registered native game found in GDL rules written by anyone, by what the
rules do, and played through a renaming.
"""
