"""Training on tic-tac-toe for a few seconds: the learned network alone (one simulation a
move, so no search helps it) then beats a random player by far, from both seats, where
the untrained network does not; the model is an ``az`` agent everywhere specs are read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ggpkit.agents.base import AgentError, Limit
from ggpkit.agents.specs import SpecError, make_agent, parse_spec
from ggpkit.match.arena import run_arena

from .support import need_learn_extra, public_game, tictactoe, tiny_settings

need_learn_extra()
tictactoe(), public_game("connectFour")  # loaded before JAX runs (see support.public_game)

from ggpkit.agents.learned.model_file import ModelError  # noqa: E402
from ggpkit.learn.trainer import Trainer, TrainError  # noqa: E402

ROUNDS = 16
"""Rounds of 16 games: 256 self-play games, about 10 s of CPU."""


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the untrained model, the model after ROUNDS rounds) of one run."""
    folder = tmp_path_factory.mktemp("az")
    model = folder / "ttt.model"
    trainer = Trainer(tictactoe(), model, tiny_settings())
    untrained = folder / "untrained.model"
    shutil.copy(model, untrained)
    trainer.run(rounds=ROUNDS)
    assert trainer.counters.games == ROUNDS * 16
    return untrained, model


def _score_against_random(model: Path) -> float:
    """The network's mean goal against random, 40 matches, roles alternated."""
    specs = [f"az:model={model},playouts=1", "random"]
    result = run_arena(tictactoe(), specs, 40, seed=5, jobs=1)
    assert result.stats[0].matches == 40
    return result.stats[0].mean_goal


def test_the_learned_network_beats_random_by_far_and_the_untrained_one_does_not(
    trained: tuple[Path, Path],
) -> None:
    untrained, model = trained
    learned = _score_against_random(model)
    assert learned >= 80  # random against random scores 50 (seats alternated)
    assert _score_against_random(untrained) < learned


def test_the_model_is_an_agent_spec_that_plays_legal_moves(trained: tuple[Path, Path]) -> None:
    _, model = trained
    game = tictactoe()
    agent = make_agent(f"az:model={model},playouts=8", seed=1)
    assert agent.name == f"az:model={model},playouts=8"
    agent.start(game, "xplayer")
    state = game.initial_state()
    move = agent.select(game, state, "xplayer", Limit())
    assert move in game.legal_moves(state, "xplayer")
    thoughts = agent.thoughts("xplayer")
    assert thoughts is not None and thoughts.moves[0][0] == move


def test_a_model_is_refused_on_another_game_and_a_missing_one_says_so(
    trained: tuple[Path, Path], tmp_path: Path
) -> None:
    _, model = trained
    other = public_game("connectFour")
    with pytest.raises(ModelError, match="trained on"):
        make_agent(f"az:model={model}").start(other, other.roles[0])
    with pytest.raises(ModelError, match="cannot read"):
        make_agent(f"az:model={tmp_path / 'none.model'}").start(other, other.roles[0])
    with pytest.raises(AgentError, match="needs a model"):
        make_agent("az").start(other, other.roles[0])
    with pytest.raises(SpecError, match="must name a file"):
        parse_spec("az:model=")


def test_a_new_run_refuses_to_overwrite_a_model(trained: tuple[Path, Path]) -> None:
    _, model = trained
    with pytest.raises(TrainError, match="--resume"):
        Trainer(tictactoe(), model, tiny_settings())


def test_the_hybrid_spec_plays_the_model_s_game_and_refuses_another(
    trained: tuple[Path, Path],
) -> None:
    _, model = trained
    game = tictactoe()
    agent = make_agent(f"hybrid:model={model},playouts=300,weight=0.5", seed=2)
    agent.start(game, "xplayer")
    state = game.initial_state()
    assert agent.select(game, state, "xplayer", Limit()) in game.legal_moves(state, "xplayer")
    assert agent.thoughts("xplayer") is not None
    other = public_game("connectFour")
    with pytest.raises(ModelError, match="trained on"):
        make_agent(f"hybrid:model={model}").start(other, other.roles[0])
    with pytest.raises(AgentError, match="needs a model"):
        make_agent("hybrid").start(other, other.roles[0])
