"""A match that started on the prover moves onto its propnet once that is built."""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import Any

from ggpkit.agents.base import Limit
from ggpkit.games.api import Game
from ggpkit.games.gdl.game import load_kif_text
from ggpkit.games.registry import rules_path
from ggpkit.gdl.terms import Term
from ggpkit.match.player_server import PlayerService, _upgrade
from match.support import FirstAgent, ServerThread
from match.test_player_server import gameserver_post, split_reply

RULES = rules_path("pawn-checkers").read_text()


class RecordingAgent(FirstAgent):
    """The first legal move; remembers the reasoner of every game it was started on."""

    def __init__(self) -> None:
        super().__init__()
        self.reasoners: list[str] = []

    def start(self, game: Game[Any], role: str) -> None:
        super().start(game, role)
        self.reasoners.append(getattr(game, "reasoner_name", "native"))

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        return game.legal_moves(state, role)[0]


def late_loader(rules: str, seconds: float) -> Game[Any]:
    return load_kif_text(rules, "<START>", timeout=0.001, keep_compiling=120)


def test_the_match_moves_onto_the_propnet_built_during_play() -> None:
    service = PlayerService(RecordingAgent, name="tester", loader=late_loader)
    with ServerThread(service) as server:
        _play_four_moves(service, server.port, "(START late {role} ({rules}) 10 3)")


def slow_loader(rules: str, seconds: float) -> Game[Any]:
    """A loader that misses START's deadline (a busy core), then gives a propnet."""
    time.sleep(seconds + 1.0)
    return load_kif_text(rules, "<START>", reasoner="propnet")


def test_a_load_late_for_start_takes_over_once_ready() -> None:
    """START is answered from the prover's fallback; the loader's load goes on, and the
    match moves onto its propnet at a later move rather than play the prover to the end."""
    service = PlayerService(RecordingAgent, name="tester", loader=slow_loader)
    with ServerThread(service) as server:
        _play_four_moves(service, server.port, "(START late {role} ({rules}) 4 3)")


def _play_four_moves(service: PlayerService, port: int, start: str) -> None:
    """START on the join code, then four moves, checked legal, by the end of which the
    match is on the propnet, in the state it was last asked about."""
    referee = load_kif_text(RULES, "referee")
    role = referee.roles[0]
    reply = gameserver_post(port, start.format(role=role, rules=RULES), timeout=15)
    assert split_reply(reply)[2] == b"ready"
    match = service.current
    assert match is not None and getattr(match.game, "reasoner_name", "") == "joincode"
    coming = _upgrade(match)
    assert coming is not None
    waited = time.monotonic() + 60
    while coming.ready() is None and time.monotonic() < waited:
        time.sleep(0.1)
    state, last = referee.initial_state(), "NIL"
    asked = state
    for _ in range(4):
        reply = split_reply(gameserver_post(port, f"(PLAY late {last})", timeout=5))
        ours = reply[2].decode()
        legal = [referee.legal_moves(state, r) for r in referee.roles]
        assert ours in {str(m) for m in legal[0]}
        joint = [next(m for m in legal[0] if str(m) == ours), *(m[0] for m in legal[1:])]
        asked, state = state, referee.next_state(state, joint)
        last = "(" + " ".join(str(m) for m in joint) + ")"
    assert service.current is match
    assert getattr(match.game, "reasoner_name", "") == "propnet"
    assert match.game.facts(match.state) == referee.facts(asked)  # the state it was asked
    agent = match.runner.agent
    assert isinstance(agent, RecordingAgent)
    assert agent.reasoners == ["joincode", "propnet"]
    gameserver_post(port, "(ABORT late)")
