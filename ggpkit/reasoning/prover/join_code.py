"""Join code: a rule's join plan turned into a Python function (the compiled prover).

The prover walks a plan step by step, matching patterns against facts through an
environment list and a trail of bindings. That interpretation is most of its time
on games that do not ground (amazons, chess): each candidate fact costs several
calls. Here each plan becomes straight-line Python source, one nested ``for`` per
joined literal, with every pattern unrolled into comparisons and every variable a
local, in the spirit of the GDL-to-C++ compilers of Kowalski and Szykula. The
plans, the evaluation order and the contexts stay the prover's, so the
interpreted prover is the oracle of this code (``tests/reasoning/test_join_code.py``).

Safety: rules are untrusted. No symbol of the rules is pasted into the source as
code; constants appear only through ``repr`` of a ``str`` (always a plain string
literal) and relation names through a table of values (``R[i]``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ggpkit.reasoning.base import check_time_limit

TICKS_PER_CHECK = 1023
"""Join steps between two looks at the caller's time limit (a mask, as the prover's)."""

JoinFunction = Callable[[Any, tuple[Any, ...], list[Any], list[Any], Any], int]
"""``fn(db, key, out, rels, delta) -> join steps made``: appends to ``out`` the derived
heads whose arguments at the plan's positions are ``key``. ``rels`` holds the relation
of each body literal (positive ones, then checks), None where it is answered per call."""

MAX_DEPTH = 18
"""Most joined literals one function may nest (CPython allows 20 nested blocks)."""


class PlanStep(Protocol):
    """What join code reads of a prover plan step (``prover._Step``)."""

    @property
    def kind(self) -> str: ...
    @property
    def rel(self) -> str: ...
    @property
    def pattern(self) -> Any: ...
    @property
    def other(self) -> Any: ...
    @property
    def index(self) -> Any: ...
    @property
    def demand(self) -> tuple[tuple[int, ...], tuple[Any, ...]]: ...
    @property
    def lit(self) -> int: ...


class _Writer:
    """Source lines at the current indentation, and the values the code refers to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 1
        self.loops = 0
        self.values: list[Any] = []
        self.temps = 0

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def value(self, v: Any) -> str:
        """A name for a value the code needs (relation names, index specs)."""
        self.values.append(v)
        return f"V[{len(self.values) - 1}]"

    def temp(self) -> str:
        self.temps += 1
        return f"t{self.temps}"

    def fail(self) -> str:
        """The statement that abandons the current candidate."""
        return "continue" if self.loops else "return steps"


def _const(name: str) -> str:
    # repr of a str is always a plain string literal: no rule text becomes code.
    assert type(name) is str
    return repr(name)


def _expr(pat: Any) -> str:
    """The expression building a pattern's ground value (every slot in it bound)."""
    if type(pat) is int:
        return f"s{pat}"
    if type(pat) is str:
        return _const(pat)
    return "(" + ", ".join([_const(pat[0]), *(_expr(p) for p in pat[1:])]) + ",)"


def _slots(pat: Any) -> set[int]:
    if type(pat) is int:
        return {pat}
    if type(pat) is tuple:
        out: set[int] = set()
        for p in pat[1:]:
            out |= _slots(p)
        return out
    return set()


def _match(w: _Writer, pat: Any, val: str, bound: set[int]) -> None:
    """Code that matches ``val`` (an expression) against ``pat``, binding new slots."""
    if type(pat) is int:
        if pat in bound:
            w.emit(f"if {val} != s{pat}: {w.fail()}")
        else:
            w.emit(f"s{pat} = {val}")
            bound.add(pat)
        return
    if type(pat) is str:
        w.emit(f"if {val} != {_const(pat)}: {w.fail()}")
        return
    if _slots(pat) <= bound:
        w.emit(f"if {val} != {_expr(pat)}: {w.fail()}")
        return
    w.emit(
        f"if type({val}) is not tuple or len({val}) != {len(pat)} "
        f"or {val}[0] != {_const(pat[0])}: {w.fail()}"
    )
    for i in range(1, len(pat)):
        sub = pat[i]
        if type(sub) is tuple and not _slots(sub) <= bound:
            t = w.temp()
            w.emit(f"{t} = {val}[{i}]")
            _match(w, sub, t, bound)
        else:
            _match(w, sub, f"{val}[{i}]", bound)


def _index_key(keys: Sequence[tuple[str, Any]]) -> str:
    parts = [_expr(p) if kind == "v" else "(" + _const(p[0]) + f", {p[1]})" for kind, p in keys]
    return "(" + "".join(p + ", " for p in parts) + ")"


def _candidates(w: _Writer, step: PlanStep, delta_step: int | None) -> str:
    """Code that puts the candidate facts of a joined literal in a temporary; its name."""
    cands = w.temp()
    rel = w.value(step.rel)
    if step.lit == delta_step:
        source = "delta"
    else:
        positions, kpats = step.demand
        key = "(" + "".join(_expr(p) + ", " for p in kpats) + ")"
        source = w.temp()
        w.emit(f"{source} = rels[{step.lit}]")
        w.emit(f"if {source} is None:")
        w.emit(f"    {cands} = db.query({rel}, {w.value(positions)}, {key})")
        w.emit("else:")
        w.depth += 1
    if step.index is None:
        w.emit(f"{cands} = {source}.facts")
    else:
        spec, keys = step.index
        w.emit(f"{cands} = {source}.lookup({w.value(spec)}, {_index_key(keys)})")
    if step.lit != delta_step:
        w.depth -= 1
    return cands


def _step(w: _Writer, step: PlanStep, bound: set[int], delta_step: int | None) -> None:
    kind = step.kind
    if kind == "pos":
        w.emit("steps += 1")
        w.emit(f"if not steps & {TICKS_PER_CHECK}: check()")
        cands = _candidates(w, step, delta_step)
        v = w.temp()
        w.emit(f"for {v} in {cands}:")
        w.depth += 1
        w.loops += 1
        _match(w, step.pattern, v, bound)
    elif kind == "has" and step.lit == delta_step:
        w.emit(f"if {_expr(step.pattern)} not in delta.facts: {w.fail()}")
    elif kind in ("has", "neg"):
        value, facts = w.temp(), w.temp()
        w.emit(f"{value} = {_expr(step.pattern)}")
        w.emit(f"{facts} = rels[{step.lit}]")
        rel = w.value(step.rel)
        holds = f"({value} in {facts}.facts if {facts} is not None else db.holds({rel}, {value}))"
        w.emit(f"if {'not ' if kind == 'has' else ''}{holds}: {w.fail()}")
    elif kind == "distinct":
        w.emit(f"if {_expr(step.pattern)} == {_expr(step.other)}: {w.fail()}")
    elif kind == "same":
        w.emit(f"if {_expr(step.pattern)} != {_expr(step.other)}: {w.fail()}")
    else:
        raise ValueError(f"unknown plan step {kind!r}")


def compile_plan(
    head: Any, steps: Sequence[PlanStep], positions: tuple[int, ...], delta_step: int | None
) -> JoinFunction | None:
    """The plan as a function, or None when it nests too deep for Python (interpret it).

    The function matches the head's arguments at ``positions`` against the query's
    key, appends the head of every match to ``out`` and returns how many literals it
    joined (the prover's tick count, for its time limit).
    """
    if sum(1 for s in steps if s.kind == "pos") > MAX_DEPTH:
        return None
    w = _Writer()
    bound: set[int] = set()
    w.emit("steps = 0")
    if not positions or (type(head) is tuple and len(head) > positions[-1]):
        for i, p in enumerate(positions):
            _match(w, head[p], f"key[{i}]", bound)
        for step in steps:
            _step(w, step, bound, delta_step)
        w.emit(f"out.append({_expr(head)})")
    # else: an atom of another arity under the same name, which the query cannot match
    w.depth = 1
    w.emit("return steps")
    source = "def join(db, key, out, rels, delta):\n" + "\n".join(w.lines) + "\n"
    scope: dict[str, Any] = {"V": tuple(w.values), "check": check_time_limit}
    exec(compile(source, "<join code>", "exec"), scope)  # generated, see the module doc
    fn: JoinFunction = scope["join"]
    return fn
