"""Grounding GDL rules with clingo: from rules with variables to a propositional program.

Two clingo runs:

1. *Domain*: the rules with negation dropped, plus ``true(F) :- init(F)``,
   ``true(F) :- next(F)`` and ``does(R, M) :- legal(R, M)``. That program is
   positive, so its one model over-approximates every fact that can ever hold in
   a reachable state: it gives the possible ``true`` and ``does`` atoms.
2. *Ground*: the real rules, with ``true``/``does`` declared ``#external`` over
   those domains. A clingo observer records the ground rules clingo emits
   (already simplified: static relations become facts and vanish from bodies).

GDL symbols may be upper case or hold characters clingo does not accept, so every
non-keyword symbol is renamed to ``s<N>`` on the way in and mapped back on the
way out; ``distinct`` becomes ``!=`` and ``or`` is split into several rules.

Grounding can explode (or never end, with unbounded function terms), so it runs
in a forked child process with a time limit and an atom budget; both end as a
:class:`GroundingError` with the reason.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import pickle
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import clingo

from ggpkit.gdl.kif import Rule
from ggpkit.gdl.terms import Const, Func, Term, Var, variables
from ggpkit.processes import die_with_parent
from ggpkit.reasoning.base import ReasonerError

# Relation names that keep their own name in the clingo program.
_RELATIONS = frozenset(
    {"role", "init", "true", "does", "next", "legal", "goal", "terminal", "base", "input"}
)
_IGNORED_HEADS = frozenset({"base", "input"})
_SHOWN = (
    "role/1", "init/1", "true/1", "does/2", "next/1", "legal/2", "goal/2", "terminal/0",
)  # fmt: skip

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_ATOMS = 1_000_000


class GroundingError(ReasonerError):
    """The rules cannot be grounded here: too big, too slow, or not a well-formed GDL program."""


@dataclass(frozen=True, slots=True)
class GroundProgram:
    """A ground GDL program: propositional rules over numbered atoms.

    ``rules`` are ``(head, body)`` pairs; a body literal is an atom number, negated
    when below zero. ``atoms`` names the atoms of the GDL keyword relations (role,
    init, true, does, next, legal, goal, terminal); other relations stay anonymous
    numbers. ``facts`` holds the keyword-relation atoms true in every state.
    ``true_domain`` / ``does_domain`` are the possible base facts and moves.
    """

    roles: tuple[str, ...]
    atoms: dict[int, Term]
    facts: frozenset[Term]
    rules: tuple[tuple[int, tuple[int, ...]], ...]
    true_domain: tuple[Term, ...]
    does_domain: tuple[tuple[str, Term], ...]


# ---- GDL to clingo text -------------------------------------------------------------------


class _Names:
    """The renaming of GDL symbols and variables to safe clingo names, and back."""

    def __init__(self) -> None:
        self.to_asp: dict[str, str] = {}
        self.from_asp: dict[str, str] = {}

    def sym(self, name: str) -> str:
        s = self.to_asp.get(name)
        if s is None:
            s = f"s{len(self.to_asp)}"
            self.to_asp[name] = s
            self.from_asp[s] = name
        return s


def _term(t: Term, names: _Names, varmap: dict[str, str]) -> str:
    if isinstance(t, Var):
        v = varmap.get(t.name)
        if v is None:
            v = f"V{len(varmap)}"
            varmap[t.name] = v
        return v
    if isinstance(t, Const):
        return names.sym(t.name)
    return names.sym(t.name) + "(" + ",".join(_term(a, names, varmap) for a in t.args) + ")"


def _atom(t: Term, names: _Names, varmap: dict[str, str]) -> str:
    """A relation atom: keyword relations keep their name, arguments are renamed."""
    if isinstance(t, Var):
        raise GroundingError(f"a variable cannot be used as a relation: {t}")
    head = t.name if t.name in _RELATIONS else names.sym(t.name)
    if isinstance(t, Const):
        return head
    return head + "(" + ",".join(_term(a, names, varmap) for a in t.args) + ")"


# A body literal after 'or' expansion: ("pos"|"neg", atom term) or ("ne"|"eq", a, b).
_Lit = tuple[Any, ...]


def _dnf(lit: Term, negated: bool = False) -> list[list[_Lit]]:
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


def _concat(parts: Sequence[list[_Lit]]) -> list[_Lit]:
    return [x for part in parts for x in part]


def _expand(rule: Rule) -> list[list[_Lit]]:
    """The bodies of a rule once every 'or' is split."""
    parts = [_dnf(lit) for lit in rule.body]
    return [_concat(combo) for combo in itertools.product(*parts)]


def _pred(t: Term) -> tuple[str, int]:
    return (t.name, len(t.args) if isinstance(t, Func) else 0)


def _asp_rule(
    head: Term, body: Sequence[_Lit], names: _Names, dropped: set[tuple[str, int]] | None
) -> str:
    """One clingo rule; negative literals on the ``dropped`` predicates are left out."""
    varmap: dict[str, str] = {}
    out = []
    for lit in body:
        kind = lit[0]
        if kind == "pos":
            out.append(_atom(lit[1], names, varmap))
        elif kind == "neg":
            if dropped is None or _pred(lit[1]) not in dropped:
                out.append("not " + _atom(lit[1], names, varmap))
        else:
            op = "!=" if kind == "ne" else "=="
            out.append(f"{_term(lit[1], names, varmap)} {op} {_term(lit[2], names, varmap)}")
    h = _atom(head, names, varmap)
    return h + (" :- " + ", ".join(out) if out else "") + "."


def _lit_vars(lit: _Lit) -> set[str]:
    if lit[0] in ("pos", "neg"):
        return variables(lit[1])
    return variables(lit[1]) | variables(lit[2])


def _split(head: Term, body: list[_Lit], counter: list[int]) -> list[tuple[Term, list[_Lit]]]:
    """Split a body into independent parts, each its own auxiliary relation.

    ``next(c X) :- true(c X), does(a, m(P)), near(X, P), does(b, m(Q)), near(X, Q)``
    grounds to one rule per (X, P, Q): a cross product of the two roles' moves. The
    literals joined by non-head variables form components (here one per role);
    each component ``C`` with head variables ``V`` becomes ``aux(V) :- C``, so the
    ground program grows with the sum of the components, not their product. A
    component is only split off when its positive literals bind all of ``V``.
    """
    hv = variables(head)
    local = [_lit_vars(lit) - hv for lit in body]
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
    out: list[tuple[Term, list[_Lit]]] = []
    for idx in comps.values():
        part = [body[i] for i in idx]
        iface = sorted(set().union(*(_lit_vars(lit) for lit in part)) & hv)
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


def _dynamic(rules: list[tuple[Term, list[_Lit]]]) -> set[tuple[str, int]]:
    """The predicates that depend on ``true`` or ``does``: they vary between states."""
    users: dict[tuple[str, int], set[tuple[str, int]]] = {}
    for head, body in rules:
        for lit in body:
            if lit[0] in ("pos", "neg"):
                users.setdefault(_pred(lit[1]), set()).add(_pred(head))
    out = {("true", 1), ("does", 2)}
    stack = list(out)
    while stack:
        for user in users.get(stack.pop(), ()):
            if user not in out:
                out.add(user)
                stack.append(user)
    return out


def _program(rules: Iterable[Rule], names: _Names, relaxed: bool) -> str:
    """The clingo program of the rules; ``relaxed``: the domain over-approximation.

    The relaxed program drops the negative literals on predicates that vary between
    states, so its one model holds every atom that some reachable state could make
    true. Negation on static predicates is kept: it is exact (the same in every
    state), and dropping it would inflate the domains for nothing.
    """
    parts: list[tuple[Term, list[_Lit]]] = []
    counter = [0]
    for rule in rules:
        if isinstance(rule.head, Func | Const) and rule.head.name in _IGNORED_HEADS:
            continue
        for body in _expand(rule):
            parts.extend(_split(rule.head, body, counter))
    dropped = _dynamic(parts) if relaxed else None
    return "\n".join(_asp_rule(head, part, names, dropped) for head, part in parts)


# ---- clingo symbols back to GDL -----------------------------------------------------------


def _gdl(sym: Any, names: _Names, relation: bool) -> Term:
    name = sym.name
    if not relation or name not in _RELATIONS:
        name = names.from_asp[name]
    args = sym.arguments
    if not args:
        return Const(name)
    return Func(name, tuple(_gdl(a, names, False) for a in args))


# ---- the two clingo runs ------------------------------------------------------------------


class _Observer(clingo.Observer):
    """Collects the ground program clingo emits."""

    def __init__(self, max_atoms: int) -> None:
        super().__init__()
        self.rules: list[tuple[int, tuple[int, ...]]] = []
        self.outputs: list[tuple[Any, int]] = []
        self.max_atoms = max_atoms

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        if choice or len(head) != 1:
            raise GroundingError("unexpected choice or disjunctive rule in the ground program")
        self.rules.append((head[0], tuple(body)))
        if len(self.rules) > self.max_atoms:
            raise GroundingError(f"the ground program has more than {self.max_atoms} rules")

    def weight_rule(self, choice: bool, head: Sequence[int], lb: int, body: Any) -> None:
        raise GroundingError("unexpected weight rule in the ground program")

    def output_atom(self, symbol: Any, atom: int) -> None:
        self.outputs.append((symbol, atom))


def _domain(rules: list[Rule], names: _Names, max_atoms: int) -> tuple[list[Any], list[Any]]:
    text = _program(rules, names, relaxed=True)
    text += "\ntrue(F) :- init(F).\ntrue(F) :- next(F).\ndoes(R, M) :- legal(R, M).\n"
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    trues: list[Any] = []
    does: list[Any] = []
    for count, sa in enumerate(ctl.symbolic_atoms):
        if count >= max_atoms:
            raise GroundingError(f"more than {max_atoms} possible ground atoms")
        sym = sa.symbol
        if sym.name == "true" and len(sym.arguments) == 1:
            trues.append(sym)
        elif sym.name == "does" and len(sym.arguments) == 2:
            does.append(sym)
    return trues, does


def _ground_in_process(rules: list[Rule], max_atoms: int) -> GroundProgram:
    names = _Names()
    try:
        trues, does = _domain(rules, names, max_atoms)
        text = _program(rules, names, relaxed=False)
        dom = [f"d_true({s.arguments[0]})." for s in trues]
        dom += [f"d_does({s.arguments[0]},{s.arguments[1]})." for s in does]
        text += "\n" + "\n".join(dom)
        text += "\n#external true(F) : d_true(F).\n#external does(R, M) : d_does(R, M).\n"
        # Only the game's views need names; other atoms stay anonymous numbers.
        text += "".join(f"#show {sig}.\n" for sig in _SHOWN)
        ctl = clingo.Control(["--warn=none"])
        obs = _Observer(max_atoms)
        ctl.register_observer(obs)
        ctl.add("base", [], text)
        ctl.ground([("base", [])])
    except RuntimeError as e:  # clingo reports syntax and safety errors this way
        raise GroundingError(f"clingo cannot ground the rules: {str(e).strip()}") from e
    atoms: dict[int, Term] = {}
    facts: set[Term] = set()
    for sym, atom in obs.outputs:
        term = _gdl(sym, names, relation=True)
        if atom == 0:
            facts.add(term)
        else:
            atoms[atom] = term
    roles = sorted(
        (f for f in facts if isinstance(f, Func) and f.name == "role" and len(f.args) == 1),
        key=lambda f: _role_order(rules, f),
    )
    true_domain = tuple(_gdl(s.arguments[0], names, False) for s in trues)
    does_domain = tuple(
        (names.from_asp[s.arguments[0].name], _gdl(s.arguments[1], names, False)) for s in does
    )
    return GroundProgram(
        roles=tuple(str(r.args[0]) for r in roles if isinstance(r, Func)),
        atoms=atoms,
        facts=frozenset(facts),
        rules=tuple(obs.rules),
        true_domain=true_domain,
        does_domain=does_domain,
    )


def _role_order(rules: list[Rule], role_fact: Term) -> int:
    """Roles keep the order in which the rules declare them."""
    for i, r in enumerate(rules):
        if r.head == role_fact:
            return i
    return len(rules)


def _child(conn: Any, rules: list[Rule], max_atoms: int, timeout: float, parent: int) -> None:
    die_with_parent(parent)
    # A CPU-time limit bounds a runaway grounding even if nobody kills it.
    try:
        import resource

        limit = int(timeout) + 5
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))
    except (ImportError, ValueError, OSError):
        pass
    try:
        result: object = _ground_in_process(rules, max_atoms)
    except GroundingError as e:
        result = e
    except Exception as e:  # report anything else as a grounding failure, not a crash
        result = GroundingError(f"grounding failed: {type(e).__name__}: {e}")
    try:
        conn.send_bytes(pickle.dumps(result))
    finally:
        conn.close()


def ground(
    rules: list[Rule],
    timeout: float | None = DEFAULT_TIMEOUT,
    max_atoms: int = DEFAULT_MAX_ATOMS,
) -> GroundProgram:
    """Ground ``rules``; GroundingError when that takes over ``timeout`` s or too many atoms.

    With a timeout (and a POSIX ``fork``), clingo runs in a child process so a game
    whose grounding never ends can be stopped; ``timeout=None`` grounds in-process, and
    so does a daemonic process, which cannot have children.
    """
    rules = list(rules)
    if (
        timeout is None
        or "fork" not in multiprocessing.get_all_start_methods()
        # A daemonic process (a pool worker, the corpus's per-game child) may not start
        # children; its own parent bounds its time, so ground in-process there.
        or multiprocessing.current_process().daemon
    ):
        return _ground_in_process(rules, max_atoms)
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    args = (child, rules, max_atoms, timeout, os.getpid())
    proc = ctx.Process(target=_child, args=args, daemon=True)
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout):
            raise GroundingError(f"grounding took longer than {timeout:g} s")
        data = parent.recv_bytes()
    except EOFError as e:
        raise GroundingError("the grounding process died (out of memory?)") from e
    finally:
        parent.close()
        if proc.is_alive():
            proc.kill()
        proc.join()
    result = pickle.loads(data)
    if isinstance(result, GroundingError):
        raise result
    if not isinstance(result, GroundProgram):
        raise GroundingError("the grounding process returned nothing usable")
    return result


__all__ = ["DEFAULT_MAX_ATOMS", "DEFAULT_TIMEOUT", "GroundProgram", "GroundingError", "ground"]
