"""GDL rules flattened the way the grounder and its estimate read them.

A rule's body may hold ``or``, ``not`` and ``distinct`` nested in any way; the
grounder (and the estimate that runs before it) want plain conjunctions. Here
every ``or`` is split into several bodies, negation is pushed onto atoms, and a
body whose literals fall into independent groups is split into auxiliary
relations, so that both read the same program.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

from ggpkit.gdl.kif import Rule
from ggpkit.gdl.terms import Const, Func, Term, Var, variables
from ggpkit.reasoning.base import GroundingError

IGNORED_HEADS = frozenset({"base", "input"})
"""Relations that only describe the game's vocabulary; the grounder skips them."""

Predicate = tuple[str, int]
Part = tuple[Term, list["Lit"]]

# A body literal after 'or' expansion: ("pos"|"neg", atom term) or ("ne"|"eq", a, b).
Lit = tuple[Any, ...]


def _dnf(lit: Term, negated: bool = False) -> list[list[Lit]]:
    """A body literal as a disjunction of conjunctions of simple literals."""
    if isinstance(lit, Func) and lit.name == "not" and len(lit.args) == 1:
        return _dnf(lit.args[0], not negated)
    if isinstance(lit, Func) and lit.name == "or":
        parts = [_dnf(a, negated) for a in lit.args]
        if not negated:
            return [conj for p in parts for conj in p]
        # not (a or b) = not a and not b
        return [_concat(combo) for combo in itertools.product(*parts)]
    if isinstance(lit, Func) and lit.name == "distinct":
        if len(lit.args) != 2:
            raise GroundingError(f"distinct needs two arguments: {lit}")
        return [[("eq" if negated else "ne", lit.args[0], lit.args[1])]]
    return [[("neg" if negated else "pos", lit)]]


def _concat(parts: Sequence[list[Lit]]) -> list[Lit]:
    return [x for part in parts for x in part]


def _expand(rule: Rule) -> list[list[Lit]]:
    """The bodies of a rule once every 'or' is split."""
    parts = [_dnf(lit) for lit in rule.body]
    return [_concat(combo) for combo in itertools.product(*parts)]


def predicate(t: Term) -> tuple[str, int]:
    return (t.name, len(t.args) if isinstance(t, Func) else 0)


def literal_variables(lit: Lit) -> set[str]:
    if lit[0] in ("pos", "neg"):
        return variables(lit[1])
    return variables(lit[1]) | variables(lit[2])


def _split(head: Term, body: list[Lit], counter: list[int]) -> list[tuple[Term, list[Lit]]]:
    """Split a body into independent parts, each its own auxiliary relation.

    ``next(c X) :- true(c X), does(a, m(P)), near(X, P), does(b, m(Q)), near(X, Q)``
    grounds to one rule per (X, P, Q): a cross product of the two roles' moves. The
    literals joined by non-head variables form components (here one per role);
    each component ``C`` with head variables ``V`` becomes ``aux(V) :- C``, so the
    ground program grows with the sum of the components, not their product. A
    component is only split off when its positive literals bind all of ``V``.
    """
    hv = variables(head)
    local = [literal_variables(lit) - hv for lit in body]
    parent = list(range(len(body)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, vs in enumerate(local):
        for v in vs:
            if v in owner:
                parent[find(i)] = find(owner[v])
            else:
                owner[v] = i
    comps: dict[int, list[int]] = {}
    for i, vs in enumerate(local):
        if vs:
            comps.setdefault(find(i), []).append(i)
    if len(comps) < 2:
        return [(head, body)]
    grouped = {i for idx in comps.values() for i in idx}
    main = [lit for i, lit in enumerate(body) if i not in grouped]
    out: list[tuple[Term, list[Lit]]] = []
    for idx in comps.values():
        part = [body[i] for i in idx]
        iface = sorted(set().union(*(literal_variables(lit) for lit in part)) & hv)
        bound = set().union(*(variables(lit[1]) for lit in part if lit[0] == "pos"))
        if not set(iface) <= bound:
            main.extend(part)
            continue
        counter[0] += 1
        name = f"aux {counter[0]}"  # a space never occurs in a GDL symbol
        aux: Term = Func(name, tuple(Var(v) for v in iface)) if iface else Const(name)
        out.append((aux, part))
        main.append(("pos", aux))
    out.append((head, main))
    return out


def dynamic_predicates(rules: list[tuple[Term, list[Lit]]]) -> set[tuple[str, int]]:
    """The predicates that depend on ``true`` or ``does``: they vary between states."""
    users: dict[tuple[str, int], set[tuple[str, int]]] = {}
    for head, body in rules:
        for lit in body:
            if lit[0] in ("pos", "neg"):
                users.setdefault(predicate(lit[1]), set()).add(predicate(head))
    out = {("true", 1), ("does", 2)}
    stack = list(out)
    while stack:
        for user in users.get(stack.pop(), ()):
            if user not in out:
                out.add(user)
                stack.append(user)
    return out


def rule_parts(rules: Iterable[Rule]) -> list[Part]:
    """Every rule as ``(head, body)`` parts: ``or`` split, bodies split into components."""
    parts: list[Part] = []
    counter = [0]
    for rule in rules:
        if isinstance(rule.head, Func | Const) and rule.head.name in IGNORED_HEADS:
            continue
        for body in _expand(rule):
            parts.extend(_split(rule.head, body, counter))
    return parts


__all__ = [
    "IGNORED_HEADS",
    "Lit",
    "Part",
    "Predicate",
    "dynamic_predicates",
    "literal_variables",
    "predicate",
    "rule_parts",
]
