"""Terms as keys: a function term keeps its hash once asked, and never carries it to
another process (whose strings hash with another seed)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

from ggpkit.gdl.kif import parse_term
from ggpkit.gdl.terms import Const, Func

UNPICKLE_AND_LOOK_UP = """
import pickle, sys
from ggpkit.gdl.kif import parse_term
kept = pickle.loads(sys.stdin.buffer.read())
fresh = parse_term("(deal duke 3 (card 5 copper) 7)")
print({fresh: "found"}.get(kept, "missing"), kept == fresh, hash(kept) == hash(fresh))
"""


def test_equal_terms_hash_alike_however_they_were_made() -> None:
    parsed = parse_term("(deal duke 3 (card 5 copper) 7)")
    built = Func(
        "deal", (Const("duke"), Const("3"), Func("card", (Const("5"), Const("copper"))), Const("7"))
    )
    assert hash(parsed) == hash(built) and {parsed: 1}[built] == 1
    assert hash(parsed) == hash(parsed)  # asked again: the kept hash
    assert parse_term("(deal duke 3 5 7)") != parse_term("(deal duke 3 7 5)")


def test_a_pickled_term_is_a_key_in_a_process_with_another_hash_seed() -> None:
    term = parse_term("(deal duke 3 (card 5 copper) 7)")
    hash(term)  # keep the hash before pickling
    data = pickle.dumps(term)
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run(
        [sys.executable, "-c", UNPICKLE_AND_LOOK_UP],
        input=data, capture_output=True, env=env, check=True, timeout=60,
    )  # fmt: skip
    assert done.stdout.decode().split() == ["found", "True", "True"]
