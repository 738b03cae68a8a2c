"""GDL terms: constants, variables and function terms.

Terms are small immutable values used everywhere a GDL term appears: moves in
the game API, facts of a state, rules of a game, messages of the GGP protocol.
``str(term)`` prints the canonical GDL text (lower-case keywords, one space
between arguments), so ``str(parse_term("( jump  b c4 d c4 )"))`` is
``"(jump b c4 d c4)"``.

A term may carry the position where it was read (``pos``); positions never take
part in equality or hashing, so a term read from a file equals the same term
built by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TypeAlias


@dataclass(frozen=True, slots=True)
class Pos:
    """A place in a source text: file name (may be ``"<string>"``), 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Const:
    """A constant symbol such as ``noop``, ``white`` or ``3``."""

    name: str
    pos: Pos | None = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Var:
    """A variable; ``name`` excludes the leading ``?``."""

    name: str
    pos: Pos | None = field(default=None, compare=False, hash=False, repr=False)

    def __str__(self) -> str:
        return "?" + self.name


@dataclass(frozen=True, slots=True)
class Func:
    """A function term (or atom with arguments) such as ``(cell 1 2 white)``."""

    name: str
    args: tuple[Term, ...]
    pos: Pos | None = field(default=None, compare=False, hash=False, repr=False)
    _hash: int | None = field(default=None, init=False, compare=False, hash=False, repr=False)
    """The hash, once asked for: a term's hash hashes every subterm, and the reasoners and
    samplers look the same terms up in tables again and again (a walk of small Dominion
    spent most of its time hashing nature's deals)."""

    def __hash__(self) -> int:
        known = self._hash
        if known is None:
            known = hash((self.name, self.args))
            object.__setattr__(self, "_hash", known)
        return known

    def __reduce__(self) -> tuple[type[Func], tuple[str, tuple[Term, ...], Pos | None]]:
        """Pickled without the hash: another process hashes strings with its own seed."""
        return (Func, (self.name, self.args, self.pos))

    def __str__(self) -> str:
        return "(" + " ".join([self.name, *map(str, self.args)]) + ")"


Term: TypeAlias = Const | Var | Func


_NUMBER_RE = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def is_number(name: str) -> bool:
    """True for a KIF number (``3``, ``-2``, ``1.5``): a value, never a relation or function
    name, so the reader and the checker refuse one where a name must stand."""
    return _NUMBER_RE.fullmatch(name) is not None


def const(name: str) -> Const:
    """Shorthand for a constant."""
    return Const(name)


def func(name: str, *args: Term | str | int) -> Func:
    """Build a function term; ``str`` and ``int`` arguments become constants.

    ``func("move", 1, 2, 1, 3)`` is the term ``(move 1 2 1 3)``.
    """
    return Func(
        name, tuple(a if isinstance(a, Const | Var | Func) else Const(str(a)) for a in args)
    )


def functor(term: Term) -> str:
    """The name of a term's head symbol (a constant's own name)."""
    return term.name


def arity(term: Term) -> int:
    """Number of arguments (0 for constants and variables)."""
    return len(term.args) if isinstance(term, Func) else 0


def is_ground(term: Term) -> bool:
    """True when the term contains no variable."""
    if isinstance(term, Var):
        return False
    if isinstance(term, Func):
        return all(is_ground(a) for a in term.args)
    return True


def variables(term: Term) -> set[str]:
    """Names of the variables occurring in ``term``."""
    if isinstance(term, Var):
        return {term.name}
    if isinstance(term, Func):
        out: set[str] = set()
        for a in term.args:
            out |= variables(a)
        return out
    return set()


def strip_pos(term: Term) -> Term:
    """The same term without source positions (cheaper to keep in big tables)."""
    if isinstance(term, Func):
        return Func(term.name, tuple(strip_pos(a) for a in term.args))
    if isinstance(term, Var):
        return Var(term.name)
    return Const(term.name)


def facts_text(facts: frozenset[Term] | set[Term] | list[Term]) -> str:
    """A canonical text for a set of facts: sorted, in the ggp.org match-record form.

    ``facts_text({(control white), (cell 1 1 b)})`` is ``"( (cell 1 1 b) (control white) )"``.
    """
    items = sorted(str(f) for f in facts)
    return "( " + " ".join(items) + " )" if items else "( )"


def split_facts_text(text: str) -> str:
    """The inside of a :func:`facts_text` string (the facts without the outer parentheses).

    ``parse_terms(split_facts_text("( (cell 1 1 b) (control white) )"))`` reads the facts.
    """
    inner = text.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    return inner
