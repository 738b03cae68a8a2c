"""Reading and printing GGP protocol messages."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ggpkit.gdl.kif import KEYWORDS
from ggpkit.gdl.terms import Const, Func, Term
from ggpkit.match.clock import ClockError
from ggpkit.match.protocol import (
    Abort,
    Info,
    Play,
    PlayII,
    Preview,
    ProtocolError,
    Start,
    Stop,
    StopII,
    format_play,
    format_play_ii,
    format_start,
    format_stop,
    format_stop_ii,
    parse_info_reply,
    parse_message,
    strip_comments,
)


def test_start_keeps_rules_text_and_names_exactly() -> None:
    rules = "( role Xq ) ( <= ( legal Xq ( m 1 ) ) ( true ( c ) ) )"
    msg = parse_message(f"( START Match.9 Xq ( {rules} ) 30 7.5 extra args )")
    assert msg == Start("Match.9", "Xq", rules, 30.0, 7.5)


@pytest.mark.parametrize("text", ["(INFO)", "( info )", "(Ping)", "(PING extra)"])
def test_info_in_any_case(text: str) -> None:
    assert parse_message(text) == Info()


def test_play_stop_abort_preview() -> None:
    assert parse_message("(play m NIL)") == Play("m", None)
    assert parse_message("(PLAY m nil)") == Play("m", None)
    moves = (Func("mark", (Const("1"), Const("2"))), Const("noop"))
    assert parse_message("( PLAY m ( ( mark 1 2 ) noop ) )") == Play("m", moves)
    assert parse_message("(STOP m ((mark 1 2) noop))") == Stop("m", moves)
    assert parse_message("(ABORT m)") == Abort("m")
    assert parse_message("(PREVIEW ((role a)) 10)") == Preview("(role a)", 10.0)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "expected one S-expression"),
        ("(INFO", "never closed"),
        ("INFO)", "unbalanced"),
        ("INFO", "non-empty list"),
        ("(FLY away)", "unknown message keyword"),
        ("(START m r ((role r)) soon 5)", "number of seconds"),
        ("(START m r (role r) 5)", "needs 5 arguments"),
        ("(PLAY m move)", "NIL or a list of moves"),
        ("(PLAY m NIL extra)", "PLAY takes 2 arguments"),
        ("(STOP m 3 noop)", "STOP takes 2 arguments .* or 4"),
        ("(PLAY m 3 NIL ())", "the last move must be a move"),
        ("(PLAY m x noop ())", "the turn must be a count"),
        ("(START m (r) ((role r)) 5 5)", "must be a symbol"),
    ],
)
def test_malformed_messages_say_why(text: str, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        parse_message(text)


# GDL keywords are read case-insensitively (stored lower-case), and NIL is the empty move list.
_names = st.from_regex(r"[A-Za-z][A-Za-z0-9_.-]{0,8}", fullmatch=True).filter(
    lambda s: s.lower() != "nil" and s.lower() not in KEYWORDS
)
_terms: st.SearchStrategy[Term] = st.recursive(
    _names.map(Const),
    lambda inner: st.builds(Func, _names, st.lists(inner, min_size=1, max_size=3).map(tuple)),
    max_leaves=6,
)


@given(_names, st.lists(_terms, min_size=1, max_size=4))
def test_printed_play_and_stop_read_back(match_id: str, moves: list[Term]) -> None:
    assert parse_message(format_play(match_id, moves)) == Play(match_id, tuple(moves))
    assert parse_message(format_stop(match_id, moves)) == Stop(match_id, tuple(moves))
    assert parse_message(format_play(match_id, None)) == Play(match_id, None)


def test_gdl2_play_and_stop_are_told_apart_by_arity() -> None:
    """GDL-II's four arguments (turn, own last move, percepts), as the GameController
    sends them: ``NIL NIL`` at turn 0, ``( )`` for no percepts, upper case."""
    assert parse_message("(PLAY M 0 NIL NIL)") == PlayII("M", 0, None, None)
    assert parse_message("(PLAY M 2 NOOP ( ))") == PlayII("M", 2, Const("NOOP"), ())
    seen = (Func("SEEN", (Const("A"),)), Const("B"))
    assert parse_message("(STOP M 5 (GO 1) ((SEEN A) B ))") == StopII(
        "M", 5, Func("GO", (Const("1"),)), seen
    )
    assert parse_message("(PLAY M (NOOP NOOP))") == Play("M", (Const("NOOP"), Const("NOOP")))


@given(_names, st.integers(1, 500), _terms, st.lists(_terms, max_size=4))
def test_printed_gdl2_play_and_stop_read_back(
    match_id: str, turn: int, move: Term, percepts: list[Term]
) -> None:
    play = parse_message(format_play_ii(match_id, turn, move, percepts))
    assert play == PlayII(match_id, turn, move, tuple(percepts))
    stop = parse_message(format_stop_ii(match_id, turn, move, percepts))
    assert stop == StopII(match_id, turn, move, tuple(percepts))
    assert parse_message(format_play_ii(match_id, 0, None, None)) == PlayII(match_id, 0, None, None)


@given(_names, _names, st.sampled_from([1, 2.0, 60]), st.sampled_from([1, 5.0, 15]))
def test_printed_start_reads_back(match_id: str, role: str, start: float, play: float) -> None:
    rules = "(role a)\n(<= (legal a (go ?x)) (true (at ?x)))"
    assert parse_message(format_start(match_id, role, rules, start, play)) == Start(
        match_id, role, rules, float(start), float(play)
    )


def test_comments_are_stripped_before_rules_are_inlined() -> None:
    assert strip_comments("; header\n(role a) ; the only role\n\n(init (x))") == (
        "(role a)\n\n(init (x))"
    )


def test_start_clocks_go_on_the_wire_as_integers() -> None:
    """ggp-base's players parse integer clocks and never answer a START with ``1.5``."""
    assert format_start("m", "r", "(role r)", 10.0, 5.0) == "(START m r ((role r)) 10 5)"
    for bad in (1.5, 0, -5, float("nan"), float("inf")):
        with pytest.raises(ClockError, match="whole number of seconds"):
            format_start("m", "r", "(role r)", 10, bad)


@pytest.mark.parametrize(
    ("reply", "name"),
    [
        ("((name tester) (status available))", "tester"),
        ("( ( NAME Alpha-7 ) ( STATUS busy ) )", "Alpha-7"),
        ('((status available) (name "My Player"))', "My Player"),
        ("((name " + "x" * 500 + ") (status available))", "x" * 80),
        ("available", None),
        ("((status available))", None),
        ("%%% (((", None),
        ("", None),
    ],
)
def test_info_reply_gives_the_player_name(reply: str, name: str | None) -> None:
    assert parse_info_reply(reply) == name


def test_a_player_fault_survives_pickling() -> None:
    import pickle

    from ggpkit.match.remote import PlayerFault

    fault = pickle.loads(pickle.dumps(PlayerFault("TO", "late by 2 s")))
    assert (fault.code, fault.detail, str(fault)) == ("TO", "late by 2 s", "TO: late by 2 s")
