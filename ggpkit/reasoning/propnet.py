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
one ``B`` evaluation per step and one ``G`` at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ggpkit.gdl.kif import Rule
from ggpkit.gdl.terms import Const, Func, Term
from ggpkit.reasoning.base import Reasoner
from ggpkit.reasoning.grounding import GroundingError, GroundProgram

FALSE, TRUE = 0, 1
KIND_INPUT, KIND_AND, KIND_OR = 0, 1, 2

I32 = npt.NDArray[np.int32]


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

    @property
    def size(self) -> int:
        """Number of nodes (gates and inputs)."""
        return len(self.kind)


class _Builder:
    def __init__(self) -> None:
        self.kind: list[int] = [KIND_INPUT, KIND_AND]  # FALSE input node, TRUE = empty AND
        self.ins: list[list[int]] = [[], []]

    def node(self, kind: int, ins: list[int]) -> int:
        self.kind.append(kind)
        self.ins.append(ins)
        return len(self.kind) - 1


def build(program: GroundProgram) -> Propnet:
    """Compile a ground program into a propositional network."""
    rules_of: dict[int, list[tuple[int, ...]]] = {}
    for head, body in program.rules:
        rules_of.setdefault(head, []).append(body)
    by_term: dict[Term, int] = {t: a for a, t in program.atoms.items()}

    b = _Builder()
    node_of: dict[int, int] = {}  # atom -> node, for atoms resolved so far

    # Inputs first: base propositions and moves (clingo externals).
    base = tuple(sorted(set(program.true_domain), key=str))
    base_nodes = []
    for f in base:
        atom = by_term.get(Func("true", (f,)))
        n = b.node(KIND_INPUT, [])
        if atom is not None:
            node_of[atom] = n
        base_nodes.append(n)
    roles = program.roles
    if not roles:
        raise GroundingError("the rules declare no role")
    role_index = {r: i for i, r in enumerate(roles)}
    does_node: dict[tuple[int, Term], int] = {}
    for role, move in sorted(set(program.does_domain), key=lambda rm: (rm[0], str(rm[1]))):
        if role not in role_index:
            continue
        n = b.node(KIND_INPUT, [])
        atom = by_term.get(Func("does", (Const(role), move)))
        if atom is not None:
            node_of[atom] = n
        does_node[(role_index[role], move)] = n

    # Constant atoms: facts (empty body) are true; atoms without rules are false.
    for atom, bodies in rules_of.items():
        if atom not in node_of and any(len(body) == 0 for body in bodies):
            node_of[atom] = TRUE

    # Derived atoms get a gate node each, allocated before wiring so cycles resolve.
    for atom, bodies in rules_of.items():
        if atom not in node_of:
            node_of[atom] = b.node(KIND_AND if len(bodies) == 1 else KIND_OR, [])

    def lit(x: int) -> int:
        return 2 * node_of.get(abs(x), FALSE) + (1 if x < 0 else 0)

    for atom, bodies in rules_of.items():
        n = node_of[atom]
        if n == TRUE or b.kind[n] == KIND_INPUT:
            continue
        if len(bodies) == 1:
            b.ins[n] = [lit(x) for x in bodies[0]]
            continue
        ors = []
        for body in bodies:
            lits = [lit(x) for x in body]
            ors.append(lits[0] if len(lits) == 1 else 2 * b.node(KIND_AND, lits))
        b.ins[n] = ors

    def view(term: Term) -> int:
        """The literal of a ground atom: a gate, or a constant for facts and impossible atoms."""
        if term in program.facts:
            return 2 * TRUE
        atom = by_term.get(term)
        return 2 * node_of.get(atom, FALSE) if atom is not None else 2 * FALSE

    for t in program.atoms.values():
        if isinstance(t, Func) and t.name == "init":
            raise GroundingError(f"init depends on the state: {t}")
    init = tuple(Func("init", (f,)) in program.facts for f in base)
    next_lits = [view(Func("next", (f,))) for f in base]

    moves: list[tuple[Term, ...]] = []
    legal_lits: list[int] = []
    does_list: list[int] = []
    move_start = [0]
    goal_lits: list[int] = []
    goal_values: list[int] = []
    goal_start = [0]
    goal_terms = [t for t in (*program.atoms.values(), *program.facts) if _is(t, "goal", 2)]
    for i, role in enumerate(roles):
        ms = sorted((m for (r, m) in does_node if r == i), key=str)
        role_moves = []
        for m in ms:
            lt = view(Func("legal", (Const(role), m)))
            if lt == 2 * FALSE:
                continue
            role_moves.append(m)
            legal_lits.append(lt)
            does_list.append(does_node[(i, m)])
        moves.append(tuple(role_moves))
        move_start.append(len(legal_lits))
        for g in sorted(
            (g for g in goal_terms if isinstance(g, Func) and str(g.args[0]) == role), key=str
        ):
            assert isinstance(g, Func)
            try:
                value = int(str(g.args[1]))
            except ValueError as e:
                raise GroundingError(f"goal value is not a number: {g}") from e
            goal_lits.append(view(g))
            goal_values.append(value)
        goal_start.append(len(goal_lits))
    terminal_lit = view(Const("terminal"))

    roots_a = [*legal_lits, terminal_lit]
    order, blocks, phases = _schedule(b, roots_a, next_lits, goal_lits)

    def arr(xs: list[int]) -> I32:
        return np.asarray(xs, dtype=np.int32)

    in_start = np.zeros(len(b.kind) + 1, dtype=np.int32)
    in_start[1:] = np.cumsum([len(x) for x in b.ins])
    flat = [x for ins in b.ins for x in ins]
    return Propnet(
        roles=roles,
        base=base,
        init=init,
        moves=tuple(moves),
        kind=arr(b.kind),
        in_start=in_start,
        inputs=arr(flat),
        order=arr(order),
        blocks=np.asarray(blocks, dtype=np.int32).reshape(-1, 3),
        phases=arr(phases),
        base_nodes=arr(base_nodes),
        next_lits=arr(next_lits),
        legal_lits=arr(legal_lits),
        does_nodes=arr(does_list),
        move_start=arr(move_start),
        terminal_lit=terminal_lit,
        goal_lits=arr(goal_lits),
        goal_values=arr(goal_values),
        goal_start=arr(goal_start),
    )


def _is(t: Term, name: str, n: int) -> bool:
    return isinstance(t, Func) and t.name == name and len(t.args) == n


def _closure(b: _Builder, roots: list[int]) -> set[int]:
    seen: set[int] = set()
    stack = [r >> 1 for r in roots]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack.extend(x >> 1 for x in b.ins[n] if (x >> 1) not in seen)
    return seen


def _sccs(b: _Builder, nodes: set[int]) -> list[list[int]]:
    """Tarjan's algorithm, iterative; components come out dependencies first."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            succs = b.ins[v]
            recurse = False
            while i < len(succs):
                w = succs[i] >> 1
                i += 1
                if w not in index:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return out


def _schedule(
    b: _Builder, roots_a: list[int], roots_b: list[int], roots_g: list[int]
) -> tuple[list[int], list[int], list[int]]:
    """The evaluation order and blocks of the three phases (see the module docstring)."""
    need_a = _closure(b, roots_a)
    need_b = _closure(b, roots_b) - need_a
    need_g = _closure(b, roots_g) - need_a
    comps = _sccs(b, need_a | need_b | need_g)
    order: list[int] = []
    blocks: list[int] = []
    phases: list[int] = []
    for need in (need_a, need_b, need_g):
        phases.append(len(blocks) // 3)
        run_start = len(order)
        for comp in comps:
            if comp[0] not in need:
                continue
            gates = [n for n in comp if b.kind[n] != KIND_INPUT and n != TRUE]
            if not gates:
                continue
            cyclic = len(comp) > 1 or any((x >> 1) == comp[0] for x in b.ins[comp[0]])
            if cyclic:
                if len(order) > run_start:
                    blocks += [run_start, len(order), 0]
                blocks += [len(order), len(order) + len(gates), 1]
                order.extend(gates)
                run_start = len(order)
            else:
                order.extend(gates)
        if len(order) > run_start:
            blocks += [run_start, len(order), 0]
        phases.append(len(blocks) // 3)
    return order, blocks, phases


def make_reasoner(rules: Sequence[Rule]) -> Reasoner[bytes]:
    """The fast reasoner for ``rules`` (see ``fast.PropnetReasoner.from_rules``).

    Kept here so callers that look the reasoner up by this module's name find it.
    """
    from ggpkit.reasoning.fast import PropnetReasoner

    return PropnetReasoner.from_rules(rules)
