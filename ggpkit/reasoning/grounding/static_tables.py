"""The tables of a program's static relations, computed on demand within a budget.

Projection (:mod:`~ggpkit.reasoning.grounding.projection`) asks whether a static relation
fixes one argument given others; for that it needs the relation's rows. Facts give
them at once; a relation defined by rules is computed here by a plain bottom-up join
of its rules (static, non-recursive), and given up on past :data:`MAX_ROWS` rows or
join steps: sudoku's static relations run to hundreds of millions of rows, and the
grounder must not wait for a guess.
"""

from __future__ import annotations

from collections.abc import Iterator

from ggpkit.gdl.terms import Func, Term, Var, is_ground
from ggpkit.reasoning.grounding.literals import Lit, Part, Predicate, predicate

MAX_ROWS = 50_000
"""Most rows computed for one relation before it counts as unknown."""

MAX_STEPS = 400_000
"""Most rows tried in joins for all relations together: past it every relation not yet
computed counts as unknown (a few tenths of a second at most)."""

Row = tuple[Term, ...]
Binding = dict[str, Term]


class _TooBig(Exception):
    pass


class StaticTables:
    """Rows of the static relations of ``parts`` (``dynamic`` names the others)."""

    def __init__(self, parts: list[Part], dynamic: set[Predicate]) -> None:
        self._rules: dict[Predicate, list[Part]] = {}
        for head, body in parts:
            pred = predicate(head)
            if pred not in dynamic:
                self._rules.setdefault(pred, []).append((head, body))
        self._tables: dict[Predicate, list[Row] | None] = {}
        self._sets: dict[Predicate, set[Row]] = {}
        self._busy: set[Predicate] = set()
        self._steps = 0

    def rows(self, pred: Predicate) -> list[Row] | None:
        """The relation's rows, or None: not static, recursive, or past the budget."""
        if pred in self._tables:
            return self._tables[pred]
        if pred not in self._rules or pred in self._busy:
            return None  # a dynamic relation, or one that depends on itself
        self._busy.add(pred)
        try:
            table: list[Row] | None = self._compute(pred)
        except (_TooBig, RecursionError):  # RecursionError: a very long chain of relations
            table = None
        finally:
            self._busy.discard(pred)
        self._tables[pred] = table
        return table

    def _compute(self, pred: Predicate) -> list[Row] | None:
        seen: set[Row] = set()
        for head, body in self._rules[pred]:
            for binding in self._solve(body, {}):
                row = tuple(_bound(a, binding) for a in _args(head))
                if not all(is_ground(t) for t in row):
                    return None  # a head variable no literal binds: not a table
                seen.add(row)
                if len(seen) > MAX_ROWS:
                    raise _TooBig
        return list(seen)

    def _solve(self, body: list[Lit], binding: Binding) -> Iterator[Binding]:
        """Every binding of ``body``'s variables that makes it true, literals in order
        (positive atoms before the tests that need their variables, as GDL's safety
        rule allows: a test waits until its variables are bound)."""
        if not body:
            yield binding
            return
        index = _next_literal(body, binding)
        lit, rest = body[index], body[:index] + body[index + 1 :]
        if lit[0] == "pos":
            table = self.rows(predicate(lit[1]))
            if table is None:
                raise _TooBig
            self._steps += len(table)
            if self._steps > MAX_STEPS:
                raise _TooBig
            for row in table:
                extended = _match_all(_args(lit[1]), row, binding)
                if extended is not None:
                    yield from self._solve(rest, extended)
            return
        if lit[0] == "neg":
            table = self.rows(predicate(lit[1]))
            if table is None:
                raise _TooBig
            rows = self._sets.get(predicate(lit[1]))
            if rows is None:  # made once: a test per binding must not copy the table
                rows = self._sets[predicate(lit[1])] = set(table)
            if tuple(_bound(a, binding) for a in _args(lit[1])) not in rows:
                yield from self._solve(rest, binding)
            return
        same = _bound(lit[1], binding) == _bound(lit[2], binding)
        if same == (lit[0] == "eq"):
            yield from self._solve(rest, binding)


def _next_literal(body: list[Lit], binding: Binding) -> int:
    """A test whose variables are all bound, else the first positive atom."""
    for i, lit in enumerate(body):
        if lit[0] != "pos" and all(is_ground(_bound(t, binding)) for t in lit[1:]):
            return i
    for i, lit in enumerate(body):
        if lit[0] == "pos":
            return i
    return 0  # only tests with unbound variables: unsafe, and compared as they are


def _args(atom: Term) -> tuple[Term, ...]:
    return atom.args if isinstance(atom, Func) else ()


def _bound(term: Term, binding: Binding) -> Term:
    if isinstance(term, Var):
        return binding.get(term.name, term)
    if isinstance(term, Func):
        return Func(term.name, tuple(_bound(a, binding) for a in term.args))
    return term


def _match_all(patterns: tuple[Term, ...], row: Row, binding: Binding) -> Binding | None:
    out: Binding | None = dict(binding)
    for pattern, value in zip(patterns, row, strict=True):
        out = _match(pattern, value, out) if out is not None else None
    return out


def _match(pattern: Term, value: Term, binding: Binding) -> Binding | None:
    """``binding`` extended so that ``pattern`` equals the ground ``value``, or None."""
    if isinstance(pattern, Var):
        bound = binding.get(pattern.name)
        if bound is None:
            binding[pattern.name] = value
            return binding
        return binding if bound == value else None
    if isinstance(pattern, Func):
        if not isinstance(value, Func) or (pattern.name, len(pattern.args)) != (
            value.name,
            len(value.args),
        ):
            return None
        out: Binding | None = binding
        for p, v in zip(pattern.args, value.args, strict=True):
            out = _match(p, v, out) if out is not None else None
        return out
    return binding if pattern == value else None
