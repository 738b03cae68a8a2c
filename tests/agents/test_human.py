"""The human agent (typed input is injected) and the random agent."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from ggpkit.agents.base import Limit, QuitGame
from ggpkit.agents.human import HumanAgent
from ggpkit.agents.random_agent import RandomAgent
from ggpkit.agents.specs import make_agent
from ggpkit.games.peg.game import PegGame
from ggpkit.gdl.kif import parse_term
from ggpkit.gdl.terms import func

from .toy_games import Race

PEG = PegGame()
START = PEG.initial_state()


def typed(lines: Iterable[str]) -> Callable[[str], str]:
    """An input function that answers each prompt with the next line, then EOF."""
    it = iter(lines)

    def answer(prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return answer


def human(lines: Iterable[str]) -> tuple[HumanAgent, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, highlight=False)
    return HumanAgent(input_fn=typed(lines), console=console), out


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("1", "(jump b c4 d c4)"),
        ("4", "(jump f c4 d c4)"),
        ("(jump d c2 d c4)", "(jump d c2 d c4)"),
        ("( jump  d c6 d c4 )", "(jump d c6 d c4)"),
        ("jump f c4 d c4", "(jump f c4 d c4)"),
        ("b4-d4", "(jump b c4 d c4)"),
        ("D6-d4", "(jump d c6 d c4)"),
    ],
)
def test_every_input_form_gives_the_move(text: str, move: str) -> None:
    agent, out = human([text])
    assert agent.select(PEG, START, "jumper", Limit()) == parse_term(move)
    shown = out.getvalue()
    assert "pegs: 32" in shown  # the board
    assert "1. (jump b c4 d c4)  b4-d4" in shown  # numbered moves with short forms


def test_illegal_input_gets_one_line_and_is_asked_again() -> None:
    agent, out = human(["b4-d5", "9", "(jump d c4 b c4)", "(jump b", "  ", "2"])
    assert agent.select(PEG, START, "jumper", Limit()) == parse_term("(jump d c2 d c4)")
    lines = out.getvalue().splitlines()
    expected = [
        "illegal move (jump b c4 d c5) for jumper: b c4 and d c5 are not two holes apart "
        "in a row or column",
        "illegal move 9 for jumper: there is no move number 9; choose 1..4",
        "illegal move (jump d c4 b c4) for jumper: no peg on d c4",
    ]
    for line in expected:
        assert line in lines
    assert any(line.startswith("invalid move (jump b for jumper: not a GDL term") for line in lines)
    assert "Traceback" not in out.getvalue()


def test_commands_help_moves_board_quit() -> None:
    agent, out = human(["help", "moves", "board", "quit"])
    with pytest.raises(QuitGame):
        agent.select(PEG, START, "jumper", Limit())
    text = out.getvalue()
    assert "b4-d4 (the peg on b c4 jumps over c c4 into d c4)" in text
    assert text.count("1. (jump b c4 d c4)") == 2  # listed first, and again for "moves"
    assert text.count("pegs: 32") == 2  # drawn first, and again for "board"


def test_end_of_input_quits() -> None:
    agent, _ = human([])
    with pytest.raises(QuitGame, match="abandoned"):
        agent.select(PEG, START, "jumper", Limit())


def test_game_without_short_notation() -> None:
    race = Race()
    assert race.info.capabilities.notation is None
    assert PEG.info.capabilities.notation is not None
    state = race.initial_state()
    agent, out = human(["b4-d4", "noop", "add 2"])
    assert agent.select(race, state, "first", Limit()) == func("add", 2)
    text = out.getvalue()
    assert "illegal move b4-d4 for first: it is not among the 2 legal moves" in text
    assert "illegal move noop for first" in text
    assert " 1. (add 1)" in text


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_random_agent_plays_legal_reproducible_games(seed: int) -> None:
    def game_with(agent: RandomAgent) -> list[str]:
        state, moves = START, []
        while not PEG.is_terminal(state):
            move = agent.select(PEG, state, "jumper", Limit())
            assert move in PEG.legal_moves(state, "jumper")
            moves.append(str(move))
            state = PEG.play(state, move)
        return moves

    assert game_with(RandomAgent(seed)) == game_with(RandomAgent(seed))


def test_random_agent_spreads_its_choices_and_loads_by_spec() -> None:
    agent = make_agent("random", seed=1)
    assert isinstance(agent, RandomAgent) and agent.name == "random"
    chosen = {str(agent.select(PEG, START, "jumper", Limit())) for _ in range(200)}
    assert chosen == {str(m) for m in PEG.legal_moves(START, "jumper")}
    assert isinstance(make_agent("human"), HumanAgent)
