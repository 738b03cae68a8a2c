"""One-to-one renamings of symbols that carry one set of ground items onto another.

Two games written apart (or one scrambled by a game manager) name the same things
differently. Given what each shows of a state (its facts, each role's legal moves,
its roles) as *items*, :func:`renamings` finds the bijections between their symbols
that make the two item sets equal, extending a renaming already known. It is graph
isomorphism on small structures, done the usual way: colour refinement (each symbol
coloured by the shapes of the items it occurs in, the positions it takes there and
the colours of its neighbours, until the colours stop splitting), then trying each
candidate of the smallest ambiguous colour class, within a budget of tries.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass

from ggpkit.gdl.terms import Const, Func, Term

Item = tuple[str, tuple[Term, ...]]
"""A kind (``"fact"``, ``"legal"``, ``"role"``) and the ground terms it relates."""

Renaming = dict[str, str]

_FIXED, _FREE = 0, 1


@dataclass(frozen=True, slots=True)
class _Flat:
    """An item as a shape with numbered slots, and the symbol in each slot."""

    shape: str
    symbols: tuple[str, ...]


def _flatten_term(term: Term, shape: list[str], symbols: list[str]) -> None:
    if isinstance(term, Func):
        symbols.append(term.name)
        shape.append("_(")
        for arg in term.args:
            _flatten_term(arg, shape, symbols)
        shape.append(")")
    elif isinstance(term, Const):
        symbols.append(term.name)
        shape.append("_")
    else:
        raise ValueError(f"items are ground: {term} is a variable")


def _flatten(item: Item) -> _Flat:
    kind, terms = item
    shape: list[str] = [kind, "|"]
    symbols: list[str] = []
    for term in terms:
        _flatten_term(term, shape, symbols)
        shape.append(",")
    return _Flat(" ".join(shape), tuple(symbols))


def rename_item(item: Item, names: Mapping[str, str]) -> Item:
    """``item`` with every symbol renamed by ``names`` (symbols not in it kept)."""
    kind, terms = item
    return kind, tuple(rename_term(t, names) for t in terms)


def rename_term(term: Term, names: Mapping[str, str]) -> Term:
    """``term`` with every symbol found in ``names`` renamed."""
    if isinstance(term, Func):
        return Func(
            names.get(term.name, term.name), tuple(rename_term(a, names) for a in term.args)
        )
    if isinstance(term, Const):
        return Const(names.get(term.name, term.name))
    return term


def symbols_of(items: Collection[Item]) -> set[str]:
    """Every symbol occurring in ``items``."""
    return {s for item in items for s in _flatten(item).symbols}


def renamings(
    known: Mapping[str, str], left: Collection[Item], right: Collection[Item], budget: int = 64
) -> Iterator[Renaming]:
    """Extensions of ``known`` (left names -> right names) that carry ``left`` onto ``right``.

    Each yielded renaming maps every symbol of ``left`` and is one-to-one; renaming
    ``left`` by it gives exactly ``right``. ``budget`` bounds the candidate choices
    tried, so a highly symmetric pair cannot take long: it may then yield nothing.
    """
    flat_left = [_flatten(i) for i in set(left)]
    flat_right = [_flatten(i) for i in set(right)]
    if Counter(f.shape for f in flat_left) != Counter(f.shape for f in flat_right):
        return
    search = _Search(flat_left, flat_right, set(left), set(right), budget)
    yield from search.run(dict(known))


def forced(
    known: Mapping[str, str], left: Collection[Item], right: Collection[Item], budget: int = 64
) -> Renaming | None:
    """``known`` plus every symbol the items force, or None when no renaming carries them.

    A symbol is forced when refinement leaves it alone in its colour class, with one
    symbol of the same colour on the other side. Symbols still ambiguous (symmetric so
    far) stay out: binding them now could pick an image only later steps refute.
    """
    flat_left = [_flatten(i) for i in set(left)]
    flat_right = [_flatten(i) for i in set(right)]
    if Counter(f.shape for f in flat_left) != Counter(f.shape for f in flat_right):
        return None
    search = _Search(flat_left, flat_right, set(left), set(right), budget)
    colours = search._refine(search._initial(dict(known)))
    if colours is None:
        return None
    found = dict(known)
    for lefts, rights in _Search._classes(colours).values():
        if len(lefts) == 1 and len(rights) == 1:
            found[lefts[0]] = rights[0]
    if next(search.run(found), None) is None:
        return None
    return found


class _Search:
    """Refinement and backtracking over one pair of item sets."""

    def __init__(
        self,
        left: list[_Flat],
        right: list[_Flat],
        left_items: set[Item],
        right_items: set[Item],
        budget: int,
    ) -> None:
        self.sides = (left, right)
        self.items = (left_items, right_items)
        self.symbols = tuple(sorted({s for f in side for s in f.symbols}) for side in self.sides)
        self.budget = budget

    def run(self, known: Renaming) -> Iterator[Renaming]:
        colours = self._refine(self._initial(known))
        if colours is None:
            return
        classes = self._classes(colours)
        open_classes = [c for c in classes.values() if len(c[0]) > 1]
        if not open_classes:
            found = dict(known)
            for lefts, rights in classes.values():
                found[lefts[0]] = rights[0]
            if self._carries(found):
                yield found
            return
        lefts, rights = min(open_classes, key=lambda c: (len(c[0]), c[0]))
        for candidate in rights:
            if self.budget <= 0:
                return
            self.budget -= 1
            yield from self.run({**known, lefts[0]: candidate})

    def _initial(self, known: Renaming) -> tuple[dict[str, object], dict[str, object]] | None:
        """Colours before refinement: each known pair its own, every other symbol free."""
        left_set, right_set = set(self.symbols[0]), set(self.symbols[1])
        images = {v: k for k, v in known.items()}
        left: dict[str, object] = {}
        right: dict[str, object] = {}
        for s in self.symbols[0]:
            left[s] = (_FIXED, s) if s in known else (_FREE,)
            if s in known and known[s] not in right_set:
                return None
        for s in self.symbols[1]:
            right[s] = (_FIXED, images[s]) if s in images else (_FREE,)
            if s in images and images[s] not in left_set:
                return None
        return left, right

    def _refine(
        self, colours: tuple[dict[str, object], dict[str, object]] | None
    ) -> tuple[dict[str, int], dict[str, int]] | None:
        """Split colours by neighbourhood until stable; None when the sides cannot match."""
        if colours is None:
            return None
        current = self._relabel(colours)
        count = len(set(current[0].values()) | set(current[1].values()))
        while True:
            if not self._balanced(current):
                return None
            signatures = (self._signatures(0, current), self._signatures(1, current))
            refined = self._relabel(signatures)
            new_count = len(set(refined[0].values()) | set(refined[1].values()))
            if new_count == count:
                return refined if self._balanced(refined) else None
            current, count = refined, new_count

    def _signatures(self, side: int, colours: tuple[dict[str, int], ...]) -> dict[str, object]:
        mine = colours[side]
        seen: dict[str, list[tuple[str, int, tuple[int, ...]]]] = {s: [] for s in mine}
        for flat in self.sides[side]:
            context = tuple(mine[s] for s in flat.symbols)
            for position, symbol in enumerate(flat.symbols):
                seen[symbol].append((flat.shape, position, context))
        return {s: (mine[s], tuple(sorted(occ))) for s, occ in seen.items()}

    @staticmethod
    def _relabel(
        colours: tuple[dict[str, object], dict[str, object]],
    ) -> tuple[dict[str, int], dict[str, int]]:
        """Colours as small integers, the same integer for equal colours on both sides.

        Which integer a colour gets does not matter: one palette serves both sides.
        """
        palette: dict[object, int] = {}
        for side in colours:
            for colour in side.values():
                palette.setdefault(colour, len(palette))
        return (
            {s: palette[c] for s, c in colours[0].items()},
            {s: palette[c] for s, c in colours[1].items()},
        )

    @staticmethod
    def _balanced(colours: tuple[dict[str, int], dict[str, int]]) -> bool:
        return Counter(colours[0].values()) == Counter(colours[1].values())

    @staticmethod
    def _classes(
        colours: tuple[dict[str, int], dict[str, int]],
    ) -> dict[int, tuple[list[str], list[str]]]:
        classes: dict[int, tuple[list[str], list[str]]] = {}
        for side in (0, 1):
            for s, c in sorted(colours[side].items()):
                classes.setdefault(c, ([], []))[side].append(s)
        return classes

    def _carries(self, renaming: Renaming) -> bool:
        if len(set(renaming.values())) != len(renaming):
            return False
        return {rename_item(i, renaming) for i in self.items[0]} == self.items[1]
