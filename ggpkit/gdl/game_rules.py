"""Structure of a rule set shared by the checker and the reasoners.

One place for the questions every consumer of GDL rules asks: which atoms a body
literal contains (through ``not`` and ``or``), the bodies a rule stands for once
``or`` is expanded, the relation dependency graph and its strongly connected
components (for stratification and the recursion restriction).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from ggpkit.gdl.kif import GdlLimitError, Rule
from ggpkit.gdl.terms import Const, Func, Pos, Term, Var

CONNECTIVES = frozenset({"not", "or", "distinct"})


def body_atoms(lit: Term, negated: bool = False) -> Iterator[tuple[Term, bool]]:
    """The relation atoms of a body literal with their polarity, looking through not/or.

    ``distinct`` is not an atom (it is a test on terms), so it yields nothing.
    """
    if isinstance(lit, Func) and lit.name == "not" and len(lit.args) == 1:
        yield from body_atoms(lit.args[0], not negated)
    elif isinstance(lit, Func) and lit.name == "or":
        for a in lit.args:
            yield from body_atoms(a, negated)
    elif isinstance(lit, Func) and lit.name == "distinct":
        return
    elif isinstance(lit, Const | Func):
        yield lit, negated


MAX_OR_BODIES = 10_000
"""Most bodies one rule may expand into through ``or`` (each ``or`` multiplies them: 20
``(or a b)`` in one body would make a million). Public games need a few dozen."""


def expand_or(body: Sequence[Term]) -> list[list[Term]]:
    """The bodies equivalent to ``body`` once every ``or`` is expanded (``not (or ..)`` too).

    GdlLimitError, at the first ``or``, when they would be more than :data:`MAX_OR_BODIES`.
    """
    choices: list[list[list[Term]]] = []
    for lit in body:
        if isinstance(lit, Func) and lit.name == "or":
            alts: list[list[Term]] = []
            for a in lit.args:
                alts.extend(expand_or([a]))
            choices.append(alts)
        elif (
            isinstance(lit, Func)
            and lit.name == "not"
            and len(lit.args) == 1
            and isinstance(lit.args[0], Func)
            and lit.args[0].name == "or"
        ):
            # not (or a b) == (not a) and (not b)
            choices.append(expand_or([Func("not", (a,), lit.pos) for a in lit.args[0].args]))
        else:
            choices.append([[lit]])
    count = math.prod(len(c) for c in choices)
    if count > MAX_OR_BODIES:
        where = next((t.pos for t in body if isinstance(t, Func) and t.pos is not None), None)
        raise GdlLimitError(
            where or Pos("<rules>", 0, 0),
            f"this rule expands into {count:,} alternatives through 'or', more than the "
            f"{MAX_OR_BODIES:,} allowed",
        )
    return [[lit for part in combo for lit in part] for combo in itertools.product(*choices)]


def relation(term: Term) -> str:
    """The relation name of an atom (its head symbol)."""
    return term.name


@dataclass
class DependencyGraph:
    """Relation -> relations its rules use, with the negative edges apart."""

    edges: dict[str, set[str]] = field(default_factory=dict)
    negative: set[tuple[str, str]] = field(default_factory=set)

    def add_node(self, rel: str) -> None:
        self.edges.setdefault(rel, set())

    def add(self, head: str, body: str, negated: bool) -> None:
        self.add_node(head)
        self.add_node(body)
        self.edges[head].add(body)
        if negated:
            self.negative.add((head, body))

    def reachable(self, start: str) -> set[str]:
        """Every relation ``start`` depends on, directly or not (itself only if cyclic)."""
        seen: set[str] = set()
        todo = list(self.edges.get(start, ()))
        while todo:
            r = todo.pop()
            if r in seen:
                continue
            seen.add(r)
            todo.extend(self.edges.get(r, ()))
        return seen


def dependency_graph(rules: Iterable[Rule]) -> DependencyGraph:
    """The dependency graph of a rule set (``true`` and ``does`` appear as plain nodes)."""
    graph = DependencyGraph()
    for rule in rules:
        if isinstance(rule.head, Var):
            continue
        head = relation(rule.head)
        graph.add_node(head)
        for lit in rule.body:
            for atom, negated in body_atoms(lit):
                graph.add(head, relation(atom), negated)
    return graph


def strongly_connected_components(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components, each sorted, dependencies before dependents.

    Tarjan's algorithm, iterative so that long dependency chains cannot overflow the stack.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp: list[str] = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                out.append(sorted(comp))
    return out


# ---- stratification by constant arguments -------------------------------------------------

SPLIT_MARK = "#"


def base_relation(name: str) -> str:
    """The relation a split relation name (``goal#2=100``) came from."""
    return name.split(SPLIT_MARK, 1)[0]


def negative_cycles(rules: Sequence[Rule]) -> list[tuple[Rule, Term, str]]:
    """(rule, negated atom, head relation) for every ``not`` inside a recursion."""
    graph = dependency_graph(rules)
    comps = strongly_connected_components(graph.edges)
    comp_of = {r: i for i, comp in enumerate(comps) for r in comp}
    out: list[tuple[Rule, Term, str]] = []
    for rule in rules:
        if isinstance(rule.head, Var):
            continue
        head = relation(rule.head)
        for lit in rule.body:
            for atom, negated in body_atoms(lit):
                if negated and comp_of.get(relation(atom)) == comp_of.get(head):
                    out.append((rule, atom, head))
    return out


def _substitute(term: Term, name: str, value: Term) -> Term:
    if isinstance(term, Var):
        return value if term.name == name else term
    if isinstance(term, Func):
        return Func(term.name, tuple(_substitute(a, name, value) for a in term.args), term.pos)
    return term


def _rename_literals(lit: Term, rel: str, k: int, consts: set[str]) -> Term | None:
    """Rename atoms of ``rel`` with a constant at argument ``k`` to their split name.

    Returns None for an atom that can never hold (its argument ``k`` is no head constant);
    the caller treats that as false (positive) or drops it (negated).
    """
    if isinstance(lit, Func) and lit.name == "not" and len(lit.args) == 1:
        inner = _rename_literals(lit.args[0], rel, k, consts)
        if inner is None:
            return Const("true#", lit.pos)  # "not false": always true, removed by the caller
        return Func("not", (inner,), lit.pos)
    if isinstance(lit, Func) and lit.name == rel and len(lit.args) > k:
        arg = lit.args[k]
        if isinstance(arg, Const) and arg.name in consts:
            return Func(f"{rel}{SPLIT_MARK}{k}={arg.name}", lit.args, lit.pos)
        if isinstance(arg, Var):
            return lit  # only after substitution; callers substitute variables first
        return None
    return lit


def _split_relation(rules: Sequence[Rule], rel: str, k: int) -> list[Rule]:
    """Split ``rel`` by the constant at argument ``k`` (every head of ``rel`` has one there).

    Body literals of ``rel`` with a variable at ``k`` are instantiated with each constant
    (sound: every fact of ``rel`` has one of those constants there). The original
    relation is kept as the union of its parts, for queries from outside.
    """
    consts: set[str] = set()
    arity = 0
    for r in rules:
        if relation(r.head) == rel and isinstance(r.head, Func):
            a = r.head.args[k]
            assert isinstance(a, Const)
            consts.add(a.name)
            arity = len(r.head.args)
    out: list[Rule] = []
    for rule in rules:
        work = [rule]
        # Instantiate variables at position k of rel-atoms (head or body), one at a time.
        done: list[Rule] = []
        while work:
            r = work.pop()
            var = _var_at(r, rel, k)
            if var is None:
                done.append(r)
                continue
            for c in sorted(consts):
                value = Const(c)
                work.append(
                    Rule(
                        _substitute(r.head, var, value),
                        tuple(_substitute(b, var, value) for b in r.body),
                        r.pos,
                    )
                )
        for r in done:
            head = r.head
            if relation(head) == rel and isinstance(head, Func):
                head = Func(f"{rel}{SPLIT_MARK}{k}={head.args[k]}", head.args, head.pos)
            body: list[Term] = []
            alive = True
            for lit in r.body:
                new = _rename_literals(lit, rel, k, consts)
                if new is None:
                    alive = False
                    break
                if isinstance(new, Const) and new.name == "true#":
                    continue
                body.append(new)
            if alive:
                out.append(Rule(head, tuple(body), r.pos))
    for c in sorted(consts):
        args: tuple[Term, ...] = tuple(Const(c) if i == k else Var(f"_a{i}") for i in range(arity))
        out.append(Rule(Func(rel, args), (Func(f"{rel}{SPLIT_MARK}{k}={c}", args),), None))
    return out


def _var_at(rule: Rule, rel: str, k: int) -> str | None:
    atoms: list[Term] = [rule.head]
    for lit in rule.body:
        atoms.extend(a for a, _ in body_atoms(lit))
    for atom in atoms:
        if isinstance(atom, Func) and atom.name == rel and len(atom.args) > k:
            arg = atom.args[k]
            if isinstance(arg, Var):
                return arg.name
    return None


def _splittable_positions(rules: Sequence[Rule], rel: str) -> list[int]:
    heads = [r.head for r in rules if relation(r.head) == rel]
    if not heads or not all(isinstance(h, Func) for h in heads):
        return []
    arities = {len(h.args) for h in heads if isinstance(h, Func)}
    if len(arities) != 1:
        return []
    n = arities.pop()
    return [
        k
        for k in range(n)
        if all(isinstance(h, Func) and isinstance(h.args[k], Const) for h in heads)
    ]


def stratify_by_constants(rules: Sequence[Rule], max_splits: int = 8) -> list[Rule]:
    """An equivalent rule set where recursion through ``not`` is broken by constant arguments.

    Some public games write ``(<= (goal robot 100) (not (goal robot 0)))``: not stratified
    relation by relation, but stratified once ``goal`` is split by its (constant) value,
    which is what their authors meant and what ggp-base's prover accepts. When no split
    helps, the rules are returned unchanged (the checker then reports the recursion).
    """
    current = list(rules)
    for _ in range(max_splits):
        bad = negative_cycles(current)
        if not bad:
            return current
        progress = False
        candidates = sorted({base_relation(relation(atom)) for _, atom, _ in bad})
        for rel in candidates:
            if rel in ("true", "does") or SPLIT_MARK in rel:
                continue
            for k in _splittable_positions(current, rel):
                trial = _split_relation(current, rel, k)
                if len(negative_cycles(trial)) < len(bad):
                    current = trial
                    progress = True
                    break
            if progress:
                break
        if not progress:
            return list(rules)
    return current if not negative_cycles(current) else list(rules)
