"""The propnet split on whose turn it is plays the same playouts as the full network."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from ggpkit.games.registry import rules_path
from ggpkit.gdl.kif import parse_rules
from ggpkit.reasoning.propnet.reasoner import DEFAULT_MAX_STEPS, PropnetReasoner
from ggpkit.reasoning.propnet.split import ERR_UNTIED, SplitPlayouts, split


def _games_dir() -> Path:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"


def _reasoner(name: str) -> PropnetReasoner:
    """A registered game's GDL rules, or a corpus file (skipped where the corpus is absent)."""
    if not name.endswith(".kif"):
        return PropnetReasoner.from_rules(parse_rules(rules_path(name).read_text(), name))
    path = _games_dir() / name
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return PropnetReasoner.from_rules(parse_rules(path.read_text(), str(path)))


def _split_of(r: PropnetReasoner) -> SplitPlayouts:
    tied = r._find_sentinel()
    assert tied is not None
    return SplitPlayouts(split(r.net, tied))


TURN_GAMES = [
    "pawn-checkers", "breakthrough-holes", "ticTacToe.kif", "connectFour.kif",
    "checkersBarrelNoKings.kif", "breakthroughSmall.kif",
]  # fmt: skip


@pytest.mark.parametrize("name", TURN_GAMES)
def test_split_playouts_total_what_the_full_network_totals(name: str) -> None:
    r = _reasoner(name)
    turns = _split_of(r)
    assert len(turns.split.tied) >= 1
    bits = r.bits(r.initial())
    for seed in range(6):
        done, moves, sums, err = turns.run(bits, 7, seed, DEFAULT_MAX_STEPS)
        full = r._full_playouts(bits, 7, seed, DEFAULT_MAX_STEPS)
        assert err == full[3] == 0
        assert (done, moves, sums.tolist()) == (full[0], full[1], full[2].tolist())


def test_whose_turn_it_is_is_found_and_each_copy_drops_the_other_roles_moves() -> None:
    r = _reasoner("pawn-checkers")
    tied = r._find_sentinel()
    assert tied is not None
    names = {str(r.net.base[i]) for i in tied}
    assert all("control" in n for n in names), names
    copies = split(r.net, tied).nets
    for copy in copies:
        assert len(copy.needed) < len(r.net.needed)
        # The role not to move has noop alone in its copy; the mover keeps its moves.
        sizes = sorted(len(m) for m in copy.moves)
        assert sizes[0] == 1 and sizes[1] > 1


def test_a_one_role_game_has_no_split() -> None:
    r = _reasoner("peg")
    assert r._find_sentinel() is None
    assert r._turn_split() is None


def test_a_state_that_breaks_a_tie_falls_back_to_the_full_network() -> None:
    r = _reasoner("ticTacToe.kif")
    tied = r._find_sentinel()
    assert tied is not None
    cell = next(i for i, f in enumerate(r.net.base) if "cell" in str(f) and i not in tied)
    wrong = SplitPlayouts(split(r.net, {**tied, cell: True}))  # a cell is not whose turn
    bits = r.bits(r.initial())
    assert wrong.run(bits, 3, 1, DEFAULT_MAX_STEPS)[3] == ERR_UNTIED
    full = r.playout_stats(r.initial(), 3, 1)
    r._split, r._split_tried = wrong, True
    assert r.playout_stats(r.initial(), 3, 1) == full
    assert r._split is None  # dropped for good


def test_threads_sharing_a_split_reasoner_get_their_own_totals() -> None:
    r = _reasoner("breakthrough-holes")
    r._split, r._split_tried = _split_of(r), True
    state = r.initial()
    expected = [r.playout_stats(state, 5, seed) for seed in range(40)]
    got: dict[int, list[object]] = {}

    def work(t: int) -> None:
        got[t] = [r.playout_stats(state, 5, seed) for seed in range(40)]

    threads = [threading.Thread(target=work, args=(t,)) for t in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(totals == expected for totals in got.values())


# Legal and next literals of every shape the copies' word runs must carry: negated
# (flip), a base fact itself (touch, and wait sharing touch 1's), a constant (pass), a
# move per role past one word (ten flips); next literals negated (dark), a base fact
# itself (echo) and constant-folded in a copy (control).
SHAPES = """
(role white) (role black)
(init (control white)) (init (step 0))
(num 1) (num 2) (num 3) (num 4) (num 5) (num 6) (num 7) (num 8) (num 9) (num 10)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
(succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12) (succ 12 13) (succ 13 14) (succ 14 15)
(<= (legal ?p (flip ?k)) (true (control ?p)) (num ?k) (not (true (on ?k))))
(<= (legal white (touch ?k)) (true (control white)) (num ?k) (true (on ?k)))
(<= (legal white wait) (true (control white)) (true (on 1)))
(<= (legal black pass) (true (control black)))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (cleared ?k) (does ?p (touch ?k)))
(<= (next (on ?k)) (true (on ?k)) (num ?k) (not (cleared ?k)))
(<= (next (on ?k)) (does ?p (flip ?k)))
(<= (next dark) (not (true (on 2))))
(<= (next echo) (true (on 3)))
(<= (next (control black)) (true (control white)))
(<= (next (control white)) (true (control black)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= terminal (true (step 15)))
(<= (goal white 100) (true dark)) (<= (goal white 0) (not (true dark)))
(<= (goal black 100) (not (true dark))) (<= (goal black 0) (true dark))
"""


def test_literals_of_every_shape_are_read_by_words_as_they_are_one_by_one() -> None:
    r = PropnetReasoner.from_rules(parse_rules(SHAPES, "shapes"))
    turns = _split_of(r)
    for copy in turns.split.nets:
        for lits in (copy.legal_lits[copy.move_start[0] : copy.move_start[1]], copy.next_lits):
            first = int(lits[0]) >> 1
            assert first % 8 == 0
            assert (lits >> 1).tolist() == list(range(first, first + len(lits)))
    state = r.initial()
    for depth in range(6):  # from states part way in, where the moves differ
        bits = r.bits(state)
        for seed in range(8):
            got = turns.run(bits, 7, seed, DEFAULT_MAX_STEPS)
            full = r._full_playouts(bits, 7, seed, DEFAULT_MAX_STEPS)
            assert got[3] == full[3] == 0
            assert (got[0], got[1], got[2].tolist()) == (full[0], full[1], full[2].tolist())
        state = r.next(state, [r.legal(state, i)[depth % len(r.legal(state, i))] for i in (0, 1)])
