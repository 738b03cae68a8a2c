"""Recognising a registered native game in GDL rules written by anyone, by what they do.

A game manager sends the public rule files (peg.kif, breakthroughSmallHoles.kif,
checkersBarrelNoKings.kif), often with every symbol scrambled and the clauses in any
order. They are formulated differently from ggpkit's own twins, so comparing texts
finds nothing; what the rules *do* is the same. :func:`recognise` takes rules already
loaded on the GDL engine and, for each registered native game with as many roles:

1. *discovers* a renaming by playing random lines on both engines in step: at every
   state it matches what the two show (roles, facts, legal moves, and for each joint
   move the facts it adds and removes), binds the symbols this forces, and binds a
   still-ambiguous symbol only when the native move it has to translate needs it
   (:mod:`ggpkit.games.recognition.symbol_match`). Symmetric positions (peg's board) thus never
   make it guess early what a later move would refute.
2. *verifies* that renaming on new random lines: equal facts, legal moves,
   terminality and goals at every step, for at least ``steps`` steps and until a few
   whole playouts in a row showed no symbol not yet renamed (step counters).

Any difference, or running out of time, rejects the native engine: the caller keeps
the GDL engine. Only a game that passed is played by its native engine, renamed.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ggpkit.games.api import Game, GameError
from ggpkit.games.recognition.renamed import Learner, RenamedGame, Transition
from ggpkit.games.recognition.symbol_match import (
    Item,
    Renaming,
    forced,
    rename_item,
    rename_term,
    renamings,
    symbols_of,
)
from ggpkit.games.registry import games, load
from ggpkit.gdl.terms import Const, Term

DEFAULT_STEPS = 400
"""Random steps verified in lockstep before a native engine is trusted."""

DISCOVERY_STEPS = 60
"""Random steps of discovery, at least (more while new symbols keep appearing)."""

QUIET_PLAYOUTS = 3
"""Whole playouts in a row that must show no symbol not yet renamed."""

COVERAGE_SECONDS = 1.0
"""Discovery goes on this long for symbols the native game declares and no line showed
(a step counter's last values); some are never reached (peg's zero pegs)."""

ATTEMPTS = 3
"""Discoveries tried per native game, each on other random lines."""

MAX_JOINT_MOVES = 64
"""States with more joint moves show no move effects (expanding them costs too much)."""

_JOINT = "(joint"
"""Prefix of the symbols naming joint moves in items: no GDL symbol starts with '('."""


@dataclass(frozen=True, slots=True)
class Lockstep:
    """What a lockstep run saw: the renaming it ended with, steps and playouts played."""

    renaming: Renaming
    steps: int
    playouts: int


def recognise(
    game: Game[Any], *, seconds: float = 5.0, steps: int = DEFAULT_STEPS, seed: int = 0
) -> Game[Any] | None:
    """A registered native engine playing ``game`` in its names, or None.

    ``seconds`` bounds the whole search; games whose start already differs from every
    native game cost next to nothing.
    """
    deadline = time.monotonic() + seconds
    for name in games():
        native = _native(name)
        if native is None or not _alike(native, game):
            continue
        for attempt in range(ATTEMPTS):
            # Verification has random lines of its own: discovery runs on the wall clock,
            # so the draws it leaves behind depend on the machine's load, and the lines
            # that check a renaming must not.
            found = discover(native, game, deadline, random.Random(seed * ATTEMPTS + attempt))
            verify = random.Random((seed * ATTEMPTS + attempt) ^ 0x5EED)
            checked = found and lockstep(native, game, found.renaming, steps, deadline, verify)
            if checked and _covers_moves(native, checked.renaming):
                return _renamed(native, game, checked.renaming)
    return None


def _native(name: str) -> Game[Any] | None:
    try:
        return load(name)
    except GameError:  # a registered game whose engine cannot load here
        return None


def _alike(native: Game[Any], game: Game[Any]) -> bool:
    """The cheap necessary conditions: the same kind of information (a native engine
    says nothing of percepts), as many roles, facts and legal moves at the start."""
    if native.info.information is not game.info.information:
        return False
    if len(native.roles) != len(game.roles):
        return False
    a, b = native.initial_state(), game.initial_state()
    if len(native.facts(a)) != len(game.facts(b)):
        return False
    counts = sorted(len(native.legal_moves(a, r)) for r in native.roles)
    return counts == sorted(len(game.legal_moves(b, r)) for r in game.roles)


def _covers_moves(native: Game[Any], renaming: Renaming) -> bool:
    """Whether every symbol of every move the native game declares has a name.

    A fact may keep a symbol no line reached (peg's count of zero pegs); the renamed
    game refuses to show it. A move cannot: the player must be able to send it.
    """
    try:
        moves = native.propositions().moves
    except GameError:
        return False
    items = {("move", (m,)) for role_moves in moves for m in role_moves}
    return symbols_of(items) <= renaming.keys()


def _renamed(native: Game[Any], game: Game[Any], renaming: Renaming) -> Game[Any]:
    same_roles = tuple(renaming[r] for r in native.roles) == tuple(game.roles)
    if same_roles and all(k == v for k, v in renaming.items()):
        return native
    return RenamedGame(native, renaming, roles=game.roles, learn=learner(native, game))


MAX_NAMINGS = 4096
"""Most assignments of names tried when a state shows symbols without one."""


def learner(native: Game[Any], game: Game[Any]) -> Learner:
    """Names for symbols first shown by a native state, found against ``game``'s engine.

    When the state before it is known and fully named, the rules' engine plays the same
    joint move from that state, and the two successors force the names (a counter's next
    value among them). Otherwise each unnamed symbol may take any name of the rules not
    yet used; an assignment is kept when the state it describes on the rules' engine
    shows the same roles, facts, legal moves and goals as the native state, and exactly
    one must, or none is learnt.
    """
    pool = sorted(_declared_symbols(game))

    def learn(
        state: Hashable, renaming: Mapping[str, str], came_from: Transition | None
    ) -> Renaming | None:
        if came_from is not None:
            return _follow(native, game, state, dict(renaming), came_from)
        facts = native.facts(state)
        unknown = sorted(symbols_of({("fact", (f,)) for f in facts}) - renaming.keys())
        free = [name for name in pool if name not in set(renaming.values())]
        found: list[Renaming] = []
        for names in itertools.islice(itertools.permutations(free, len(unknown)), MAX_NAMINGS):
            trial = {**renaming, **dict(zip(unknown, names, strict=True))}
            if _describes(native, game, state, trial):
                found.append(trial)
                if len(found) > 1:
                    return None
        return found[0] if found else None

    return learn


def _follow(
    native: Game[Any], game: Game[Any], state: Hashable, renaming: Renaming, came_from: Transition
) -> Renaming | None:
    """``renaming`` extended by what the rules' engine makes of the step that made ``state``."""
    before, joint = came_from
    facts = native.facts(before)
    if not symbols_of({("fact", (f,)) for f in facts}) <= renaming.keys():
        return None
    try:
        other = game.state_from_facts(rename_term(f, renaming) for f in facts)
        _, after = _step(native, game, renaming, before, other, joint)
    except GameError:
        return None
    return _extend(renaming, view(native, state), view(game, after))


def _describes(native: Game[Any], game: Game[Any], state: Hashable, renaming: Renaming) -> bool:
    """Whether the renamed facts of ``state`` make a state of ``game`` that shows the same."""
    try:
        other = game.state_from_facts(rename_term(f, renaming) for f in native.facts(state))
    except GameError:
        return False
    left = {rename_item(i, renaming) for i in view(native, state)}
    if left != view(game, other):
        return False
    return _goals(native, state, renaming) == _goals(game, other, None)


def _goals(game: Game[Any], state: Hashable, renaming: Renaming | None) -> dict[str, int] | None:
    try:
        goals = game.goals(state)
    except GameError:
        return None
    return {renaming[r] if renaming else r: g for r, g in goals.items()}


def view(game: Game[Any], state: Hashable) -> set[Item]:
    """What a state shows, as items: the roles, the facts, each role's legal moves."""
    items: set[Item] = {("role", (Const(r),)) for r in game.roles}
    items.update(("fact", (f,)) for f in game.facts(state))
    if not game.is_terminal(state):
        for r in game.roles:
            items.update(("legal", (Const(r), m)) for m in game.legal_moves(state, r))
    return items


def effects(game: Game[Any], state: Hashable) -> set[Item]:
    """For each joint move, its moves and the facts it adds and removes.

    Each joint move is named by a fresh symbol, so the items need no order of roles.
    Empty in a terminal state, or past :data:`MAX_JOINT_MOVES` joint moves.
    """
    before = game.facts(state)
    items: set[Item] = set()
    for number, (joint, after) in enumerate(_successors(game, state)):
        name = Const(f"{_JOINT}{number}")
        items.update(("joint", (name, Const(r), m)) for r, m in zip(game.roles, joint, strict=True))
        facts = game.facts(after)
        items.update(("adds", (name, f)) for f in facts - before)
        items.update(("removes", (name, f)) for f in before - facts)
    return items


def _successors(game: Game[Any], state: Hashable) -> list[tuple[tuple[Term, ...], Hashable]]:
    """Every joint move and its state; none when terminal or past MAX_JOINT_MOVES."""
    if game.is_terminal(state):
        return []
    legal = [game.legal_moves(state, r) for r in game.roles]
    if math.prod(len(ms) for ms in legal) > MAX_JOINT_MOVES:
        return []
    return [(joint, game.next_state(state, list(joint))) for joint in itertools.product(*legal)]


Chooser = Callable[[Hashable], Sequence[Term]]
"""Picks the native joint move (in native role order) to play in a state."""


def discover(
    native: Game[Any], game: Game[Any], deadline: float, rng: random.Random
) -> Lockstep | None:
    """A renaming found by lines in step, binding only what each state forces.

    The lines reach far: each move prefers a state that goes on and shows a fact not
    seen yet (so step counters climb and captures happen), and lines go on for up to
    :data:`COVERAGE_SECONDS` while a symbol the native game declares is still without
    a name. Symbols only rare lines reach (peg's last few pegs) are named later, when
    a state shows them (:func:`learner`).
    """
    seen: set[Term] = set()
    explorer = _Explorer(native, game, deadline)
    missing = _declared_symbols(native)
    searching_until = time.monotonic() + COVERAGE_SECONDS
    done = playouts = quiet = 0
    while (
        done < DISCOVERY_STEPS
        or quiet < QUIET_PLAYOUTS
        or (missing - explorer.renaming.keys() and time.monotonic() < searching_until)
    ):
        known = len(explorer.renaming)
        played = explorer.line(lambda state: _novel(native, state, seen, rng))
        if played is None:
            return None
        done, playouts = done + played, playouts + 1
        quiet = quiet + 1 if len(explorer.renaming) == known else 0
    return Lockstep(explorer.renaming, done, playouts)


def _declared_symbols(native: Game[Any]) -> set[str]:
    """The symbols of every fact and move the native game declares possible."""
    try:
        declared = native.propositions()
    except GameError:
        return set()
    items: set[Item] = {("fact", (f,)) for f in declared.base}
    items.update(("move", (m,)) for role_moves in declared.moves for m in role_moves)
    return symbols_of(items)


def _novel(native: Game[Any], state: Hashable, seen: set[Term], rng: random.Random) -> list[Term]:
    """A joint move to a state that goes on and shows an unseen fact; else one that goes on."""
    options = _successors(native, state)
    if not options:
        return [rng.choice(native.legal_moves(state, r)) for r in native.roles]
    going_on = [(j, s) for j, s in options if not native.is_terminal(s)] or options
    novel = [(j, s) for j, s in going_on if not native.facts(s) <= seen] or going_on
    joint, after = rng.choice(novel)
    seen.update(native.facts(after))
    return list(joint)


class _Explorer:
    """Plays lines on both engines in step, growing the renaming as states force it."""

    def __init__(self, native: Game[Any], game: Game[Any], deadline: float) -> None:
        self.native, self.game, self.deadline = native, game, deadline
        self.renaming: Renaming = {}

    def line(self, choose: Chooser) -> int | None:
        """Steps played to the end of one line, or None at a difference or the deadline."""
        native, game = self.native, self.game
        a, b = native.initial_state(), game.initial_state()
        played = 0
        while True:
            if time.monotonic() > self.deadline:
                return None
            if native.is_terminal(a) != game.is_terminal(b):
                return None
            shown = self._bind(a, b)
            if shown is None:
                return None
            left, right = shown
            if native.is_terminal(a):
                return played
            joint = choose(a)
            with_move = _bind_move(self.renaming, native.roles, joint, left, right)
            if with_move is None:
                return None
            self.renaming = with_move
            a, b = _step(native, game, self.renaming, a, b, joint)
            played += 1

    def _bind(self, a: Hashable, b: Hashable) -> tuple[set[Item], set[Item]] | None:
        """What states ``a`` and ``b`` show, after binding the symbols they force; None
        where no renaming carries one onto the other.

        Where every symbol ``a`` shows is named already, its view alone is compared: the
        moves' effects could only name symbols of the next states (named there) or find
        a difference (which :func:`lockstep` looks for). That skips most of the work of
        a long discovery, so that recognition fits in a START's clock.
        """
        native, game = self.native, self.game
        left, right = view(native, a), view(game, b)
        if symbols_of(left) <= self.renaming.keys():
            same = {rename_item(i, self.renaming) for i in left} == right
            return (left, right) if same else None
        left |= effects(native, a)
        right |= effects(game, b)
        bound = forced(self.renaming, left, right)
        if bound is None:
            return None
        self.renaming = _named(bound)
        return left, right


def _named(renaming: Renaming) -> Renaming:
    """``renaming`` without the symbols that name joint moves."""
    return {k: v for k, v in renaming.items() if not k.startswith(_JOINT)}


def _bind_move(
    renaming: Renaming,
    roles: Sequence[str],
    joint: Sequence[Term],
    left: set[Item],
    right: set[Item],
) -> Renaming | None:
    """``renaming`` with the symbols of ``joint`` bound, by a renaming that carries the state."""
    needed = set(roles) | symbols_of({("joint", tuple(joint))})
    if needed <= renaming.keys():
        return renaming
    witness = next(renamings(renaming, left, right), None)
    if witness is None:
        return None
    return {**renaming, **{s: witness[s] for s in needed}}


def _step(
    native: Game[Any],
    game: Game[Any],
    renaming: Renaming,
    a: Hashable,
    b: Hashable,
    joint: Sequence[Term],
) -> tuple[Hashable, Hashable]:
    """Both states after ``joint`` (native moves in native role order), renamed for ``game``."""
    seen = {renaming[r]: rename_term(m, renaming) for r, m in zip(native.roles, joint, strict=True)}
    return native.next_state(a, list(joint)), game.next_state(b, seen)


def lockstep(
    native: Game[Any],
    game: Game[Any],
    renaming: Renaming,
    steps: int,
    deadline: float,
    rng: random.Random,
) -> Lockstep | None:
    """Random whole playouts on both engines in step; None at the first difference.

    Ends, with the renaming extended to every symbol seen, once ``steps`` steps were
    checked and :data:`QUIET_PLAYOUTS` playouts in a row added no symbol; None when
    ``deadline`` (a ``time.monotonic()`` value) passes first.
    """
    done = playouts = quiet = 0
    while done < steps or quiet < QUIET_PLAYOUTS:
        known = len(renaming)
        result = _playout(native, game, renaming, deadline, rng)
        if result is None:
            return None
        renaming, played = result
        done += played
        playouts += 1
        quiet = quiet + 1 if len(renaming) == known else 0
    return Lockstep(renaming, done, playouts)


def _playout(
    native: Game[Any], game: Game[Any], renaming: Renaming, deadline: float, rng: random.Random
) -> tuple[Renaming, int] | None:
    a, b = native.initial_state(), game.initial_state()
    played = 0
    while True:
        if time.monotonic() > deadline:
            return None
        extended = _extend(renaming, view(native, a), view(game, b))
        if extended is None or native.is_terminal(a) != game.is_terminal(b):
            return None
        renaming = extended
        if not _same_goals(native, game, renaming, a, b):
            return None
        if native.is_terminal(a):
            return renaming, played
        joint = [rng.choice(native.legal_moves(a, r)) for r in native.roles]
        a, b = _step(native, game, renaming, a, b, joint)
        played += 1


def _same_goals(
    native: Game[Any], game: Game[Any], renaming: Renaming, a: Hashable, b: Hashable
) -> bool:
    """Whether the two states give every role the same goal, in every state of the line.

    A terminal state must give one goal a role on both engines, and the same. Before the
    end a goal is compared where both engines give one: players read goals mid-game (the
    goal heuristic), and a rule for an end that random lines seldom reach (peg's goal for
    more than ten pegs left) already holds in the first states.
    """
    try:
        goals = native.goals(a)
    except GameError:
        goals = None
    try:
        seen = game.goals(b)
    except GameError:
        seen = None
    if goals is None or seen is None:
        return not native.is_terminal(a)
    return all(goals[r] == seen[renaming[r]] for r in goals)


def _extend(renaming: Renaming, left: set[Item], right: set[Item]) -> Renaming | None:
    """``renaming`` if it carries ``left`` onto ``right``; extended first if symbols are new."""
    if symbols_of(left) <= renaming.keys():
        return renaming if {rename_item(i, renaming) for i in left} == right else None
    return next(renamings(renaming, left, right), None)
