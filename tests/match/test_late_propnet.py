"""A match that started on the prover moves onto its propnet once that is built."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ggpkit.agents.base import Limit
from ggpkit.games.api import Game
from ggpkit.games.gdl.game import load_kif_text
from ggpkit.games.registry import rules_path
from ggpkit.gdl.terms import Term
from ggpkit.match.player_server import PlayerService
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
    referee = load_kif_text(RULES, "referee")
    role = referee.roles[0]
    with ServerThread(service) as server:
        start = f"(START late {role} ({RULES}) 10 3)"
        assert split_reply(gameserver_post(server.port, start, timeout=15))[2] == b"ready"
        match = service.current
        assert match is not None
        pending = getattr(match.game, "pending_propnet", None)
        assert pending is not None and pending.ready(60) is not None
        state, last = referee.initial_state(), "NIL"
        asked = state
        for _ in range(4):
            reply = split_reply(gameserver_post(server.port, f"(PLAY late {last})", timeout=5))
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
        gameserver_post(server.port, "(ABORT late)")
