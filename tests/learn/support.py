"""Shared pieces of the learning tests: the extra's check, the public tic-tac-toe, a
tiny training run."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

import ggpkit
from ggpkit.games.api import Game

GAMES_DIR = Path(__file__).resolve().parents[3] / "shared" / "ggp-games"


def need_learn_extra() -> None:
    """Skip where the learn extra (JAX, Flax, Optax) is not installed."""
    for name in ("jax", "flax", "optax"):
        pytest.importorskip(name)


def public_path(name: str) -> Path:
    """A public game's file; skips where ../shared/ggp-games is absent."""
    path = GAMES_DIR / f"{name}.kif"
    if not path.is_file():
        pytest.skip("../shared/ggp-games is absent")
    return path


@functools.cache
def public_game(name: str) -> Game[Any]:
    """A public game, loaded once. The modules load theirs when imported, before any test
    runs JAX: the grounder forks, and a fork after JAX has started its threads may hang."""
    return ggpkit.load(str(public_path(name)))


def tictactoe() -> Game[Any]:
    return public_game("ticTacToe")


def tiny_settings(**changes: Any) -> Any:
    """Settings that learn tic-tac-toe in seconds: few simulations, many games together,
    a small network, frequent gates."""
    from ggpkit.learn.settings import TrainSettings

    base: dict[str, Any] = {
        "simulations": 16,
        "games_in_flight": 16,
        "temperature_moves": 4,
        "generation_games": 32,
        "gate_matches": 8,
        "train_steps": 24,
        "batch_size": 64,
        "learning_rate": 3e-3,
        "channels": 16,
        "blocks": 1,
        "hidden": 64,
        "seed": 3,
    }
    return TrainSettings(**(base | changes))
