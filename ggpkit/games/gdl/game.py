"""A game defined by GDL rules: the game API on top of any reasoner.

``load_kif_file`` / ``load_kif_text`` read a game description, run the static
checker (errors become one :class:`GdlCheckError` listing every problem as a
``file:line:col`` line) and pick a reasoner:

* ``"prover"``: the reference prover (slow, simple, the oracle);
* ``"joincode"``: the same prover with its join plans run as generated Python code
  (``ggpkit.reasoning.prover.join_code``): no grounding, faster on every game;
* ``"propnet"``: the fast grounded propositional network (``ggpkit.reasoning.propnet.build``);
* ``"auto"`` (default): the propnet when its module exists and grounding succeeds
  within its limits, else the join code.

:class:`GdlGame` never knows which reasoner it runs on: it only talks to the
``Reasoner`` protocol, and turns :class:`ReasonerError` into :class:`GdlGameError`
(a :class:`GameError`) so user interfaces print one line.

GDL-II rules (those that use ``sees``) load as games of imperfect information whose
``percepts`` are the reasoner's ``sees``; where they make ``random`` a role, it is the
chance role (nature), whose goal is fixed at 0 (:func:`~ggpkit.gdl.game_rules.with_nature_goal`),
and every role's goal is completed to exactly one value in every state, the highest the
rules give it or 0 (:func:`~ggpkit.gdl.game_rules.with_goal_completion`).

Checked rules are repaired first where the checker's errors have the reading a Prolog-style
reasoner gives them (:mod:`ggpkit.gdl.repairs`): each repair is a warning in the game's
notes, and a file with an error no repair reads is refused at the first that remains.
"""

from __future__ import annotations

import importlib
import logging
import os
import random
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggpkit.errors import GgpkitError
from ggpkit.games.api import (
    BatchStepper,
    Dynamics,
    Game,
    GameError,
    GameInfo,
    Information,
    Propositions,
    Utility,
)
from ggpkit.games.capabilities import Capabilities
from ggpkit.games.gdl.pending_propnet import PendingPropnet
from ggpkit.gdl.checker import REQUIRED, Problem, check_rules, sorted_problems
from ggpkit.gdl.game_rules import (
    GOAL_COMPLETION_NOTE,
    chance_role,
    relation,
    uses_sees,
    with_goal_completion,
    with_nature_goal,
)
from ggpkit.gdl.kif import Rule, parse_rules, read_kif_file
from ggpkit.gdl.repairs import repair_rules
from ggpkit.gdl.terms import Const, Func, Term
from ggpkit.reasoning.base import (
    PlayoutStats,
    QueryTimeLimitError,
    Reasoner,
    ReasonerError,
    time_limit,
)
from ggpkit.reasoning.prover.reasoner import Prover
from ggpkit.search.contract import TreeSearch

if TYPE_CHECKING:  # the grounder (clingo) loads only when a propnet is built
    from ggpkit.reasoning.grounding.grounder import Compiled, CompileJob, CompileReport

REASONERS = ("auto", "prover", "joincode", "propnet")

log = logging.getLogger("ggpkit.games")


class GdlGameError(GameError):
    """The rules do not define a proper game in some state (no goal value, two, ...)."""


class GdlQueryTimeLimitError(GdlGameError, QueryTimeLimitError):
    """A query of the rules stopped by a time limit its caller set: a game's error, and
    the limit's, which the search that set it catches as its own (it ends there)."""


class GdlCheckError(GameError):
    """A game description that fails the static checks; ``problems`` lists them all."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        errors = [p for p in problems if p.severity == "error"]
        lines = "\n".join(str(p) for p in errors)
        super().__init__(f"{source}: {len(errors)} error(s) in the game description:\n{lines}")
        self.problems = list(problems)


class GdlGame(Game[Hashable]):
    """A GDL game on a reasoner. States are the reasoner's (immutable, hashable) states.

    ``info`` is found by a short probe, so its dynamics and utility are evidence,
    not proof: turn-taking when at most one role had a choice in every state of up
    to 20 seeded random playouts (:data:`PROBE_MOVES` joint moves in all), constant-
    or zero-sum only when at least 4 terminal states were reached and all had one
    goal sum. The goal range comes from the goal rules. It is computed once, on
    first access, not at load time.

    The probe is bounded by a number of moves, not by time, so a game declares the
    same information however busy the machine is (and whichever thread asks first).
    Dynamics are decided on the first :data:`DYNAMICS_MOVES` moves, always played.
    Rules so slow that the whole probe would pass :data:`PROBE_SAFETY_SECONDS` stop
    early and are declared general-sum, with a note saying why.
    """

    def __init__(
        self,
        rules: Sequence[Rule],
        reasoner: Reasoner[Any],
        name: str = "gdl",
        description: str = "",
        notes: Sequence[str] = (),
        *,
        rule_notes: Sequence[str] = (),
        goal_range: tuple[int, int] | None = None,
    ) -> None:
        self.rules = tuple(rules)
        self.rule_notes = tuple(rule_notes)
        """What loading made of the rules as written (repairs, completed goals): every
        reasoner of these rules carries them."""
        self.notes = (*notes, *self.rule_notes)
        self._goal_range = goal_range
        """The goal range of the rules as written (None: read from :attr:`rules`)."""
        self.reasoner = reasoner
        self.name = name
        self.description = description or f"GDL game {name}"
        self.roles = tuple(reasoner.roles)
        self.information = Information.IMPERFECT if uses_sees(rules) else Information.PERFECT
        """Read from the rules at once (``sees`` makes GDL-II), not probed with ``info``."""
        self.chance_role = chance_role(rules)
        """GDL-II's nature, ``random``, where the rules make it a role; else None."""
        self._info: GameInfo | None = None
        self._info_lock = threading.Lock()
        self.load_report: LoadReport | None = None
        """How long each phase of loading took, when loaded from text."""
        self.pending_propnet: PendingPropnet[GdlGame] | None = None
        """The propnet still compiling for a game loaded on the join code (see
        :func:`load_kif_text`'s ``keep_compiling``); None otherwise."""

    @property
    def info(self) -> GameInfo:
        """Probed once, on first access (one probe even when threads ask at once)."""
        if self._info is None:
            with self._info_lock:
                if self._info is None:
                    self._info = self._probe_info()
        return self._info

    @info.setter
    def info(self, value: GameInfo) -> None:
        self._info = value

    @property
    def reasoner_name(self) -> str:
        """Which reasoner runs this game ("prover", "propnet", ...)."""
        return self.reasoner.name

    def _error(self, e: ReasonerError) -> GdlGameError:
        kind = GdlQueryTimeLimitError if isinstance(e, QueryTimeLimitError) else GdlGameError
        return kind(f"{self.name}: {e}")

    def initial_state(self) -> Hashable:
        try:
            state: Hashable = self.reasoner.initial()
        except ReasonerError as e:
            raise self._error(e) from None
        return state

    def _legal(self, state: Hashable, role_index: int) -> list[Term]:
        try:
            return self.reasoner.legal(state, role_index)
        except ReasonerError as e:
            raise self._error(e) from None

    def _next(self, state: Hashable, moves: Sequence[Term]) -> Hashable:
        try:
            after: Hashable = self.reasoner.next(state, moves)
        except ReasonerError as e:
            raise self._error(e) from None
        return after

    def is_terminal(self, state: Hashable) -> bool:
        try:
            return self.reasoner.terminal(state)
        except ReasonerError as e:
            raise self._error(e) from None

    def goals(self, state: Hashable) -> dict[str, int]:
        try:
            return {role: self.reasoner.goal(state, i) for i, role in enumerate(self.roles)}
        except ReasonerError as e:
            raise self._error(e) from None

    def facts(self, state: Hashable) -> frozenset[Term]:
        try:
            return self.reasoner.facts(state)
        except ReasonerError as e:
            raise self._error(e) from None

    def _percepts(self, state: Hashable, moves: Sequence[Term]) -> dict[str, frozenset[Term]]:
        if self.information is Information.PERFECT:
            return super()._percepts(state, moves)
        try:
            seen = self.reasoner.percepts(state, moves)
        except ReasonerError as e:
            raise self._error(e) from None
        return dict(zip(self.roles, seen, strict=True))

    def _seen_successors(
        self, states: Sequence[Hashable], role: str, move: Term,
        seen: frozenset[Term] | None, widest: int,
    ) -> list[tuple[int, list[Hashable]]]:  # fmt: skip
        """In compiled calls where the game runs on the propnet."""
        from ggpkit.reasoning.propnet.reasoner import PropnetReasoner

        propnet = self.reasoner
        if not isinstance(propnet, PropnetReasoner):
            return super()._seen_successors(states, role, move, seen, widest)
        packed = [s for s in states if isinstance(s, bytes)]
        assert len(packed) == len(states)
        try:
            found = propnet.seen_successors(packed, self.role_index(role), move, seen, widest)
        except ReasonerError as e:
            raise self._error(e) from None
        return [(count, list(after)) for count, after in found]

    @property
    def seats(self) -> tuple[str, ...]:
        """Every role but nature (read from the rules, so asking does not probe ``info``)."""
        return tuple(r for r in self.roles if r != self.chance_role)

    def playout_stats(self, state: Hashable, count: int, seed: int) -> PlayoutStats:
        """Random playouts: in one compiled call where the reasoner has a batch kernel."""
        batch = self.reasoner.batch
        if batch is None:
            return super().playout_stats(state, count, seed)
        try:
            return batch.playout_stats(state, count, seed)
        except ReasonerError as e:
            raise self._error(e) from None

    def state_from_facts(self, facts: Iterable[Term]) -> Hashable:
        """The state whose true facts are ``facts`` (to start from a given position)."""
        try:
            state: Hashable = self.reasoner.state_from_facts(frozenset(facts))
        except ReasonerError as e:
            raise self._error(e) from None
        return state

    def batch_stepper(self, count: int, max_steps: int) -> BatchStepper:
        """Matches stepped together on the propnet (a GdlGameError on the prover)."""
        batch = self.reasoner.batch
        if batch is None:
            raise GdlGameError(f"{self.name} runs on the {self.reasoner_name}: no batch stepping")
        try:
            return batch.stepper(count, max_steps)
        except ReasonerError as e:
            raise self._error(e) from None

    def propositions(self) -> Propositions:
        """The grounded base facts and input moves (a GdlGameError on the prover)."""
        try:
            return self.reasoner.propositions()
        except ReasonerError as e:
            raise self._error(e) from None

    def _probe_info(self, playouts: int = 20, max_steps: int = 200) -> GameInfo:
        """Dynamics and utility from random playouts; the goal range from the goal rules."""
        rng = random.Random(0)
        choosers_at_once = 0
        sums: list[int] = []
        moves = 0
        deadline = time.perf_counter() + PROBE_SAFETY_SECONDS
        cut_short = False
        try:
            for _ in range(playouts):
                state = self.initial_state()
                for _step in range(max_steps):
                    with time_limit(PROBE_SAFETY_SECONDS):  # one step: hostile rules can hang
                        if self.is_terminal(state):
                            goals = self.goals(state)
                            sums.append(sum(goals[r] for r in self.seats))
                            break
                        legal = self.all_legal_moves(state)
                        if moves < DYNAMICS_MOVES:
                            choosers_at_once = max(
                                choosers_at_once, sum(1 for ms in legal if len(ms) > 1)
                            )
                        if any(not ms for ms in legal) or moves >= PROBE_MOVES:
                            break
                        state = self._next(state, [rng.choice(ms) for ms in legal])
                    moves += 1
                    cut_short = moves >= DYNAMICS_MOVES and time.perf_counter() > deadline
                    if cut_short:
                        break
                if moves >= PROBE_MOVES or cut_short:
                    break
        except GameError:  # rules that break mid-game, or one step past the limit
            cut_short = time.perf_counter() > deadline
        notes = self.notes
        utility = _utility(sums)
        if cut_short:  # how far a slow probe gets depends on the machine: say nothing of it
            utility = Utility.GENERAL_SUM
            notes = (*notes, "utility taken as general-sum: the rules are too slow to probe")
        dynamics = Dynamics.SIMULTANEOUS if choosers_at_once > 1 else Dynamics.TURN_TAKING
        return GameInfo(
            dynamics,
            utility,
            goal_range=self._goal_range or _goal_range(self.rules, self.chance_role),
            capabilities=Capabilities(
                compiled_playouts=self.reasoner.batch is not None,
                tree_search=self._tree_search(),
            ),
            reasoner=self.reasoner_name,
            notes=notes,
            information=self.information,
            chance_role=self.chance_role,
        )

    def _tree_search(self) -> Callable[[int | None], TreeSearch] | None:
        """Compiled MCTS trees where the game runs on the propnet."""
        from ggpkit.reasoning.propnet.reasoner import PropnetReasoner
        from ggpkit.search.propnet.game_tree import PropnetTrees

        reasoner = self.reasoner.batch
        if not isinstance(reasoner, PropnetReasoner):
            return None
        return PropnetTrees(self.name, reasoner)


COMPILE_TIMEOUT = 60.0
"""Seconds the propnet's grounding and building may take when the caller gives no limit."""

PROBE_MOVES = 400
"""Joint moves the info probe plays in all (the same number on every machine)."""

DYNAMICS_MOVES = 50
"""The first joint moves of the probe, never cut short: turn-taking or simultaneous is
decided on them alone, so it never depends on the machine's speed."""

PROBE_SAFETY_SECONDS = 5.0
"""Only rules slower than this over the whole probe, or in one step, stop it early (noted)."""

_MIN_SAMPLES = 4
"""Terminal states a probe must see, all with one goal sum, to call a game constant-sum."""


def _utility(sums: Sequence[int]) -> Utility:
    if len(sums) < _MIN_SAMPLES or len(set(sums)) != 1:
        return Utility.GENERAL_SUM
    return Utility.ZERO_SUM if sums[0] == 100 else Utility.CONSTANT_SUM


def _goal_range(rules: Sequence[Rule], chance: str | None = None) -> tuple[int, int]:
    """The lowest and highest goal value the rules can give a seat (0..100 when a value is
    computed); nature's own goal rules (``chance``) are not counted."""
    values = []
    for rule in rules:
        head = rule.head
        if isinstance(head, Func) and head.name == "goal" and len(head.args) == 2:
            if isinstance(head.args[0], Const) and head.args[0].name == chance:
                continue
            value = head.args[1]
            if not (isinstance(value, Const) and value.name.isdigit()):
                return (0, 100)
            values.append(min(int(value.name), 100))
    return (min(values), max(values)) if values else (0, 100)


@dataclass(frozen=True, slots=True)
class LoadReport:
    """How long each phase of loading took (wall seconds): for ``ggpkit check --stats``."""

    parse_seconds: float
    check_seconds: float
    """0 when the rules were not checked here."""
    compile_seconds: float
    """The propnet's compilation, whether it succeeded or not (0 when not tried)."""
    compile: CompileReport | None
    """The phases of a compilation that succeeded."""

    def describe(self) -> str:
        inner = f": {self.compile.describe()}" if self.compile else ""
        return (
            f"parse {self.parse_seconds:.2f} s, check {self.check_seconds:.2f} s, "
            f"propnet {self.compile_seconds:.2f} s{inner}"
        )


def make_reasoner(
    rules: Sequence[Rule], reasoner: str, timeout: float
) -> tuple[Reasoner[Any], tuple[str, ...], CompileReport | None]:
    """The reasoner asked for, the notes to show with it (why the propnet was not used),
    and the report of the propnet's compilation when it was built.

    The propnet's compilation (in a killable child) gets ``timeout`` seconds.
    """
    if reasoner not in REASONERS:
        raise GameError(f"unknown reasoner {reasoner!r}; use one of {', '.join(REASONERS)}")
    notes: tuple[str, ...] = ()
    if reasoner in ("auto", "propnet"):
        try:
            fast = importlib.import_module("ggpkit.reasoning.propnet.reasoner")
            made = fast.PropnetReasoner.from_rules(rules, timeout=timeout)
            return made, notes, made.compile_report
        except Exception as e:  # any failure of the fast path is shown, then the join code plays
            if reasoner == "propnet":
                raise GdlGameError(f"the propnet reasoner cannot run this game: {e}") from None
            reason = str(e) if isinstance(e, ReasonerError) else f"{type(e).__name__}: {e}"
            note = f"runs on the join code: the propnet could not be built ({reason})"
            log.warning("%s", note)
            notes = (note,)
    try:
        return Prover(rules, compiled=reasoner != "prover"), notes, None
    except ReasonerError as e:
        raise GdlGameError(str(e)) from None


def late_propnet(
    rules: Sequence[Rule], timeout: float, keep: float
) -> tuple[Reasoner[Any], tuple[str, ...], CompileReport | None, CompileJob[Any] | None]:
    """:func:`make_reasoner` (``auto``) whose propnet may go on compiling after ``timeout``.

    For up to ``keep`` seconds more, in its child: the join code plays meanwhile, and
    the last item is the compilation to take the network from (None when the
    network was ready in time or cannot be built).
    """
    fast = importlib.import_module("ggpkit.reasoning.propnet.reasoner")
    try:
        job = fast.PropnetReasoner.start_compiling(rules, timeout + keep)
        compiled = job.wait(timeout)
    except Exception:  # the compilation's own failure: the usual path says why
        return (*make_reasoner(rules, "joincode", timeout), None)
    if compiled is not None:
        made = fast.PropnetReasoner.from_compiled(compiled)
        return made, (), made.compile_report, None
    note = f"runs on the join code until its propnet is built (still compiling after {timeout:g} s)"
    log.warning("%s", note)
    return Prover(rules, compiled=True), (note,), None, job


def load_kif_text(
    text: str,
    name: str = "<string>",
    reasoner: str = "auto",
    check: bool = True,
    timeout: float = COMPILE_TIMEOUT,
    keep_compiling: float = 0.0,
    notes: Sequence[str] = (),
) -> GdlGame:
    """A game from GDL text; ``name`` is used in messages and as the game's name;
    ``notes``, said of the text by its caller, go first in the game's notes.

    ``timeout`` bounds the propnet's grounding and building; past it (or when the
    grounding estimate refuses the rules) ``auto`` runs the game on the join code. With
    ``keep_compiling`` > 0 (``auto``, where processes fork), a late compilation goes
    on that many seconds more and the game's :attr:`GdlGame.pending_propnet` gives
    its propnet twin once built. The time of each phase is kept in the game's
    ``load_report``.
    """
    began = time.perf_counter()
    rules = parse_rules(text, name)
    parsed = time.perf_counter()
    rule_notes: list[str] = list(notes)
    if check:
        repaired = repair_rules(rules, check_rules(rules))
        if repaired.errors:
            raise GdlCheckError(name, sorted_problems((*repaired.problems, *repaired.repairs)))
        rules = list(repaired.rules)
        rule_notes += [str(p) for p in repaired.repairs]
    rules = with_nature_goal(rules)
    goal_range = _goal_range(rules, chance_role(rules))
    if uses_sees(rules):
        rules = with_goal_completion(rules)
        goal_range = (0, goal_range[1])
        rule_notes.append(GOAL_COMPLETION_NOTE)
    checked = time.perf_counter()
    game_name = Path(name).stem if name.endswith((".kif", ".gdl")) else name
    job = None
    if keep_compiling > 0 and reasoner == "auto" and hasattr(os, "fork"):
        made, notes, compiled, job = late_propnet(rules, timeout, keep_compiling)
    else:
        made, notes, compiled = make_reasoner(rules, reasoner, timeout)
    game = GdlGame(
        rules, made, name=game_name, notes=notes, rule_notes=rule_notes, goal_range=goal_range
    )
    if job is not None:
        game.pending_propnet = PendingPropnet(job, partial(_twin, game))
    grounded = reasoner not in ("prover", "joincode")
    compile_seconds = time.perf_counter() - checked if grounded else 0.0
    game.load_report = LoadReport(parsed - began, checked - parsed, compile_seconds, compiled)
    return game


def _twin(game: GdlGame, compiled: Compiled[Any]) -> GdlGame:
    """``game`` on the propnet compiled in the background."""
    fast = importlib.import_module("ggpkit.reasoning.propnet.reasoner")
    twin = GdlGame(game.rules, fast.PropnetReasoner.from_compiled(compiled), game.name,
                   game.description, rule_notes=game.rule_notes,
                   goal_range=game._goal_range)  # fmt: skip
    twin.load_report = game.load_report
    return twin


def load_kif_file(path: Path | str, reasoner: str = "auto", check: bool = True) -> GdlGame:
    """A game from a ``.kif`` file (never reading more of it than the reader accepts).

    A *fragment*, a file of rules with no role, legal, goal or terminal (a fixed
    strategy, say, written to be added to a game), is loaded with the game it extends
    where that game stands beside it, named by the fragment's name up to an underscore
    (``minesweeper_robot.kif`` extends ``minesweeper.kif``); the game's notes say so.
    """
    text = read_kif_file(path)
    base = extended_game(Path(path), text)
    if base is None:
        return load_kif_text(text, str(path), reasoner=reasoner, check=check)
    note = (
        f"{Path(path).name} is a fragment (no role, legal, goal or terminal): loaded with "
        f"{base.name}, the game it extends, whose lines come first"
    )
    combined = _extended(base, text)
    return load_kif_text(combined, str(path), reasoner=reasoner, check=check, notes=(note,))


def rules_of_file(path: Path | str) -> str:
    """The rules a ``.kif`` file stands for, as :func:`load_kif_file` reads them: its
    text, or a fragment's after the game it extends. A game manager sends players these:
    a fragment alone is refused by every player ("a fragment, not a game")."""
    text = read_kif_file(path)
    base = extended_game(Path(path), text)
    return text if base is None else _extended(base, text)


def _extended(base: Path, fragment: str) -> str:
    """A fragment's rules after those of the game it extends."""
    return f"{read_kif_file(base)}\n{fragment}"


def extended_game(path: Path, text: str) -> Path | None:
    """The game a fragment's file extends (see :func:`load_kif_file`); None for a game,
    or for a fragment with no such game beside it."""
    try:
        rules = parse_rules(text, str(path))
    except GgpkitError:
        return None
    if not rules or any(relation(r.head) in REQUIRED for r in rules):
        return None
    stem = path.stem
    while "_" in stem:
        stem = stem.rsplit("_", 1)[0]
        for suffix in (".kif", ".gdl"):
            candidate = path.with_name(stem + suffix)
            if candidate.is_file() and candidate != path:
                return candidate
    return None
