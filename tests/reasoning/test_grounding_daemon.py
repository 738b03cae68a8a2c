"""Grounding works inside daemonic worker processes (arena pools, the corpus's children).

Such a process may not start multiprocessing children; the grounder forks its own, so
those workers get the propnet and the same limits as anyone (before, every game there
fell back to the slow prover, and later grounded in-process with no limit at all).
"""

from __future__ import annotations

import multiprocessing as mp
from typing import Any

RACE = """
(role left) (role right)
(init (control left))
(<= (legal ?r (mark ?c)) (true (control ?r)) (cellname ?c) (not (true (marked ?c))))
(<= (legal left noop) (true (control right)))
(<= (legal right noop) (true (control left)))
(cellname 1) (cellname 2)
(<= (next (marked ?c)) (does ?r (mark ?c)))
(<= (next (marked ?c)) (true (marked ?c)))
(<= (next (control right)) (true (control left)))
(<= (next (control left)) (true (control right)))
(<= terminal (true (marked 2)))
(<= (goal ?r 100) (role ?r) (true (control ?r)))
(<= (goal ?r 0) (role ?r) (not (true (control ?r))))
"""


def _reasoner_in_child(queue: Any) -> None:
    from ggpkit.games.gdl.game import load_kif_text

    queue.put(load_kif_text(RACE, "race.kif").reasoner_name)


def test_a_daemonic_worker_still_gets_the_propnet() -> None:
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_reasoner_in_child, args=(queue,), daemon=True)
    proc.start()
    try:
        assert queue.get(timeout=120) == "propnet"
    finally:
        proc.join(timeout=30)


def _refusal_in_child(queue: Any) -> None:
    from ggpkit.gdl.kif import parse_rules
    from ggpkit.reasoning.grounding.grounder import GroundingError, ground

    bomb = (
        "(role p) (init (x 0))" + " ".join(f"(n {i})" for i in range(30))
        + "(<= (big ?a ?b ?c ?d ?e ?f) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e) (n ?f))"
        "(<= (legal p (go ?a)) (big ?a ?b ?c ?d ?e ?f)) (<= (next (x ?a)) (does p (go ?a)))"
        "(<= terminal (true (x 1))) (<= (goal p 0) (true (x ?a)))"
    )  # fmt: skip
    try:
        ground(parse_rules(bomb), timeout=60.0)
        queue.put("grounded")
    except GroundingError as e:
        queue.put(str(e))


def test_a_daemonic_worker_gets_the_grounding_estimate_too() -> None:
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_refusal_in_child, args=(queue,), daemon=True)
    proc.start()
    try:
        assert "grounding estimate refused" in queue.get(timeout=120)
    finally:
        proc.join(timeout=30)
