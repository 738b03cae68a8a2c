"""Grounding works inside daemonic worker processes (arena pools, the corpus's children).

Such a process may not start children, so the grounder must not depend on one there;
before this was handled, every game in those workers fell back to the slow prover.
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
    from ggpkit.games.gdl_game import load_kif_text

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
