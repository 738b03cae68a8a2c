"""Running an agent under a clock: the agent thinks in a worker thread, the caller waits.

A Python thread cannot be killed, so a late agent keeps its thread until it
returns; the runner answers with a legal fallback at the deadline and never calls
the same agent twice at once (the next call first waits for the late one, within
its own deadline). Used by the player server and by the referee's local players.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

from ggpkit.agents.base import Agent, Limit, start_clock
from ggpkit.games.api import Game
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term
from ggpkit.match.remote import PlayerFault
from ggpkit.reasoning.base import time_limit

T = TypeVar("T")

LATE_GRACE_SECONDS = 5.0
"""How long past its deadline a late agent's rules queries may go on before they are
stopped (on hostile rules a prover query can run for ever, holding a thread and a core)."""


def within_time_limit(seconds: float, fn: Callable[[], T]) -> Callable[[], T]:
    """``fn`` with its rules queries stopped ``seconds`` plus the grace after it starts."""

    def limited() -> T:
        with time_limit(max(seconds, 0.0) + LATE_GRACE_SECONDS):
            return fn()

    return limited


def out_of_the_collectors_sight() -> None:
    """Hide every object alive now from Python's cyclic garbage collector (``gc.freeze``)
    before a timed move, so that a collection during the move scans only what the move
    makes.

    Why: a full collection scans every object, and a reasoner's caches on the join code
    grow to millions of them; on small Dominion collections that freed nothing stopped
    the search long enough to make the move late. Frozen objects are still freed by
    their reference counts (the caches evict); only garbage *cycles* alive at a freeze
    would stay, and a whole match of small Dominion left none. Nor is everything
    collected at a match's start: in a large process that full collection held every
    thread and made STARTs late (docs/results.md, thirteenth stop)."""
    gc.freeze()


def allowance(seconds: float) -> float:
    """What an agent is told it may think when the runner waits ``seconds`` for it.

    Less than the wait: agents overshoot a little (first-call set-up, garbage
    collection), and a late move is a lost move.
    """
    return max(seconds - max(0.1, seconds * 0.1), 0.0)


def _retrieve(future: asyncio.Future[Any]) -> None:
    """Mark ``future``'s error as seen (see :func:`in_daemon_thread`)."""
    if not future.cancelled():
        future.exception()


def in_daemon_thread(fn: Callable[[], T]) -> asyncio.Future[T]:
    """Run ``fn`` in a new daemon thread; a future of its result on the running loop.

    Daemon threads, unlike an executor's, never keep the process alive when a
    hung agent is abandoned. The error of a call abandoned so (a metagame past its
    clock that fails later) is not logged by asyncio as never retrieved: whoever
    still awaits the future gets it, and nobody else was asking.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    future.add_done_callback(_retrieve)

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def report(result: T | None, error: BaseException | None) -> None:
        # The loop is closed when its owner gave up on this call: nobody is waiting.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, result, error)

    def body() -> None:
        try:
            result = fn()
        except BaseException as e:  # the error is handed to the waiting coroutine
            report(None, e)
            return
        report(result, None)

    threading.Thread(target=body, name="ggpkit-agent", daemon=True).start()
    return future


@dataclass(frozen=True, slots=True)
class Choice:
    """The move given, and why it is a fallback (``""`` when the agent chose it).

    ``code`` is the ggp.org error code of a fallback: ``TO`` (late), ``CE`` (the
    agent failed), ``IL <move>`` (it chose an illegal move); ``""`` otherwise.
    """

    move: Term
    problem: str = ""
    code: str = ""
    chosen: Term | None = None
    """The agent's own move, also when it is illegal (None when it gave none)."""


class AgentRunner:
    """One agent playing one role, called under clocks; see the module docstring."""

    def __init__(self, agent: Agent, rng: random.Random | None = None) -> None:
        self.agent = agent
        self.rng = rng or random.Random()
        self._busy: asyncio.Future[Any] | None = None

    async def _wait_idle(self, seconds: float) -> bool:
        if self._busy is None or self._busy.done():
            return True
        # Late or failed: either way, the question is whether it is done now.
        timeout = None if seconds == float("inf") else seconds
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self._busy), timeout)
        return self._busy.done()

    async def start(self, game: Game[Any], role: str, seconds: float) -> PlayerFault | None:
        """Run the agent's metagaming within ``seconds``; None, or the fault (TO or CE).

        A match can restart its agent (on a propnet built during play): a late move's
        search is waited for first, within the same ``seconds``.
        """
        began = asyncio.get_running_loop().time()
        if not await self._wait_idle(max(seconds, 0.0)):
            return PlayerFault("TO", "the agent was still busy with its last move")
        seconds -= asyncio.get_running_loop().time() - began
        agent = self.agent

        def metagame() -> None:
            with start_clock(seconds):
                agent.start(game, role)

        self._busy = in_daemon_thread(within_time_limit(seconds, metagame))
        try:
            await asyncio.wait_for(asyncio.shield(self._busy), max(seconds, 0.0))
        except TimeoutError:
            return PlayerFault("TO", "metagaming ran past the start clock")
        except Exception as e:
            return PlayerFault("CE", f"metagaming failed: {type(e).__name__}: {e}")
        return None

    async def select(
        self,
        game: Game[Any],
        state: Hashable,
        role: str,
        seconds: float | None,
        ponder: bool = False,
    ) -> Choice:
        """A legal move within ``seconds`` (None: no clock; the agent's own limit applies).

        The agent's move, or a random legal one with the fault's code when it is late,
        fails or chooses an illegal move. Where ``role`` has a single legal move, that
        is the answer; with ``ponder``, a pondering agent searches until then anyway.
        """

        # Off the event loop: on a large game the rules alone can take a while.
        def legal_moves() -> list[Term]:
            return game.legal_moves(state, role)

        legal = await in_daemon_thread(
            legal_moves if seconds is None else within_time_limit(seconds, legal_moves)
        )
        if len(legal) == 1:  # no choice to make: the agent is not asked (but may ponder)
            if ponder and seconds is not None:
                await self.ponder(game, state, role, seconds)
            return Choice(legal[0])
        fallback = self.rng.choice(legal)
        if seconds is None:
            return await self._untimed(game, state, role, legal, fallback)
        deadline = asyncio.get_running_loop().time() + max(seconds, 0.0)
        if not await self._wait_idle(max(seconds, 0.0)):
            return Choice(fallback, "the agent was still busy with the previous move", "TO")
        remaining = max(deadline - asyncio.get_running_loop().time(), 0.0)
        limit = Limit(time=allowance(remaining))
        out_of_the_collectors_sight()
        self._busy = in_daemon_thread(
            within_time_limit(remaining, lambda: self.agent.select(game, state, role, limit))
        )
        try:
            move = await asyncio.wait_for(asyncio.shield(self._busy), remaining)
        except TimeoutError:
            return Choice(fallback, "the agent ran past its deadline", "TO")
        except Exception as e:
            return Choice(fallback, f"the agent failed: {type(e).__name__}: {e}", "CE")
        return self._checked(move, legal, fallback)

    async def ponder(self, game: Game[Any], state: Hashable, role: str, seconds: float) -> None:
        """Let a pondering agent (:attr:`Agent.ponders`) search ``state`` for ``seconds``
        where nothing it answers counts: the opponent's turn, or the rest of a start clock.

        Why: a tree search keeps what it found, and the next move starts from it; a
        champion player thinks through every clock it is given. A late or failed search
        is not a fault here; the next call waits for it, as for any late search.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(seconds, 0.0)
        if not self.agent.ponders or seconds <= 0 or not await self._wait_idle(seconds):
            return
        remaining = max(deadline - loop.time(), 0.0)
        limit = Limit(time=allowance(remaining))
        self._busy = in_daemon_thread(
            within_time_limit(remaining, lambda: self.agent.select(game, state, role, limit))
        )
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self._busy), remaining)

    async def from_view(
        self, game: Game[Any], view: RoleView, role: str, seconds: float | None
    ) -> Term:
        """The agent's move for its role's ``view`` (a game of imperfect information),
        unchecked: only the referee, who knows the state, knows which moves are legal,
        and it judges and replaces the move. PlayerFault when the agent is late or fails.
        """
        if seconds is None:
            await self._wait_idle(float("inf"))
            self._busy = in_daemon_thread(lambda: self.agent.select(game, view, role, Limit()))
            return await self._answer(None)
        deadline = asyncio.get_running_loop().time() + max(seconds, 0.0)
        if not await self._wait_idle(max(seconds, 0.0)):
            raise PlayerFault("TO", "the agent was still busy with the previous move")
        remaining = max(deadline - asyncio.get_running_loop().time(), 0.0)
        limit = Limit(time=allowance(remaining))
        out_of_the_collectors_sight()
        self._busy = in_daemon_thread(
            within_time_limit(remaining, lambda: self.agent.select(game, view, role, limit))
        )
        return await self._answer(remaining)

    async def _answer(self, seconds: float | None) -> Term:
        """The busy agent's move within ``seconds`` (None: however long); PlayerFault."""
        busy = self._busy
        assert busy is not None, "no call is running"
        try:
            move: Term = await asyncio.wait_for(asyncio.shield(busy), seconds)
            return move
        except TimeoutError:
            raise PlayerFault("TO", "the agent ran past its deadline") from None
        except Exception as e:
            raise PlayerFault("CE", f"the agent failed: {type(e).__name__}: {e}") from None

    async def _untimed(
        self, game: Game[Any], state: Hashable, role: str, legal: list[Term], fallback: Term
    ) -> Choice:
        await self._wait_idle(float("inf"))
        self._busy = in_daemon_thread(lambda: self.agent.select(game, state, role, Limit()))
        try:
            move = await asyncio.shield(self._busy)
        except Exception as e:
            return Choice(fallback, f"the agent failed: {type(e).__name__}: {e}", "CE")
        return self._checked(move, legal, fallback)

    @staticmethod
    def _checked(move: Term, legal: list[Term], fallback: Term) -> Choice:
        if move not in legal:
            return Choice(fallback, f"the agent chose an illegal move {move}", f"IL {move}", move)
        return Choice(move, chosen=move)

    async def stop(self, seconds: float = 1.0) -> None:
        """Tell the agent the match is over (after its last call, within ``seconds``)."""
        await self._wait_idle(seconds)
        with contextlib.suppress(Exception):  # a failing stop hook must not fail the match
            await asyncio.wait_for(in_daemon_thread(self.agent.stop), seconds)
