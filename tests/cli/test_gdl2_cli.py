"""GDL-II at the terminal: ``ggpkit play`` shows each person only their view (two people
sharing the keyboard hand it over), ``arena`` and ``match`` seat agents in every role
but nature's."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from envs.hidden_card import hidden_card_file
from games.gdl2_support import MONTY_HALL
from rich.console import Console
from typer.testing import CliRunner

import ggpkit
from ggpkit.agents.base import Limit
from ggpkit.agents.human import HumanAgent
from ggpkit.cli import _load_commands, app
from ggpkit.games.views import RoleView
from ggpkit.gdl.kif import parse_term
from ggpkit.store.sqlite import MatchStore

_load_commands()
RUNNER = CliRunner()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("gdl2")
    (path / "MontyHall.kif").write_text(MONTY_HALL, encoding="utf-8")
    hidden_card_file(path)
    return path


def _before_the_end(output: str) -> str:
    return output.split("game over")[0]


def test_two_people_hand_over_and_each_sees_only_their_view(folder: Path) -> None:
    # Enter (hand-over), alice hints; Enter, bob bets; Enter, bob guesses card 1.
    typed = "\n1\n\n2\n\n1\n"
    args = ["play", str(folder / "HiddenCard.kif"), "--opponent", "human", "--seed", "2"]
    result = RUNNER.invoke(app, args, input=typed)
    assert result.exit_code == 0, result.output
    out = result.output
    handovers = re.findall(r"(\w+)'s view: pass the keyboard to (\w+), press Enter", out)
    assert handovers == [("alice", "alice"), ("bob", "bob"), ("bob", "bob")]
    during = _before_the_end(out)
    assert "alice's view, turn 2" in during and "bob's view, turn 3" in during
    assert "dealt" not in during and "guessed" not in during  # never the state
    alice_panel = during.split("alice's view, turn 2")[1].split("bob's view")[0]
    bob_panel = during.split("bob's view, turn 2")[1].split("Turn 2 played")[0]
    assert "you saw (card " in alice_panel and "(card " not in bob_panel
    assert "(bet " not in alice_panel  # alice learns bob's bet only after the step
    final = out.split("game over")[1]
    assert "(dealt " in final and "(guessed 1)" in final  # the true state, at the end
    assert "alice" in final and "bob" in final and "random" not in final.split("Game over")[1]


def test_one_person_against_nature_never_sees_the_car_before_the_end(folder: Path) -> None:
    result = RUNNER.invoke(app, ["play", str(folder / "MontyHall.kif")], input="1\n2\n")
    assert result.exit_code == 0, result.output
    during = _before_the_end(result.output)
    assert "against random (nature: its moves are drawn)" in during
    assert "(car " not in during and "(opened d" in during  # the opened door, perceived
    assert "pass the keyboard" not in during  # one person: nothing to hand over
    assert "(car " in result.output.split("game over")[1]


def test_nature_cannot_be_played(folder: Path) -> None:
    result = RUNNER.invoke(app, ["play", str(folder / "MontyHall.kif"), "--as", "random"])
    assert result.exit_code == 2
    assert "random is nature" in result.output


def test_the_human_agent_lists_the_legal_moves_of_its_view(folder: Path) -> None:
    game = ggpkit.load(str(folder / "MontyHall.kif"))
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None)
    agent = HumanAgent(input_fn=lambda _: "2", console=console)
    view = RoleView("contestant").then(parse_term("(pick d1)"), frozenset())
    view = view.then(parse_term("wait"), frozenset({parse_term("(opened d3)")}))
    assert str(agent.select(game, view, "contestant", Limit())) == "switch"
    assert "1. stay" in out.getvalue() and "you saw (opened d3)" in out.getvalue()


def test_arena_plays_one_seat_against_nature_and_stores_the_matches(
    folder: Path, tmp_path: Path
) -> None:
    db = tmp_path / "arena.sqlite3"
    args = ["arena", str(folder / "MontyHall.kif"), "random", "-n", "6", "--jobs", "1"]
    result = RUNNER.invoke(app, [*args, "--seed", "3", "--json", "--db", str(db)])
    assert result.exit_code == 0, result.output
    (stat,) = json.loads(result.output)["results"]
    assert stat["agent"] == "random" and stat["wins"] + stat["losses"] == 6
    with MatchStore(db) as store:
        stored = store.matches()
        assert len(stored) == 6
        record = store.load(stored[0].match_id)
    assert record.chance_role == "random" and record.player_names == ["nature", "random"]
    assert len(record.percepts) == record.steps == 3


def test_arena_counts_seats_not_roles(folder: Path) -> None:
    args = ["arena", str(folder / "MontyHall.kif"), "random", "random", "--no-store"]
    result = RUNNER.invoke(app, args)
    assert result.exit_code != 0
    assert "1 seat (contestant)" in str(result.output) + str(result.exception)


def test_match_takes_players_for_the_seats_only(folder: Path) -> None:
    path = str(folder / "HiddenCard.kif")
    seated = ["--role", "alice=random", "--role", "bob=random"]
    result = RUNNER.invoke(app, ["match", path, *seated, "--no-db", "-q", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "nature" in result.output
    nature = ["match", path, *seated, "--role", "random=random", "--no-db", "-q"]
    refused = RUNNER.invoke(app, nature)
    assert refused.exit_code != 0
    assert "has 2 seats: alice, bob" in str(refused.output) + str(refused.exception)
