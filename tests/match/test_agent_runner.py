"""The agent runner under hostile rules: every rules query it starts ends, in time."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest

from ggpkit.agents.base import Limit, start_seconds_left
from ggpkit.agents.random_agent import RandomAgent
from ggpkit.games.api import GameError
from ggpkit.games.gdl.game import load_kif_text
from ggpkit.gdl.terms import Term
from ggpkit.match import agent_runner
from ggpkit.match.agent_runner import AgentRunner
from match.support import FirstAgent, PonderingAgent, RecordingAgent, TinyGame

pytestmark = pytest.mark.anyio

NEVER_ENDING = (
    "(role p) (init (x 0))"
    + " ".join(f"(n {i})" for i in range(40))
    + "(<= (big ?a ?b ?c ?d ?e ?f ?g) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e) (n ?f) (n ?g))"
    "(<= (legal p (go ?a)) (big ?a ?b ?c ?d ?e ?f ?g)) (<= (next (x ?a)) (does p (go ?a)))"
    "(<= terminal (true (x 1))) (<= (goal p 0) (true (x ?a)))"
)
"""Legal moves that need 160 billion rule instances: the query never ends by itself."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_legal_moves_that_never_end_are_stopped_after_the_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(agent_runner, "LATE_GRACE_SECONDS", 0.2)
    game = load_kif_text(NEVER_ENDING, "never.kif", reasoner="prover")
    runner = AgentRunner(RandomAgent())
    with pytest.raises(GameError, match="longer than"):
        # Without a limit on the query this would wait for ever (here: 60 s, then fail).
        await asyncio.wait_for(runner.select(game, game.initial_state(), "p", 0.2), 60)


@pytest.mark.parametrize(
    ("agent", "ponder", "asked"),
    [(RecordingAgent, True, False), (PonderingAgent, False, False), (PonderingAgent, True, True)],
)
async def test_a_forced_move_is_answered_at_once_unless_the_agent_ponders(
    agent: type[RecordingAgent], ponder: bool, asked: bool
) -> None:
    game = TinyGame()
    state = game.next_state(game.initial_state(), ["(add 1)", "noop"])
    assert len(game.legal_moves(state, "white")) == 1  # black's turn
    player = agent()
    choice = await AgentRunner(player).select(game, state, "white", 0.5, ponder=ponder)
    assert (str(choice.move), choice.code) == ("noop", "")
    assert [s for s, _ in player.asked] == ([state] if asked else [])
    assert all(t is not None and 0 < t < 0.5 for _, t in player.asked)


def test_an_abandoned_call_that_fails_later_is_not_logged_as_never_retrieved(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A metagame past its clock is abandoned; when it fails afterwards, asyncio must
    not log "Future exception was never retrieved" (the sweep's player log filled with
    them), and a caller that still awaits the call gets its error."""

    def fails() -> None:
        raise RuntimeError("failed after its caller gave up")

    async def run() -> None:
        abandoned = agent_runner.in_daemon_thread(fails)
        while not abandoned.done():
            await asyncio.sleep(0.01)
        del abandoned
        awaited = agent_runner.in_daemon_thread(fails)
        with pytest.raises(RuntimeError, match="gave up"):
            await awaited

    with caplog.at_level("ERROR", logger="asyncio"):
        asyncio.run(run())
        gc.collect()
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]


class _HeapWatchingAgent(RandomAgent):
    """Notes how many objects the collector was told to leave alone at each call."""

    def __init__(self) -> None:
        super().__init__(seed=1)
        self.frozen: list[tuple[str, int]] = []

    def start(self, game: Any, role: str) -> None:
        self.frozen.append(("start", gc.get_freeze_count()))

    def select(self, game: Any, state: Any, role: str, limit: Limit) -> Term:
        self.frozen.append(("select", gc.get_freeze_count()))
        return super().select(game, state, role, limit)


async def test_a_timed_move_searches_with_the_heap_out_of_the_collectors_sight() -> None:
    """A full collection during a move scans what the move made, not the reasoner's
    caches (a second on small Dominion); metagaming is not a timed move."""
    game = TinyGame()
    agent = _HeapWatchingAgent()
    runner = AgentRunner(agent)
    try:
        gc.unfreeze()
        assert await runner.start(game, "white", 5.0) is None
        choice = await runner.select(game, game.initial_state(), "white", 2.0)
        assert choice.code == ""
    finally:
        gc.unfreeze()
    (started, at_start), (selected, at_select) = agent.frozen
    assert (started, at_start) == ("start", 0)
    assert selected == "select" and at_select > 1000


class StartClockReader(FirstAgent):
    """Records what its start was told it had left of the start clock."""

    def __init__(self) -> None:
        super().__init__()
        self.left: list[float | None] = []

    def start(self, game: Any, role: str) -> None:
        self.left.append(start_seconds_left())


async def test_metagaming_is_told_how_long_the_start_clock_leaves_it() -> None:
    agent = StartClockReader()
    runner = AgentRunner(agent)
    assert await runner.start(TinyGame(), "white", 3.0) is None
    left = agent.left[0]
    assert left is not None and 0.0 < left <= 3.0
    assert start_seconds_left() is None  # the clock was the agent thread's alone
