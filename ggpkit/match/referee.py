"""The referee (game manager): runs one match between players under the GGP protocol.

Before any clock runs every player is connected (a remote player's HTTP client
is made and its name asked with INFO; the record keeps the names they report).
START goes to all players in parallel, then the match driver
(:mod:`ggpkit.match.driver`) plays every step: PLAY goes to all players in
parallel; a reply that is late (``TO``), unreadable or illegal (``IL <reply>``) or
lost to a connection failure (``CE``) is replaced by a random legal move and the
error recorded for that role and step. A failed START is recorded too, as the
role's error of the first step (ggp.org records have no other place for it). At a
terminal state STOP goes to all and the goals are recorded; the players are
closed whatever happened; a match still going after ``max_steps`` is aborted (ABORT
to all). Progress goes to a :class:`MatchRecorder` step by step
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

from ggpkit.agents.base import QuitGame
from ggpkit.games.api import Game, GameError
from ggpkit.match.clock import Clocks
from ggpkit.match.driver import MatchDriver, fault_code
from ggpkit.match.players import Nature, RefereedPlayer, seat_players
from ggpkit.match.recorder import MatchRecorder, NullRecorder
from ggpkit.match.records import NO_PREVIEW, MatchRecord, new_match_id

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
    """One match: ``players`` in the game's role order (or its seats' order, in a game of
    chance: nature takes the chance role). Call :meth:`run`."""

    def __init__(
        self,
        game: Game[Any],
        rules: str,
        players: Sequence[RefereedPlayer],
        clocks: Clocks,
        recorder: MatchRecorder | None = None,
        observer: Observer | None = None,
        match_id: str | None = None,
        seed: int | None = None,
        source: str = "referee",
        max_steps: int | None = None,
    ) -> None:
        if len(players) not in (len(game.roles), len(game.seats)):
            raise GameError(
                f"{game.name} has {len(game.roles)} roles ({', '.join(game.roles)}), "
                f"got {len(players)} players"
            )
        self.game = game
        self.rules = rules
        self.players = seat_players(game, players, Nature())  # nature at the chance role
        self.clocks = clocks
        self.recorder: MatchRecorder = recorder or NullRecorder()
        self.observer = observer
        self.rng = random.Random(seed)
        self.max_steps = max_steps
        """Steps after which the match is aborted (None: none). GDL asks every game to
        end, but some public rules have no step limit and players can stall in them for
        ever (a loser that passes); the GGP protocol has no limit of its own."""
        self.record = MatchRecord(
            match_id=match_id or new_match_id(game.name),
            game_name=game.name,
            rules=rules,
            roles=list(game.roles),
            start_clock=clocks.start,
            play_clock=clocks.play,
            preview_clock=NO_PREVIEW if clocks.preview is None else clocks.preview,
            player_names=[p.name for p in self.players],
            is_human=[p.is_human for p in self.players],
            source=source,
        )

    async def run(self) -> MatchRecord:
        """Play the match to its end; the finished record (aborted if interrupted)."""
        try:
            await self._connect_all()
            return await self._play()
        finally:
            await asyncio.shield(self._close_all())

    async def _play(self) -> MatchRecord:
        game, record = self.game, self.record
        driver = MatchDriver(game, record, self.recorder, self.rng)
        driver.begin()
        self._observe(StepEvent(0, driver.state, (), (), record))
        try:
            start_errors = await self._start_all()
            while not driver.finished:
                if self.max_steps is not None and record.steps >= self.max_steps:
                    log.warning("match %s aborted after %d steps", record.match_id, record.steps)
                    driver.abort()
                    await self._abort_all()
                    return record
                joint, errors = await driver.ask(self.players, self.clocks.play, record.match_id)
                if record.steps == 0:
                    errors = with_start_errors(errors, start_errors)
                step = driver.commit(joint, errors)
                self._observe(
                    StepEvent(
                        record.steps, step.state, tuple(map(str, step.joint)), step.errors, record
                    )
                )
        except (asyncio.CancelledError, KeyboardInterrupt, QuitGame):
            driver.abort()
            await asyncio.shield(self._abort_all())
            raise
        await self._stop_all(driver)
        return record

    # ---- the protocol, to all players in parallel ----------------------------------------------

    async def _connect_all(self) -> None:
        """Connect every player before any clock runs; the record takes the names they give."""
        await asyncio.gather(*(p.connect() for p in self.players))
        self.record.player_names = [p.name for p in self.players]

    async def _close_all(self) -> None:
        results = await asyncio.gather(*(p.close() for p in self.players), return_exceptions=True)
        for player, result in zip(self.players, results, strict=True):
            if isinstance(result, Exception):
                log.warning("closing %s failed: %s", player.name, result)

    async def _start_all(self) -> list[str]:
        """Send START to all; each role's error code (``""`` when the player got ready).

        The match goes on either way; see :func:`with_start_errors` for the record.
        """
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
        codes: list[str] = []
        for role, result in zip(self.game.roles, results, strict=True):
            if isinstance(result, BaseException):
                _reraise_interrupts(result)
                log.warning("START of %s failed: %s", role, result)
                codes.append(fault_code(result))
            else:
                codes.append("")
        return codes

    async def _stop_all(self, driver: MatchDriver) -> None:
        """STOP to every player, each told what its role may know of the last step."""
        calls = [
            p.stop(self.record.match_id, driver.told(role), self.clocks.play)
            for p, role in zip(self.players, self.game.roles, strict=True)
        ]
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


def with_start_errors(step_errors: Sequence[str], start_errors: Sequence[str]) -> list[str]:
    """The first step's error codes, each role's failed START filling an empty one.

    ggp.org records keep errors per step and role only, so the first step is where a
    START failure goes; a step's own error wins, as it explains the move played. (A
    match over before its first step keeps a START failure only in the log.)
    """
    return [own or start for own, start in zip(step_errors, start_errors, strict=True)]


def _reraise_interrupts(result: BaseException) -> None:
    """A person quitting or an interrupt ends the match; any other failure is the player's."""
    if isinstance(result, KeyboardInterrupt | asyncio.CancelledError | QuitGame):
        raise result
