"""Checkpoints: a run goes on from its last one, a crash while writing leaves the previous
one whole, and ``kill -9`` of ``ggpkit train`` loses at most the round in flight."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ggpkit.games.library import storage

from .support import need_learn_extra, public_path, tictactoe, tiny_settings

need_learn_extra()
tictactoe()  # loaded before JAX runs (see support.public_game)

import jax  # noqa: E402

from ggpkit.agents.learned.model_file import ModelError, load_model  # noqa: E402
from ggpkit.learn.checkpoint import load_checkpoint, state_path  # noqa: E402
from ggpkit.learn.trainer import Trainer  # noqa: E402

FAST = {"simulations": 4, "games_in_flight": 4, "train_steps": 4, "generation_games": 8}


def _same_params(a: Any, b: Any) -> bool:
    leaves = zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True)
    return all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in leaves)


def test_a_resumed_run_has_what_the_stopped_one_had_and_goes_on(tmp_path: Path) -> None:
    out = tmp_path / "m.model"
    first = Trainer(tictactoe(), out, tiny_settings(**FAST))
    first.run(rounds=3)
    second = Trainer(tictactoe(), out, resume=True)
    assert second.counters == first.counters
    assert second.counters.games == 12 and second.counters.history  # it gated at 8 games
    assert second.buffer.size == first.buffer.size > 0
    for name, rows in first.buffer.arrays.items():
        assert np.array_equal(
            second.buffer.arrays[name][: first.buffer.size], rows[: first.buffer.size]
        )
    assert _same_params(second.candidate, first.candidate)
    assert _same_params(second.best.params, first.best.params)
    assert _same_params(second.opt_state, first.opt_state)
    second.run(rounds=1)
    assert second.counters.games == 16
    assert load_model(out).generation == second.counters.generation


def test_a_crash_while_writing_leaves_the_last_checkpoint_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "m.model"
    trainer = Trainer(tictactoe(), out, tiny_settings(**FAST))
    trainer.run(rounds=1)
    before = out.read_bytes(), state_path(out).read_bytes()

    def crash(src: str, dst: str) -> None:
        raise OSError("the machine stopped")

    monkeypatch.setattr(storage.os, "replace", crash)
    with pytest.raises(OSError, match="stopped"):
        trainer.run(rounds=1)
    monkeypatch.undo()
    assert (out.read_bytes(), state_path(out).read_bytes()) == before
    names = ["m.model", "m.model.generations", "m.model.train"]
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    assert [p.name for p in (tmp_path / "m.model.generations").iterdir()] == ["0000.model"]
    assert Trainer(tictactoe(), out, resume=True).counters.games == 4


def test_resume_without_a_checkpoint_says_so(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no checkpoint"):
        Trainer(tictactoe(), tmp_path / "none.model", resume=True)


@pytest.mark.slow
@pytest.mark.parametrize("ray", [False, True], ids=["here", "on-ray"])
def test_kill_9_of_ggpkit_train_loses_at_most_the_round_in_flight(
    tmp_path: Path, ray: bool
) -> None:
    if ray:
        pytest.importorskip("ray")
    game = str(public_path("ticTacToe"))
    out = tmp_path / "k.model"
    command = [sys.executable, "-m", "ggpkit", "train", game, "--out", str(out), "--time", "300"]
    command += ["--simulations", "4", "--games-in-flight", "4", "--generation-games", "8"]
    command += ["--address", "local"] if ray else []
    child = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        games = _wait_for_games(out, 4, child)
    finally:  # the command and all it started (Ray's processes), as a machine that stops
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    kept = load_checkpoint(out).counters.games  # whole, whatever instant the kill came at
    assert kept >= games and kept % 4 == 0
    resumed = Trainer(tictactoe(), out, resume=True)
    resumed.run(rounds=1)
    assert resumed.counters.games == kept + 4
    assert load_model(out).fingerprint == resumed.best.fingerprint


def _wait_for_games(out: Path, games: int, child: subprocess.Popen[bytes]) -> int:
    """Poll the checkpoint (atomic: never read half written) until it has ``games``."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert child.poll() is None, "ggpkit train ended early"
        if state_path(out).exists():
            seen = load_checkpoint(out).counters.games
            if seen >= games:
                return seen
        time.sleep(0.2)
    raise AssertionError("ggpkit train wrote no checkpoint in 300 s")
