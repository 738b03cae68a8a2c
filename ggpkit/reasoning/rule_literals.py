"""The shapes a rule takes on its way to the grounder: flattened literals and parts.

Shared by :mod:`~ggpkit.reasoning.rule_parts` (flattening, splitting) and
:mod:`~ggpkit.reasoning.rule_projection` (projecting variables out).
"""

from __future__ import annotations

from typing import Any

from ggpkit.gdl.terms import Func, Term, variables

AUX_PREFIX = "aux "
"""How the auxiliary relations made here are named (a space never occurs in a GDL symbol)."""

Predicate = tuple[str, int]

Lit = tuple[Any, ...]
"""A body literal after ``or`` expansion: ``("pos"|"neg", atom)`` or ``("ne"|"eq", a, b)``."""

Part = tuple[Term, list[Lit]]
"""A rule as the grounder reads it: a head and a conjunction of literals."""


def predicate(t: Term) -> Predicate:
    return (t.name, len(t.args) if isinstance(t, Func) else 0)


def literal_variables(lit: Lit) -> set[str]:
    if lit[0] in ("pos", "neg"):
        return variables(lit[1])
    return variables(lit[1]) | variables(lit[2])


def body_variables(body: list[Lit]) -> set[str]:
    return set().union(set(), *(literal_variables(lit) for lit in body))
