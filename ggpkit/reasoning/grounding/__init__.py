"""Grounding: GDL rules with variables turned into a propositional program by clingo, with the
rule shapes, projections and static tables that keep it small.
"""
