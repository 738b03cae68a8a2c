"""Recognising a native game in rules sent over the wire, by structure, never by names.

Managers scramble every symbol, so a player cannot know it is being sent
breakthrough by reading ``cell`` or ``white``. Two rule texts have the same
*structure* when they are equal token for token after renaming every non-keyword
symbol (and variable) by its order of first appearance. When the rules of a START
have the structure of a registered game's GDL twin, that renaming is a one-to-one
map between the twin's names and the manager's, and the native engine can play in
the manager's names through :class:`RenamedGame`. Anything else goes to the GDL engine.
"""

from __future__ import annotations

import random
import re
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from ggpkit.games.api import Game, PlayoutStats
from ggpkit.games.capabilities import Capabilities
from ggpkit.games.registry import games, load, rules_path
from ggpkit.gdl.kif import KEYWORDS
from ggpkit.gdl.terms import Term
from ggpkit.match.scramble import rename

_TOKEN_RE = re.compile(r";[^\n]*|\(|\)|[^\s();]+")


def structure(rules: str) -> tuple[tuple[str, ...], list[str]]:
    """The rules' canonical token sequence, and their symbols in order of first appearance."""
    canonical: list[str] = []
    symbols: dict[str, int] = {}
    variables: dict[str, int] = {}
    for m in _TOKEN_RE.finditer(rules):
        token = m.group()
        if token.startswith(";"):
            continue
        if token in ("(", ")") or token.lower() in KEYWORDS:
            canonical.append(token.lower())
        elif token.startswith("?"):
            canonical.append(f"?{variables.setdefault(token, len(variables))}")
        else:
            canonical.append(f"#{symbols.setdefault(token, len(symbols))}")
    return tuple(canonical), list(symbols)


@cache
def _twins() -> dict[tuple[str, ...], tuple[str, list[str]]]:
    """Structure of every registered game's GDL twin -> (game name, twin's symbols)."""
    out: dict[tuple[str, ...], tuple[str, list[str]]] = {}
    for name in games():
        try:
            text = rules_path(name).read_text(encoding="utf-8")
        except Exception:  # no twin shipped for this game: nothing to recognise
            continue
        shape, symbols = structure(text)
        out[shape] = (name, symbols)
    return out


def recognise(rules: str) -> Game[Any] | None:
    """The native engine in the manager's names if ``rules`` are a registered twin, else None."""
    shape, received = structure(rules)
    found = _twins().get(shape)
    if found is None:
        return None
    name, twin_symbols = found
    try:
        native = load(name)
    except Exception:  # a twin without a native engine
        return None
    mapping = dict(zip(twin_symbols, received, strict=True))
    if all(k == v for k, v in mapping.items()):
        return native
    return RenamedGame(native, mapping)


class RenamedGame(Game[Hashable]):
    """A game seen through a one-to-one renaming of its symbols (``forward``: own -> seen)."""

    def __init__(self, inner: Game[Any], forward: dict[str, str]) -> None:
        self.inner = inner
        self.forward = forward
        self.backward = {v: k for k, v in forward.items()}
        self.name = inner.name
        self.description = inner.description
        self.roles = tuple(forward.get(r, r) for r in inner.roles)
        # The extras that read or write names (notation, board, evaluation, solvers,
        # search) speak the inner game's names: only the nameless ones carry over.
        caps = inner.info.capabilities
        self.info = replace(
            inner.info,
            capabilities=Capabilities(
                compiled_playouts=caps.compiled_playouts, compiled_perft=caps.compiled_perft
            ),
        )
        self._out: dict[Term, Term] = {}
        self._in: dict[Term, Term] = {}

    def _seen(self, term: Term) -> Term:
        got = self._out.get(term)
        if got is None:
            got = self._out[term] = rename(term, self.forward)
        return got

    def _own(self, term: Term) -> Term:
        got = self._in.get(term)
        if got is None:
            got = self._in[term] = rename(term, self.backward)
        return got

    def initial_state(self) -> Hashable:
        state: Hashable = self.inner.initial_state()
        return state

    def _legal(self, state: Hashable, role_index: int) -> list[Term]:
        return [self._seen(m) for m in self.inner._legal(state, role_index)]

    def _next(self, state: Hashable, moves: Sequence[Term]) -> Hashable:
        nxt: Hashable = self.inner._next(state, [self._own(m) for m in moves])
        return nxt

    def is_terminal(self, state: Hashable) -> bool:
        return self.inner.is_terminal(state)

    def goals(self, state: Hashable) -> dict[str, int]:
        own = self.inner.goals(state)
        return {self.forward.get(r, r): own[r] for r in self.inner.roles}

    def facts(self, state: Hashable) -> frozenset[Term]:
        return frozenset(self._seen(f) for f in self.inner.facts(state))

    def random_playout(self, state: Hashable, rng: random.Random) -> tuple[dict[str, int], int]:
        goals, steps = self.inner.random_playout(state, rng)
        return {self.forward.get(r, r): g for r, g in goals.items()}, steps

    def playout_stats(self, state: Hashable, count: int, seed: int) -> PlayoutStats:
        return self.inner.playout_stats(state, count, seed)

    def perft_compiled(self, state: Hashable, depth: int) -> int:
        return self.inner.perft_compiled(state, depth)

    def state_from_facts(self, facts: Iterable[Term]) -> Hashable:
        made: Hashable = self.inner.state_from_facts(self._own(f) for f in facts)
        return made

    def render(self, state: Hashable) -> str:
        return self.inner.render(state)
