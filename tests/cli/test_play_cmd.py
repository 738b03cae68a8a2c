"""``ggpkit play``: whole games typed through typer's CliRunner, and the generic match loop."""

from __future__ import annotations

import io
import re

import pytest
from agents.toy_games import Race  # tests/ is the import root (no tests/__init__.py)
from rich.console import Console
from typer.testing import CliRunner

from ggpkit.agents.human import HumanAgent
from ggpkit.agents.random_agent import RandomAgent
from ggpkit.cli import _load_commands, app
from ggpkit.cli.play_cmd import play_match
from ggpkit.games.peg.game import PegGame
from ggpkit.games.registry import rules_path

_load_commands()
RUNNER = CliRunner()
PEG = PegGame()


def first_move_game() -> tuple[int, int]:
    """Jumps and final goal of the peg game that always takes the first listed move."""
    state, jumps = PEG.initial_state(), 0
    while not PEG.is_terminal(state):
        state = PEG.play(state, PEG.legal_moves(state, "jumper")[0])
        jumps += 1
    return jumps, PEG.goals(state)["jumper"]


def test_a_whole_peg_game_typed_by_numbers() -> None:
    jumps, goal = first_move_game()
    result = RUNNER.invoke(app, ["play", "peg"], input="1\n" * 40)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "you play jumper against nobody" in out
    assert out.count("jumper (you) plays (jump") == jumps
    assert f"Game over after {jumps} moves" in out
    assert re.search(rf"jumper \(you\)\s*│\s*{goal}\s*│", out)
    assert "pegs: 32" in out and f"pegs: {32 - jumps}" in out


def test_a_peg_game_in_mixed_notations_then_quit() -> None:
    typed = ["b4-d4", "(jump e c4 c c4)", "b4-d5", "0", "quit"]
    result = RUNNER.invoke(app, ["play", "peg", "--seed", "3"], input="\n".join(typed) + "\n")
    assert result.exit_code == 0, result.output
    # Typed input is not echoed, so each answer follows its "jumper> " prompt on one line.
    lines = result.output.splitlines()
    wanted = [
        "jumper> jumper (you) plays (jump b c4 d c4)",
        "jumper> jumper (you) plays (jump e c4 c c4)",
        "jumper> illegal move (jump b c4 d c5) for jumper: b c4 and d c5 are not two holes "
        "apart in a row or column",
        "jumper> illegal move 0 for jumper: there is no move number 0; choose 1..",
        "jumper> You left the game.",
    ]
    for want in wanted:
        assert any(line.startswith(want) for line in lines), want
    assert "Traceback" not in result.output


def test_end_of_input_leaves_the_game_cleanly() -> None:
    result = RUNNER.invoke(app, ["play", "peg"], input="")
    assert result.exit_code == 0
    assert "You left the game." in result.output


def test_user_errors_are_one_line() -> None:
    unknown = RUNNER.invoke(app, ["play", "no-such-game"])
    assert "unknown game 'no-such-game'" in str(unknown.exception)
    bad_role = RUNNER.invoke(app, ["play", "peg", "--as", "robot"])
    assert "unknown role 'robot'; the roles are jumper" in str(bad_role.exception)
    missing = RUNNER.invoke(app, ["play", "nowhere/none.kif"])
    assert isinstance(missing.exception, FileNotFoundError)  # main() prints path: no such file
    assert missing.exception.filename == "nowhere/none.kif"
    bad_agent = RUNNER.invoke(app, ["play", "breakthrough-holes", "--opponent", "wizard"])
    assert bad_agent.exit_code == 2
    assert "unknown agent 'wizard'" in bad_agent.output


def test_match_loop_is_generic_and_asks_only_on_real_turns() -> None:
    game = Race()
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, highlight=False)
    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return "1"

    person = HumanAgent(input_fn=answer, console=console, show_board=False)
    final, steps = play_match(game, "second", person, {"first": RandomAgent(0)}, console)
    assert game.is_terminal(final)
    assert prompts == ["second> "] * (steps // 2)  # asked only on second's turns
    text = out.getvalue()
    assert text.count("second (you) plays (add 1)") == steps // 2
    assert text.count("first plays (add") == (steps + 1) // 2
    assert "noop" not in text.replace("(noop)", "")
    assert "first to move" in text


def test_a_two_role_registered_game_played_as_the_second_role() -> None:
    """Any registered game plays through the same command; here black against random white."""
    args = ["play", "breakthrough-holes", "--as", "black", "--seed", "1"]
    result = RUNNER.invoke(app, args, input="1\n" * 200)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "you play black against white (random)" in out
    assert out.index("white plays (move") < out.index("black (you) plays (move")
    assert "Game over after" in out
    goals = re.findall(r"│ (white|black \(you\))\s*│\s*(\d+) │", out)
    assert [g[0] for g in goals] == ["white", "black (you)"]
    assert sorted(int(g[1]) for g in goals) == [0, 100]


def test_a_kif_file_plays_on_the_gdl_engine() -> None:
    pytest.importorskip("ggpkit.games.gdl.game")
    result = RUNNER.invoke(app, ["play", str(rules_path("peg"))], input="1\n" * 40)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "(hole d c4 empty)" in out  # the generic picture: the state's facts
    # Replay the moves it reports on the native engine: same end, same goal.
    played = re.findall(r"jumper \(you\) plays (\(jump [^)]*\))", out)
    state = PEG.initial_state()
    for move in played:
        state = PEG.play(state, move)
    assert played and PEG.is_terminal(state)
    assert f"Game over after {len(played)} moves." in out
    assert re.search(rf"jumper \(you\)\s*│\s*{PEG.goals(state)['jumper']}\s*│", out)
