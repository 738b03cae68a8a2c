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

import contextlib
import itertools
import multiprocessing
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection
from typing import Any, Generic, TypeVar

import clingo

from ggpkit.gdl.kif import Rule
from ggpkit.gdl.terms import Const, Func, Term, Var
from ggpkit.processes import cpu_seconds, die_with_parent, limit_memory
from ggpkit.reasoning.base import GroundingError
from ggpkit.reasoning.grounding.rule_parts import Lit, dynamic_predicates, predicate, rule_parts

# Relation names that keep their own name in the clingo program.
_RELATIONS = frozenset(
    {"role", "init", "true", "does", "next", "legal", "goal", "terminal", "base", "input", "sees"}
)
_SHOWN = (
    "role/1", "init/1", "true/1", "does/2", "next/1", "legal/2", "goal/2", "terminal/0",
    "sees/2",
)  # fmt: skip

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_ATOMS = 1_000_000
ESTIMATE_CPU_SECONDS = 1.5
"""User CPU seconds the first clingo run (every possible fact) may take: the size estimate.

Listing the possible facts costs about a tenth of a full grounding, so this run
is the estimate. The limit leaves a margin of about two over what the largest corpus
game that grounds well needs (chess_200; see docs/results.md); a rule that joins many
domains, or terms that grow without end, blow through it at once and are refused in
under two seconds. User CPU rather than wall time or system time, so that the verdict
depends neither on what else the machine is doing nor on how many pages the child
must copy from the parent it was forked from.
"""
MEMORY_LIMIT_BYTES = 8 * 2**30
"""Memory the grounding child may allocate beyond what it inherits."""
POLL_SECONDS = 0.02
"""How often the parent checks the child's CPU during the estimate."""

_ESTIMATED, _DONE = "estimated", "done"
_ESTIMATE_REFUSED = (
    f"the grounding estimate refused the rules: listing their possible facts took over "
    f"{ESTIMATE_CPU_SECONDS:g} s of CPU, so the ground program would be too large "
    "(a rule joining many domains, or terms that grow without end)"
)
_OUT_OF_MEMORY = f"grounding needs more than {MEMORY_LIMIT_BYTES // 2**30} GiB of memory"

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class GroundProgram:
    """A ground GDL program: propositional rules over numbered atoms.

    ``rules`` are ``(head, body)`` pairs; a body literal is an atom number, negated
    when below zero. ``atoms`` names the atoms of the GDL keyword relations (role,
    init, true, does, next, legal, goal, terminal, and GDL-II's sees); other relations
    stay anonymous numbers. ``facts`` holds the keyword-relation atoms true in every state.
    ``true_domain`` / ``does_domain`` are the possible base facts and moves.
    """

    roles: tuple[str, ...]
    atoms: dict[int, Term]
    facts: frozenset[Term]
    rules: tuple[tuple[int, tuple[int, ...]], ...]
    true_domain: tuple[Term, ...]
    does_domain: tuple[tuple[str, Term], ...]


@dataclass(frozen=True, slots=True)
class CompileReport:
    """Where a compilation's time went (wall seconds of each phase) and what each made."""

    estimate_seconds: float
    """The first clingo run: every possible fact and move (the size estimate)."""
    ground_seconds: float
    finish_seconds: float
    """What the caller did with the program (building the network)."""
    possible_facts: int
    moves: int
    ground_rules: int

    def describe(self) -> str:
        return (
            f"estimate {self.estimate_seconds:.2f} s ({self.possible_facts:,} possible facts,"
            f" {self.moves:,} moves), ground {self.ground_seconds:.2f} s"
            f" ({self.ground_rules:,} rules), build {self.finish_seconds:.2f} s"
        )


@dataclass(frozen=True, slots=True)
class Compiled(Generic[T]):
    """A compilation's result and its report."""

    result: T
    report: CompileReport


class _PhaseClock:
    """Wall time between laps: the estimate, the grounding, the finish."""

    def __init__(self) -> None:
        self.laps = [time.perf_counter()]

    def lap(self) -> None:
        self.laps.append(time.perf_counter())

    def report(self, program: GroundProgram) -> CompileReport:
        estimate, ground, finish = (b - a for a, b in itertools.pairwise(self.laps))
        return CompileReport(
            estimate_seconds=estimate,
            ground_seconds=ground,
            finish_seconds=finish,
            possible_facts=len(program.true_domain),
            moves=len(program.does_domain),
            ground_rules=len(program.rules),
        )


def _compile_here(
    rules: list[Rule],
    finish: Callable[[GroundProgram], T],
    max_atoms: int,
    estimated: Callable[[], None] = lambda: None,
) -> Compiled[T]:
    """Ground and finish in this process, timing each phase."""
    clock = _PhaseClock()

    def after_estimate() -> None:
        clock.lap()
        estimated()

    program = _ground_in_process(rules, max_atoms, after_estimate)
    clock.lap()
    result = finish(program)
    clock.lap()
    return Compiled(result, clock.report(program))


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


def _asp_rule(
    head: Term, body: Sequence[Lit], names: _Names, dropped: set[tuple[str, int]] | None
) -> str:
    """One clingo rule; negative literals on the ``dropped`` predicates are left out."""
    varmap: dict[str, str] = {}
    out = []
    for lit in body:
        kind = lit[0]
        if kind == "pos":
            out.append(_atom(lit[1], names, varmap))
        elif kind == "neg":
            if dropped is None or predicate(lit[1]) not in dropped:
                out.append("not " + _atom(lit[1], names, varmap))
        else:
            op = "!=" if kind == "ne" else "=="
            out.append(f"{_term(lit[1], names, varmap)} {op} {_term(lit[2], names, varmap)}")
    h = _atom(head, names, varmap)
    return h + (" :- " + ", ".join(out) if out else "") + "."


def _program(
    rules: Iterable[Rule], names: _Names, relaxed: bool, project_moves: bool = False
) -> str:
    """The clingo program of the rules; ``relaxed``: the domain over-approximation;
    ``project_moves``: see :func:`~ggpkit.reasoning.grounding.rule_parts.rule_parts`.

    The relaxed program drops the negative literals on predicates that vary between
    states, so its one model holds every atom that some reachable state could make
    true. Negation on static predicates is kept: it is exact (the same in every
    state), and dropping it would inflate the domains for nothing.
    """
    parts = rule_parts(rules, project_moves)
    dropped = dynamic_predicates(parts) if relaxed else None
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


class TooManyRulesError(GroundingError):
    """The ground program outgrew its limit on rules."""


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
            raise TooManyRulesError(f"the ground program has more than {self.max_atoms} rules")

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
    atoms = ctl.symbolic_atoms
    if len(atoms) > max_atoms:
        raise GroundingError(f"more than {max_atoms} possible ground atoms")
    trues = [a.symbol for a in atoms.by_signature("true", 1)]
    does = [a.symbol for a in atoms.by_signature("does", 2)]
    return trues, does


def _ground_in_process(
    rules: list[Rule], max_atoms: int, estimated: Callable[[], None] = lambda: None
) -> GroundProgram:
    """The two clingo runs; ``estimated`` is called between them (the estimate is done)."""
    names = _Names()
    try:
        trues, does = _domain(rules, names, max_atoms)
        estimated()
        dom = [f"d_true({s.arguments[0]})." for s in trues]
        dom += [f"d_does({s.arguments[0]},{s.arguments[1]})." for s in does]
        try:
            obs = _ground_program(_program(rules, names, relaxed=False), dom, max_atoms)
        except TooManyRulesError:  # a move's variables multiplied: project them too
            moves_projected = _program(rules, names, relaxed=False, project_moves=True)
            obs = _ground_program(moves_projected, dom, max_atoms)
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


def _ground_program(text: str, domain: list[str], max_atoms: int) -> _Observer:
    """The second clingo run: the program ``text`` over the possible facts and moves
    (``domain``, from the first), its ground rules collected."""
    text += "\n" + "\n".join(domain)
    text += "\n#external true(F) : d_true(F).\n#external does(R, M) : d_does(R, M).\n"
    # Only the game's views need names; other atoms stay anonymous numbers.
    text += "".join(f"#show {sig}.\n" for sig in _SHOWN)
    ctl = clingo.Control(["--warn=none"])
    obs = _Observer(max_atoms)
    ctl.register_observer(obs)
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    return obs


def _role_order(rules: list[Rule], role_fact: Term) -> int:
    """Roles keep the order in which the rules declare them."""
    for i, r in enumerate(rules):
        if r.head == role_fact:
            return i
    return len(rules)


def _child(
    conn: Connection,
    rules: list[Rule],
    finish: Callable[[GroundProgram], object],
    max_atoms: int,
    timeout: float,
    parent: int,
) -> None:
    die_with_parent(parent)
    os.setpgid(0, 0)  # its own process group, killed as one
    _limit_resources(timeout)
    try:
        estimated = partial(_send, conn, _ESTIMATED, None)
        result: object = _compile_here(rules, finish, max_atoms, estimated)
    except GroundingError as e:
        result = e
    except MemoryError:
        result = GroundingError(_OUT_OF_MEMORY)
    except Exception as e:  # report anything else as a grounding failure, not a crash
        result = GroundingError(f"grounding failed: {e!r}")
    try:
        _send(conn, _DONE, result)
    finally:
        conn.close()


def _limit_resources(timeout: float) -> None:
    """CPU and memory limits that end a runaway child even if nobody kills it."""
    limit_memory(MEMORY_LIMIT_BYTES)
    try:
        import resource

        seconds = int(timeout) + 5
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
    except (ImportError, ValueError, OSError):
        pass


def _send(conn: Connection, kind: str, payload: object) -> None:
    conn.send_bytes(pickle.dumps((kind, payload)))


def ground(
    rules: list[Rule],
    timeout: float | None = DEFAULT_TIMEOUT,
    max_atoms: int = DEFAULT_MAX_ATOMS,
) -> GroundProgram:
    """Ground ``rules``; GroundingError when the estimate, the time or the size refuses them."""
    return compile_rules(rules, _same, timeout, max_atoms).result


def _same(program: GroundProgram) -> GroundProgram:
    return program


def compile_rules(
    rules: list[Rule],
    finish: Callable[[GroundProgram], T],
    timeout: float | None = DEFAULT_TIMEOUT,
    max_atoms: int = DEFAULT_MAX_ATOMS,
) -> Compiled[T]:
    """Ground ``rules`` and turn the program into ``finish``'s result, in a killable child.

    With a timeout (and ``os.fork``), the work runs in a forked child process
    (:class:`CompileJob`) with its own process group, a memory limit and a CPU
    limit, so rules from anyone can be tried: the first clingo run (the possible
    facts) must finish within :data:`ESTIMATE_CPU_SECONDS` of CPU, everything within
    ``timeout`` seconds, or the child is killed and GroundingError says why.
    ``finish`` runs in the child too (building a network from a big program is the
    other slow part); its result comes back pickled. ``timeout=None`` works
    in-process without limits.
    """
    rules = list(rules)
    if timeout is None or not hasattr(os, "fork"):
        return _compile_here(rules, finish, max_atoms)
    job = CompileJob(rules, finish, timeout, max_atoms)
    try:
        result = job.wait(timeout)
    finally:
        job.cancel()
    if result is None:
        raise GroundingError(f"grounding and building took longer than {timeout:g} s")
    return result


class CompileJob(Generic[T]):
    """A compilation (see :func:`compile_rules`) in a forked child, within ``limit`` seconds.

    The caller may wait for it in several goes: a player whose start clock ends
    before the propnet is built plays on the join code meanwhile and takes the network
    when it comes. The child is forked, watched and reaped by a thread of the job's
    own, because Linux ties a child's life to the *thread* that forked it
    (:func:`~ggpkit.processes.die_with_parent`) and the caller's may end first. A
    plain ``os.fork`` rather than ``multiprocessing``: daemonic processes (arena
    workers, the corpus's per-game children) may not start multiprocessing children,
    and they need these limits as much as anyone.
    """

    def __init__(
        self, rules: list[Rule], finish: Callable[[GroundProgram], T], limit: float,
        max_atoms: int = DEFAULT_MAX_ATOMS,
    ) -> None:  # fmt: skip
        self.limit = limit
        self._done = threading.Event()
        self._outcome: Compiled[T] | GroundingError = GroundingError(
            "the compilation was cancelled"
        )
        self._pid: int | None = None
        self._cancelled = False
        watch = partial(self._watch, rules, finish, max_atoms)
        threading.Thread(target=watch, name="ggpkit-compile", daemon=True).start()

    def wait(self, seconds: float) -> Compiled[T] | None:
        """The result if it comes within ``seconds``, None if it is not ready yet.

        Raises GroundingError when it failed, died, overran the estimate's CPU budget
        or its ``limit``, or was cancelled.
        """
        if not self._done.wait(max(seconds, 0.0)):
            return None
        if isinstance(self._outcome, GroundingError):
            raise self._outcome
        return self._outcome

    def cancel(self) -> None:
        """End the child (its watcher reaps it); waiting then says it was cancelled."""
        self._cancelled = True
        pid = self._pid
        if pid is not None and not self._done.is_set():
            for kill in (os.killpg, os.kill):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    kill(pid, signal.SIGKILL)

    def _watch(
        self, rules: list[Rule], finish: Callable[[GroundProgram], T], max_atoms: int
    ) -> None:
        receiver, sender = multiprocessing.Pipe(duplex=False)
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the child: never returns into the caller's code
            try:
                receiver.close()
                _child(sender, rules, finish, max_atoms, self.limit, parent)
            finally:
                os._exit(0)
        sender.close()
        self._pid = pid
        try:
            if not self._cancelled:
                self._outcome = _await_child(receiver, pid, self.limit)
        except GroundingError as e:
            if not self._cancelled:
                self._outcome = e
        finally:
            receiver.close()
            _kill(pid)
            self._done.set()


def _await_child(conn: Connection, pid: int, timeout: float) -> Any:
    """The child's result; GroundingError if it overruns its estimate or time, or dies."""
    deadline = time.monotonic() + timeout
    started = time.monotonic()
    estimated = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise GroundingError(f"grounding and building took longer than {timeout:g} s")
        try:
            if conn.poll(left if estimated else min(left, POLL_SECONDS)):
                kind, payload = pickle.loads(conn.recv_bytes())
                if kind == _DONE:
                    if isinstance(payload, GroundingError):
                        raise payload
                    return payload
                estimated = True
                continue
        except EOFError:
            raise GroundingError("the grounding process died (out of memory?)") from None
        if not estimated and _estimate_spent(pid, started) > ESTIMATE_CPU_SECONDS:
            raise GroundingError(_ESTIMATE_REFUSED)


def _estimate_spent(pid: int, started: float) -> float:
    """User CPU seconds the child has used (wall seconds where the platform cannot tell)."""
    used = cpu_seconds(pid, user_only=True)
    return time.monotonic() - started if used is None else used


def _kill(pid: int) -> None:
    """End the child and its process group, and reap it."""
    for kill in (os.killpg, os.kill):  # the group may not exist yet if it died early
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


__all__ = [
    "DEFAULT_MAX_ATOMS",
    "DEFAULT_TIMEOUT",
    "ESTIMATE_CPU_SECONDS",
    "CompileJob",
    "CompileReport",
    "Compiled",
    "GroundProgram",
    "GroundingError",
    "compile_rules",
    "ground",
]
