"""The shapes a rule takes on its way to the grounder: flattened literals and parts.

Shared by :mod:`~ggpkit.reasoning.grounding.rule_parts` (flattening, splitting) and
:mod:`~ggpkit.reasoning.grounding.projection` (projecting variables out).
"""

from __future__ import annotations

from typing import Any

from ggpkit.gdl.terms import Const, Func, Term, Var, variables

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


def within(lit: Lit, names: set[str]) -> bool:
    """Whether ``lit`` has variables, all of them among ``names`` (a guard's test)."""
    own = literal_variables(lit)
    return bool(own) and own <= names


def new_aux(counter: list[int], variables_kept: list[str]) -> Term:
    """The head of the next auxiliary relation (numbered by ``counter``) over those variables."""
    counter[0] += 1
    name = f"{AUX_PREFIX}{counter[0]}"
    return Func(name, tuple(Var(v) for v in variables_kept)) if variables_kept else Const(name)
