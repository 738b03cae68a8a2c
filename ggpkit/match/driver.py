"""The match driver: the one piece of code that plays a step of any match.

The referee, the arena, ``ggpkit play``, the web sessions and the tournament runner
all play through :class:`MatchDriver`, so the same agent gets the same treatment
everywhere:

1. every role with a real choice (more than one legal move) is asked, through the
   :class:`~ggpkit.match.players.Player` protocol, within its clock; a role with a
   single legal move (``noop``) plays it without being asked (a remote player is
   still sent the message the protocol requires, and its reply is ignored);
2. each answer is validated against the rules;
3. a late (``TO``), failed (``CE``), unreadable or illegal (``IL <text>``) answer is
   replaced by a random legal move and the code recorded for that role and step;
4. the step (joint move, errors, new state) goes to the match record and its
   recorder, and the goals when the match ends.

In a game of chance no player takes the chance role (``game.info.chance_role``,
GDL-II's ``random``): players are given for the seats (or for every role, the chance
role's never asked), and the driver draws nature's move uniformly among its legal
moves, from a seed of the match's own (``chance_seed``, else drawn from ``rng``) and
the step's number, so a match's draws are the same whoever drives which step. In a
game of imperfect information (``game.info.imperfect``) every step also records what
each role perceived (``game.percepts``), and a player is never shown the state: where
a player of a game of perfect information is given the state and the last joint move,
it is given its role's :class:`~ggpkit.games.views.RoleView` (its own moves as played
and its percepts) for both.

People are not replaced: a person's input is checked before it becomes an answer
(the terminal asks again; the web app answers 400), which :meth:`MatchDriver.joint_for`
does for an interface that collects a person's move itself.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from ggpkit.agents.base import QuitGame
from ggpkit.games.api import Game, IllegalMoveError, MoveError, MoveLike
from ggpkit.games.views import RoleView, views_of_line
from ggpkit.gdl.kif import parse_term, parse_terms
from ggpkit.gdl.terms import Term, facts_text, split_facts_text
from ggpkit.match.players import Nature, Player, Told, seat_players
from ggpkit.match.recorder import MatchRecorder, NullRecorder
from ggpkit.match.records import MatchRecord
from ggpkit.match.remote import PlayerFault

log = logging.getLogger("ggpkit.match")

MAX_ERROR_TEXT = 200
"""Characters of an unreadable or illegal answer kept in the ``IL`` code."""


@dataclass(frozen=True, slots=True)
class StepResult:
    """One played step: the joint move, each role's error code (``""``: none), the new state."""

    joint: tuple[Term, ...]
    errors: tuple[str, ...]
    state: Hashable


StepObserver = Callable[[StepResult], None]


def fault_code(fault: BaseException) -> str:
    """The ggp.org error code of a player that gave no answer: its own code, else ``CE``."""
    if isinstance(fault, PlayerFault):
        return f"IL {fault.detail}" if fault.code == "IL" else fault.code
    return "CE"


def illegal_code(answer: str) -> str:
    """``IL <answer>``, whitespace collapsed and cut to :data:`MAX_ERROR_TEXT` characters."""
    return f"IL {' '.join(answer.split())[:MAX_ERROR_TEXT]}".strip()


def _is_interrupt(result: BaseException) -> bool:
    return isinstance(result, KeyboardInterrupt | asyncio.CancelledError | QuitGame)


class MatchDriver:
    """Plays one match step by step on ``record`` (which it fills) from ``state``."""

    def __init__(
        self,
        game: Game[Any],
        record: MatchRecord,
        recorder: MatchRecorder | None = None,
        rng: random.Random | None = None,
        state: Hashable | None = None,
        chance_seed: int | None = None,
    ) -> None:
        self.game = game
        self.record = record
        self.recorder: MatchRecorder = recorder or NullRecorder()
        self.rng = rng or random.Random()
        self.state: Hashable = game.initial_state() if state is None else state
        self.last: tuple[Term, ...] | None = None
        self.chance_role = game.info.chance_role
        self.imperfect = game.info.imperfect
        if chance_seed is None and self.chance_role is not None:
            chance_seed = self.rng.getrandbits(63)
        self.chance_seed = chance_seed
        """Where nature's draws come from (with each step's number); None without chance."""
        self.views = self._views_so_far()
        """Each seat's view of the match so far, in a game of imperfect information."""

    def _views_so_far(self) -> dict[str, RoleView]:
        """Each role's view of the record's joint moves, for a driver that takes a match
        over midway (the web app makes one for each step); empty in perfect information.

        The percepts are read back from the record; where it has none (kept by a store
        that does not keep them), found again by playing its moves from its first state,
        and written in it.
        """
        record, game = self.record, self.game
        if not self.imperfect:
            return {}
        joints = [[parse_term(m) for m in moves] for moves in record.moves]
        if len(record.percepts) == record.steps:
            seen = [
                {r: frozenset(parse_term(p) for p in step[i]) for i, r in enumerate(game.roles)}
                for step in record.percepts
            ]
        else:
            seen = self._replay_percepts(joints)
        return views_of_line(game.roles, joints, seen)

    def _replay_percepts(self, joints: list[list[Term]]) -> list[dict[str, frozenset[Term]]]:
        """The percepts of the record's joint moves, found by playing them (and recorded)."""
        record, game = self.record, self.game
        seen: list[dict[str, frozenset[Term]]] = []
        if joints:
            state = game.state_from_facts(parse_terms(split_facts_text(record.states[0])))
            for joint in joints:
                seen.append(game.percepts(state, joint))
                state = game.next_state(state, joint)
        record.percepts = [[sorted(str(p) for p in step[r]) for r in game.roles] for step in seen]
        return seen

    @property
    def finished(self) -> bool:
        return self.game.is_terminal(self.state)

    def begin(self) -> None:
        """Record the initial state and report the match as started."""
        self.record.chance_role = self.chance_role
        self.record.add_state(facts_text(self.game.facts(self.state)))
        self.recorder.match_started(self.record)
        self._finish_if_over()

    def choosers(self) -> list[str]:
        """The seats with a real choice now (more than one legal move): nature is not asked."""
        if self.finished:
            return []
        return [r for r in self.game.seats if len(self.game.legal_moves(self.state, r)) > 1]

    def view(self, role: str) -> RoleView:
        """What ``role`` knows of the match so far: its moves and percepts (GDL-II)."""
        self.game.role_index(role)
        return self.views.get(role, RoleView(role))

    def told(self, role: str) -> Told:
        """What ``role``'s player is told of the last step: the joint move in a game of
        perfect information, its view in one of imperfect information."""
        return self.view(role) if self.imperfect else self.last

    def shown(self, role: str) -> Hashable:
        """What ``role``'s player is shown to choose from: the state, or in a game of
        imperfect information its view (never the state)."""
        return self.view(role) if self.imperfect else self.state

    def draw_chance(self, legal: Sequence[Term]) -> Term:
        """Nature's move now: uniform among ``legal``, from the chance seed and this step's
        number (the same draw whichever driver plays the step)."""
        return random.Random(f"{self.chance_seed}:{self.record.steps}").choice(list(legal))

    # ---- asking players -----------------------------------------------------------------

    async def step(
        self, players: Sequence[Player], clock: float | None, match_id: str = ""
    ) -> StepResult:
        """Ask, validate, replace faulty answers, and record one step."""
        joint, errors = await self.ask(players, clock, match_id or self.record.match_id)
        return self.commit(joint, errors)

    async def run(
        self,
        players: Sequence[Player],
        clock: float | None,
        on_step: StepObserver | None = None,
        max_steps: int | None = None,
    ) -> MatchRecord:
        """Play steps until the match ends (or ``max_steps`` were played); the record."""
        played = 0
        while not self.finished and (max_steps is None or played < max_steps):
            result = await self.step(players, clock)
            played += 1
            if on_step is not None:
                on_step(result)
        return self.record

    async def ask(
        self, players: Sequence[Player], clock: float | None, match_id: str
    ) -> tuple[list[Term], list[str]]:
        """Every role's move for this step (faulty answers replaced) and its error code.

        ``players``: one per seat, or one per role (see :func:`seat_players`); whoever
        stands at the chance role is never called.
        """
        game, state = self.game, self.state
        nature = Nature()
        seated = [
            nature if role == self.chance_role else player
            for role, player in zip(game.roles, seat_players(game, players, nature), strict=True)
        ]
        # Off the event loop: on a large game the rules alone can take a while.
        legal = await asyncio.to_thread(lambda: [game.legal_moves(state, r) for r in game.roles])
        calls = [
            p.play(match_id, self.told(role), self.shown(role), clock)
            if len(moves) > 1 and role != self.chance_role
            else p.observe(match_id, self.told(role), self.shown(role), clock)
            for p, role, moves in zip(seated, game.roles, legal, strict=True)
        ]
        results = await asyncio.gather(*calls, return_exceptions=True)
        joint: list[Term] = []
        errors: list[str] = []
        for role, moves, result in zip(game.roles, legal, results, strict=True):
            if isinstance(result, BaseException) and _is_interrupt(result):
                raise result
            if len(moves) == 1 or role == self.chance_role:
                joint.append(moves[0] if len(moves) == 1 else self.draw_chance(moves))
                errors.append("")
                continue
            move, error = self._judge(role, moves, result)
            joint.append(move)
            errors.append(error)
        return joint, errors

    def _judge(self, role: str, legal: list[Term], answer: object) -> tuple[Term, str]:
        """The move to play for one answer, and its error code (``""`` when it stands)."""
        if isinstance(answer, BaseException):
            log.warning("%s gave no move: %s", role, answer)
            return self.rng.choice(legal), fault_code(answer)
        text = str(answer)
        try:
            return self.game.check_move(self.state, role, text), ""
        except MoveError as e:
            log.warning("%s answered %r: %s", role, text[:80], e.reason)
            return self.rng.choice(legal), illegal_code(text)

    # ---- moves collected by an interface --------------------------------------------------

    def joint_for(self, role: str, move: MoveLike) -> list[Term]:
        """The joint move of ``role`` playing ``move`` while every other role has one move.

        For interfaces that collect a person's move themselves: raises ``MoveError``
        with the reason for a move that is not legal, and ``IllegalMoveError`` when
        another seat also has a choice now (its move must be asked for, not assumed).
        Nature's move is drawn.
        """
        chosen = self.game.check_move(self.state, role, move)
        joint: list[Term] = []
        for other in self.game.roles:
            if other == role:
                joint.append(chosen)
                continue
            legal = self.game.legal_moves(self.state, other)
            if other == self.chance_role:
                joint.append(self.draw_chance(legal))
                continue
            if len(legal) != 1:
                raise IllegalMoveError(move, role, f"{other} also chooses a move now")
            joint.append(legal[0])
        return joint

    # ---- recording --------------------------------------------------------------------

    def commit(self, joint: Sequence[Term], errors: Sequence[str]) -> StepResult:
        """Play a joint move of legal moves and record the step (and the end of the match)."""
        game = self.game
        seen = game.percepts(self.state, list(joint)) if self.imperfect else None
        after = game.next_state(self.state, list(joint))
        self.state = after
        self.last = tuple(joint)
        percepts = None
        if seen is not None:
            for role, move in zip(game.roles, joint, strict=True):
                self.views[role] = self.view(role).then(move, seen[role])
            percepts = [[str(p) for p in seen[r]] for r in game.roles]
        self.record.add_step(
            [str(m) for m in joint], list(errors), facts_text(game.facts(after)), None, percepts
        )
        self.recorder.step_played(self.record)
        self._finish_if_over()
        return StepResult(tuple(joint), tuple(errors), after)

    def _finish_if_over(self) -> None:
        if self.finished and not self.record.is_completed:
            goals = self.game.goals(self.state)
            self.record.finish([goals[r] for r in self.game.roles])
            self.recorder.match_ended(self.record)

    def abort(self) -> None:
        """Mark the match aborted and report it (a person quit, or the match was cancelled)."""
        self.record.is_aborted = True
        self.recorder.match_ended(self.record)
