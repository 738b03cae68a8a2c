"""GDL rules flattened the way the grounder and its estimate read them.

A rule's body may hold ``or``, ``not`` and ``distinct`` nested in any way; the
grounder (and the estimate that runs before it) want plain conjunctions. Here
every ``or`` is split into several bodies, negation is pushed onto atoms, and a
body whose literals fall into independent groups is split into auxiliary
relations (and variables are projected out where that pays:
:mod:`~ggpkit.reasoning.grounding.projection`), so that both read the same program.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence

from ggpkit.gdl.kif import Rule
from ggpkit.gdl.terms import Const, Func, Term, variables
from ggpkit.reasoning.base import GroundingError
from ggpkit.reasoning.grounding.literals import (
    Lit,
    Part,
    Predicate,
    body_variables,
    literal_variables,
    new_aux,
    predicate,
    within,
)
from ggpkit.reasoning.grounding.projection import Program, definitions, eliminate, unfold, width

IGNORED_HEADS = frozenset({"base", "input"})
"""Relations that only describe the game's vocabulary; the grounder skips them."""


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


def _components(body: list[Lit], head_vars: set[str]) -> list[list[int]]:
    """Indices of the body literals joined by variables that are not the head's.

    Literals with no such variable belong to no component.
    """
    local = [literal_variables(lit) - head_vars for lit in body]
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
    return list(comps.values())


def _interface(part: list[Lit], head_vars: set[str]) -> list[str]:
    """The head variables a component shares with the rest of the rule."""
    return sorted(body_variables(part) & head_vars)


def _widened(rest: list[Lit], part: list[Lit], head_vars: set[str]) -> bool:
    """Whether splitting ``part`` off makes the ground rules fewer: the ``rest`` binds
    head variables beyond its interface, and it holds no move.

    A move stays in its rule: :class:`~ggpkit.reasoning.propnet.build._DoesFactoring`
    merges a rule's bodies that differ in their move alone, so checkers' frame axioms
    (one per kind of move) become one set of moves per cell, where auxiliary
    relations would make one per kind of move and cell.
    """
    if any(lit[0] == "pos" and predicate(lit[1]) == ("does", 2) for lit in part):
        return False
    return not body_variables(rest) <= set(_interface(part, head_vars))


def _split(
    head: Term, body: list[Lit], counter: list[int], static: Callable[[Lit], bool]
) -> list[tuple[Term, list[Lit]]]:
    """Split a body into independent parts, each its own auxiliary relation.

    ``next(c X) :- true(c X), does(a, m(P)), near(X, P), does(b, m(Q)), near(X, Q)``
    grounds to one rule per (X, P, Q): a cross product of the two roles' moves. The
    literals joined by non-head variables form components (here one per role);
    each component ``C`` with head variables ``V`` becomes ``aux(V) :- C``, so the
    ground program grows with the sum of the components, not their product. A
    component is only split off when its positive literals bind all of ``V``.

    A single component is split off too when the rest of the body binds head
    variables beyond ``V``: hex's ``next(connected K M N) :- transfer(E),
    true(connected E M N), true(step K)`` grounds to K x E x cells rules, but to
    E x cells + K x cells once ``aux(M, N) :- transfer(E), true(connected E M N)``
    is its own relation. The static literals of the rest whose variables are all in
    ``V`` go into the auxiliary body as well, so it grounds only where the rule can.
    """
    hv = variables(head)
    comps = _components(body, hv)
    grouped = {i for idx in comps for i in idx}
    rest = [lit for i, lit in enumerate(body) if i not in grouped]
    if not comps or (len(comps) == 1 and not _widened(rest, [body[i] for i in comps[0]], hv)):
        return [(head, body)]
    main = list(rest)
    out: list[tuple[Term, list[Lit]]] = []
    for idx in comps:
        part = [body[i] for i in idx]
        iface = _interface(part, hv)
        bound = set().union(*(variables(lit[1]) for lit in part if lit[0] == "pos"))
        if not set(iface) <= bound:
            main.extend(part)
            continue
        guards = [lit for lit in rest if static(lit) and within(lit, set(iface))]
        aux = new_aux(counter, iface)
        out.append((aux, part + guards))
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


def rule_parts(rules: Iterable[Rule], project_moves: bool = False) -> list[Part]:
    """Every rule as ``(head, body)`` parts: ``or`` split, bodies split into components,
    and variables of dynamic rules projected out (:mod:`~ggpkit.reasoning.grounding.projection`;
    ``project_moves``: those of ``does`` literals too)."""
    expanded: list[Part] = []
    for rule in rules:
        if isinstance(rule.head, Func | Const) and rule.head.name in IGNORED_HEADS:
            continue
        expanded.extend((rule.head, body) for body in _expand(rule))
    dynamic = dynamic_predicates(expanded)
    program = Program.of(expanded, dynamic, project_moves)
    defined = definitions(expanded, dynamic)
    parts: list[Part] = []
    counter = [0]
    fresh = [0]
    for head, body in expanded:
        if predicate(head) in dynamic:
            parts.extend(_dynamic_parts(head, body, counter, fresh, program, defined))
        else:
            parts.extend(_split(head, body, counter, program.static))
    return parts


def _dynamic_parts(
    head: Term,
    body: list[Lit],
    counter: list[int],
    fresh: list[int],
    program: Program,
    defined: dict[Predicate, Part],
) -> list[Part]:
    """A rule of a dynamic relation as parts: split into components (:func:`_split`),
    variables projected out. Static relations that one rule defines are unfolded first,
    where the parts then join fewer variables at once."""
    plain = _parts(head, body, counter[0], program)
    unfolded = unfold(body, defined, fresh)
    if unfolded != body:
        narrower = _parts(head, unfolded, counter[0], program)
        if width(narrower) < width(plain):
            plain = narrower
    counter[0] += len(plain) - 1
    return plain


def _parts(head: Term, body: list[Lit], first: int, program: Program) -> list[Part]:
    """The parts of one rule (:func:`_split`, then each projected), with auxiliary
    relations numbered after ``first``."""
    counter = [first]
    out: list[Part] = []
    for part_head, part_body in _split(head, body, counter, program.static):
        out.extend(eliminate(part_head, part_body, counter, program))
    return out


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
