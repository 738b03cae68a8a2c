"""``api_test`` over every implementation of the game contract, and proof that it can fail.

Native games, their GDL twins on both reasoners, public corpus games (turn-taking,
simultaneous, one to four roles), scrambled rule sets and the toy games all pass
the same contract test; deliberately broken games are caught by it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agents.toy_games import Combination, Dilemma, Nim, Pennies, Race, TicTacToe
from match.support import TinyGame

import ggpkit
from ggpkit.games.api import Dynamics, Game, GameInfo, Utility
from ggpkit.games.gdl.game import load_kif_file, load_kif_text
from ggpkit.games.registry import load_kif, rules_path
from ggpkit.games.testing import ApiTestFailure, api_test
from ggpkit.gdl.terms import Term, func
from ggpkit.match.scramble import Scrambler


def games_dir() -> Path:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"


CORPUS = [
    "ticTacToe", "connectFour", "gt_prisoner", "gt_chicken", "gt_staghunt", "roshambo2",
    "tictactoe_3player", "3pffa", "4pffa", "smallest_4player", "nim1", "hanoi",
    "eightPuzzle", "chomp", "connectFourSimultaneous", "buttons", "coins", "sum15",
    "knightmove", "pentago", "dotsAndBoxes", "breakthroughSmallHoles", "peg", "lightsOut",
    "3pConnectFour", "checkersTiny", "gt_ultimatum", "2pffa_zerosum",
]  # fmt: skip
"""Small public games of every kind: turn-taking and simultaneous, one to four roles."""

PROVER_CORPUS = ["ticTacToe", "gt_prisoner", "tictactoe_3player", "smallest_4player", "nim1"]


def _corpus_file(name: str) -> Path:
    path = games_dir() / f"{name}.kif"
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


@pytest.mark.parametrize("name", sorted(ggpkit.games()))
def test_native_games(name: str) -> None:
    report = api_test(ggpkit.load(name))
    assert report.finished == report.matches == 3
    assert report.wrong_answers == 0 and report.thread_checks > 0


@pytest.mark.parametrize("name", sorted(ggpkit.games()))
def test_gdl_twins_on_the_propnet(name: str) -> None:
    game = ggpkit.load(name, engine="gdl")
    assert game.info.reasoner == "propnet"
    assert api_test(game).finished == 3


@pytest.mark.parametrize("name", sorted(ggpkit.games()))
def test_gdl_twins_on_the_prover(name: str) -> None:
    game = load_kif_file(rules_path(name), reasoner="prover")
    assert game.info.reasoner == "prover"
    assert api_test(game, matches=1, rounds=1).finished == 1


@pytest.mark.parametrize("name", CORPUS)
def test_corpus_games(name: str) -> None:
    game = load_kif_file(_corpus_file(name))
    report = api_test(game, matches=2, max_steps=150, rounds=1, time_budget=10)
    assert report.states > 1


@pytest.mark.parametrize("name", PROVER_CORPUS)
def test_corpus_games_on_the_prover(name: str) -> None:
    game = load_kif_file(_corpus_file(name), reasoner="prover")
    api_test(game, matches=1, max_steps=60, rounds=1, time_budget=10)


def test_the_corpus_list_has_every_kind() -> None:
    kinds = set()
    for name in CORPUS:
        path = games_dir() / f"{name}.kif"
        if path.exists():
            game = load_kif_file(path)
            kinds.add((len(game.roles), game.info.dynamics))
    if not kinds:
        pytest.skip("the public games are not available")
    assert len(CORPUS) >= 20
    assert {1, 2, 3, 4} <= {n for n, _ in kinds}
    assert (2, Dynamics.SIMULTANEOUS) in kinds and (2, Dynamics.TURN_TAKING) in kinds


@pytest.mark.parametrize("name", ["pawn-checkers", "breakthrough-holes-capture", "peg"])
@pytest.mark.parametrize("reasoner", ["propnet", "prover", "joincode"])
def test_scrambled_rule_sets(name: str, reasoner: str) -> None:
    text = rules_path(name).read_text(encoding="utf-8")
    scrambled = Scrambler(text, seed=3).rules
    game = load_kif_text(scrambled, f"scrambled-{name}", reasoner=reasoner)
    api_test(game, matches=1 if reasoner in ("prover", "joincode") else 2, rounds=1)


@pytest.mark.parametrize(
    "game",
    [Nim(), Nim(7, 3), TicTacToe(), Combination(), Pennies(), Dilemma(), Race(), TinyGame()],
    ids=lambda g: g.name,
)
def test_toy_games(game: Game[Any]) -> None:
    api_test(game, facts_round_trip=False)


# ---- api_test catches broken games ---------------------------------------------------------


class SharedScratchNim(Nim):
    """Keeps the state being answered on the object, as the old propnet did."""

    def __init__(self) -> None:
        super().__init__()
        self._current: tuple[int, int] = (0, 0)

    def _legal(self, state: tuple[int, int], role_index: int) -> list[Term]:
        self._current = state
        time.sleep(0)  # let another thread overwrite the scratch
        for _ in range(200):
            pass
        return super()._legal(self._current, role_index)


def test_shared_scratch_fails_the_thread_check() -> None:
    with pytest.raises(ApiTestFailure, match="differ from the serial run"):
        api_test(SharedScratchNim(), facts_round_trip=False, rounds=20)


def test_a_simultaneous_game_declared_turn_taking_fails() -> None:
    game = Pennies()
    game.info = GameInfo(Dynamics.TURN_TAKING, Utility.ZERO_SUM)
    with pytest.raises(ApiTestFailure, match="declared turn-taking"):
        api_test(game, facts_round_trip=False)


def test_a_general_sum_game_declared_zero_sum_fails() -> None:
    game = Dilemma()
    game.info = GameInfo(Dynamics.SIMULTANEOUS, Utility.ZERO_SUM)
    with pytest.raises(ApiTestFailure, match="declared zero-sum"):
        api_test(game, facts_round_trip=False)


def test_a_goal_outside_the_declared_range_fails() -> None:
    game = Nim()
    game.info = GameInfo(Dynamics.TURN_TAKING, Utility.ZERO_SUM, goal_range=(0, 50))
    with pytest.raises(ApiTestFailure, match=r"outside 0\.\.50"):
        api_test(game, facts_round_trip=False)


def test_a_too_short_declared_length_fails() -> None:
    game = Nim(10)
    game.info = GameInfo(Dynamics.TURN_TAKING, Utility.ZERO_SUM, max_length=2)
    with pytest.raises(ApiTestFailure, match="declared at most 2"):
        api_test(game, facts_round_trip=False)


@dataclass
class _MutableState:
    left: int
    mover: int

    def __hash__(self) -> int:
        return hash((self.left, self.mover))


class MutableNim(Nim):
    """States that can be changed after the fact."""

    def initial_state(self) -> Any:
        return _MutableState(self.tokens, 0)

    def _legal(self, state: Any, role_index: int) -> list[Term]:
        return super()._legal((state.left, state.mover), role_index)

    def _next(self, state: Any, moves: Sequence[Term]) -> Any:
        return _MutableState(*super()._next((state.left, state.mover), moves))

    def is_terminal(self, state: Any) -> bool:
        return bool(state.left == 0)

    def goals(self, state: Any) -> dict[str, int]:
        return super().goals((state.left, state.mover))

    def facts(self, state: Any) -> frozenset[Term]:
        return frozenset({func("tokens", state.left)})


def test_mutable_states_fail() -> None:
    with pytest.raises(ApiTestFailure, match="immutable"):
        api_test(MutableNim(), facts_round_trip=False)


def test_a_game_that_cannot_rebuild_states_fails_the_round_trip() -> None:
    with pytest.raises(ggpkit.GameError, match="cannot build a state from facts"):
        api_test(Nim())


@pytest.mark.parametrize("name", sorted(ggpkit.games()))
def test_native_engines_under_scrambled_names(name: str) -> None:
    """The player's renamed native engine (for scrambled rules) keeps the contract too."""
    from ggpkit.games.recognition.recognise import recognise
    from ggpkit.games.recognition.renamed import RenamedGame

    scrambled = Scrambler(rules_path(name).read_text(encoding="utf-8"), seed=5).rules
    game = recognise(load_kif(scrambled), seconds=60.0)  # what, not how fast
    assert isinstance(game, RenamedGame)
    api_test(game, rounds=1)
    assert game.info.capabilities.notation is None and game.info.capabilities.solver is None
