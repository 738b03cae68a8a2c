"""Projecting variables out of rule bodies, so that a rule grounds to fewer instances.

Quarto's ``row :- true(cell 1 Y P1), .., true(cell 4 Y P4), set(P1, .., P4)`` grounds
to one rule per row and quadruple of pieces sharing a property: tens of thousands,
most of quarto's network. With ``set`` unfolded into its one rule's body
(``bitNIs(N, Pi, B)`` literals) and each ``Pi`` projected out through
``aux_i(Y, N, B) :- true(cell i Y Pi), bitNIs(N, Pi, B)``, it grounds to a few dozen
rules over auxiliaries that are each an ``or`` of eight cells (the network's size
before and after: docs/results.md).

This is variable elimination, done only where it is sure to pay, since the domains'
sizes are not known before grounding: the variable's literals hold one dynamic atom
and static ones, the rest of the body holds a dynamic literal too (else nothing was
multiplied), static atoms of the rest bound every variable the auxiliary keeps, and
a static relation's table (its facts, or its rules' rows computed within a budget:
:mod:`~ggpkit.reasoning.grounding.static_tables`) shows that the projected variables take
several values for one value of those kept (else each auxiliary is an alias of one
atom, and only adds nodes: pentago's rows, chains of ``succ``).

A ``does`` literal is left alone: the network's move sets already merge the bodies
that differ only in their move. Only where a program grounds to too many rules for
that (a sudoku's frame rules, ``next(cell I J K L X) :- true(cell I J K L X),
does(R, mark(S T U V Y)), distinct(S, I)``: every cell times every move) does the
grounder try again with ``Program.project_moves``, which projects a move's
variables out as any other atom's: the auxiliary ``aux(S) :- does(R, mark(S T U V
Y))`` leaves one rule per cell and value of ``S``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ggpkit.gdl.terms import Func, Term, Var, is_ground, variables
from ggpkit.reasoning.grounding.literals import (
    AUX_PREFIX,
    Lit,
    Part,
    Predicate,
    body_variables,
    literal_variables,
    new_aux,
    predicate,
    within,
)
from ggpkit.reasoning.grounding.static_tables import StaticTables


@dataclass
class Program:
    """What projection needs to know of the whole program: which relations vary between
    states, and the static relations' tables (where they can be had cheaply)."""

    dynamic: set[Predicate]
    tables: StaticTables
    project_moves: bool = False
    """Whether a ``does`` literal's variables may be projected out too (see
    :func:`_eliminable`)."""
    _determined: dict[tuple[object, ...], bool] = field(default_factory=dict)

    @classmethod
    def of(cls, parts: list[Part], dynamic: set[Predicate], project_moves: bool = False) -> Program:
        return cls(dynamic, StaticTables(parts, dynamic), project_moves)

    def static(self, lit: Lit) -> bool:
        if lit[0] in ("eq", "ne"):
            return True
        name, arity = predicate(lit[1])
        return (name, arity) not in self.dynamic and not name.startswith(AUX_PREFIX)

    def fans_in(self, group: list[Lit], kept: set[str], projected: set[str]) -> bool:
        """Whether some projected variable is shown to take several values for one value
        of the kept ones: only the dynamic atom holds it and that atom is a state fact
        (sheepAndWolf's ``X`` in ``true(cell X Y s)``, any column; a derived atom's
        arguments are often functions of each other, as checkers' captured square of
        a jump), or a static table holds it and no literal of the group fixes it."""
        atoms = [lit[1] for lit in group if lit[0] == "pos" and self.static(lit)]
        state_atom = any(lit[0] == "pos" and predicate(lit[1]) == ("true", 1) for lit in group)
        for var in sorted(projected):
            own = [a for a in atoms if var in variables(a)]
            if not own and state_atom:
                return True  # only a state fact holds it: it ranges over a board's columns
            tabled = [a for a in own if self._rows(a) is not None]
            if tabled and not any(self._fixes(a, kept, var) for a in own):
                return True
        return False

    def _fixes(self, atom: Term, kept: set[str], var: str) -> bool:
        """Whether ``atom``'s rows give ``var`` at most one value per value of ``kept``
        (and of its constant arguments). Relations without a table, and
        arguments that are compound terms with variables, are taken to fix it: then
        nothing is known, and projecting only pays where it is known to."""
        rows = self._rows(atom)
        if rows is None or not isinstance(atom, Func):
            return True
        args = atom.args
        if any(isinstance(a, Func) and not is_ground(a) for a in args):
            return True
        known = tuple(
            i for i, a in enumerate(args) if is_ground(a) or (isinstance(a, Var) and a.name in kept)
        )
        own = tuple(i for i, a in enumerate(args) if a == Var(var))
        constants = tuple((i, args[i]) for i in known if is_ground(args[i]))
        key = (predicate(atom), known, own, constants)
        if key not in self._determined:
            self._determined[key] = _functional(rows, known, own, constants)
        return self._determined[key]

    def _rows(self, atom: Term) -> list[tuple[Term, ...]] | None:
        return self.tables.rows(predicate(atom))


def _functional(
    rows: list[tuple[Term, ...]],
    known: tuple[int, ...],
    own: tuple[int, ...],
    constants: tuple[tuple[int, Term], ...],
) -> bool:
    seen: dict[tuple[Term, ...], tuple[Term, ...]] = {}
    for row in rows:
        if any(row[i] != value for i, value in constants):
            continue
        key = tuple(row[i] for i in known)
        value = tuple(row[i] for i in own)
        if seen.setdefault(key, value) != value:
            return False
    return True


def eliminate(head: Term, body: list[Lit], counter: list[int], program: Program) -> list[Part]:
    """``head :- body`` as parts, its variables projected out one by one where it pays
    (see the module docstring), each through an auxiliary numbered by ``counter``.
    Static literals of the rest over the auxiliary's variables go into its body as
    guards, so it grounds only where the rule can."""
    hv = variables(head)
    out: list[Part] = []
    while (group := _next_group(body, hv, program)) is not None:
        part = [body[i] for i in group]
        rest = [lit for i, lit in enumerate(body) if i not in group]
        iface = sorted(body_variables(part) & (hv | body_variables(rest)))
        guards = [lit for lit in rest if program.static(lit) and within(lit, set(iface))]
        aux = new_aux(counter, iface)
        out.append((aux, part + guards))
        body = [*rest, ("pos", aux)]
    out.append((head, body))
    return out


def _next_group(body: list[Lit], head_vars: set[str], program: Program) -> list[int] | None:
    """The literals of the variable to project out next: of those :func:`_eliminable`,
    the one that shares its literals with the fewest other variables (the min-degree
    order of variable elimination: the auxiliary stays narrow)."""
    best: tuple[int, list[int]] | None = None
    for var in sorted(body_variables(body) - head_vars):
        group = _eliminable(var, body, head_vars, program)
        if group is None:
            continue
        degree = len(body_variables([body[i] for i in group]))
        if best is None or degree < best[0]:
            best = (degree, group)
    return None if best is None else best[1]


def _eliminable(
    var: str, body: list[Lit], head_vars: set[str], program: Program
) -> list[int] | None:
    """The literals holding ``var``, when projecting it out pays (see the module
    docstring); they must also bind all their variables by positive literals."""
    group = [i for i, lit in enumerate(body) if var in literal_variables(lit)]
    lits = [body[i] for i in group]
    dynamic = [lit for lit in lits if not program.static(lit)]
    if len(dynamic) != 1 or len(group) == len(body):
        return None
    if dynamic[0][0] != "pos" or any(lit[0] == "neg" for lit in lits):
        return None
    group_vars = body_variables(lits)
    if not group_vars <= set().union(*(variables(lit[1]) for lit in lits if lit[0] == "pos")):
        return None
    rest = [lit for i, lit in enumerate(body) if i not in group]
    if all(program.static(lit) for lit in rest):
        return None
    if predicate(dynamic[0][1]) == ("does", 2):
        return group if program.project_moves else None
    kept = group_vars & (head_vars | body_variables(rest))
    bounded = set().union(
        set(), *(variables(lit[1]) for lit in rest if lit[0] == "pos" and program.static(lit))
    )
    if not kept <= bounded or not program.fans_in(lits, kept, group_vars - kept):
        return None
    return group


def width(parts: list[Part]) -> int:
    """The most variables any one body joins: how big its grounding can get (each
    variable multiplies it by its domain), the measure that unfolding must lower."""
    return max(len(body_variables(body)) for _, body in parts)


def definitions(parts: list[Part], dynamic: set[Predicate]) -> dict[Predicate, Part]:
    """The static relations that one rule defines, with distinct variables for arguments
    and a body of positive atoms and ``distinct``: those a body can have in its place."""
    count: dict[Predicate, int] = {}
    for head, _ in parts:
        count[predicate(head)] = count.get(predicate(head), 0) + 1
    out: dict[Predicate, Part] = {}
    for head, body in parts:
        pred = predicate(head)
        if pred in dynamic or count[pred] != 1 or not body or not isinstance(head, Func):
            continue
        args = head.args
        if not all(isinstance(a, Var) for a in args) or len(set(args)) != len(args):
            continue
        if all(lit[0] in ("pos", "ne") for lit in body):
            out[pred] = (head, body)
    return out


def unfold(body: list[Lit], defined: dict[Predicate, Part], fresh: list[int]) -> list[Lit]:
    """``body`` with each positive literal of a :func:`definitions` relation replaced by
    that relation's body (its variables renamed apart): one resolution step."""
    out: list[Lit] = []
    for lit in body:
        found = defined.get(predicate(lit[1])) if lit[0] == "pos" else None
        if found is None:
            out.append(lit)
            continue
        head, definition = found
        assert isinstance(head, Func) and isinstance(lit[1], Func)
        fresh[0] += 1
        sub: dict[str, Term] = {
            name: Var(f"{name} {fresh[0]}")  # a space never occurs in a GDL variable
            for name in body_variables(definition)
        }
        sub.update({a.name: b for a, b in zip(head.args, lit[1].args, strict=True)
                    if isinstance(a, Var)})  # fmt: skip
        out.extend(tuple(x if isinstance(x, str) else _renamed(x, sub) for x in d)
                   for d in definition)  # fmt: skip
    return out


def _renamed(term: Term, sub: dict[str, Term]) -> Term:
    if isinstance(term, Var):
        return sub.get(term.name, term)
    if isinstance(term, Func):
        return Func(term.name, tuple(_renamed(a, sub) for a in term.args))
    return term
