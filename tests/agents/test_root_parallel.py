"""Root-parallel MCTS: worker searches in other processes, their root visits added up."""

from __future__ import annotations

import multiprocessing as mp
import random
import time
from collections.abc import Callable
from typing import Any

import pytest

import ggpkit
from ggpkit.agents.base import Limit
from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.agents.mcts.root_parallel import can_fork_workers, merged_choice
from ggpkit.agents.specs import make_agent, with_threads
from ggpkit.gdl.terms import func

from .corpus import GAMES_DIR as GAMES


def test_worker_searches_answer_and_end_with_the_match(
    live_children: Callable[[], set[int]],
) -> None:
    before = live_children()
    game = ggpkit.load("breakthrough-holes")
    agent = make_agent("mcts:threads=3", seed=1)
    assert isinstance(agent, MCTSAgent) and agent._workers is not None
    agent.start(game, "white")
    assert len(live_children() - before) == 2
    state = game.initial_state()
    move = agent.select(game, state, "white", Limit(time=0.3))
    assert move in game.legal_moves(state, "white")
    agent._workers.ask(state, "white", Limit(playouts=200))
    replies = agent._workers.collect(deadline=time.monotonic() + 30)
    assert len(replies) == 2
    legal = set(game.legal_moves(state, "white"))
    for reply in replies:
        assert set(reply.visits) == legal and sum(reply.visits.values()) >= 200
        assert reply.line == ()  # lines are a one-role game's
    agent.stop()
    assert live_children() == before


def test_in_a_puzzle_workers_send_their_best_lines_and_the_agent_keeps_the_best() -> None:
    """factoringGeorgeForman is solved at once (its latches settle it): a worker's line
    wins (to where the latches settle the goal); a line kept worse is replaced by it,
    a better one is not."""
    path = GAMES / "factoringGeorgeForman.kif"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    game = ggpkit.load(str(path))
    (role,) = game.roles
    agent = make_agent("mcts:threads=2", seed=1)
    assert isinstance(agent, MCTSAgent) and agent._workers is not None
    agent.start(game, role)
    state = game.initial_state()
    agent._workers.ask(state, role, Limit(time=0.5))
    (reply,) = agent._workers.collect(deadline=time.monotonic() + 30)
    assert reply.line_value == 1.0 and reply.line
    end = state
    for move in reply.line:
        end = game.next_state(end, [move])
    rng = random.Random(1)  # the line may stop where the latches settle the goal
    last = end
    while not game.is_terminal(last):
        last = game.next_state(last, [rng.choice(game.legal_moves(last, role))])
    assert game.goals(last)[role] == 100
    agent.best.keep(game, state, 0.5, reply.line[:1])
    assert agent.line_from(state) == (0.5, reply.line[:1])
    agent.best.keep(game, state, reply.line_value, reply.line)
    assert agent.line_from(state) == (1.0, reply.line)
    agent.best.keep(game, state, 0.7, reply.line[:2])
    assert agent.line_from(state) == (1.0, reply.line)
    assert agent.line_from(end) == (-1.0, ())
    agent.stop()


def test_the_merged_choice_adds_every_search_and_keeps_our_move_on_a_tie() -> None:
    a, b, c = func("m", "a"), func("m", "b"), func("m", "c")
    assert merged_choice({a: 10, b: 8}, [{a: 1, b: 9}, {b: 2}], a) == b  # 11 vs 19
    assert merged_choice({a: 5, b: 5}, [], a) == a
    assert merged_choice({}, [{c: 3}], a) == c
    assert merged_choice({}, [], a) == a


def test_threads_are_added_only_where_the_agent_takes_them() -> None:
    assert with_threads("mcts", 2) == "mcts:threads=2"
    assert with_threads("mcts:time=1", 2) == "mcts:time=1,threads=2"
    assert with_threads("mcts:threads=1", 4) == "mcts:threads=1"
    assert with_threads("random", 4) == "random"
    assert with_threads("mcts", 1) == "mcts"


def _in_daemon(queue: Any) -> None:
    queue.put(can_fork_workers())


def test_a_daemonic_worker_searches_alone() -> None:
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_in_daemon, args=(queue,), daemon=True)
    proc.start()
    assert queue.get(timeout=60) is False
    proc.join(timeout=30)
    assert can_fork_workers()


@pytest.mark.parametrize(("threads", "dfs", "share"), [(1, 0.5, 0.5), (2, 0.5, 1.0), (3, 0.2, 0.6)])
def test_the_solver_runs_in_one_process_with_the_searches_share(
    threads: int, dfs: float, share: float
) -> None:
    """The depth-first solver is deterministic: a worker's would repeat the main one's
    work, so workers search their trees only, and the main process gives the solver
    ``dfs`` of all the searches' time (all of its own with two threads at 0.5)."""
    agent = make_agent(f"mcts:threads={threads},dfs={dfs}", seed=1)
    assert isinstance(agent, MCTSAgent)
    assert agent._solver_share == pytest.approx(share)
    assert agent._worker(0).options.dfs == 0.0 and agent._worker(0)._solver_share == 0.0
