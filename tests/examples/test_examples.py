"""Each example in ``examples/`` runs briefly, as a user would start it, and does its job."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("sklearn")

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT.parent / "shared" / "ggp-games"


def _run(script: str, *args: str) -> str:
    cmd = [sys.executable, str(ROOT / "examples" / script), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.skipif(not GAMES.is_dir(), reason="needs the public games (../shared/ggp-games)")
def test_pettingzoo_random_loop_finishes_zero_sum_matches() -> None:
    out = _run("pettingzoo_random.py", str(GAMES / "ticTacToe.kif"), "--games", "2")
    games = re.findall(r"game \d+: xplayer=([-+.\d]+) oplayer=([-+.\d]+)", out)
    assert len(games) == 2
    assert all(float(x) + float(o) == 0 and float(x) in (-1, 0, 1) for x, o in games)


@pytest.mark.parametrize("game", ["breakthrough-holes", "ticTacToe.kif"])
def test_openspiel_mcts_bot_beats_random(game: str) -> None:
    if game.endswith(".kif"):
        if not GAMES.is_dir():
            pytest.skip("needs the public games (../shared/ggp-games)")
        game = str(GAMES / game)
    out = _run("openspiel_mcts.py", "--game", game, "--simulations", "40", "--games", "2")
    mean = re.search(r"MCTS mean return against random: ([-+.\d]+)", out)
    assert mean is not None and float(mean.group(1)) > 0, out


def test_selfplay_training_learns_to_beat_random() -> None:
    args = ["--random-matches", "1000", "--generations", "1", "--matches", "10"]
    args += ["--evaluation", "20", "--seed", "0"]
    out = _run("selfplay_training.py", *args)
    mean = re.search(r"mean reward ([-+.\d]+) over 20 matches", out)
    assert mean is not None and float(mean.group(1)) > 0.2, out
