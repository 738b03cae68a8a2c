"""Match records in ggp.org match JSON, and replaying them in a game."""

from __future__ import annotations

import json

import pytest

from ggpkit.agents.base import Limit
from ggpkit.games.registry import load
from ggpkit.match.arena import play_match
from ggpkit.match.clock import Clocks
from ggpkit.match.players import LocalPlayer
from ggpkit.match.records import MatchRecord, MissingRulesError, RecordError
from ggpkit.match.referee import Referee
from ggpkit.match.replay import ReplayError, open_replay, record_from_arena, replay
from match.support import GGP_BASE_RECORD, TINY_GDL, FirstAgent, TinyGame


def test_ggp_base_record_reads_and_keeps_every_key() -> None:
    record = MatchRecord.from_json(GGP_BASE_RECORD)
    assert record.steps == 2 and record.errors[1] == ["", "TO"]
    assert record.goal_values == [0, 100] and record.play_clock == 15.0
    doc = record.to_json()
    for key, value in GGP_BASE_RECORD.items():
        if key != "scrambled":
            assert doc[key] == value, key


def test_ggp_base_record_replays_with_its_embedded_rules() -> None:
    rep = open_replay(MatchRecord.from_json(GGP_BASE_RECORD))
    assert len(rep.states) == 3
    assert rep.game.is_terminal(rep.states[-1])
    assert rep.game.goals(rep.states[-1]) == {"white": 0, "black": 100}


def test_records_whose_moves_disagree_with_states_do_not_replay() -> None:
    doc = json.loads(json.dumps(GGP_BASE_RECORD))
    doc["states"][1] = "( ( count 1 ) ( control black ) )"
    with pytest.raises(ReplayError, match="step 1"):
        replay(MatchRecord.from_json(doc), TinyGame())
    with pytest.raises(ReplayError, match="cannot be replayed"):
        open_replay(MatchRecord.from_json(doc))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"gameRulesheet": None}, "no embedded rules"),
        ({"matchId": None}, "matchId"),
        ({"moves": [["noop", "noop"]]}, "one more entry"),
        ({"startClock": "soon"}, "startClock"),
        ({"moves": ["noop", "noop"]}, "must be a list"),
    ],
)
def test_broken_records_name_the_bad_key(change: dict[str, object], message: str) -> None:
    doc = {**GGP_BASE_RECORD, **change}
    doc = {k: v for k, v in doc.items() if v is not None}
    with pytest.raises(RecordError, match=message):
        MatchRecord.from_json(doc)


def test_not_json_is_a_record_error() -> None:
    with pytest.raises(RecordError, match="not JSON"):
        MatchRecord.loads("{nope")


def test_arena_matches_become_replayable_records() -> None:
    game = load("breakthrough-holes")
    arena = play_match(game, ["random", "random"], index=0, seed=7, limit=Limit(playouts=1))
    record = record_from_arena(arena, game)
    assert record.source == "arena" and record.is_completed
    assert record.moves == [list(m) for m in arena.moves]
    assert record.goal_values == [arena.goals[r] for r in game.roles]
    assert "(role white)" in record.rules
    rep = open_replay(MatchRecord.loads(record.dumps()))
    assert rep.states[-1] == arena.states[-1]


def test_no_preview_clock_is_written_as_minus_one_as_ggp_base_does() -> None:
    players = [LocalPlayer(FirstAgent()), LocalPlayer(FirstAgent())]
    refereed = Referee(TinyGame(), TINY_GDL, players, Clocks(5, 2)).record
    assert refereed.to_json()["previewClock"] == -1
    assert MatchRecord("m", "tiny", "", [], 0.0, 1.0).to_json()["previewClock"] == -1
    with_preview = Referee(TinyGame(), TINY_GDL, players, Clocks(5, 2, preview=3)).record
    assert with_preview.to_json()["previewClock"] == 3
    # -1 reads back as "no preview"; a record without the key has none either.
    assert MatchRecord.loads(refereed.dumps()).to_json()["previewClock"] == -1
    without = {k: v for k, v in GGP_BASE_RECORD.items() if k != "previewClock"}
    assert MatchRecord.from_json(without).to_json()["previewClock"] == -1


def test_rules_given_for_a_record_without_them() -> None:
    """ggp-base records carry no rules: they can be given; a record's own rules win."""
    bare = {k: v for k, v in GGP_BASE_RECORD.items() if k != "gameRulesheet"}
    with pytest.raises(MissingRulesError, match="gameRulesheet"):
        MatchRecord.from_json(bare)
    record = MatchRecord.from_json(bare, rules=TINY_GDL)
    assert record.rules == TINY_GDL
    assert open_replay(record).game.is_terminal(open_replay(record).states[-1])
    assert MatchRecord.from_json(GGP_BASE_RECORD, rules="(role other)").rules == TINY_GDL
