"""The referee (game manager): runs one match between players under the GGP protocol.

START goes to all players in parallel, then the match driver
(:mod:`ggpkit.match.driver`) plays every step: PLAY goes to all players in
parallel; a reply that is late (``TO``), unreadable or illegal (``IL <reply>``) or
lost to a connection failure (``CE``) is replaced by a random legal move and the
error recorded for that role and step. At a terminal state STOP goes to all and
the goals are recorded. Progress goes to a :class:`MatchRecorder` step by step
and to an optional observer (the CLI's board display). Whatever a player does,
the referee finishes the match.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from ggpkit.agents.human import QuitGame
from ggpkit.games.api import Game, GameError
from ggpkit.gdl.terms import Term
from ggpkit.match.clock import Clocks
from ggpkit.match.driver import MatchDriver
from ggpkit.match.players import Player
from ggpkit.match.recorder import MatchRecorder, NullRecorder
from ggpkit.match.records import MatchRecord, new_match_id

log = logging.getLogger("ggpkit.referee")


@dataclass(frozen=True, slots=True)
class StepEvent:
    """What the observer is told after each step (and once at the start, ``step == 0``)."""

    step: int
    state: Hashable
    moves: tuple[str, ...]
    errors: tuple[str, ...]
    record: MatchRecord


Observer = Callable[[StepEvent], None]


class Referee:
    """One match: ``players`` in the game's role order. Call :meth:`run`."""

    def __init__(
        self,
        game: Game[Any],
        rules: str,
        players: Sequence[Player],
        clocks: Clocks,
        recorder: MatchRecorder | None = None,
        observer: Observer | None = None,
        match_id: str | None = None,
        seed: int | None = None,
        source: str = "referee",
    ) -> None:
        if len(players) != len(game.roles):
            raise GameError(
                f"{game.name} has {len(game.roles)} roles ({', '.join(game.roles)}), "
                f"got {len(players)} players"
            )
        self.game = game
        self.rules = rules
        self.players = list(players)
        self.clocks = clocks
        self.recorder: MatchRecorder = recorder or NullRecorder()
        self.observer = observer
        self.rng = random.Random(seed)
        self.record = MatchRecord(
            match_id=match_id or new_match_id(game.name),
            game_name=game.name,
            rules=rules,
            roles=list(game.roles),
            start_clock=clocks.start,
            play_clock=clocks.play,
            preview_clock=clocks.preview,
            player_names=[p.name for p in players],
            is_human=[p.is_human for p in players],
            source=source,
        )

    async def run(self) -> MatchRecord:
        """Play the match to its end; the finished record (aborted if interrupted)."""
        game, record = self.game, self.record
        driver = MatchDriver(game, record, self.recorder, self.rng)
        driver.begin()
        self._observe(StepEvent(0, driver.state, (), (), record))
        try:
            await self._start_all()
            while not driver.finished:
                step = await driver.step(self.players, self.clocks.play)
                self._observe(
                    StepEvent(
                        record.steps, step.state, tuple(map(str, step.joint)), step.errors, record
                    )
                )
        except (asyncio.CancelledError, KeyboardInterrupt, QuitGame):
            driver.abort()
            await asyncio.shield(self._abort_all())
            raise
        await self._stop_all(driver.last)
        return record

    # ---- the protocol, to all players in parallel ----------------------------------------------

    async def _start_all(self) -> None:
        calls = [
            p.start(
                self.record.match_id,
                role,
                self.game,
                self.rules,
                self.clocks.start,
                self.clocks.play,
            )
            for p, role in zip(self.players, self.game.roles, strict=True)
        ]
        results = await asyncio.gather(*calls, return_exceptions=True)
        for role, result in zip(self.game.roles, results, strict=True):
            if isinstance(result, BaseException):
                _reraise_interrupts(result)
                log.warning("START of %s failed: %s", role, result)

    async def _stop_all(self, last: Sequence[Term] | None) -> None:
        calls = [p.stop(self.record.match_id, last, self.clocks.play) for p in self.players]
        for result in await asyncio.gather(*calls, return_exceptions=True):
            if isinstance(result, BaseException):
                _reraise_interrupts(result)
                log.warning("STOP failed: %s", result)

    async def _abort_all(self) -> None:
        calls = [p.abort(self.record.match_id) for p in self.players]
        await asyncio.gather(*calls, return_exceptions=True)

    # ---- reporting ---------------------------------------------------------------------------

    def _report(self, method: Callable[[MatchRecord], None]) -> None:
        method(self.record)

    def _observe(self, event: StepEvent) -> None:
        if self.observer is not None:
            try:
                self.observer(event)
            except Exception as e:  # a display bug must not end the match
                log.error("observer failed: %s", e)


def _reraise_interrupts(result: BaseException) -> None:
    """A person quitting or an interrupt ends the match; any other failure is the player's."""
    if isinstance(result, KeyboardInterrupt | asyncio.CancelledError | QuitGame):
        raise result
