"""The join-code prover against the interpreted prover (its oracle), move by move.

Both run the same plans; only the way a plan runs differs (generated Python code
against the interpreter), so any difference in any answer is a bug of the code
generator. Corpus games are chosen for the constructs their rules use: recursion,
negation, ``distinct``, ``or``, nested function terms, many roles, big joins.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any

import pytest

from ggpkit.gdl.kif import parse_rules, read_kif_file
from ggpkit.reasoning.base import QueryTimeLimitError, ReasonerError, time_limit
from ggpkit.reasoning.prover import join_code
from ggpkit.reasoning.prover import reasoner as prover_module
from ggpkit.reasoning.prover.reasoner import Prover


def _games_dir() -> Path:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"


def _goals(r: Prover, s: Any) -> list[int | None]:
    out: list[int | None] = []
    for i in range(len(r.roles)):
        try:
            out.append(r.goal(s, i))
        except ReasonerError:
            out.append(None)
    return out


def _lockstep(text: str, name: str, steps: int, seed: int = 0) -> int:
    """Random lines on both provers, every answer compared over ``steps`` states; the
    number of matches that reached a terminal state."""
    rules = parse_rules(text, name)
    oracle, fast = Prover(rules), Prover(rules, compiled=True)
    assert (oracle.name, fast.name) == ("prover", "joincode")
    assert oracle.roles == fast.roles
    rng = random.Random(f"{name}/{seed}")
    seen = finished = 0
    while seen < steps:
        a, b = oracle.initial(), fast.initial()
        while seen < steps:
            seen += 1
            assert a == b
            assert oracle.terminal(a) == fast.terminal(b)
            if oracle.terminal(a):
                assert _goals(oracle, a) == _goals(fast, b)
                finished += 1
                break
            legal = [oracle.legal(a, i) for i in range(len(oracle.roles))]
            assert legal == [fast.legal(b, i) for i in range(len(fast.roles))]
            assert _goals(oracle, a) == _goals(fast, b)
            joint = [rng.choice(moves) for moves in legal]
            a, b = oracle.next(a, joint), fast.next(b, joint)
    return finished


_CORPUS = [
    ("ticTacToe", 120), ("connectFour", 120), ("breakthroughSmallHoles", 120),
    ("checkersBarrelNoKings", 120), ("peg", 80), ("blocks", 60), ("3pConnectFour", 80),
    ("chineseCheckers1", 80), ("pentago", 60), ("reversi", 8), ("knightThrough", 40),
    ("sheepAndWolf", 60), ("nineBoardTicTacToe", 60), ("quarto", 40), ("mummymaze1p", 30),
    ("connect5", 40), ("gt_prisoner", 40), ("smallest_4player", 40), ("hanoi", 60),
    ("amazons", 2), ("chess", 6), ("skirmish", 12), ("merrills", 12), ("pancakes88", 20),
    ("eightPuzzle", 60), ("hanoi_6_disks", 40), ("beatMania", 20), ("numbertictactoe", 40),
]  # fmt: skip


@pytest.mark.parametrize(("name", "steps"), _CORPUS)
def test_corpus_games_agree_with_the_interpreted_prover(name: str, steps: int) -> None:
    path = _games_dir() / f"{name}.kif"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    _lockstep(read_kif_file(path), name, steps)


# Symbols that would break naive code generation: quotes, backslashes, Python words.
HOSTILE_SYMBOLS = """
(role "x'y")
(role b\\c)
(init (cell "a\\"b" 1))
(init (cell __import__ 2))
(init (cell ')+os.system(' 3))
(<= (legal ?r (mark ?c ?n)) (role ?r) (true (cell ?c ?n)) (not (taken ?c)))
(<= (taken ')+os.system(') (true (cell "a\\"b" 1)) (true (cell __import__ 2)))
(<= (next (cell ?c ?n)) (true (cell ?c ?n)) (not (does "x'y" (mark ?c ?n))))
(<= (next (cell ?c ?n)) (does b\\c (mark ?c ?n)) (distinct ?c __import__))
(<= terminal (not (true (cell ')+os.system(' 3))))
(<= terminal (not (true (cell "a\\"b" 1))))
(<= (goal ?r 100) (role ?r))
"""


def test_symbols_are_data_never_code() -> None:
    rules = parse_rules(HOSTILE_SYMBOLS)
    fast = Prover(rules, compiled=True)
    state = fast.initial()
    assert sorted(str(m) for m in fast.legal(state, 0)) == [
        '(mark "a\\"b" 1)',
        "(mark __import__ 2)",
    ]
    assert _lockstep(HOSTILE_SYMBOLS, "hostile", 40) >= 1


# Patterns whose bindings the index lookups do not check: a variable twice in one
# literal, and a bound variable inside a partly bound argument of a derived relation.
PATTERNS = """
(role p)
(init (pair 1 1)) (init (pair 3 4)) (init (box (f 1 3))) (init (box (f 2 4)))
(<= (same ?x) (true (pair ?x ?x)))
(<= (inner ?b) (true (box ?b)))
(<= (legal p (wrap ?x ?y)) (same ?x) (inner (f ?x ?y)))
(<= (legal p (wrap ?x ?y)) (true (pair ?y ?x)) (inner (f ?z ?x)))
(<= (next (pair ?y ?x)) (true (pair ?x ?y)))
(<= (next (box ?b)) (true (box ?b)))
(<= terminal (true (pair 4 3)))
(<= (goal p 50))
"""


def test_bindings_inside_a_literal_are_checked() -> None:
    fast = Prover(parse_rules(PATTERNS), compiled=True)
    assert sorted(str(m) for m in fast.legal(fast.initial(), 0)) == ["(wrap 1 3)", "(wrap 4 3)"]
    assert _lockstep(PATTERNS, "patterns", 6) == 3


def _chain_game(literals: int) -> str:
    """One rule joining ``literals`` literals along a chain of edges (one answer only)."""
    edges = " ".join(f"(e {i} {i + 1})" for i in range(literals))
    body = " ".join(f"(e ?x{i} ?x{i + 1})" for i in range(literals - 1))
    return (
        f"(role p) (init (n 0)) {edges}"
        f"(<= chain (true (n ?x0)) {body} (distinct ?x0 ?x{literals - 1}))"
        "(<= (legal p go) chain) (<= (next (n 5)) (does p go))"
        "(<= terminal (not chain)) (<= (goal p 100))"
    )


@pytest.mark.parametrize(("literals", "generated"), [(4, True), (join_code.MAX_DEPTH + 4, False)])
def test_a_rule_too_deep_for_generated_code_is_interpreted(
    literals: int, generated: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[bool] = []

    def recording(*args: Any) -> join_code.JoinFunction | None:
        fn = join_code.compile_plan(*args)
        made.append(fn is not None)
        return fn

    monkeypatch.setattr(prover_module, "compile_plan", recording)
    text = _chain_game(literals)
    fast = Prover(parse_rules(text), compiled=True)
    assert [str(m) for m in fast.legal(fast.initial(), 0)] == ["go"]
    assert (False in made) is not generated
    assert _lockstep(text, "chain", 4) == 2


def _wide_join(domain: int) -> str:
    """Legal moves that need a join of six domains: about domain**6 steps."""
    facts = " ".join(f"(d {i})" for i in range(domain))
    return (
        f"(role p) (init (s 0)) {facts}"
        "(<= (legal p (go ?a)) (true (s ?a)) (d ?b) (d ?c) (d ?e) (d ?f) (d ?g) (d ?h)"
        "   (distinct ?b ?c) (distinct ?h 1000))"
        "(<= (next (s 0)) (does p (go 0))) (<= terminal (true (s 1))) (<= (goal p 0))"
    )


def test_a_time_limit_stops_a_join_inside_generated_code() -> None:
    fast = Prover(parse_rules(_wide_join(30)), compiled=True)
    began = time.monotonic()
    with pytest.raises(QueryTimeLimitError, match="longer than"), time_limit(0.2):
        fast.legal(fast.initial(), 0)
    assert time.monotonic() - began < 5.0  # 30**6 steps would take minutes
