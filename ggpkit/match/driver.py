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
from ggpkit.gdl.terms import Term, facts_text
from ggpkit.match.players import Player
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
    ) -> None:
        self.game = game
        self.record = record
        self.recorder: MatchRecorder = recorder or NullRecorder()
        self.rng = rng or random.Random()
        self.state: Hashable = game.initial_state() if state is None else state
        self.last: tuple[Term, ...] | None = None

    @property
    def finished(self) -> bool:
        return self.game.is_terminal(self.state)

    def begin(self) -> None:
        """Record the initial state and report the match as started."""
        self.record.add_state(facts_text(self.game.facts(self.state)))
        self.recorder.match_started(self.record)
        self._finish_if_over()

    def choosers(self) -> list[str]:
        """The roles with a real choice now (more than one legal move)."""
        if self.finished:
            return []
        return [r for r in self.game.roles if len(self.game.legal_moves(self.state, r)) > 1]

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
        """Every role's move for this step (faulty answers replaced) and its error code."""
        game, state = self.game, self.state
        # Off the event loop: on a large game the rules alone can take a while.
        legal = await asyncio.to_thread(lambda: [game.legal_moves(state, r) for r in game.roles])
        calls = [
            p.play(match_id, self.last, state, clock)
            if len(moves) > 1
            else p.observe(match_id, self.last, state, clock)
            for p, moves in zip(players, legal, strict=True)
        ]
        results = await asyncio.gather(*calls, return_exceptions=True)
        joint: list[Term] = []
        errors: list[str] = []
        for role, moves, result in zip(game.roles, legal, results, strict=True):
            if isinstance(result, BaseException) and _is_interrupt(result):
                raise result
            if len(moves) == 1:
                joint.append(moves[0])
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
        another role also has a choice now (its move must be asked for, not assumed).
        """
        chosen = self.game.check_move(self.state, role, move)
        joint: list[Term] = []
        for other in self.game.roles:
            if other == role:
                joint.append(chosen)
                continue
            legal = self.game.legal_moves(self.state, other)
            if len(legal) != 1:
                raise IllegalMoveError(move, role, f"{other} also chooses a move now")
            joint.append(legal[0])
        return joint

    # ---- recording --------------------------------------------------------------------

    def commit(self, joint: Sequence[Term], errors: Sequence[str]) -> StepResult:
        """Play a joint move of legal moves and record the step (and the end of the match)."""
        after = self.game.next_state(self.state, list(joint))
        self.state = after
        self.last = tuple(joint)
        self.record.add_step(
            [str(m) for m in joint], list(errors), facts_text(self.game.facts(after))
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
