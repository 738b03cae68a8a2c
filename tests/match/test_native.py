"""Recognising registered games in scrambled rules; playing them natively in the sent names."""

from __future__ import annotations

import asyncio
import random

from ggpkit.games.registry import load, load_kif, rules_path
from ggpkit.match.native import RenamedGame, recognise, structure
from ggpkit.match.player_server import PlayerService
from ggpkit.match.protocol import strip_comments
from ggpkit.match.scramble import Scrambler
from match.support import TINY_GDL, FirstAgent


def twin_text(name: str) -> str:
    return strip_comments(rules_path(name).read_text(encoding="utf-8"))


def test_unscrambled_twin_gives_the_native_engine_itself() -> None:
    assert recognise(twin_text("peg")) is load("peg")


def test_unknown_rules_are_not_recognised() -> None:
    assert recognise(TINY_GDL) is None
    peg = twin_text("peg")
    # One sentence fewer: a different structure, even with every name the same.
    assert recognise(peg[peg.index(")") + 1 :]) is None


def test_structure_ignores_names_comments_and_keyword_case() -> None:
    a = "; c\n(role x) (<= (legal x (go ?a)) (true (at ?a)))"
    b = "(ROLE q7) (<= (LEGAL q7 (zz ?b)) (TRUE (yy ?b)))"
    assert structure(a)[0] == structure(b)[0]
    assert structure(a)[1] == ["x", "go", "at"]


def test_scrambled_twin_plays_natively_exactly_as_the_gdl_engine() -> None:
    """Differential: the renamed native engine against the GDL engine on scrambled rules."""
    scrambled = Scrambler(twin_text("breakthrough-holes"), seed=9).rules
    native = recognise(scrambled)
    assert isinstance(native, RenamedGame)
    gdl = load_kif(scrambled)
    assert native.roles == gdl.roles
    rng = random.Random(4)
    for _ in range(3):
        n_state, g_state = native.initial_state(), gdl.initial_state()
        while True:
            assert native.facts(n_state) == gdl.facts(g_state)
            assert native.is_terminal(n_state) == gdl.is_terminal(g_state)
            if gdl.is_terminal(g_state):
                assert native.goals(n_state) == gdl.goals(g_state)
                break
            legal = [sorted(map(str, gdl.legal_moves(g_state, r))) for r in gdl.roles]
            assert legal == [sorted(map(str, native.legal_moves(n_state, r))) for r in gdl.roles]
            joint = [rng.choice(ms) for ms in legal]
            n_state, g_state = native.next_state(n_state, joint), gdl.next_state(g_state, joint)


def test_player_server_uses_the_native_engine_for_scrambled_known_rules() -> None:
    scrambler = Scrambler(twin_text("peg"), seed=2)
    service = PlayerService(FirstAgent, name="p")

    async def run() -> str:
        role = scrambler.name("jumper")
        assert await service.handle_text(f"(START m {role} ({scrambler.rules}) 10 5)") == "ready"
        assert service.current is not None and isinstance(service.current.game, RenamedGame)
        return await service.handle_text("(PLAY m NIL)")

    move = asyncio.run(run())
    gdl = load_kif(scrambler.rules)
    legal = {str(m) for m in gdl.legal_moves(gdl.initial_state(), gdl.roles[0])}
    assert move in legal
