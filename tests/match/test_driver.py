"""The match driver: one way to play a step, and the same treatment of an agent everywhere."""

from __future__ import annotations

import asyncio
import io
import random
import re
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import ggpkit
from ggpkit.agents import specs
from ggpkit.agents.base import Agent, Limit
from ggpkit.agents.human import HumanAgent
from ggpkit.cli.play_cmd import play_match as play_at_terminal
from ggpkit.games.api import Game, IllegalMoveError, InvalidMoveError
from ggpkit.gdl.terms import Term, func
from ggpkit.match import arena
from ggpkit.match.driver import MatchDriver, illegal_code
from ggpkit.match.players import LocalPlayer
from ggpkit.match.records import MatchRecord
from ggpkit.match.remote import PlayerFault
from ggpkit.web.sessions import SessionManager
from match.support import CrashingAgent, FirstAgent, SleepyAgent, TinyGame


class IllegalAgent(FirstAgent):
    """Answers a move no rule allows."""

    name = "illegal"

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        return func("add", 7)


class NeverAskMe(FirstAgent):
    """Fails the test if it is ever asked in a state where it has a single legal move."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        assert len(game.legal_moves(state, role)) > 1, "asked with a single legal move"
        self.asked += 1
        return game.legal_moves(state, role)[0]


class TextPlayer:
    """A player that answers fixed text (as a remote player may)."""

    is_human = False
    name = "text"

    def __init__(self, answer: str) -> None:
        self.answer = answer

    async def start(self, *args: Any) -> None:
        pass

    async def play(self, match_id: str, last: Any, state: Hashable, clock: Any) -> str:
        return self.answer

    async def observe(self, *args: Any) -> None:
        pass

    async def stop(self, *args: Any) -> None:
        pass

    async def abort(self, match_id: str) -> None:
        pass


def _record(game: Game[Any]) -> MatchRecord:
    return MatchRecord("m", game.name, "", list(game.roles), 0.0, 1.0)


def _drive(players: Sequence[Any], clock: float | None = 1.0) -> MatchRecord:
    game = TinyGame()
    driver = MatchDriver(game, _record(game), rng=random.Random(1))

    async def run() -> MatchRecord:
        for p, role in zip(players, game.roles, strict=True):
            await p.start("m", role, game, "", 10.0, 1.0)
        return await driver.run(players, clock)

    driver.begin()
    return asyncio.run(run())


def _white_errors(record: MatchRecord) -> list[str]:
    return [e[0] for i, e in enumerate(record.errors) if i % 2 == 0]


@pytest.mark.parametrize(
    ("answer", "code"),
    [("%%% (((", "IL %%% ((("), ("(add 7)", "IL (add 7)"), ("noop", "IL noop"), ("(add 1)", "")],
)
def test_every_answer_is_validated(answer: str, code: str) -> None:
    record = _drive([TextPlayer(answer), LocalPlayer(FirstAgent())])
    assert record.is_completed
    assert set(_white_errors(record)) == {code}


@pytest.mark.parametrize(
    ("agent", "code"), [(SleepyAgent, "TO"), (CrashingAgent, "CE"), (IllegalAgent, "IL (add 7)")]
)
def test_faulty_agents_are_replaced_and_recorded(agent: type[Agent], code: str) -> None:
    record = _drive([LocalPlayer(agent()), LocalPlayer(FirstAgent())], clock=0.5)
    assert record.is_completed and set(_white_errors(record)) == {code}
    assert all(e[1] == "" for e in record.errors)


def test_a_role_with_one_legal_move_is_never_asked() -> None:
    white, black = NeverAskMe(), NeverAskMe()
    record = _drive([LocalPlayer(white), LocalPlayer(black)])
    assert record.is_completed
    assert white.asked + black.asked == record.steps  # one chooser per step, asked once


def test_untimed_matches_wait_for_the_agent() -> None:
    record = _drive([LocalPlayer(FirstAgent()), LocalPlayer(FirstAgent())], clock=None)
    assert record.errors == [["", ""]] * record.steps


def test_illegal_code_is_one_line_and_bounded() -> None:
    assert illegal_code("(add\n   7)") == "IL (add 7)"
    assert len(illegal_code("x" * 10_000)) == 3 + 200


def test_joint_for_refuses_with_the_reason() -> None:
    game = TinyGame()
    driver = MatchDriver(game, _record(game))
    with pytest.raises(IllegalMoveError):
        driver.joint_for("white", "(add 7)")
    with pytest.raises(InvalidMoveError):
        driver.joint_for("white", "(add")
    assert [str(m) for m in driver.joint_for("white", "(add 2)")] == ["(add 2)", "noop"]


# ---- the same agent gets the same treatment everywhere ------------------------------------


@pytest.fixture
def faulty_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Agent specs ``crash`` and ``illegal`` for the arena (which builds agents from specs)."""
    agents = dict(specs.AGENTS)
    agents["crash"] = specs._Kind("match.support:CrashingAgent", {}, "raises")
    agents["illegal"] = specs._Kind("match.test_driver:IllegalAgent", {}, "illegal moves")
    monkeypatch.setattr(specs, "AGENTS", agents)


def _codes_everywhere(agent: type[Agent], spec: str) -> dict[str, set[str]]:
    game = TinyGame()
    out: dict[str, set[str]] = {}
    out["driver"] = set(_white_errors(_drive([LocalPlayer(agent()), LocalPlayer(FirstAgent())])))
    match = arena.play_match(game, [spec, "random"], 0, 3, Limit(time=1.0))
    out["arena"] = {e[0] for i, e in enumerate(match.errors) if i % 2 == 0}
    manager = SessionManager(_NullStore(), lambda s, seed: agent())
    session = manager.create(game, "", {"white": spec, "black": "human"})
    asyncio.run(manager.agent_step(session))
    out["web"] = {session.record.errors[0][0]}
    text = io.StringIO()
    console = Console(file=text, width=120, color_system=None)
    person = HumanAgent(input_fn=lambda prompt: "1", console=console, show_board=False)
    play_at_terminal(game, "black", person, {"white": agent()}, console)
    out["terminal"] = set(re.findall(r"its agent failed \((.*)\); a random", text.getvalue()))
    return out


class _NullStore:
    def match_started(self, record: MatchRecord) -> None:
        pass

    def step_played(self, record: MatchRecord) -> None:
        pass

    def match_ended(self, record: MatchRecord) -> None:
        pass

    def save(self, record: MatchRecord) -> None:
        pass

    def hold_move(self, match_id: str, step: int, role: str, move: str) -> None:
        pass

    def held_moves(self, match_id: str, step: int) -> dict[str, str]:
        return {}


@pytest.mark.parametrize(("agent", "spec", "code"), [
    (CrashingAgent, "crash", "CE"), (IllegalAgent, "illegal", "IL (add 7)"),
])  # fmt: skip
@pytest.mark.usefixtures("faulty_specs")
def test_the_same_fault_gets_the_same_code_everywhere(
    agent: type[Agent], spec: str, code: str
) -> None:
    codes = _codes_everywhere(agent, spec)
    assert codes == {key: {code} for key in ("driver", "arena", "web", "terminal")}


# ---- one place plays a step ------------------------------------------------------------------


REPLAYS_KNOWN_MOVES = {
    "cli/solve_cmd.py": "checks a solver's line against the rules",
    "match/player_server.py": "a player follows the moves its referee announces",
    "match/replay.py": "states of a stored record",
    "web/kif_upload.py": "one trial step of uploaded rules",
    "web/restore.py": "states of a stored session",
}
"""Modules that apply moves already decided elsewhere: none of them plays a match step."""


def test_only_the_driver_advances_matches() -> None:
    """No interface or match module plays a step itself: steps go through the driver."""
    package = Path(ggpkit.__file__).parent
    callers = sorted(
        str(path.relative_to(package))
        for sub in ("match", "cli", "web")
        for path in (package / sub).rglob("*.py")
        if "next_state(" in path.read_text(encoding="utf-8")
    )
    assert callers == sorted(["match/driver.py", *REPLAYS_KNOWN_MOVES]), callers


def test_player_fault_codes_are_typed() -> None:
    assert PlayerFault("TO", "late").code == "TO"
