"""The KIF reader: GDL text to terms and rules, every term with its source position.

Case rules follow the GDL specification as real managers use it: the keywords
(``role``, ``init``, ``true``, ``does``, ``next``, ``legal``, ``goal``,
``terminal``, ``distinct``, ``not``, ``or``, ``base``, ``input``, ``<=``) are
read case-insensitively and stored lower-case; every other symbol keeps its case.
Comments run from ``;`` to the end of the line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ggpkit.errors import GgpkitError
from ggpkit.gdl.terms import Const, Func, Pos, Term, Var

KEYWORDS = frozenset(
    {
        "role", "init", "true", "does", "next", "legal", "goal", "terminal",
        "distinct", "not", "or", "base", "input", "<=",
    }
)  # fmt: skip


class GdlSyntaxError(GgpkitError, ValueError):
    """A KIF text that cannot be read; ``str(e)`` is ``file:line:col: error: message``."""

    def __init__(self, pos: Pos, message: str) -> None:
        super().__init__(f"{pos}: error: {message}")
        self.pos = pos
        self.message = message


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "(" | ")" | "atom"
    text: str
    pos: Pos


_TOKEN_RE = re.compile(r"\s+|;[^\n]*|\(|\)|[^\s();]+")


def _tokens(text: str, file: str) -> Iterator[_Token]:
    line, line_start = 1, 0
    for m in _TOKEN_RE.finditer(text):
        s = m.group()
        pos = Pos(file, line, m.start() - line_start + 1)
        if s[0] in " \t\r\n\f\v" or s[0] == ";":
            nl = s.count("\n")
            if nl:
                line += nl
                line_start = m.start() + s.rfind("\n") + 1
            continue
        if s == "(" or s == ")":
            yield _Token(s, s, pos)
        else:
            yield _Token("atom", s, pos)


def _symbol(text: str) -> str:
    low = text.lower()
    return low if low in KEYWORDS else text


def _atom_term(tok: _Token) -> Term:
    if tok.text.startswith("?"):
        if len(tok.text) == 1:
            raise GdlSyntaxError(tok.pos, "a variable needs a name after '?'")
        return Var(tok.text[1:], tok.pos)
    return Const(_symbol(tok.text), tok.pos)


def _parse_terms(tokens: list[_Token], end_pos: Pos) -> list[Term]:
    """Parse a token list into a list of top-level terms (iterative, so deep nesting is safe)."""
    out: list[Term] = []
    # Each frame: (open-paren position, list of collected items)
    stack: list[tuple[Pos, list[Term]]] = []
    for tok in tokens:
        if tok.kind == "(":
            stack.append((tok.pos, []))
        elif tok.kind == ")":
            if not stack:
                raise GdlSyntaxError(tok.pos, "unbalanced ')': no '(' is open here")
            open_pos, items = stack.pop()
            if not items:
                raise GdlSyntaxError(
                    open_pos, "empty list '()': expected a relation or function name"
                )
            head = items[0]
            if not isinstance(head, Const):
                raise GdlSyntaxError(
                    head.pos or open_pos,
                    f"expected a relation or function name after '(', found '{head}'",
                )
            term: Term = Func(head.name, tuple(items[1:]), open_pos)
            (stack[-1][1] if stack else out).append(term)
        else:
            (stack[-1][1] if stack else out).append(_atom_term(tok))
    if stack:
        raise GdlSyntaxError(stack[-1][0], "this '(' is never closed: expected ')' before the end")
    return out


def parse_terms(text: str, file: str = "<string>") -> list[Term]:
    """Read every top-level term of a KIF text."""
    toks = list(_tokens(text, file))
    lines = text.count("\n") + 1
    return _parse_terms(toks, Pos(file, lines, 1))


def parse_term(text: str, file: str = "<string>") -> Term:
    """Read exactly one term, e.g. a move: ``parse_term("(move 1 2 1 3)")``."""
    terms = parse_terms(text, file)
    if len(terms) != 1:
        raise GdlSyntaxError(
            Pos(file, 1, 1), f"expected exactly one term, found {len(terms)} in {text!r}"
        )
    return terms[0]


@dataclass(frozen=True, slots=True)
class Rule:
    """A GDL rule ``(<= head body...)``; a fact is a rule with an empty body.

    Body literals are terms; negation is ``(not L)``, disjunction ``(or L...)``,
    inequality ``(distinct A B)``, exactly as written.
    """

    head: Term
    body: tuple[Term, ...]
    pos: Pos | None = None

    def __str__(self) -> str:
        if not self.body:
            return str(self.head)
        return "(<= " + " ".join(str(t) for t in (self.head, *self.body)) + ")"


def term_to_rule(term: Term) -> Rule:
    """Turn one top-level term into a rule, checking the shape of ``<=``."""
    if isinstance(term, Func) and term.name == "<=":
        if not term.args:
            raise GdlSyntaxError(term.pos or Pos("<string>", 1, 1), "'<=' needs a head")
        head = term.args[0]
        if isinstance(head, Var):
            raise GdlSyntaxError(
                head.pos or term.pos or Pos("<string>", 1, 1),
                "the head of a rule cannot be a variable",
            )
        for lit in term.args[1:]:
            if isinstance(lit, Var):
                raise GdlSyntaxError(
                    lit.pos or term.pos or Pos("<string>", 1, 1),
                    f"a rule body literal cannot be a bare variable '{lit}'",
                )
        return Rule(head, term.args[1:], term.pos)
    if isinstance(term, Var):
        raise GdlSyntaxError(
            term.pos or Pos("<string>", 1, 1), f"a top-level sentence cannot be a variable '{term}'"
        )
    return Rule(term, (), term.pos)


def parse_rules(text: str, file: str = "<string>") -> list[Rule]:
    """Read a whole GDL game description into rules."""
    return [term_to_rule(t) for t in parse_terms(text, file)]
