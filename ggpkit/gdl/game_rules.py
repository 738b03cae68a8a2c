"""Structure of a rule set shared by the checker and the reasoners.

One place for the questions every consumer of GDL rules asks: which atoms a body
literal contains (through ``not`` and ``or``), the bodies a rule stands for once
``or`` is expanded, the relation dependency graph and its strongly connected
components (for stratification and the recursion restriction).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
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


def fluents_read(
    rules: Sequence[Rule], head: str, first: Term | None = None
) -> frozenset[str] | None:
    """The fluents (the names of ``true``'s arguments) that the rules of the relation
    ``head`` read, directly or through the relations they use; None where some rule
    reads ``(true ?x)``, any fluent at all. With ``first``, only the rules whose head's
    first argument may be ``first`` count (one role's ``legal`` rules).

    Why: where a role's legal moves read few fluents (nature's deals in small Dominion
    read the deck sizes and whose turn it is), states that agree on those fluents agree
    on the moves, and a reasoner may keep the moves by them."""
    by_head: dict[str, list[Rule]] = {}
    for rule in rules:
        if not isinstance(rule.head, Var):
            by_head.setdefault(relation(rule.head), []).append(rule)
    todo = [r for r in by_head.get(head, []) if first is None or _may_begin_with(r, first)]
    done: set[str] = set()
    fluents: set[str] = set()
    while todo:
        for lit in todo.pop().body:
            for atom, _ in body_atoms(lit):
                name = relation(atom)
                if name == "true":
                    fluent = atom.args[0] if isinstance(atom, Func) and atom.args else None
                    if not isinstance(fluent, Const | Func):
                        return None
                    fluents.add(fluent.name)
                elif name not in done:
                    done.add(name)
                    todo.extend(by_head.get(name, []))
    return frozenset(fluents)


def fluent_names(rules: Sequence[Rule]) -> frozenset[str] | None:
    """The names of the facts a state can hold (the arguments of ``init`` and ``next``
    heads); None where a head's argument is a variable (any fact at all)."""
    names: set[str] = set()
    for rule in rules:
        head = rule.head
        if isinstance(head, Func) and head.name in ("init", "next") and len(head.args) == 1:
            fluent = head.args[0]
            if not isinstance(fluent, Const | Func):
                return None
            names.add(fluent.name)
    return frozenset(names)


def _may_begin_with(rule: Rule, first: Term) -> bool:
    """Whether ``rule``'s head may have ``first`` as its first argument: it is ``first``
    itself, or a variable the body does not tell apart from it (``(distinct ?p random)``
    keeps a player's rule from nature's moves)."""
    head = rule.head
    if not isinstance(head, Func) or not head.args:
        return False
    arg = head.args[0]
    if not isinstance(arg, Var):
        return arg == first
    apart = {(arg, first), (first, arg)}
    return not any(
        isinstance(lit, Func) and lit.name == "distinct" and tuple(lit.args) in apart
        for lit in rule.body
    )


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


# ---- GDL-II: percepts and nature ----------------------------------------------------------

CHANCE_ROLE = "random"
"""GDL-II's nature (Thielscher, 2010): the role whose move is drawn uniformly at random
among its legal moves, never chosen by a player."""


def uses_sees(rules: Iterable[Rule]) -> bool:
    """True for GDL-II rules: some rule speaks of ``sees`` (what a role perceives).

    ``sees`` is what tells GDL-II apart. A role named ``random`` alone is no sign of it:
    in GDL it is an ordinary role (beatMania has one, and ggp-base seats a player there).
    """
    for rule in rules:
        if relation(rule.head) == "sees":
            return True
        for lit in rule.body:
            if any(relation(atom) == "sees" for atom, _ in body_atoms(lit)):
                return True
    return False


def is_role_fact(rule: Rule, name: str | None = None) -> bool:
    """True for a fact ``(role R)`` (of the role ``name`` when given)."""
    head = rule.head
    if rule.body or not isinstance(head, Func) or head.name != "role" or len(head.args) != 1:
        return False
    return name is None or (isinstance(head.args[0], Const) and head.args[0].name == name)


def chance_role(rules: Sequence[Rule]) -> str | None:
    """:data:`CHANCE_ROLE` where GDL-II rules declare it as a role, else None."""
    if any(is_role_fact(r, CHANCE_ROLE) for r in rules) and uses_sees(rules):
        return CHANCE_ROLE
    return None


def can_name(head: Term, rel: str, role: str) -> bool:
    """True when ``head`` is a ``rel`` atom whose first argument may be ``role`` (the
    constant itself or a variable)."""
    if not isinstance(head, Func) or head.name != rel or not head.args:
        return False
    first = head.args[0]
    return isinstance(first, Var) or (isinstance(first, Const) and first.name == role)


def with_nature_goal(rules: Sequence[Rule]) -> list[Rule]:
    """``rules`` with nature's goal fixed at 0, whatever they say of it.

    Why: GDL-II gives nature no goal, but the game contract and every reasoner's
    playouts ask exactly one goal of every role in a terminal state; some public games
    give nature none, others one in some states only. Nature is no player, so its goal
    is never scored: the fact ``(goal random 0)`` replaces the rules' own goals for it,
    and a goal rule whose head has a variable role is narrowed to the other roles.
    """
    chance = chance_role(rules)
    if chance is None:
        return list(rules)
    out = []
    for rule in rules:
        head = rule.head
        if isinstance(head, Func) and can_name(head, "goal", chance):
            first = head.args[0]
            if not isinstance(first, Var):
                continue
            rule = Rule(head, (*rule.body, Func("distinct", (first, Const(chance)))), rule.pos)
        out.append(rule)
    out.append(Rule(Func("goal", (Const(chance), Const("0"))), ()))
    return out


# ---- fresh relation names ------------------------------------------------------------------


def symbol_names(rules: Iterable[Rule]) -> set[str]:
    """Every relation, function and constant name the rules use."""
    names: set[str] = set()
    todo: list[Term] = []
    for rule in rules:
        todo.append(rule.head)
        todo.extend(rule.body)
    while todo:
        term = todo.pop()
        if isinstance(term, Const):
            names.add(term.name)
        elif isinstance(term, Func):
            names.add(term.name)
            todo.extend(term.args)
    return names


def fresh_name(base: str, used: set[str]) -> str:
    """``base``, primed until no name of ``used`` is it; the name is then added to ``used``.

    Why: a rewrite that introduces a relation must not meet one of the game's own, or it
    would change what that relation means; checking against the names actually used is
    the only way to be sure, whatever the game's author chose to call things.
    """
    name = base
    while name in used:
        name += "'"
    used.add(name)
    return name


def map_atoms(lit: Term, change: Callable[[Term], Term]) -> Term:
    """``lit`` with ``change`` applied to each relation atom (through ``not`` and ``or``;
    a ``distinct`` is a test on terms, never an atom, and stays as it is)."""
    if isinstance(lit, Func) and lit.name == "not" and len(lit.args) == 1:
        return Func("not", (map_atoms(lit.args[0], change),), lit.pos)
    if isinstance(lit, Func) and lit.name == "or":
        return Func("or", tuple(map_atoms(a, change) for a in lit.args), lit.pos)
    if isinstance(lit, Func) and lit.name == "distinct":
        return lit
    return change(lit)


# ---- GDL-II: one goal per role ------------------------------------------------------------

GOAL_COMPLETION_NOTE = (
    "goals completed (GDL-II): a role's goal is the highest value the rules give it, "
    "0 where they give none"
)
"""The note a game carries when :func:`with_goal_completion` rewrote its rules."""


def with_goal_completion(rules: Sequence[Rule]) -> list[Rule]:
    """GDL-II ``rules`` where every role has exactly one goal in every state.

    Why: the game contract, the match driver and every reasoner's playouts ask one goal
    of each role in a terminal state, and public GDL-II games often leave a role none
    (a case the rules forgot) or two (two lines completed at once). GDL-II's matches are
    played by referees that score what the rules give, so the reading that loses nothing
    is: the highest value the rules give a role, and 0 where they give none. It is done
    on the rules, not in one reasoner, so that the prover, the join code and the propnet
    all agree: the rules' own ``goal`` becomes a fresh relation ``G``, and ``goal`` is
    defined from it with stratified negation::

        (<= (goal ?r ?v) (G ?r ?v) (not (B ?r ?v)))         ; the highest value
        (<= (B ?r ?v) (G ?r ?v) (G ?r ?w) (GT ?w ?v))        ; beaten by a higher one
        (<= (goal ?r 0) (role ?r) (not (A ?r)))              ; none given: 0
        (<= (A ?r) (G ?r ?v))

    with ``GT`` the facts ``w > v`` over the values the rules can give (0..100 where a
    goal value is computed). Rules without ``sees`` (GDL) are returned unchanged: a GDL
    game's goal errors are its own, reported as they are.
    """
    if not uses_sees(rules):
        return list(rules)
    used = symbol_names(rules)
    given = fresh_name("goal/given", used)
    beaten = fresh_name("goal/beaten", used)
    some = fresh_name("goal/any", used)
    greater = fresh_name("goal/greater", used)

    def rename(atom: Term) -> Term:
        if isinstance(atom, Func) and atom.name == "goal" and len(atom.args) == 2:
            return Func(given, atom.args, atom.pos)
        return atom

    out: list[Rule] = []
    values: set[int] = set()
    computed = False
    for rule in rules:
        head = rename(rule.head)
        if head is not rule.head and isinstance(head, Func):
            value = head.args[1]
            if isinstance(value, Const) and value.name.isdigit():
                values.add(int(value.name))
            elif not isinstance(value, Const):
                computed = True
        out.append(Rule(head, tuple(map_atoms(lit, rename) for lit in rule.body), rule.pos))
    if computed:
        values = set(range(101))
    r, v, w = Var("r"), Var("v"), Var("w")
    out += [
        Rule(Func("goal", (r, v)), (Func(given, (r, v)), Func("not", (Func(beaten, (r, v)),)))),
        Rule(
            Func(beaten, (r, v)),
            (Func(given, (r, v)), Func(given, (r, w)), Func(greater, (w, v))),
        ),
        Rule(
            Func("goal", (r, Const("0"))),
            (Func("role", (r,)), Func("not", (Func(some, (r,)),))),
        ),
        Rule(Func(some, (r,)), (Func(given, (r, v)),)),
    ]
    ordered = sorted(values)
    out += [
        Rule(Func(greater, (Const(str(hi)), Const(str(lo)))), ())
        for i, lo in enumerate(ordered)
        for hi in ordered[i + 1 :]
    ]
    return out
