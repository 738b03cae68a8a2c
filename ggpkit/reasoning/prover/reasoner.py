"""The reference prover: a slow, simple, correct GDL reasoner (the oracle of the fast ones).

How it works, and why this way:

* Rules are compiled once. ``or`` is expanded into one rule per alternative (so
  variables inside ``or`` need no special care), terms become plain Python
  values (a constant is a ``str``, a function term a ``tuple`` whose first item
  is the name, a rule variable an ``int`` slot), because tuples and strings hash
  and compare in C, several times faster than the dataclass terms.
* Relations are split by what they depend on: *static* (neither ``true`` nor
  ``does``), *state* (``true`` but not ``does``) and *move* (``does``). Static
  relations are computed once; state relations once per state (cached); move
  relations once per joint move.
* Relations defined inside a recursion are computed bottom-up (a strongly
  connected component of the relation graph at a time, semi-naive) when asked
  as a whole or when static, and top-down with tabling when they depend on the
  state and are asked with bound arguments (an accumulator recursion such as a
  piece count would otherwise derive every partial count of every cell).
* Static relations (ground facts and rules that do not depend on the state)
  are materialised once per game as indexed tables, unless listing one takes
  over ``STATIC_SECONDS`` (sudoku's ten-argument ``exactlyFirst`` has 387
  million facts): that one is answered on demand like a state relation (tabled, if
  recursive: laikLee_hex's ``append_el`` lists every list of distinct cells). Every
  other derived relation is answered on demand for the arguments a rule body asks (top-down,
  memoised per context): materialising all of a 7-argument helper of
  chess (``threatened_with_capture``) would take minutes, asking it for the
  cells that matter takes milliseconds. Nothing is computed before a query
  needs it (``terminal`` does not pull in ``goal``).
* Joins are planned greedily per rule from the sizes of the relations at hand,
  with hash indexes on every ground place of a literal, including places inside
  function terms (``(true (cell ?x 3 ?c))``).
* Negation is evaluated only after the negated relation is complete, so the
  result is the standard stratified (perfect-model) semantics. Rules that are
  unsafe or negation that is not stratified are rejected when the prover is
  built: ``ggpkit.gdl.checker`` says the same thing with file positions.

States are frozensets of ground facts in the internal value form; ``facts``
turns them back into terms.

``Prover(rules, compiled=True)`` (the ``joincode`` reasoner) runs each join plan as
generated Python code (``ggpkit.reasoning.prover.join_code``) instead of interpreting it:
same plans, same answers, faster. The interpreted prover stays the oracle.
"""

from __future__ import annotations

import functools
import operator
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from ggpkit.gdl.game_rules import (
    expand_or,
    fluent_names,
    fluents_read,
    stratify_by_constants,
    strongly_connected_components,
)
from ggpkit.gdl.kif import Rule
from ggpkit.gdl.terms import Const, Func, Term, Var, is_ground
from ggpkit.reasoning.base import (
    BatchPlayouts,
    Propositions,
    QueryTimeLimitError,
    ReasonerError,
    call_with_default_limit,
    check_time_limit,
    current_time_limit,
    time_limit,
)
from ggpkit.reasoning.prover.join_code import JoinFunction, compile_plan

# Internal values: a ground value is ``str | tuple``; a pattern may also hold ``int`` slots.
Value = Any

_STATIC, _STATE, _MOVE = 0, 1, 2
_LEVEL_NAMES = {_STATIC: "static", _STATE: "state", _MOVE: "move"}


def to_value(term: Term) -> Value:
    """A ground term as an internal value; raises ReasonerError on a variable."""
    if isinstance(term, Const):
        return term.name
    if isinstance(term, Func):
        return (term.name, *(to_value(a) for a in term.args))
    raise ReasonerError(f"expected a ground term, found the variable {term}")


def to_term(value: Any) -> Term:
    """An internal ground value back as a term."""
    if isinstance(value, str):
        return Const(value)
    assert isinstance(value, tuple)
    return Func(str(value[0]), tuple(to_term(v) for v in value[1:]))


def _pattern(term: Term, slots: dict[str, int]) -> Any:
    if isinstance(term, Var):
        if term.name not in slots:
            slots[term.name] = len(slots)
        return slots[term.name]
    if isinstance(term, Const):
        return term.name
    return (term.name, *(_pattern(a, slots) for a in term.args))


def _slots_of(pattern: Any) -> set[int]:
    if isinstance(pattern, int):
        return {pattern}
    if isinstance(pattern, tuple):
        out: set[int] = set()
        for p in pattern[1:]:
            out |= _slots_of(p)
        return out
    return set()


def _match(pat: Any, val: Any, env: list[Any], trail: list[int]) -> bool:
    """Match a pattern against a ground value, binding slots in ``env`` (recorded on ``trail``)."""
    if type(pat) is int:
        cur = env[pat]
        if cur is None:
            env[pat] = val
            trail.append(pat)
            return True
        return bool(cur == val)
    if type(pat) is str:
        return bool(pat == val)
    if type(val) is not tuple or len(val) != len(pat) or val[0] != pat[0]:
        return False
    # An explicit loop: several times faster here than all() over a generator.
    for i in range(1, len(pat)):
        p = pat[i]
        v = val[i]
        if type(p) is str:
            if p != v:
                return False
        elif type(p) is int:
            cur = env[p]
            if cur is None:
                env[p] = v
                trail.append(p)
            elif cur != v:
                return False
        elif not _match(p, v, env, trail):
            return False
    return True


def _subst(pat: Any, env: list[Any]) -> Any:
    """The ground value of a pattern whose slots are all bound."""
    if type(pat) is int:
        return env[pat]
    if type(pat) is str:
        return pat
    return tuple([pat[0]] + [_subst(p, env) for p in pat[1:]])


def _subst_all(pats: Any, env: list[Any]) -> tuple[Any, ...]:
    return tuple([_subst(p, env) for p in pats])


# An index specification: the places of a fact it is keyed on. Each place is a path of
# argument numbers into the fact (``(1, 2)``: second argument of the first argument) and
# a kind: "v" (the value there) or "f" (its functor: name and length).
_Spec = tuple[tuple[tuple[int, ...], str], ...]


def _key_of(value: Any, spec: _Spec) -> tuple[Any, ...] | None:
    """The key of a fact in an index, or None when the fact lacks a place (cannot match)."""
    out = []
    for path, kind in spec:
        v = value
        for i in path:
            if type(v) is not tuple or len(v) <= i:
                return None
            v = v[i]
        if kind == "v":
            out.append(v)
        else:
            out.append((v[0], len(v)) if type(v) is tuple else v)
    return tuple(out)


_KeyFn = Callable[[Any], "tuple[Any, ...] | None"]


@functools.lru_cache(maxsize=4096)
def _key_function(spec: _Spec) -> _KeyFn:
    """:func:`_key_of` for one spec, fast where every place is a top-level argument.

    Why: building indexes is most of the prover's time on games such as amazons and
    chess (relations of thousands of facts, indexed again for each state), and
    almost every spec is a few top-level arguments, which ``itemgetter`` reads in C.
    """
    if not spec or any(kind != "v" or len(path) != 1 for path, kind in spec):
        return functools.partial(_key_of, spec=spec)
    places = [path[0] for path, _ in spec]
    need = max(places) + 1
    if len(places) == 1:
        place = places[0]

        def one(value: Any) -> tuple[Any, ...] | None:
            return (value[place],) if type(value) is tuple and len(value) >= need else None

        return one
    getter = operator.itemgetter(*places)

    def many(value: Any) -> tuple[Any, ...] | None:
        return getter(value) if type(value) is tuple and len(value) >= need else None

    return many


def _positions_spec(positions: tuple[int, ...]) -> _Spec:
    return tuple(((p,), "v") for p in positions)


class _WorkMeter(threading.local):
    """Facts filed into indexes built on first use, by this thread: work that join steps
    do not count, read before and after a plan's trial. Per thread, so that another
    thread's queries never count in a trial (the choice stays the same run to run)."""

    def __init__(self) -> None:
        self.filed = 0


_INDEX_WORK = _WorkMeter()


class _Rel:
    """The facts of one relation, with indexes built on first use and kept up to date."""

    __slots__ = ("facts", "indexes")

    def __init__(self) -> None:
        self.facts: set[Any] = set()
        self.indexes: dict[_Spec, tuple[_KeyFn, dict[Any, list[Any]]]] = {}
        """Each index with its key function (kept, not looked up again on every add)."""

    def add(self, value: Any) -> bool:
        if value in self.facts:
            return False
        self.facts.add(value)
        for key_of, idx in self.indexes.values():
            k = key_of(value)
            if k is not None:
                idx.setdefault(k, []).append(value)
        return True

    def lookup(self, spec: _Spec, key: tuple[Any, ...]) -> Iterable[Any]:
        entry = self.indexes.get(spec)
        if entry is None:
            idx: dict[Any, list[Any]] = {}
            key_of = _key_function(spec)
            _INDEX_WORK.filed += len(self.facts)
            for v in self.facts:
                k = key_of(v)
                if k is not None:
                    idx.setdefault(k, []).append(v)
            entry = self.indexes[spec] = (key_of, idx)
        return entry[1].get(key, ())


@dataclass(frozen=True, slots=True)
class _Step:
    """One body literal, in evaluation order.

    kind: "pos" (join with a relation), "has" (a fully bound positive literal: present),
    "neg" (absent), "distinct" / "same" (compare two terms). ``lit`` is the number of the
    positive literal, for "neg" ``len(pos_lits)`` plus the number of its check (-1 for
    the others). For "pos", ``index`` is the index to use on a
    materialised relation (its spec and the patterns of its key, None: scan all) and
    ``demand`` the ground top-level argument positions and their patterns, for a relation
    answered on demand.
    """

    kind: str
    rel: str
    pattern: Any
    other: Any = None
    index: tuple[_Spec, tuple[tuple[str, Any], ...]] | None = None
    demand: tuple[tuple[int, ...], tuple[Any, ...]] = ((), ())
    lit: int = -1


@dataclass(frozen=True, slots=True)
class _CRule:
    """A compiled rule: positive literals and checks; join orders are planned per use."""

    head_rel: str
    head: Any
    pos_lits: tuple[tuple[str, Any], ...]
    checks: tuple[tuple[str, str, Any, Any], ...]  # kind, rel, a, b
    nslots: int
    text: str
    plans: dict[Any, tuple[tuple[_Step, ...], ...]] = field(default_factory=dict, compare=False)
    """The distinct plans of each plan key, one per factor of ``_CALL_FACTORS``."""
    chosen: dict[Any, int] = field(default_factory=dict, compare=False)
    trials: dict[Any, list[list[float]]] = field(default_factory=dict, compare=False)
    """Per plan key with several plans: work and evaluations of each so far."""
    code: dict[Any, JoinFunction | None] = field(default_factory=dict, compare=False)
    """Join code of each plan (the compiled prover only); None: interpret that plan."""

    def record_trial(self, trial: tuple[Any, int], work: int) -> None:
        """Count one evaluation; after ``_TRIALS`` of each plan, keep the cheapest.

        Work is join steps, calls and rule evaluations (the calls it made included)
        plus facts filed into indexes built on first use: amazons' plans differ in
        index building, which steps do not count. Work, not time, so that the choice,
        and with it the speed, is the same on every run of the same queries (timed
        trials made alexChess play its corpus matches in time on one run and time out
        on the next). Ties go to the later plan (the smaller call factor): where work
        tied on chess and alexChess, that plan was mostly the faster by the clock.
        Only speed depends on the choice, never answers (threads may race here)."""
        plan_key, variant = trial
        tried = self.trials.get(plan_key)
        if tried is None or plan_key in self.chosen:
            return
        tried[variant][0] += work
        tried[variant][1] += 1
        if any(n == 0 for _, n in tried):
            return
        means = [total / n for total, n in tried]
        best = min(range(len(tried)), key=lambda v: (means[v], -v))
        fewest = min(n for _, n in tried)
        # A plan 4x slower after two tries is not tried six more times: a bad plan (of
        # amazons' legal, of alexChess' pinned) costs far more than the trials can save.
        # One try is not enough: a first call also pays for what later ones share.
        far = all(m >= 4.0 * means[best] for v, m in enumerate(means) if v != best)
        if (far and fewest >= 2) or fewest >= _TRIALS:
            self.chosen[plan_key] = best

    def body_rels(self) -> list[tuple[str, bool]]:
        """(relation, negated) for every relation literal of the body."""
        out = [(rel, False) for rel, _ in self.pos_lits]
        out += [(rel, True) for kind, rel, _, _ in self.checks if kind == "neg"]
        return out


def _relation(term: Term) -> str:
    return term.name


def _compile_rule(head: Term, body: Sequence[Term], text: str) -> _CRule:
    slots: dict[str, int] = {}
    head_pat = _pattern(head, slots)
    pos_lits: list[tuple[str, Any]] = []
    checks: list[tuple[str, str, Any, Any]] = []
    for lit in body:
        if isinstance(lit, Func) and lit.name == "not" and len(lit.args) == 1:
            inner = lit.args[0]
            if isinstance(inner, Var):
                raise ReasonerError(f"a negated variable is not GDL: {text}")
            if isinstance(inner, Func) and inner.name == "distinct" and len(inner.args) == 2:
                a, b = (_pattern(x, slots) for x in inner.args)
                checks.append(("same", "", a, b))
            else:
                checks.append(("neg", _relation(inner), _pattern(inner, slots), None))
        elif isinstance(lit, Func) and lit.name == "distinct":
            if len(lit.args) != 2:
                raise ReasonerError(f"distinct needs two arguments: {text}")
            a, b = (_pattern(x, slots) for x in lit.args)
            checks.append(("distinct", "", a, b))
        elif isinstance(lit, Var):
            raise ReasonerError(f"a body literal cannot be a variable: {text}")
        else:
            pos_lits.append((_relation(lit), _pattern(lit, slots)))
    bound: set[int] = set()
    for _, pat in pos_lits:
        bound |= _slots_of(pat)
    for _, _, a, b in checks:
        if not (_slots_of(a) | _slots_of(b)) <= bound:
            raise ReasonerError(
                "unsafe rule (a variable of a negation or distinct is not bound by a "
                f"positive literal): {text}"
            )
    if not _slots_of(head_pat) <= bound:
        raise ReasonerError(
            f"unsafe rule (a head variable does not occur in a positive literal): {text}"
        )
    return _CRule(_relation(head), head_pat, tuple(pos_lits), tuple(checks), len(slots), text)


_CALL_FACTORS = (16.0, 4.0)
"""The planner's cost factors per unknown argument of a literal answered per call. No one
factor suits every rule: at 4, alexChess' ``pinned`` asks ``between`` once per piece
(much faster) but chess' ``clear_*_ig`` is tabled with an argument less bound (many
more calls, slower). Where the factors give different plans, each is tried ``_TRIALS``
times and the one that did the least work kept."""
_TRIALS = 8


def _plan(
    cr: _CRule, sizes: Sequence[float], prebound: set[int], call_factor: float = 16.0
) -> tuple[_Step, ...]:
    """A join order for the current relation sizes: greedily the cheapest literal next.

    The cost of a materialised literal is the size of its relation divided by 16 for
    every argument already ground (an index lookup); a literal answered per call
    (size given as -1) costs ``call_factor`` per argument still unknown, so calls are made with
    as many arguments bound as possible; -1 when it is fully bound (a membership test).
    Checks (negation, distinct) run as soon as their variables are bound. ``prebound``
    are the slots bound by the head (a query).
    """
    steps: list[_Step] = []
    bound: set[int] = set(prebound)
    checks = list(cr.checks)

    def flush_checks() -> None:
        for c in list(checks):
            kind, rel, a, b = c
            if (_slots_of(a) | _slots_of(b)) <= bound:
                # A negation's relation is the body's literal number len(pos_lits) + j.
                lit = len(cr.pos_lits) + cr.checks.index(c) if kind == "neg" else -1
                steps.append(_Step(kind, rel, a, b, lit=lit))
                checks.remove(c)

    flush_checks()
    remaining = list(range(len(cr.pos_lits)))
    while remaining:

        def cost(i: int, bound: set[int] = bound) -> float:
            pat = cr.pos_lits[i][1]
            if _slots_of(pat) <= bound:
                return -1.0
            ground = 0
            if type(pat) is tuple:
                ground = sum(1 for arg in pat[1:] if _slots_of(arg) <= bound)
            if sizes[i] < 0:  # answered per call: the fewer unknowns, the smaller the call
                return call_factor ** (len(pat) - 1 - ground) if type(pat) is tuple else 0.0
            return sizes[i] / (16.0**ground)

        best = min(remaining, key=cost)
        remaining.remove(best)
        rel, pat = cr.pos_lits[best]
        if _slots_of(pat) <= bound:
            steps.append(_Step("has", rel, pat, lit=best))
        else:
            index = _choose_index(pat, bound)
            ground = _ground_args(pat, bound)
            steps.append(_Step("pos", rel, pat, None, index, ground, best))
        bound |= _slots_of(pat)
        flush_checks()
    return tuple(steps)


def _choose_index(pat: Any, bound: set[int]) -> tuple[_Spec, tuple[tuple[str, Any], ...]] | None:
    """The index for a literal on a materialised relation: every ground place, found by
    walking into function terms (so ``(true (cell ?x 3 ?c))`` with ``?x`` bound is keyed
    on the functor ``cell/3``, ``?x`` and ``3``)."""
    if type(pat) is not tuple:
        return None
    spec: list[tuple[tuple[int, ...], str]] = []
    keys: list[tuple[str, Any]] = []

    def walk(sub: Any, path: tuple[int, ...]) -> None:
        if _slots_of(sub) <= bound:
            spec.append((path, "v"))
            keys.append(("v", sub))
        elif type(sub) is tuple:
            spec.append((path, "f"))
            keys.append(("f", (sub[0], len(sub))))
            for i in range(1, len(sub)):
                walk(sub[i], (*path, i))

    for i in range(1, len(pat)):
        walk(pat[i], (i,))
    walk = _walked  # it referred to itself: kept, every call would leave a cycle
    if not spec:
        return None
    return tuple(spec), tuple(keys)


def _walked(*_: Any, **__: Any) -> None:
    """What a recursive local walker is rebound to once done, to break its self-reference."""


def _ground_args(pat: Any, bound: set[int]) -> tuple[tuple[int, ...], tuple[Any, ...]]:
    """Top-level argument positions of a literal that are ground, with their patterns."""
    if type(pat) is not tuple:
        return (), ()
    ground = [i for i in range(1, len(pat)) if _slots_of(pat[i]) <= bound]
    return tuple(ground), tuple(pat[i] for i in ground)


def _index_key(keys: tuple[tuple[str, Any], ...], env: list[Any]) -> tuple[Any, ...]:
    return tuple([_subst(p, env) if kind == "v" else p for kind, p in keys])


class _Program:
    """Compiled rules: components in dependency order, each with its level."""

    def __init__(self, rules: Sequence[Rule], compiled: bool = False) -> None:
        self.compiled = compiled
        """Run join plans as generated code (``join_code``) instead of interpreting them."""
        crules: list[_CRule] = []
        # Ground facts are stored as relations, not rules (a table of 200 succ facts
        # must be one indexed lookup, not 200 rules to try).
        self.base: dict[str, _Rel] = {}
        for rule in stratify_by_constants(rules):
            if isinstance(rule.head, Var):
                raise ReasonerError(f"the head of a rule cannot be a variable: {rule}")
            if not rule.body and is_ground(rule.head):
                self.base.setdefault(_relation(rule.head), _Rel()).add(to_value(rule.head))
                continue
            for body in expand_or(rule.body):
                crules.append(_compile_rule(rule.head, body, str(rule)))
        graph: dict[str, set[str]] = {"true": set(), "does": set()}
        for rel in self.base:
            graph.setdefault(rel, set())
        neg_edges: set[tuple[str, str]] = set()
        for cr in crules:
            graph.setdefault(cr.head_rel, set())
            for rel, negated in cr.body_rels():
                graph[cr.head_rel].add(rel)
                graph.setdefault(rel, set())
                if negated:
                    neg_edges.add((cr.head_rel, rel))
        for head in ("true", "does"):
            if head in self.base or any(cr.head_rel == head for cr in crules):
                raise ReasonerError(f"'{head}' cannot be the head of a rule")
        comps = strongly_connected_components(graph)
        self.comp_of: dict[str, int] = {}
        for i, comp in enumerate(comps):
            for r in comp:
                self.comp_of[r] = i
        for head, body_rel in neg_edges:
            if self.comp_of[head] == self.comp_of[body_rel]:
                raise ReasonerError(
                    f"negation is not stratified: '{head}' depends on 'not {body_rel}' "
                    "through a recursion"
                )
        self.comps = comps
        self.recursive: list[bool] = []
        self.level: list[int] = []
        for i, comp in enumerate(comps):
            members = set(comp)
            deps = {self.comp_of[d] for r in comp for d in graph[r]} - {i}
            self.recursive.append(any(d in members for r in comp for d in graph[r]))
            lvl = _STATIC
            if "true" in members:
                lvl = _STATE
            if "does" in members:
                lvl = _MOVE
            for d in deps:
                lvl = max(lvl, self.level[d])
            self.level.append(lvl)

        # Relations answered on demand (top-down with memoisation): those that depend on
        # the state, defined outside any recursion. Static relations are materialised
        # once per game, recursive components bottom-up (or tabled, below).
        self.demand: set[str] = set()
        self.rules_by_rel: dict[str, list[_CRule]] = {}
        for cr in crules:
            self.rules_by_rel.setdefault(cr.head_rel, []).append(cr)
        for rel in self.rules_by_rel:
            c = self.comp_of[rel]
            if not self.recursive[c] and self.level[c] != _STATIC:
                self.demand.add(rel)
        # Recursive relations asked with bound arguments are tabled, except static ones:
        # those are computed once for the whole game, so materialising them (and then
        # answering every call by an index lookup) is cheaper than many small fixpoints.
        # A static component that cannot be listed in time joins ``unlisted`` (and its
        # relations ``demand`` or ``tabled``) when that is found out.
        self.unlisted: set[int] = set()
        self.tabled = {
            r
            for r in set(self.rules_by_rel) - self.demand
            if self.level[self.comp_of[r]] != _STATIC
        }

    def level_of(self, rel: str) -> int:
        comp = self.comp_of.get(rel)
        return _STATIC if comp is None else self.level[comp]


_ALL_ARGS = [tuple(range(1, n)) for n in range(64)]  # argument positions of an n-tuple atom
_Key = tuple[str, tuple[int, ...], tuple[Any, ...]]
_Shape = tuple[
    "list[_Rel | None]", "tuple[_Step, ...]", JoinFunction | None, "tuple[Any, int] | None"
]
"""How a rule is evaluated in a context (see ``_Db._shape``)."""
_TABLE_LIMIT = 16384
"""Tabled calls per component and context before the component is materialised instead.
Too low a limit makes chess materialise its big ``clear_*_ig`` relations in every state.
Since a fixpoint re-answers only the calls whose inputs changed, many calls are cheap:
this limit made amazons and chess faster than 2048 did (docs/results.md)."""
STATIC_SECONDS = 1.0
"""Longest the materialisation of one static relation may take before it is answered on
demand instead (see ``_Db._materialise_static``)."""
QUERY_SECONDS = 120.0
"""Longest one query (legal, next, terminal, goal) may take when its caller set no limit."""
_TICKS_PER_CHECK = 1023  # joins look at the caller's time limit every 1024 steps (a mask)


class _Fixpoint:
    """The tables of one tabled fixpoint: each call's answers so far, and who read them."""

    __slots__ = ("current", "pending", "queued", "readers", "table")

    def __init__(self, call: _Key) -> None:
        self.table: dict[_Key, set[Any]] = {call: set()}
        self.readers: dict[_Key, set[_Key]] = {}
        self.pending: list[_Key] = [call]
        self.queued: set[_Key] = {call}
        self.current = call

    def read(self, call: _Key) -> list[Any]:
        """The answers of ``call`` so far, noting that the call being answered read them."""
        found = self.table.get(call)
        if found is None:
            found = self.table[call] = set()
            self._queue(call)
        self.readers.setdefault(call, set()).add(self.current)
        return list(found)

    def _queue(self, call: _Key) -> None:
        if call not in self.queued:
            self.queued.add(call)
            self.pending.append(call)

    def solve(
        self, answers: Callable[[str, tuple[int, ...], tuple[Any, ...]], set[Any]], limit: int
    ) -> bool:
        """Answer calls until none can gain an answer (True), or until the table holds
        more than ``limit`` calls (False). Answers only grow (negation reads lower,
        complete strata), so a call whose count is unchanged is unchanged."""
        table, pending = self.table, self.pending
        while pending:
            if len(table) > limit:
                return False
            call = pending.pop()
            self.queued.discard(call)
            self.current = call
            found = answers(*call)
            if len(found) != len(table[call]):
                table[call] = found
                for reader in self.readers.get(call, ()):
                    self._queue(reader)
        return len(table) <= limit


class _Db:
    """Facts of one evaluation context (static, one state, or one state plus a joint move).

    A context computes only relations of its own level; lower levels come from
    ``parent`` (and are cached there, so every joint move of a state shares them).
    Recursive components are materialised bottom-up (``get``); other derived
    relations are answered per binding of their arguments (``query``) and memoised,
    so a 7-argument helper relation is only computed for the arguments a rule asks.
    """

    __slots__ = (
        "computing", "joins", "level", "memo", "owners", "parent", "prog", "rels", "shapes",
        "table_calls", "tabling", "ticks",
    )  # fmt: skip

    def __init__(self, prog: _Program, parent: _Db | None, level: int) -> None:
        self.prog = prog
        self.parent = parent
        self.level = level
        self.rels: dict[str, _Rel] = {}
        self.memo: dict[_Key, set[Any]] = {}
        self.owners: dict[str, _Db | None] = {}
        """Per relation, the ancestor context that holds it; None: this one (a context
        never refers to itself, so a dropped context is freed by reference counting,
        not left to the cyclic collector: see :meth:`_owner`)."""
        self.tabling: dict[int, _Fixpoint] = {}
        self.table_calls: dict[int, int] = {}
        self.shapes: dict[tuple[int, tuple[int, ...]], _Shape] = {}
        """Per rule (by id: the program keeps every rule alive) and bound head positions."""
        self.joins: dict[
            tuple[str, tuple[int, ...]], list[tuple[JoinFunction, list[_Rel | None]]]
        ] = {}
        """Per call pattern, the join code and relations of every rule, once all are kept
        shapes (a relation asked thousands of times a state, such as alexChess'
        ``between``, then runs its rules without a dispatch per rule)."""
        self.computing: set[int] = set()
        """Components whose bottom-up evaluation in this context is under way."""
        self.ticks = 0
        """Rule evaluations and join steps so far: every 1024th looks at the time limit."""

    def _owner(self, rel: str) -> _Db:
        """The context that holds ``rel`` (this one or an ancestor), by its level."""
        if rel in self.owners:
            return self.owners[rel] or self
        comp = self.prog.comp_of.get(rel)
        lvl = _STATIC if comp is None else self.prog.level[comp]
        db = self
        while lvl < db.level:
            assert db.parent is not None
            db = db.parent
        if lvl > db.level:
            raise ReasonerError(
                f"'{rel}' depends on {'does' if lvl == _MOVE else 'true'} and cannot be "
                f"evaluated in a {_LEVEL_NAMES[db.level]} context"
            )
        self.owners[rel] = None if db is self else db
        return db

    def get(self, rel: str) -> _Rel:
        """Every fact of ``rel`` (materialised and kept)."""
        found = self.rels.get(rel)
        if found is not None:
            return found
        db = self._owner(rel)
        if db is not self:
            return db.get(rel)
        prog = self.prog
        if rel in prog.demand:
            full = _Rel()
            for v in _checked(self.query(rel, (), ())):
                full.add(v)
            self.rels[rel] = full
            return full
        comp = prog.comp_of.get(rel)
        if comp is None or rel not in prog.rules_by_rel:
            facts = prog.base.get(rel) or _Rel()
            self.rels[rel] = facts
            return facts
        if self._on_budget(comp):
            if not self._materialise_static(rel, comp):
                return self.get(rel)  # now answered on demand: every answer, as asked
            return self.rels[rel]
        self._compute(comp)
        return self.rels[rel]

    def materialised(self, rel: str) -> _Rel | None:
        """Every fact of ``rel``, or None when it is (or just became) answered on demand."""
        if self._lazy(rel):
            return None
        found = self.rels.get(rel)
        if found is not None:
            return found
        db = self._owner(rel)
        if db is not self:
            return db.materialised(rel)
        comp = self.prog.comp_of.get(rel)
        if comp is not None and rel in self.prog.rules_by_rel and self._on_budget(comp):
            return self.rels[rel] if self._materialise_static(rel, comp) else None
        return self.get(rel)

    def _on_budget(self, comp: int) -> bool:
        """True for a component listed within ``STATIC_SECONDS`` or not at all: a static
        one, unless an attempt to list it failed before (see ``_materialise_static``)."""
        return self.level == _STATIC and comp not in self.prog.unlisted

    def _materialise_static(self, rel: str, comp: int) -> bool:
        """Compute every fact of a static relation, unless that takes over ``STATIC_SECONDS``.

        Most static relations are small tables (``succ``, ``adjacent``) best computed
        once. Some are not meant to be listed: sudoku's ``exactlyFirst`` has ten
        arguments and 387 million facts, and is only ever asked with all of them bound.
        A relation that takes too long is answered on demand from then on (per call,
        memoised in this static context; a recursive one tabled, with no limit on its
        calls, as bottom-up is what failed), which is always correct.

        The verdict goes into the program, which every thread shares: each thread's
        static context makes the same attempt and reaches it too, and a thread that
        listed the relation before still finds its list (answers do not depend on the
        verdict, only speed does, so it may depend on the clock).

        An attempt stopped midway drops everything it added to this context: a
        recursive relation it was computing (or an answer derived from one) would
        otherwise stay, incomplete, and be read as complete by every later query.
        """
        outer: tuple[float, float] | None = current_time_limit()
        rels_before, memo_before = set(self.rels), set(self.memo)
        try:
            with time_limit(STATIC_SECONDS):
                self._compute(comp)
        except QueryTimeLimitError:
            for name in set(self.rels) - rels_before:
                del self.rels[name]
            for key in set(self.memo) - memo_before:
                del self.memo[key]
            if outer is not None and time.monotonic() > outer[0]:
                raise  # the caller's limit, not the materialisation's
            prog = self.prog
            if prog.recursive[comp]:
                # laikLee_hex's append_el builds every list of distinct cells: tabled.
                prog.tabled.update(r for r in prog.comps[comp] if r in prog.rules_by_rel)
            else:
                prog.demand.add(rel)
            prog.unlisted.add(comp)
            return False
        return True

    def query(self, rel: str, positions: tuple[int, ...], key: tuple[Any, ...]) -> Iterable[Any]:
        """The facts of ``rel`` whose arguments at ``positions`` are ``key``."""
        mk = (rel, positions, key)
        found = self.memo.get(mk)
        if found is not None:
            return found
        prog = self.prog
        if rel not in prog.demand:
            if rel in prog.tabled:
                db = self._owner(rel)
                if rel not in db.rels:
                    # Asked with nothing bound, every answer is wanted: bottom-up. Top
                    # down, a rule that asks it unbound again would never end.
                    return db._tabled(rel, positions, key) if positions else db.get(rel).facts
            facts = self.materialised(rel)
            if facts is not None:
                return facts.lookup(_positions_spec(positions), key) if positions else facts.facts
        db = self._owner(rel)
        if db is not self:
            return db.query(rel, positions, key)
        full = self.rels.get(rel)
        if full is not None:
            return full.lookup(_positions_spec(positions), key) if positions else full.facts
        result = self._answers(rel, positions, key)
        self.memo[mk] = result
        return result

    def _answers(self, rel: str, positions: tuple[int, ...], key: tuple[Any, ...]) -> set[Any]:
        """Answers of one call from the rules and the ground facts of ``rel``."""
        out: list[Any] = []
        joins = self.joins.get((rel, positions))
        if joins is None:
            rules = self.prog.rules_by_rel.get(rel, ())
            for cr in rules:
                self._eval(cr, None, None, out, positions, key)
            kept = [self.shapes.get((id(cr), positions)) for cr in rules]
            joins = [(s[2], s[0]) for s in kept if s is not None and s[2] is not None]
            if len(joins) == len(rules):  # every rule's shape kept, each with join code
                self.joins[rel, positions] = joins
        else:
            before = self.ticks
            for code, rels in joins:
                # Additive: the calls this join made have counted their own steps.
                self.ticks += 1 + code(self, key, out, rels, None)
            if (before >> 10) != (self.ticks >> 10):
                check_time_limit()
        base = self.prog.base.get(rel)
        if base is not None:
            out.extend(base.lookup(_positions_spec(positions), key) if positions else base.facts)
        return set(out)

    def _tabled(self, rel: str, positions: tuple[int, ...], key: tuple[Any, ...]) -> Iterable[Any]:
        """A call with bound arguments to a relation defined inside a recursion.

        Top-down with tabling, evaluated to a fixpoint: every call met while answering
        (``count_loop inner ne 0 0 ?w ?b`` asks ``count_loop`` of the next pit, ...)
        gets a table of answers, and a call is answered again only when a call it read
        has gained answers since (a worklist, newest call first, so a chain of calls
        is answered from its far end back: twice each, not once per round). Only the
        calls reachable from the query are computed, where the bottom-up alternative
        would derive every instance of the relation. When a context has made more than
        ``_TABLE_LIMIT`` calls to a component, it is materialised bottom-up instead
        (many small fixpoints cost more than one big one).
        """
        call = (rel, positions, key)
        comp = self.prog.comp_of[rel]
        fix = self.tabling.get(comp)
        if fix is not None:  # inside the fixpoint of this component: current answers
            return fix.read(call)
        spent = self.table_calls.get(comp, 0)
        static = self.level == _STATIC  # not listed in time: top down is the only way
        if spent <= _TABLE_LIMIT or static:
            fix = _Fixpoint(call)
            self.tabling[comp] = fix
            try:
                done = fix.solve(self._answers, sys.maxsize if static else _TABLE_LIMIT - spent)
            finally:
                del self.tabling[comp]
            self.table_calls[comp] = spent + len(fix.table)
            if done:
                self.memo.update(fix.table)
                return fix.table[call]
        # Too many calls in this context: the whole component bottom-up is cheaper now.
        return self.get(rel).lookup(_positions_spec(positions), key)

    def _lazy(self, rel: str) -> bool:
        """True for a relation answered per call (not yet materialised as a whole)."""
        prog = self.prog
        if rel in prog.demand:
            return True
        return rel in prog.tabled and rel not in self._owner(rel).rels

    def holds(self, rel: str, value: Any) -> bool:
        """True when the ground atom ``value`` of ``rel`` holds."""
        facts = self.materialised(rel)
        if facts is not None:
            return value in facts.facts
        if type(value) is not tuple:
            return bool(self.query(rel, (), ()))
        n = len(value)
        positions = _ALL_ARGS[n] if n < len(_ALL_ARGS) else tuple(range(1, n))
        return bool(self.query(rel, positions, value[1:]))

    def _compute(self, comp: int) -> None:
        """Semi-naive bottom-up evaluation of one recursive component."""
        prog = self.prog
        members = prog.comps[comp]
        for r in members:
            if r not in self.rels:
                self.rels[r] = _Rel()
        rules = [cr for r in members for cr in prog.rules_by_rel.get(r, ())]
        member_set = set(members)
        self.computing.add(comp)
        try:
            self._rounds(members, rules, member_set)
        finally:
            self.computing.discard(comp)

    def _rounds(self, members: list[str], rules: list[_CRule], member_set: set[str]) -> None:
        """The rounds of :meth:`_compute`, until one derives nothing new."""
        prog = self.prog
        delta: dict[str, _Rel] = {}
        for r in members:
            base = prog.base.get(r)
            if base is not None:
                _collect(delta, r, list(base.facts), self.rels)
        for cr in rules:
            out: list[Any] = []
            self._eval(cr, None, None, out)
            _collect(delta, cr.head_rel, out, self.rels)
        while delta:
            for name, fresh in delta.items():
                for v in fresh.facts:
                    self.rels[name].add(v)
            new: dict[str, _Rel] = {}
            for cr in rules:
                for k, (rel, _) in enumerate(cr.pos_lits):
                    if rel in member_set and rel in delta:
                        out = []
                        self._eval(cr, k, delta[rel], out)
                        _collect(new, cr.head_rel, out, self.rels)
            delta = new

    def _shape(
        self, cr: _CRule, delta_step: int | None, delta: _Rel | None, positions: tuple[int, ...]
    ) -> _Shape:
        """How to evaluate ``cr`` here: the relation of each literal (None: answered per
        call), the join plan for the sizes at hand, and its join code (None: interpret).

        Asking every literal's relation costs more than many joins (amazons makes
        hundreds of thousands of small calls a state), so a shape is kept per context
        once its relations are settled: each either answered per call or complete.
        """
        prebound: set[int] = set()
        for p in positions:
            prebound |= _slots_of(cr.head[p])
        sizes: list[float] = []
        rels: list[_Rel | None] = []
        settled = delta_step is None
        for i, (rel, _) in enumerate(cr.pos_lits):
            facts = None if i == delta_step else self.materialised(rel)
            rels.append(facts)
            if i == delta_step:
                assert delta is not None
                sizes.append(float(len(delta.facts)))
            elif facts is None:
                sizes.append(-1.0)
            else:
                sizes.append(float(len(facts.facts)))
        for kind, rel, _, _ in cr.checks:
            rels.append(self.materialised(rel) if kind == "neg" else None)
        names = [rel for rel, _ in cr.pos_lits] + [rel for _, rel, _, _ in cr.checks]
        for rel, facts in zip(names, rels, strict=True):
            settled = settled and (
                facts is None or self.prog.comp_of.get(rel) not in self.computing
            )
        plan_key = (delta_step, positions, tuple(int(n).bit_length() for n in sizes))
        plans = cr.plans.get(plan_key)
        if plans is None:
            plans = tuple(dict.fromkeys(_plan(cr, sizes, prebound, f) for f in _CALL_FACTORS))
            cr.plans[plan_key] = plans
        chosen = cr.chosen.get(plan_key, 0 if len(plans) == 1 else None)
        trial = None
        if chosen is None:  # still trying the plans: each call is measured, none is kept
            tried = cr.trials.setdefault(plan_key, [[0.0, 0] for _ in plans])
            chosen = min(range(len(plans)), key=lambda v: tried[v][1])
            trial = (plan_key, chosen)
            settled = False
        steps = plans[chosen]
        code = None
        if self.prog.compiled:
            if (plan_key, chosen) not in cr.code:
                cr.code[plan_key, chosen] = compile_plan(cr.head, steps, positions, delta_step)
            code = cr.code[plan_key, chosen]
        shape = (rels, steps, code, trial)
        if settled:
            self.shapes[id(cr), positions] = shape
        return shape

    def _eval(
        self,
        cr: _CRule,
        delta_step: int | None,
        delta: _Rel | None,
        out: list[Any],
        positions: tuple[int, ...] = (),
        key: tuple[Any, ...] = (),
    ) -> None:
        """Add to ``out`` the heads of ``cr`` derivable here (restricted to ``key`` at
        ``positions`` of the head, and to ``delta`` for one literal in semi-naive rounds)."""
        shape = None if delta_step is not None else self.shapes.get((id(cr), positions))
        if shape is None:
            shape = self._shape(cr, delta_step, delta, positions)
        rels, steps, code, trial = shape
        before = self.ticks
        work = before + _INDEX_WORK.filed if trial is not None else 0
        if code is None:
            self._interpret(cr, steps, rels, delta_step, delta, out, positions, key)
        else:
            # Additive: the calls this join made have counted their own steps.
            joined = code(self, key, out, rels, delta)
            self.ticks += 1 + joined
            if (before >> 10) != (self.ticks >> 10):
                check_time_limit()
        if trial is not None:
            cr.record_trial(trial, self.ticks + _INDEX_WORK.filed - work)

    def _interpret(
        self,
        cr: _CRule,
        steps: tuple[_Step, ...],
        rels: list[_Rel | None],
        delta_step: int | None,
        delta: _Rel | None,
        out: list[Any],
        positions: tuple[int, ...],
        key: tuple[Any, ...],
    ) -> None:
        """:meth:`_eval` by walking the plan (the oracle of the join code)."""
        env: list[Any] = [None] * cr.nslots
        head = cr.head
        if positions:
            if type(head) is not tuple or len(head) <= positions[-1]:
                return  # an atom of another arity under the same name
            trail: list[int] = []
            for p, v in zip(positions, key, strict=True):
                if not _match(head[p], v, env, trail):
                    return
        nsteps = len(steps)
        ticks = self.ticks + 1  # rule evaluations and join steps count alike
        if not ticks & _TICKS_PER_CHECK:
            check_time_limit()
        start = ticks - 1

        def walk(i: int) -> None:
            nonlocal ticks
            while i < nsteps:
                st = steps[i]
                kind = st.kind
                if kind == "pos":
                    ticks += 1
                    if not ticks & _TICKS_PER_CHECK:
                        check_time_limit()
                    index = st.index
                    rel_facts = delta if st.lit == delta_step else rels[st.lit]
                    if rel_facts is None:
                        positions, kpats = st.demand
                        cands: Iterable[Any] = self.query(st.rel, positions, _subst_all(kpats, env))
                    elif index is None:
                        cands = rel_facts.facts
                    else:
                        cands = rel_facts.lookup(index[0], _index_key(index[1], env))
                    pat = st.pattern
                    trail: list[int] = []
                    for v in cands:
                        if _match(pat, v, env, trail):
                            walk(i + 1)
                        for s in trail:
                            env[s] = None
                        trail.clear()
                    return
                if kind == "has":
                    value = _subst(st.pattern, env)
                    if st.lit == delta_step:
                        assert delta is not None
                        if value not in delta.facts:
                            return
                    elif not self.holds(st.rel, value):
                        return
                elif kind == "neg":
                    if self.holds(st.rel, _subst(st.pattern, env)):
                        return
                elif kind == "distinct":
                    if _subst(st.pattern, env) == _subst(st.other, env):
                        return
                elif _subst(st.pattern, env) != _subst(st.other, env):  # "same"
                    return
                i += 1
            out.append(_subst(head, env))

        try:
            walk(0)
        finally:
            walk = _walked  # it referred to itself: kept, every call would leave a cycle
        # Additive: the calls this walk made have counted their own steps.
        self.ticks += ticks - start


def _collect(into: dict[str, _Rel], rel: str, values: list[Any], full: dict[str, _Rel]) -> None:
    """Add the new ``values`` of ``rel`` to the round's ``into``, looking at the time limit
    between chunks: filing millions of facts takes longer than deriving them
    (mummymaze1p's static ``direction-from`` has 6.5 million), and a listing's budget
    must hold for both."""
    known = full[rel].facts
    fresh = [v for v in values if v not in known]
    if fresh:
        target = into.get(rel)
        if target is None:
            target = into[rel] = _Rel()
        for start in range(0, len(fresh), _COLLECT_CHUNK):
            check_time_limit()
            for v in fresh[start : start + _COLLECT_CHUNK]:
                target.add(v)


_COLLECT_CHUNK = 1 << 15


def _checked(values: Iterable[Any], every: int = 4096) -> Iterator[Any]:
    """``values``, looking at the time limit every ``every`` of them: filing or
    converting the thousands of answers of one listing (small Dominion's nature deals
    from a deck of twenty) takes longer than a join's own checks allow for."""
    for count, value in enumerate(values):
        if not count % every:
            check_time_limit()
        yield value


ProverState = frozenset[Any]


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _fresh_after_error(method: _Method) -> _Method:
    """A query runs under a time limit, and one that fails midway drops this thread's contexts.

    Why: on hostile rules one query can run for ever, so a caller that set no limit
    gets :data:`QUERY_SECONDS`. Relations are cached as they are computed; a query
    stopped by a limit (or out of memory) would otherwise leave a partial relation
    that later queries read as complete.
    """

    @functools.wraps(method)
    def guarded(self: Prover, *args: Any) -> Any:
        try:
            return call_with_default_limit(QUERY_SECONDS, method, self, *args)
        except BaseException:
            dropped = getattr(self._local, "contexts", None)
            self._local.contexts = None
            if dropped is not None:
                _dismantle_later(dropped)
            raise

    return cast("_Method", guarded)


def _dismantle_later(contexts: _Contexts) -> threading.Thread:
    """Free ``contexts`` a piece at a time in a daemon thread.

    Why: a thread's contexts on a big game hold millions of facts, and freeing them at
    once holds the interpreter's lock for as long as it takes: a search stopped at its
    deadline then answered late, and every other thread of the process (a player's event
    loop) stood still meanwhile (small Dominion; docs/results.md, thirteenth stop)."""

    def dismantle() -> None:
        for db in [*(db for db, _ in contexts.states.values()), contexts.static]:
            for table in (db.memo, db.rels):
                while table:
                    table.popitem()
        contexts.states.clear()

    thread = threading.Thread(target=dismantle, name="ggpkit-dismantle", daemon=True)
    thread.start()
    return thread


LEGAL_KEPT = 1024
"""Legal-move lists a prover keeps by the fluents they read (across states and threads)."""


def _fewer_fluents(rules: Sequence[Rule], role: Term) -> frozenset[str] | None:
    """The fluents ``role``'s legal moves read where they are not all of them (else
    None: keeping moves by every fact of a state keeps them by the state, which the
    state's own memo does, and the lookup would slow every call; docs/results.md,
    "nature's deals kept by what they read")."""
    reads = fluents_read(rules, "legal", role)
    every = fluent_names(rules)
    if reads is None or every is None or every <= reads:
        return None
    return reads


def _functor(value: Any) -> Any:
    """The name of an internal fact value (a constant is its own name)."""
    return value if type(value) is str else value[0]


class Prover:
    """The reference reasoner (see the module docstring). Implements ``Reasoner``.

    ``cache_size`` bounds how many states keep their evaluated relations, so that
    asking ``terminal``, ``legal`` and ``next`` of one state evaluates shared
    relations once.
    """

    def __init__(
        self, rules: Sequence[Rule], cache_size: int = 4096, compiled: bool = False
    ) -> None:
        self._prog = _Program(rules, compiled)
        for rel, most in (("legal", _STATE), ("goal", _STATE), ("terminal", _STATE)):
            if self._prog.level_of(rel) > most:
                raise ReasonerError(f"'{rel}' must not depend on 'does'")
        if self._prog.level_of("init") > _STATIC or self._prog.level_of("role") > _STATIC:
            raise ReasonerError("'init' and 'role' must not depend on 'true' or 'does'")
        static = _Db(self._prog, None, _STATIC)
        by_name: dict[str, Any] = {}
        for v in static.get("role").facts:
            if type(v) is tuple and len(v) == 2:
                by_name[str(to_term(v[1]))] = v[1]
        # Role order is the order of the role facts in the rules, as in ggp-base.
        order: list[str] = []
        for r in rules:
            if _is_role_fact(r) and isinstance(r.head, Func):
                name = str(r.head.args[0])
                if name in by_name and name not in order:
                    order.append(name)
        order += sorted(n for n in by_name if n not in order)
        self.roles: tuple[str, ...] = tuple(order)
        self._role_values: list[Any] = [by_name[r] for r in order]
        self._cache_size = cache_size
        self._legal_reads = [_fewer_fluents(rules, to_term(v)) for v in self._role_values]
        self._legal_kept: OrderedDict[tuple[int, frozenset[Any]], list[Term]] = OrderedDict()
        self._legal_lock = threading.Lock()
        self.name = "joincode" if compiled else "prover"
        self.batch: BatchPlayouts[ProverState] | None = None
        self._local = threading.local()
        self._local.contexts = _Contexts(static)

    def _contexts(self) -> _Contexts:
        """This thread's evaluation contexts, made on first use.

        Why per thread: contexts are filled lazily while rules are evaluated, so a
        context shared by two threads would be read half-filled. The compiled program
        is shared (its join plans are a cache of deterministic values).
        """
        contexts: _Contexts | None = getattr(self._local, "contexts", None)
        if contexts is None:
            contexts = _Contexts(_Db(self._prog, None, _STATIC))
            self._local.contexts = contexts
        return contexts

    # ---- the Reasoner protocol -----------------------------------------------------

    @_fresh_after_error
    def initial(self) -> ProverState:
        static = self._contexts().static
        return frozenset(v[1] for v in static.get("init").facts if type(v) is tuple)

    @_fresh_after_error
    def legal(self, state: ProverState, role_index: int) -> list[Term]:
        db, memo = self._state(state)
        key = f"legal{role_index}"
        found = memo.get(key)
        if found is None:
            found = self._legal_by_fluents(db, state, role_index)
            memo[key] = found
        return list(found)

    def _legal_by_fluents(self, db: _Db, state: ProverState, role_index: int) -> list[Term]:
        """The role's legal moves, kept by the state's facts of the fluents its legal
        rules read (:func:`~ggpkit.gdl.game_rules.fluents_read`) for every thread: the
        histories a player samples share them where they differ only in what the moves
        do not read (small Dominion's nature lists thousands of deals, read from the deck
        sizes and the turn alone)."""
        reads = self._legal_reads[role_index]
        kept = None
        if reads is not None:
            kept = (role_index, frozenset(f for f in state if _functor(f) in reads))
            with self._legal_lock:
                found = self._legal_kept.get(kept)
                if found is not None:
                    self._legal_kept.move_to_end(kept)
                    return found
        role = self._role_values[role_index]
        moves = [v[2] for v in db.get("legal").facts if type(v) is tuple and v[1] == role]
        found = sorted((to_term(m) for m in _checked(moves)), key=str)
        if kept is not None:
            with self._legal_lock:
                self._legal_kept[kept] = found
                if len(self._legal_kept) > LEGAL_KEPT:
                    self._legal_kept.popitem(last=False)
        return found

    @_fresh_after_error
    def next(self, state: ProverState, moves: Sequence[Term]) -> ProverState:
        move_db = self._with_moves(state, moves)
        return frozenset(v[1] for v in move_db.get("next").facts if type(v) is tuple)

    @_fresh_after_error
    def percepts(self, state: ProverState, moves: Sequence[Term]) -> tuple[frozenset[Term], ...]:
        """GDL-II's ``sees`` of ``state`` with ``moves`` asserted, as :meth:`next` asks ``next``."""
        seen = self._with_moves(state, moves).get("sees").facts
        return tuple(
            frozenset(to_term(v[2]) for v in seen if type(v) is tuple and v[1] == role)
            for role in self._role_values
        )

    def _with_moves(self, state: ProverState, moves: Sequence[Term]) -> _Db:
        """A context for the relations that depend on the moves: ``does`` holds ``moves``."""
        if len(moves) != len(self.roles):
            raise ReasonerError(f"a joint move needs {len(self.roles)} moves, got {len(moves)}")
        db, _ = self._state(state)
        move_db = _Db(self._prog, db, _MOVE)
        does = _Rel()
        for role, move in zip(self._role_values, moves, strict=True):
            does.add(("does", role, to_value(move)))
        move_db.rels["does"] = does
        return move_db

    @_fresh_after_error
    def terminal(self, state: ProverState) -> bool:
        db, _ = self._state(state)
        return bool(db.get("terminal").facts)

    @_fresh_after_error
    def goal(self, state: ProverState, role_index: int) -> int:
        db, _ = self._state(state)
        role = self._role_values[role_index]
        values = sorted(
            {str(to_term(v[2])) for v in db.get("goal").facts if type(v) is tuple and v[1] == role},
        )
        name = self.roles[role_index]
        if len(values) != 1:
            if not values:
                raise ReasonerError(f"no goal value is defined for role {name} in this state")
            raise ReasonerError(
                f"role {name} has {len(values)} goal values in this state: {', '.join(values)}"
            )
        try:
            value = int(values[0])
        except ValueError:
            raise ReasonerError(f"goal value of role {name} is not a number: {values[0]}") from None
        if not 0 <= value <= 100:
            raise ReasonerError(f"goal value of role {name} is outside 0..100: {value}")
        return value

    def facts(self, state: ProverState) -> frozenset[Term]:
        return frozenset(to_term(v) for v in state)

    # ---- helpers ---------------------------------------------------------------------

    def state_from_facts(self, facts: Iterable[Term]) -> ProverState:
        """A state from a set of ground facts (the contents of ``true``)."""
        return frozenset(to_value(f) for f in facts)

    def propositions(self) -> Propositions:
        """The rules' own ``base`` and ``input`` relations, sorted by text (the prover never
        grounds the rules, so it can list only what they declare)."""
        static = self._contexts().static
        base = {to_term(v[1]) for v in static.get("base").facts if type(v) is tuple}
        inputs = [v for v in static.get("input").facts if type(v) is tuple and len(v) == 3]
        moves = tuple(
            tuple(sorted({to_term(v[2]) for v in inputs if v[1] == role}, key=str))
            for role in self._role_values
        )
        if not base or not all(moves):
            raise ReasonerError(
                "the prover cannot list the possible facts and moves: the rules are not"
                " grounded and do not declare them with 'base' and 'input'"
            )
        return Propositions(tuple(sorted(base, key=str)), moves)

    def _state(self, state: ProverState) -> tuple[_Db, dict[str, list[Term]]]:
        contexts = self._contexts()
        cache = contexts.states
        entry = cache.get(state)
        if entry is not None:
            cache.move_to_end(state)
            return entry
        db = _Db(self._prog, contexts.static, _STATE)
        true = _Rel()
        for f in state:
            true.add(("true", f))
        db.rels["true"] = true
        entry = (db, {})
        cache[state] = entry
        if len(cache) > self._cache_size:
            cache.popitem(last=False)
        return entry


class _Contexts:
    """One thread's evaluation contexts: the static one and the most recent states'."""

    __slots__ = ("states", "static")

    def __init__(self, static: _Db) -> None:
        self.static = static
        self.states: OrderedDict[ProverState, tuple[_Db, dict[str, list[Term]]]] = OrderedDict()


def _is_role_fact(rule: Rule) -> bool:
    head = rule.head
    return not rule.body and isinstance(head, Func) and head.name == "role" and len(head.args) == 1
