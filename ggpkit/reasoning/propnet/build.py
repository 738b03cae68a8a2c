"""A propositional network built from a ground GDL program, compiled to flat arrays.

Every ground atom is a node; an atom with one rule is an AND gate of that rule's
body, an atom with several rules an OR gate over one AND gate per rule. Inputs
are the base propositions (``true F``) and the moves (``does R M``); node 0 is
the constant false and node 1 the constant true. A literal is ``2 * node + neg``.

Evaluation order: the nodes are ordered by strongly connected components
(dependencies first). GDL negation is stratified, so a cycle can only be
positive recursion; such a component is reset to false and iterated to its least
fixpoint, which is exactly the GDL meaning. Acyclic runs are evaluated once.

The network is evaluated in three phases, each holding only the nodes it needs:
``A`` (legal and terminal, from the state), ``B`` (next, after the moves are
set) and ``G`` (goals, from the state). A random playout then costs one ``A`` and
one ``B`` evaluation per step and one ``G`` at the end. GDL-II's percepts (``sees``)
are computed like ``next``, from the state and the moves, so they belong to ``B``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ggpkit.gdl.terms import Const, Func, Term
from ggpkit.reasoning.grounding.grounder import GroundingError, GroundProgram
from ggpkit.reasoning.propnet import graph
from ggpkit.reasoning.propnet.layout import lay_out

FALSE, TRUE = 0, 1
KIND_INPUT, KIND_AND, KIND_OR = 0, 1, 2

I32 = npt.NDArray[np.int32]

WATCH_MIN_BASE = 64
"""Networks with at least this many base facts name them in the fanout of their next
literals' nodes, so a scalar playout step reads only the next literals that changed.
With fewer, reading them all costs less than keeping the log (measured on ticTacToe)."""


def _no_ints() -> I32:
    return np.zeros(0, dtype=np.int32)


def _no_roles() -> I32:
    return np.zeros(1, dtype=np.int32)


@dataclass(frozen=True, slots=True)
class Propnet:
    """The compiled network: gate arrays, evaluation schedule and the game's views.

    Arrays (all int32): ``kind[n]``, ``in_start[n + 1]`` / ``inputs`` (CSR literals
    of each gate); ``order`` / ``blocks`` (rows ``start, end, cyclic`` into ``order``),
    with ``phases = [a0, a1, b0, b1, g0, g1]`` ranges of ``blocks``.
    """

    roles: tuple[str, ...]
    base: tuple[Term, ...]
    """The possible base facts, sorted by their text; a state is a bitset over them."""
    init: tuple[bool, ...]
    moves: tuple[tuple[Term, ...], ...]
    """Per role, the possible moves sorted by their text: the order ``legal`` returns."""
    kind: I32
    in_start: I32
    inputs: I32
    order: I32
    blocks: I32
    phases: I32
    base_nodes: I32
    next_lits: I32
    legal_lits: I32
    """All roles' legal literals, role after role; ``move_start`` splits them."""
    does_nodes: I32
    move_start: I32
    terminal_lit: int
    goal_lits: I32
    goal_values: I32
    goal_start: I32
    fan_start: I32
    fanout: I32
    """CSR of each node's consumers among the needed gates, as ``4 * gate + 2 * cyclic + neg``
    (a gate of a cyclic component is named by the component's first node), then
    ``4 * i + 3`` for each base fact ``i`` whose ``next`` literal reads the node."""
    scc: I32
    """Cyclic component of each node (-1 if none); ``scc_start`` / ``scc_nodes`` list them."""
    scc_start: I32
    scc_nodes: I32
    needed: I32
    """Every gate that some view depends on, in evaluation order."""
    watches_next: bool
    """Whether ``fanout`` names the base facts that read each node (see
    :data:`WATCH_MIN_BASE`)."""
    percepts: tuple[tuple[Term, ...], ...] = ()
    """Per role, every percept ``sees`` may give it (GDL-II), sorted by text; none in GDL."""
    sees_lits: I32 = field(default_factory=_no_ints)
    """The literal of each percept, role after role (``sees_start`` splits them); phase B."""
    sees_start: I32 = field(default_factory=_no_roles)

    @property
    def size(self) -> int:
        """Number of nodes (gates and inputs)."""
        return len(self.kind)


class Builder:
    def __init__(self) -> None:
        self.kind: list[int] = [KIND_INPUT, KIND_AND]  # FALSE input node, TRUE = empty AND
        self.ins: list[list[int]] = [[], []]

    def node(self, kind: int, ins: list[int]) -> int:
        self.kind.append(kind)
        self.ins.append(ins)
        return len(self.kind) - 1


def build(program: GroundProgram) -> Propnet:
    """Compile a ground program into a propositional network."""
    by_term: dict[Term, int] = {t: a for a, t in program.atoms.items()}
    b = Builder()
    node_of: dict[int, int] = {}  # atom -> node, for atoms resolved so far
    base, base_nodes, does_node = _inputs(program, by_term, b, node_of)
    alias = _wire_gates(program, b, node_of, does_node)

    def view(term: Term) -> int:
        """The literal of a ground atom: a gate, or a constant for facts and impossible atoms."""
        if term in program.facts:
            return 2 * TRUE
        atom = by_term.get(term)
        return alias(2 * node_of.get(atom, FALSE)) if atom is not None else 2 * FALSE

    for t in program.atoms.values():
        if isinstance(t, Func) and t.name == "init":
            raise GroundingError(f"init depends on the state: {t}")
    views = _role_views(program, does_node, view)
    views.next_lits = [view(Func("next", (f,))) for f in base]
    views.terminal_lit = view(Const("terminal"))
    init = tuple(Func("init", (f,)) in program.facts for f in base)
    return _laid_out(b, program.roles, base, init, base_nodes, views)


def _inputs(
    program: GroundProgram, by_term: dict[Term, int], b: Builder, node_of: dict[int, int]
) -> tuple[tuple[Term, ...], list[int], dict[tuple[int, Term], int]]:
    """The input nodes, first: base propositions and moves (clingo externals). Returns
    the base facts, their nodes, and the node of each (role index, move)."""
    base = tuple(sorted(set(program.true_domain), key=str))
    base_nodes = []
    for f in base:
        atom = by_term.get(Func("true", (f,)))
        n = b.node(KIND_INPUT, [])
        if atom is not None:
            node_of[atom] = n
        base_nodes.append(n)
    if not program.roles:
        raise GroundingError("the rules declare no role")
    role_index = {r: i for i, r in enumerate(program.roles)}
    does_node: dict[tuple[int, Term], int] = {}
    for role, move in sorted(set(program.does_domain), key=lambda rm: (rm[0], str(rm[1]))):
        if role not in role_index:
            continue
        n = b.node(KIND_INPUT, [])
        atom = by_term.get(Func("does", (Const(role), move)))
        if atom is not None:
            node_of[atom] = n
        does_node[(role_index[role], move)] = n
    return base, base_nodes, does_node


def _wire_gates(
    program: GroundProgram,
    b: Builder,
    node_of: dict[int, int],
    does_node: dict[tuple[int, Term], int],
) -> Callable[[int], int]:
    """A gate for every derived atom, wired to its rules' bodies, then simplified; returns
    the alias of each literal after simplification."""
    rules_of: dict[int, list[tuple[int, ...]]] = {}
    for head, body in program.rules:
        rules_of.setdefault(head, []).append(body)
    # Constant atoms: facts (empty body) are true; atoms without rules are false.
    for atom, bodies in rules_of.items():
        if atom not in node_of and any(len(body) == 0 for body in bodies):
            node_of[atom] = TRUE
    # Derived atoms get a gate node each, allocated before wiring so cycles resolve.
    for atom, bodies in rules_of.items():
        if atom not in node_of:
            node_of[atom] = b.node(KIND_AND if len(bodies) == 1 else KIND_OR, [])
    # Literal of every body literal by table look-up: 2 * node, + 1 if negated (an atom
    # with no node is FALSE). A list index, not a call: millions of them in big games.
    lits_of = _literal_table(node_of, program.rules)
    factor = _DoesFactoring(b, does_node, len(program.roles))
    for atom, bodies in rules_of.items():
        n = node_of[atom]
        if n == TRUE or b.kind[n] == KIND_INPUT:
            continue
        lit_bodies = factor.bodies([[lits_of[x] for x in body] for body in bodies])
        if b.kind[n] == KIND_AND and len(lit_bodies) == 1:
            b.ins[n] = lit_bodies[0]
            continue
        b.kind[n] = KIND_OR
        b.ins[n] = [
            lits[0] if len(lits) == 1 else 2 * b.node(KIND_AND, lits) for lits in lit_bodies
        ]
    return simplify(b)


@dataclass(slots=True)
class _Views:
    """The game's views as literals of the network under construction."""

    moves: list[tuple[Term, ...]] = field(default_factory=list)
    legal_lits: list[int] = field(default_factory=list)
    does_list: list[int] = field(default_factory=list)
    move_start: list[int] = field(default_factory=lambda: [0])
    goal_lits: list[int] = field(default_factory=list)
    goal_values: list[int] = field(default_factory=list)
    goal_start: list[int] = field(default_factory=lambda: [0])
    next_lits: list[int] = field(default_factory=list)
    terminal_lit: int = 2 * FALSE
    percepts: list[tuple[Term, ...]] = field(default_factory=list)
    sees_lits: list[int] = field(default_factory=list)
    sees_start: list[int] = field(default_factory=lambda: [0])


def _role_views(
    program: GroundProgram, does_node: dict[tuple[int, Term], int], view: Callable[[Term], int]
) -> _Views:
    """Each role's possible moves with their legal literals, its goal and percept literals."""
    views = _Views()
    goal_terms = [t for t in (*program.atoms.values(), *program.facts) if _is(t, "goal", 2)]
    _percept_views(program, views, view)
    for i, role in enumerate(program.roles):
        ms = sorted((m for (r, m) in does_node if r == i), key=str)
        role_moves = []
        for m in ms:
            lt = view(Func("legal", (Const(role), m)))
            if lt in (2 * FALSE, 2 * TRUE + 1):
                continue
            role_moves.append(m)
            views.legal_lits.append(lt)
            views.does_list.append(does_node[(i, m)])
        views.moves.append(tuple(role_moves))
        views.move_start.append(len(views.legal_lits))
        for g in sorted(
            (g for g in goal_terms if isinstance(g, Func) and str(g.args[0]) == role), key=str
        ):
            assert isinstance(g, Func)
            try:
                value = int(str(g.args[1]))
            except ValueError as e:
                raise GroundingError(f"goal value is not a number: {g}") from e
            views.goal_lits.append(view(g))
            views.goal_values.append(value)
        views.goal_start.append(len(views.goal_lits))
    return views


def _percept_views(program: GroundProgram, views: _Views, view: Callable[[Term], int]) -> None:
    """Each role's possible percepts (GDL-II's ``sees``) and their literals."""
    seen: dict[str, list[Term]] = {}
    for t in (*program.atoms.values(), *program.facts):
        if isinstance(t, Func) and _is(t, "sees", 2):
            seen.setdefault(str(t.args[0]), []).append(t)
    for role in program.roles:
        kept = []
        for t in sorted(set(seen.get(role, ())), key=str):
            lit = view(t)
            if lit in (2 * FALSE, 2 * TRUE + 1):
                continue
            assert isinstance(t, Func)
            kept.append(t.args[1])
            views.sees_lits.append(lit)
        views.percepts.append(tuple(kept))
        views.sees_start.append(len(views.sees_lits))


def _laid_out(
    b: Builder,
    roles: tuple[str, ...],
    base: tuple[Term, ...],
    init: tuple[bool, ...],
    base_nodes: list[int],
    views: _Views,
) -> Propnet:
    """The network in its final numbering and evaluation schedule."""
    kind = np.asarray(b.kind, dtype=np.int32)
    in_start, flat = graph.csr(b.ins)
    # Legal literals in runs of words (the scalar kernel counts them by words); the
    # next literals stay as they are (read one by one, where they changed).
    starts = views.move_start
    groups = [views.legal_lits[starts[r] : starts[r + 1]] for r in range(len(roles))]
    kind, in_start, flat, new, runs = lay_out(kind, in_start, flat, groups)

    def moved(x: int) -> int:
        return 2 * int(new[x >> 1]) | (x & 1)

    legal_lits = [x for run in runs for x in run]
    next_lits = [moved(x) for x in views.next_lits]
    goal_lits = [moved(x) for x in views.goal_lits]
    sees_lits = [moved(x) for x in views.sees_lits]
    terminal_lit = moved(views.terminal_lit)
    roots = ([*legal_lits, terminal_lit], next_lits, goal_lits)
    watch = len(next_lits) >= WATCH_MIN_BASE
    order, blocks, phases, inc = schedule_network(kind, in_start, flat, roots, watch, sees_lits)

    def arr(xs: list[int]) -> I32:
        return np.asarray(xs, dtype=np.int32)

    return Propnet(
        roles=roles,
        base=base,
        init=init,
        moves=tuple(views.moves),
        kind=kind,
        in_start=in_start,
        inputs=flat,
        order=order,
        blocks=blocks.reshape(-1, 3),
        phases=phases,
        base_nodes=arr([int(new[n]) for n in base_nodes]),
        next_lits=arr(next_lits),
        legal_lits=arr(legal_lits),
        does_nodes=arr([int(new[n]) for n in views.does_list]),
        move_start=arr(views.move_start),
        terminal_lit=terminal_lit,
        goal_lits=arr(goal_lits),
        goal_values=arr(views.goal_values),
        goal_start=arr(views.goal_start),
        fan_start=inc[0],
        fanout=inc[1],
        scc=inc[2],
        scc_start=inc[3],
        scc_nodes=inc[4],
        needed=inc[5],
        watches_next=watch,
        percepts=tuple(views.percepts),
        sees_lits=arr(sees_lits),
        sees_start=arr(views.sees_start),
    )


def _literal_table(
    node_of: dict[int, int], rules: tuple[tuple[int, tuple[int, ...]], ...]
) -> list[int]:
    """``table[x]`` is the literal of body literal ``x`` (atom ``abs(x)``, negated if < 0).

    Negative indices reach from the end of the list, so the table holds both signs:
    ``table[-a]`` is the negation of ``table[a]``.
    """
    top = max(max(node_of, default=0), max((abs(x) for _, body in rules for x in body), default=0))
    positive = [2 * FALSE] * (top + 1)
    for atom, node in node_of.items():
        positive[atom] = 2 * node
    # table[-a] == table[len - a]: lay the negations out in reverse after the positives.
    return positive + [positive[a] + 1 for a in range(top, 0, -1)]


class _DoesFactoring:
    """Merge rule bodies that differ only in their one move literal.

    Frame axioms such as ``next(cell X) :- true(cell X), does(R, M), distinct...``
    ground to one body per (cell, move). Bodies with the same other literals become
    one body with a *move set* literal: true iff the role's move is in the set.
    Exactly one move per role is set in every evaluation of ``next``, so a set
    larger than half a role's moves is written as the negation of its complement.
    """

    def __init__(self, b: Builder, does_node: dict[tuple[int, Term], int], nroles: int) -> None:
        self.b = b
        self.role_of = {n: r for (r, _), n in does_node.items()}
        self.of_role: list[list[int]] = [[] for _ in range(nroles)]
        for (r, _), n in sorted(does_node.items(), key=lambda kv: kv[1]):
            self.of_role[r].append(n)
        self.cache: dict[frozenset[int], int] = {}

    def bodies(self, bodies: list[list[int]]) -> list[list[int]]:
        groups: dict[tuple[int, ...], list[int]] = {}
        out: list[list[int]] = []
        for lits in bodies:
            moves = [x for x in lits if (x >> 1) in self.role_of]
            if len(moves) == 1 and (moves[0] & 1) == 0:
                rest = tuple(sorted(x for x in lits if x != moves[0]))
                groups.setdefault(rest, []).append(moves[0] >> 1)
            else:
                out.append(lits)
        for rest, ds in groups.items():
            out.append([*rest, 2 * ds[0] if len(ds) == 1 else self.move_set(frozenset(ds))])
        return out

    def move_set(self, nodes: frozenset[int]) -> int:
        """A literal true iff one of the move nodes ``nodes`` is set."""
        if nodes in self.cache:
            return self.cache[nodes]
        per_role: dict[int, set[int]] = {}
        for n in nodes:
            per_role.setdefault(self.role_of[n], set()).add(n)
        lits = []
        for r, chosen in sorted(per_role.items()):
            every = self.of_role[r]
            rest = [n for n in every if n not in chosen]
            if not rest:
                lits = [2 * TRUE]
                break
            if len(chosen) <= len(rest):
                lits.append(self._any(sorted(chosen)))
            else:
                lits.append(self._any(rest) ^ 1)
        out = lits[0] if len(lits) == 1 else 2 * self.b.node(KIND_OR, lits)
        self.cache[nodes] = out
        return out

    def _any(self, nodes: list[int]) -> int:
        return 2 * nodes[0] if len(nodes) == 1 else 2 * self.b.node(KIND_OR, [2 * n for n in nodes])


def simplify(b: Builder) -> Callable[[int], int]:
    """Fold constants, bypass one-input gates and merge identical gates, to a fixpoint.

    Returns the map from an old literal to its replacement. Every rewrite keeps the
    least-fixpoint value of every node, so cyclic components stay correct.
    """
    alias: dict[int, int] = {}

    def resolve(x: int) -> int:
        n0, y = x >> 1, x
        while (y >> 1) in alias:
            y = alias[y >> 1] ^ (y & 1)
        if n0 in alias:  # path compression: the next lookup is one step
            alias[n0] = y ^ (x & 1)
        return y

    # Inputs before consumers, so one pass settles most of the network.
    order = graph.postorder(*graph.csr(b.ins)).tolist()
    t, f = 2 * TRUE, 2 * FALSE
    changed = True
    while changed:
        changed = False
        table: dict[tuple[int, tuple[int, ...]], int] = {}
        for n in order:
            kind = b.kind[n]
            if kind == KIND_INPUT or n in alias:
                continue
            # Most inputs are no alias: only those pay for a call (this loop is the
            # larger part of building a big network).
            in_set = {resolve(x) if (x >> 1) in alias else x for x in b.ins[n]}
            unit, zero = (t, f) if kind == KIND_AND else (f, t)
            unit_neg, zero_neg = unit ^ 1, zero ^ 1
            if zero in in_set or unit_neg in in_set:  # unit_neg == negated unit == zero value
                target = zero
            else:
                in_set.discard(unit)
                in_set.discard(zero_neg)
                ins = sorted(in_set)
                target = -1
                if not ins:
                    target = unit
                elif len(ins) == 1 and (ins[0] >> 1) != n:
                    target = ins[0]
                elif any((x ^ 1) in in_set for x in ins):
                    target = zero  # a AND not a / a OR not a
            if target < 0:
                key = (kind, tuple(ins))
                other = table.get(key)
                if other is None:
                    table[key] = n
                elif all((x >> 1) != n for x in ins):
                    target = 2 * other
                elif all((x >> 1) != other for x in ins):
                    # n is the same gate over itself: at its fixpoint, other's value is n's.
                    alias[other] = 2 * n
                    table[key] = n
                    changed = True
            if target >= 0 and (target >> 1) != n:
                alias[n] = target
                changed = True
            elif ins != b.ins[n]:
                b.ins[n] = ins
                changed = True
    for n in range(2, len(b.kind)):
        if n not in alias and b.kind[n] != KIND_INPUT:
            b.ins[n] = [resolve(x) for x in b.ins[n]]
    return resolve


def _is(t: Term, name: str, n: int) -> bool:
    return isinstance(t, Func) and t.name == name and len(t.args) == n


def schedule_network(
    kind: I32,
    in_start: I32,
    inputs: I32,
    roots: tuple[list[int], list[int], list[int]],
    watch_next: bool,
    percepts: Sequence[int] = (),
) -> tuple[I32, I32, I32, tuple[I32, ...]]:
    """Order, blocks and phases of the three evaluation phases, and the incremental arrays.

    Phase A needs what legal and terminal depend on; B what next and the ``percepts``
    literals depend on and G what the goals depend on, each less what A already
    evaluated. The incremental arrays cover A and B only: the goals' gates are
    evaluated (phase G) when read.
    """
    a_roots, next_roots, g_roots = roots
    a, b, g = (
        graph.closure(in_start, inputs, np.asarray(r, dtype=np.int32))
        for r in (a_roots, [*next_roots, *percepts], g_roots)
    )
    needs = np.stack([a, b & (a ^ 1), g & (a ^ 1)])
    comp_start, comp_nodes = graph.components(in_start, inputs, a | b | g)
    order, blocks, phases = graph.schedule(kind, in_start, inputs, comp_start, comp_nodes, needs)
    # Differential propagation keeps legal, terminal and next; goals are evaluated when read.
    comp_start, comp_nodes = graph.components(in_start, inputs, a | b)
    next_lits = np.asarray(roots[1] if watch_next else [], dtype=np.int32)
    inc = graph.incremental(kind, in_start, inputs, comp_start, comp_nodes, next_lits)
    return order, blocks, phases, inc
