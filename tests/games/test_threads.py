"""Thread stress: threads sharing one game object get the answers of a serial run.

The measurement of issue 9 as a test: states and answers come from a serial run;
then 4 threads share the game and ask again (legal moves of every role, terminal,
goals, the next state of the serial run's joint move) in random orders, thousands
of times. On the first release this found hundreds of wrong answers on GDL games;
every kind of game must give none.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest

import ggpkit
from ggpkit.games.api import Game
from ggpkit.games.gdl.game import load_kif_file
from ggpkit.games.registry import rules_path

from .test_api_test import games_dir

CHECKS_PER_THREAD = 1500
THREADS = 4

Answer = tuple[Any, ...]


def _serial_run(game: Game[Any], seed: int, states: int) -> list[tuple[Hashable, Answer]]:
    """States of random matches with every answer the game gives there."""
    rng = random.Random(seed)
    out: list[tuple[Hashable, Answer]] = []
    state = game.initial_state()
    while len(out) < states:
        if game.is_terminal(state):
            out.append((state, _answers(game, state, None)))
            state = game.initial_state()
            continue
        joint = [rng.choice(game.legal_moves(state, r)) for r in game.roles]
        out.append((state, _answers(game, state, joint)))
        state = game.next_state(state, joint)
    return out


def _answers(game: Game[Any], state: Hashable, joint: list[Any] | None) -> Answer:
    legal = tuple(tuple(game.legal_moves(state, r)) for r in game.roles)
    if joint is None:
        return (True, legal, tuple(game.goals(state).items()), None)
    return (False, legal, None, (tuple(joint), game.next_state(state, joint)))


def _ask(game: Game[Any], state: Hashable, expected: Answer) -> Answer:
    joint = None if expected[3] is None else list(expected[3][0])
    return (
        game.is_terminal(state),
        tuple(tuple(game.legal_moves(state, r)) for r in game.roles),
        tuple(game.goals(state).items()) if expected[2] is not None else None,
        None if joint is None else (tuple(joint), game.next_state(state, joint)),
    )


def wrong_answers(game: Game[Any], states: int = 120) -> int:
    """Answers that differ from the serial run (exceptions count) over all threads."""
    serial = _serial_run(game, 1, states)
    wrong = [0] * THREADS
    barrier = threading.Barrier(THREADS)

    def worker(index: int) -> None:
        rng = random.Random(index)
        barrier.wait()
        for _ in range(CHECKS_PER_THREAD):
            state, expected = serial[rng.randrange(len(serial))]
            try:
                if _ask(game, state, expected) != expected:
                    wrong[index] += 1
            except Exception:
                wrong[index] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(wrong)


def _corpus(name: str, reasoner: str) -> Game[Any]:
    path: Path = games_dir() / f"{name}.kif"
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return load_kif_file(path, reasoner=reasoner)


@pytest.mark.parametrize("name", sorted(ggpkit.games()))
def test_native_games_under_threads(name: str) -> None:
    assert wrong_answers(ggpkit.load(name)) == 0


@pytest.mark.parametrize("reasoner", ["propnet", "prover", "joincode"])
def test_breakthrough_gdl_twin_under_threads(reasoner: str) -> None:
    game = load_kif_file(rules_path("breakthrough-holes"), reasoner=reasoner)
    assert wrong_answers(game) == 0


@pytest.mark.parametrize("reasoner", ["propnet", "prover", "joincode"])
@pytest.mark.parametrize("name", ["connectFour", "gt_prisoner", "smallest_4player"])
def test_corpus_games_under_threads(name: str, reasoner: str) -> None:
    game = _corpus(name, reasoner)
    assert wrong_answers(game) == 0


def test_compiled_playouts_under_threads() -> None:
    """Batches of compiled playouts in several threads give the serial totals."""
    for game in (ggpkit.load("pawn-checkers"), ggpkit.load("pawn-checkers", engine="gdl")):
        state = game.initial_state()
        serial = [game.playout_stats(state, 70, seed) for seed in range(8)]
        results: list[Any] = [None] * 8

        def run(
            seed: int, game: Game[Any] = game, state: Hashable = state, out: list[Any] = results
        ) -> None:
            out[seed] = game.playout_stats(state, 70, seed)

        threads = [threading.Thread(target=run, args=(s,)) for s in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == serial
