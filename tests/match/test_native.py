"""The player plays a game it recognises on the native engine, in the names it was sent."""

from __future__ import annotations

import asyncio

from ggpkit.games.recognition.renamed import RenamedGame
from ggpkit.games.registry import load_kif, rules_path
from ggpkit.match.player_server import PlayerService
from ggpkit.match.protocol import strip_comments
from ggpkit.match.scramble import Scrambler
from match.support import TINY_GDL, FirstAgent


def twin_text(name: str) -> str:
    return strip_comments(rules_path(name).read_text(encoding="utf-8"))


def start_and_play(rules: str, role: str) -> tuple[PlayerService, str]:
    service = PlayerService(FirstAgent, name="p")

    async def run() -> str:
        assert await service.handle_text(f"(START m {role} ({rules}) 10 5)") == "ready"
        return await service.handle_text("(PLAY m NIL)")

    return service, asyncio.run(run())


def test_player_server_uses_the_native_engine_for_scrambled_known_rules() -> None:
    scrambler = Scrambler(twin_text("peg"), seed=2)
    service, move = start_and_play(scrambler.rules, scrambler.name("jumper"))
    assert service.current is not None and isinstance(service.current.game, RenamedGame)
    gdl = load_kif(scrambler.rules)
    legal = {str(m) for m in gdl.legal_moves(gdl.initial_state(), gdl.roles[0])}
    assert move in legal


def test_player_server_keeps_the_gdl_engine_for_other_rules() -> None:
    service, _ = start_and_play(TINY_GDL, "white")
    assert service.current is not None
    assert not isinstance(service.current.game, RenamedGame)
    assert service.current.game.name == "<START>"  # the GDL engine's name for sent rules
