"""Scrambling symbol names, as game managers do to keep players honest.

Every constant of the rules except the GDL keywords and numbers (goal values
and counters must stay numbers) gets a meaningless name; the referee sends the
scrambled rules, role and moves to remote players and reads their replies back
through the inverse map. A player that relies on names (``cell``, ``white``)
then fails, as it would against Tiltyard. In a GDL-II game the player's own last move
and its percepts are scrambled alike (:meth:`Scrambler.term`); ``sees`` and the chance
role ``random`` are GDL-II keywords and keep their names, as players must know them.
"""

from __future__ import annotations

import random
import re

from ggpkit.gdl.kif import KEYWORDS, GdlSyntaxError, parse_term
from ggpkit.gdl.terms import Const, Func, Term, Var

_ATOM_RE = re.compile(r"[^\s();]+")
_SYLLABLES = ("ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "ze", "bo", "di")


def _scrambles(symbol: str) -> bool:
    return not (symbol.startswith("?") or symbol.lower() in KEYWORDS or symbol.isdigit())


class Scrambler:
    """A one-to-one renaming of the symbols of one game's rules."""

    def __init__(self, rules: str, seed: int | None = None) -> None:
        rng = random.Random(seed)
        symbols = sorted({m.group() for m in _ATOM_RE.finditer(rules) if _scrambles(m.group())})
        used = set(symbols)
        self.forward: dict[str, str] = {}
        for symbol in symbols:
            name = ""
            while not name or name in used:
                name = "".join(rng.choice(_SYLLABLES) for _ in range(3)) + str(rng.randrange(100))
            used.add(name)
            self.forward[symbol] = name
        self.backward = {v: k for k, v in self.forward.items()}
        self._rules = _ATOM_RE.sub(lambda m: self.forward.get(m.group(), m.group()), rules)

    @property
    def rules(self) -> str:
        """The scrambled rules text."""
        return self._rules

    def name(self, symbol: str) -> str:
        """The scrambled name of a symbol (a role, say)."""
        return self.forward.get(symbol, symbol)

    def term(self, term: Term) -> Term:
        """A term in scrambled names."""
        return rename(term, self.forward)

    def unscramble(self, text: str) -> str:
        """A player's reply read back into the real names (unreadable text is returned as is)."""
        try:
            term = parse_term(text)
        except GdlSyntaxError:
            return text
        return str(rename(term, self.backward))


def rename(term: Term, names: dict[str, str]) -> Term:
    """``term`` with every symbol found in ``names`` renamed (variables untouched)."""
    if isinstance(term, Func):
        return Func(names.get(term.name, term.name), tuple(rename(a, names) for a in term.args))
    if isinstance(term, Var):
        return term
    return Const(names.get(term.name, term.name))
