"""The KIF reader: GDL text to terms and rules, every term with its source position.

Case rules follow the GDL specification as real managers use it: the keywords
(``role``, ``init``, ``true``, ``does``, ``next``, ``legal``, ``goal``,
``terminal``, ``distinct``, ``not``, ``or``, ``base``, ``input``, ``<=``, and GDL-II's
``sees`` and ``random``) are read case-insensitively and stored lower-case; every other
symbol keeps its case.
Comments run from ``;`` to the end of the line.

GDL games have no strings, but KIF does: a string literal ``"..."`` (``\\`` escapes,
on one line) is read as one constant, quotes included, so it can never be split
into two symbols; an unterminated string, or one glued to a symbol, is a syntax
error where it goes wrong. A relation or function name is a symbol: never a variable, a
number or a string.

The reader refuses hostile input before any recursive code sees it: a text longer
than :data:`MAX_TEXT_CHARS` characters, or terms nested deeper than :data:`MAX_DEPTH`
levels, raise :class:`GdlLimitError` at the place where the limit is crossed. The
reader itself keeps an explicit stack, so it never recurses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ggpkit.errors import GgpkitError
from ggpkit.gdl.terms import Const, Func, Pos, Term, Var, is_number

KEYWORDS = frozenset(
    {
        "role", "init", "true", "does", "next", "legal", "goal", "terminal",
        "distinct", "not", "or", "base", "input", "<=", "sees", "random",
    }
)  # fmt: skip


class GdlSyntaxError(GgpkitError, ValueError):
    """A KIF text that cannot be read; ``str(e)`` is ``file:line:col: error: message``."""

    def __init__(self, pos: Pos, message: str) -> None:
        super().__init__(f"{pos}: error: {message}")
        self.pos = pos
        self.message = message


class GdlLimitError(GdlSyntaxError):
    """A KIF text over a reader limit (too long, nested too deep), at the place it is crossed."""


MAX_DEPTH = 100
"""Deepest nesting of parentheses the reader accepts (``(role a)`` is 1 level).

The public games nest at most 27 levels; the checker and the reasoners walk terms
recursively, and 100 levels keeps them far below Python's recursion limit."""

MAX_TEXT_CHARS = 5_000_000
"""Longest text, in characters, the reader accepts (the largest public game has 69,000)."""


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "(" | ")" | "atom"
    text: str
    pos: Pos


_TOKEN_RE = re.compile(r'''\s+|;[^\n]*|\(|\)|"(?:[^"\\\n]|\\.)*"|[^\s();"]+|"''')
"""Whitespace, a comment, a parenthesis, a string on one line, a symbol, or a lone quote."""


def _tokens(text: str, file: str) -> Iterator[_Token]:
    line, line_start = 1, 0
    atom_end = -1  # where the last symbol or string ended, to find two glued together
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
            continue
        if s == '"':
            raise GdlSyntaxError(pos, "this string is never closed: expected '\"' on the same line")
        if m.start() == atom_end:
            raise GdlSyntaxError(
                pos, "a string must be separated from the symbol next to it by a space"
            )
        atom_end = m.end()
        yield _Token("atom", s, pos)


def _check_length(text: str, file: str) -> None:
    """Refuse a text over :data:`MAX_TEXT_CHARS` at the first character past the limit."""
    if len(text) <= MAX_TEXT_CHARS:
        return
    line = text.count("\n", 0, MAX_TEXT_CHARS) + 1
    col = MAX_TEXT_CHARS - (text.rfind("\n", 0, MAX_TEXT_CHARS) + 1) + 1
    raise GdlLimitError(
        Pos(file, line, col),
        f"the text is longer than {MAX_TEXT_CHARS:,} characters, the most a game may have",
    )


def read_kif_file(path: Path | str) -> str:
    """The text of a ``.kif`` file, reading no more than the reader would accept."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read(MAX_TEXT_CHARS + 1)
    _check_length(text, str(path))
    return text


def _symbol(text: str) -> str:
    low = text.lower()
    return low if low in KEYWORDS else text


def _atom_term(tok: _Token) -> Term:
    if tok.text.startswith("?"):
        if len(tok.text) == 1:
            raise GdlSyntaxError(tok.pos, "a variable needs a name after '?'")
        return Var(tok.text[1:], tok.pos)
    return Const(_symbol(tok.text), tok.pos)


def _is_string(term: Term) -> bool:
    return isinstance(term, Const) and term.name.startswith('"')


def _name_of(head: Term, open_pos: Pos) -> str:
    """The relation or function name a list starts with: a symbol, never a variable,
    a number or a string (those are values, and GDL has no higher-order terms)."""
    if isinstance(head, Const) and not is_number(head.name) and not _is_string(head):
        return head.name
    if isinstance(head, Var):
        found = f"the variable '{head}'"
    elif _is_string(head):
        found = f"the string {head}"
    elif is_number(head.name):
        found = f"the number '{head}'"
    else:
        found = f"'{head}'"
    raise GdlSyntaxError(
        head.pos or open_pos, f"expected a relation or function name after '(', found {found}"
    )


def _parse_terms(tokens: Iterable[_Token]) -> list[Term]:
    """Parse tokens into top-level terms, with an explicit stack so that no nesting can
    overflow Python's, and no term deeper than :data:`MAX_DEPTH` is ever built."""
    out: list[Term] = []
    # Each frame: (open-paren position, list of collected items)
    stack: list[tuple[Pos, list[Term]]] = []
    for tok in tokens:
        if tok.kind == "(":
            if len(stack) >= MAX_DEPTH:
                raise GdlLimitError(
                    tok.pos, f"terms are nested deeper than {MAX_DEPTH} levels, the most allowed"
                )
            stack.append((tok.pos, []))
        elif tok.kind == ")":
            if not stack:
                raise GdlSyntaxError(tok.pos, "unbalanced ')': no '(' is open here")
            open_pos, items = stack.pop()
            if not items:
                raise GdlSyntaxError(
                    open_pos, "empty list '()': expected a relation or function name"
                )
            term: Term = Func(_name_of(items[0], open_pos), tuple(items[1:]), open_pos)
            (stack[-1][1] if stack else out).append(term)
        else:
            (stack[-1][1] if stack else out).append(_atom_term(tok))
    if stack:
        raise GdlSyntaxError(stack[-1][0], "this '(' is never closed: expected ')' before the end")
    return out


def parse_terms(text: str, file: str = "<string>") -> list[Term]:
    """Read every top-level term of a KIF text (refused whole when over the length limit)."""
    _check_length(text, file)
    return _parse_terms(_tokens(text, file))


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
