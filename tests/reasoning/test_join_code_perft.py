"""Perft of the join-code reasoner against the propnet and the interpreted prover.

The join code and the interpreted prover share their evaluation strategy (tabling,
planning, contexts); the propnet shares none of it (it grounds the rules into a
network). Equal move-sequence counts from the start and from a random mid-game state
of 20 small corpus games tie all three together.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from ggpkit.games.gdl.game import GdlGame, load_kif_file
from ggpkit.games.perft import perft


def _games_dir() -> Path:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"


# (game, perft depth): depths that keep each count in the thousands.
_SMALL = [
    ("ticTacToe", 4), ("connectFour", 3), ("breakthroughSmallHoles", 3), ("peg", 3),
    ("checkersBarrelNoKings", 3), ("blocks", 3), ("3pConnectFour", 2), ("pentago", 2),
    ("knightThrough", 2), ("sheepAndWolf", 3), ("nineBoardTicTacToe", 2), ("hanoi", 5),
    ("eightPuzzle", 6), ("numbertictactoe", 2), ("gt_prisoner", 2), ("smallest_4player", 2),
    ("chineseCheckers1", 3), ("connect5", 2), ("tictactoe_3d_small_2player", 2),
    ("beatMania", 2),
]  # fmt: skip


def _play(game: GdlGame, state: Any, joint: list[str]) -> Any:
    """The state after the joint move ``joint`` (moves by their text)."""
    by_text = [{str(m): m for m in moves} for moves in game.all_legal_moves(state)]
    return game.next_state(state, [by_text[i][text] for i, text in enumerate(joint)])


def _same_state(game: GdlGame, line: list[list[str]]) -> Any:
    state = game.initial_state()
    for joint in line:
        state = _play(game, state, joint)
    return state


def _random_line(game: GdlGame, plies: int, seed: str) -> list[list[str]]:
    rng = random.Random(seed)
    state, line = game.initial_state(), []
    while len(line) < plies and not game.is_terminal(state):
        joint = [rng.choice(sorted(map(str, moves))) for moves in game.all_legal_moves(state)]
        line.append(joint)
        state = _play(game, state, joint)
    return line


@pytest.mark.parametrize(("name", "depth"), _SMALL)
def test_join_code_perft_equals_the_propnet_and_the_prover(name: str, depth: int) -> None:
    path = _games_dir() / f"{name}.kif"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    games = {r: load_kif_file(path, reasoner=r) for r in ("joincode", "propnet", "prover")}
    assert games["propnet"].reasoner.name == "propnet"
    line = _random_line(games["prover"], 6, name)
    counts = {
        r: [perft(g, g.initial_state(), depth), perft(g, _same_state(g, line), depth)]
        for r, g in games.items()
    }
    assert counts["joincode"] == counts["propnet"] == counts["prover"]
    assert counts["joincode"][0] > 1
