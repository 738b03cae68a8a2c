"""The player-skill suite: sound positions, a sample solved again, scores that separate agents."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from ggpkit.games.api import Game
from ggpkit.tools.skilltest import (
    Position,
    answer,
    check_position,
    load_positions,
    open_game,
    reach,
    rules_digest,
)

POSITIONS = load_positions()
# The public games the positions were made on: an explicit folder, never the library
# (which holds whatever this machine's user fetched).
FOLDER = Path(
    os.environ.get("GGPKIT_GAMES_DIR")
    or Path(__file__).resolve().parents[3] / "shared" / "ggp-games"
)
needs_games = pytest.mark.skipif(not FOLDER.is_dir(), reason=f"no public games at {FOLDER}")


@cache
def games() -> dict[str, Game[Any]]:
    loaded = {}
    for position in POSITIONS:
        if position.game not in loaded:
            game = open_game(position, FOLDER)
            assert game is not None, f"{position.game} is missing or changed in {FOLDER}"
            loaded[position.game] = game
    return loaded


def test_at_least_50_distinct_positions_of_several_games() -> None:
    assert len(POSITIONS) >= 50
    assert len({p.id for p in POSITIONS}) == len(POSITIONS)
    assert len({(p.game, p.moves) for p in POSITIONS}) == len(POSITIONS)
    assert len({p.game for p in POSITIONS}) >= 4


@needs_games
def test_every_position_is_a_real_choice_with_some_bad_moves() -> None:
    loaded = games()
    for position in POSITIONS:
        game = loaded[position.game]
        state = reach(game, position.moves)  # every recorded move is legal on the way
        assert not game.is_terminal(state), position.id
        choosers = [r for r in game.roles if len(game.legal_moves(state, r)) > 1]
        assert choosers == [position.role], position.id
        legal = {str(m) for m in game.legal_moves(state, position.role)}
        assert position.good and position.good < legal, position.id


@needs_games
@pytest.mark.parametrize("index", range(0, len(POSITIONS), 7))
def test_a_sample_solves_to_the_same_good_moves_again(index: int) -> None:
    position = POSITIONS[index]
    check_position(position, games()[position.game])


@needs_games
def test_the_solver_agent_plays_only_good_moves_and_random_does_not() -> None:
    loaded = games()
    sample = POSITIONS[::3]
    solver = [answer(p, loaded[p.game], "solver", 5.0, 0) for p in sample]
    assert all(a.good for a in solver), [a.position.id for a in solver if not a.good]
    randoms = [answer(p, loaded[p.game], "random", 1.0, seed) for p in sample for seed in (1, 2)]
    assert sum(a.good for a in randoms) < 0.8 * len(randoms)


@needs_games
def test_the_command_scores_and_reports_per_game() -> None:
    command = ["skilltest", "random", "--time", "0.05", "--json", "--games-dir", str(FOLDER)]
    result = subprocess.run(
        [sys.executable, "-m", "ggpkit", *command],
        capture_output=True,
        text=True,
        check=True,
    )
    doc = json.loads(result.stdout)
    assert doc["positions"] == len(POSITIONS) and doc["skipped"] == 0
    assert doc["good"] == sum(a["good"] for a in doc["answers"])
    assert doc["score"] == pytest.approx(doc["good"] / doc["positions"])
    assert sum(g["positions"] for g in doc["games"]) == len(POSITIONS)


def test_a_missing_games_folder_is_said(tmp_path: Any) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ggpkit", "skilltest", "random", "--games-dir", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "no position could be played" in result.stderr


def test_the_rules_digest_ignores_how_lines_end() -> None:
    written = b"(role a)\r\n(init (n 0))"  # as a file may be written
    served = b"(role a)\n(init (n 0))\n"  # as a repository server sends it
    assert rules_digest(written) == rules_digest(served) != rules_digest(b"(role b)\n")


def test_a_public_game_is_found_in_the_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = (
        "(role a)\n(init (n 0))\n(<= (legal a go) (true (n 0)))\n(<= (next (n 1)) (does a go))\n"
    )
    rules += "(<= terminal (true (n 1)))\n(goal a 100)\n"
    (tmp_path / "tiny.kif").write_text(rules)
    monkeypatch.setenv("GGPKIT_GAMES_DIR", str(tmp_path))
    position = Position(
        "tiny-1", "tiny.kif", rules_digest(rules.encode()), (), "a", frozenset(), 100
    )
    game = open_game(position)
    assert game is not None and game.name == "tiny"
    changed = Position("tiny-2", "tiny.kif", rules_digest(b"other"), (), "a", frozenset(), 100)
    assert open_game(changed) is None
    assert open_game(Position("x", "absent.kif", "", (), "a", frozenset(), 0)) is None


def _minimax(game: Game[Any], state: Any, memo: dict[Any, dict[str, int]]) -> dict[str, int]:
    """Every role's goal under perfect play: plain recursion over the rules, written here apart
    from ggpkit's solvers (the mover maximises its own goal; these games are zero-sum)."""
    key = game.facts(state)
    if key not in memo:
        if game.is_terminal(state):
            memo[key] = dict(game.goals(state))
        else:
            legal = {r: game.legal_moves(state, r) for r in game.roles}
            mover = next((r for r in game.roles if len(legal[r]) > 1), game.roles[0])
            children = [
                _minimax(
                    game,
                    game.next_state(state, [m if r == mover else legal[r][0] for r in game.roles]),
                    memo,
                )
                for m in legal[mover]
            ]
            memo[key] = max(children, key=lambda goals: goals[mover])
    return memo[key]


@needs_games
def test_the_good_moves_agree_with_an_independent_minimax() -> None:
    loaded = games()
    memos: dict[str, dict[Any, dict[str, int]]] = {}
    for position in POSITIONS:
        game, memo = loaded[position.game], memos.setdefault(position.game, {})
        state = reach(game, position.moves)
        values = {}
        for move in game.legal_moves(state, position.role):
            joint = [
                move if r == position.role else game.legal_moves(state, r)[0] for r in game.roles
            ]
            values[str(move)] = _minimax(game, game.next_state(state, joint), memo)[position.role]
        best = max(values.values())
        assert best == position.value, position.id
        assert {m for m, v in values.items() if v == best} == position.good, position.id
