"""Grounding with clingo: symbol renaming, 'or' splitting, distinct, domains, and limits."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggpkit.gdl.kif import parse_rules
from ggpkit.gdl.terms import Const, Func, func
from ggpkit.reasoning.grounding.grounder import GroundingError, ground

ODD = """
(role Red-1)
(role blue)
(init (cell X a.b))
(init (cell y a.b))
(<= (next (cell ?x Done!)) (does ?r (mark ?x)) (true (cell ?x a.b)))
(<= (next (cell ?x ?v)) (true (cell ?x ?v)) (not (does Red-1 (mark ?x))))
(<= (legal ?r (mark ?x)) (role ?r) (true (cell ?x a.b)))
(<= terminal (not (true (cell X a.b))))
(<= (goal ?r 100) (role ?r))
"""


def test_odd_symbols_round_trip_and_roles_keep_their_order() -> None:
    gp = ground(parse_rules(ODD), timeout=None)
    assert gp.roles == ("Red-1", "blue")
    assert set(gp.true_domain) == {
        func("cell", "X", "a.b"),
        func("cell", "y", "a.b"),
        func("cell", "X", "Done!"),
        func("cell", "y", "Done!"),
    }
    assert (("Red-1", func("mark", "X"))) in gp.does_domain
    assert func("goal", "Red-1", 100) in gp.facts


def test_or_is_split_and_distinct_filters() -> None:
    rules = parse_rules(
        """
        (role p) (n 1) (n 2) (n 3)
        (init (v 1))
        (<= (next (v ?y)) (n ?y) (true (v ?x)) (distinct ?x ?y) (or (n ?y) (true (v ?y))))
        (<= (legal p go) (true (v ?x)))
        (<= terminal (true (v 3)))
        (<= (goal p 0) (true (v ?x)))
        """
    )
    gp = ground(rules, timeout=None)
    assert set(gp.true_domain) == {func("v", i) for i in (1, 2, 3)}
    nexts = {t for t in gp.atoms.values() if isinstance(t, Func) and t.name == "next"}
    assert nexts == {func("next", func("v", i)) for i in (1, 2, 3)}
    # next(v 1): one rule per X in {2, 3} (distinct drops X = 1) and per 'or' branch.
    heads = [gp.atoms[h] for h, _ in gp.rules if h in gp.atoms]
    assert heads.count(func("next", func("v", 1))) == 4


def test_static_relations_become_facts() -> None:
    rules = parse_rules(
        "(role p) (succ 1 2) (succ 2 3) (<= (plus2 ?x ?z) (succ ?x ?y) (succ ?y ?z)) (init (c 1))"
        "(<= (legal p (go ?z)) (true (c ?x)) (plus2 ?x ?z)) (<= (next (c ?x)) (true (c ?x)))"
        "(<= terminal (true (c 3))) (<= (goal p 1) (true (c 1)))"
    )
    gp = ground(rules, timeout=None)
    by_term = {t: a for a, t in gp.atoms.items()}
    legal = by_term[func("legal", "p", func("go", 3))]
    bodies = [body for head, body in gp.rules if head == legal]
    # plus2 and succ are static: they vanish from the body, only the state test is left.
    assert bodies == [(by_term[func("true", func("c", 1))],)]
    assert func("role", "p") in gp.facts
    assert Const("terminal") not in gp.facts
    assert ("p", func("go", 3)) in gp.does_domain


GROWING = (
    "(role p) (init (count z)) (<= (next (count (s ?x))) (true (count ?x)))"
    "(<= (legal p tick) (true (count ?x))) (<= (goal p 0) (true (count ?x)))"
)
"""Terms that grow without end: clingo's grounding of them never finishes."""

CROSS_PRODUCT = (
    "(role p) (init (x 0))"
    + " ".join(f"(n {i})" for i in range(30))
    + "(<= (big ?a ?b ?c ?d ?e ?f) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e) (n ?f))"
    "(<= (legal p (go ?a)) (big ?a ?b ?c ?d ?e ?f)) (<= (next (x ?a)) (does p (go ?a)))"
    "(<= terminal (true (x 1))) (<= (goal p 0) (true (x ?a)))"
)
"""One rule joining six domains of 30: 729 million instances."""


@pytest.mark.parametrize("text", [GROWING, CROSS_PRODUCT], ids=["growing", "cross-product"])
def test_grounding_bombs_are_refused_by_the_estimate_not_the_time_limit(text: str) -> None:
    # With a minute to go, only the estimate (a second and a half of CPU) can refuse them.
    with pytest.raises(GroundingError, match="grounding estimate refused"):
        ground(parse_rules(text), timeout=60.0)


def test_the_grounding_child_is_gone_after_a_refusal(
    live_children: Callable[[], set[int]],
) -> None:
    before = live_children()
    with pytest.raises(GroundingError):
        ground(parse_rules(CROSS_PRODUCT), timeout=60.0)
    assert live_children() == before


MEMORY_LIMIT_SCRIPT = """
from ggpkit.gdl.kif import parse_rules
from ggpkit.reasoning.grounding import grounder
grounder.MEMORY_LIMIT_BYTES = 64 * 2**20
grounder.ESTIMATE_CPU_SECONDS = 60.0
rules = "(role p) (init (x 0))" + " ".join(f"(n {i})" for i in range(150)) + (
    "(<= (pair ?a ?b ?c) (n ?a) (n ?b) (n ?c)) (<= (legal p (go ?a ?b ?c)) (pair ?a ?b ?c))"
    "(<= (next (x ?a)) (does p (go ?a ?b ?c))) (<= (goal p 0) (true (x ?a)))"
)
try:
    grounder.ground(parse_rules(rules), timeout=120.0, max_atoms=10**8)
except grounder.GroundingError as e:
    print(e)
"""


def test_a_grounding_past_the_memory_limit_is_a_clear_error() -> None:
    # In a fresh interpreter: a child forked from a test worker inherits its heap, and fills
    # the part of it that earlier tests freed (inside the limit) before it asks for more,
    # so how soon the limit bites would depend on which tests ran before.
    done = subprocess.run(
        [sys.executable, "-c", MEMORY_LIMIT_SCRIPT],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "memory" in done.stdout, done.stdout


def test_atom_budget_is_enforced() -> None:
    rules = parse_rules(
        "(role p) (n 1) (n 2) (n 3) (n 4) (n 5) (n 6) (n 7) (n 8) (n 9) (n 10)"
        "(<= (big ?a ?b ?c ?d) (n ?a) (n ?b) (n ?c) (n ?d)) (init (x 1))"
        "(<= (legal p go) (true (x 1))) (<= (goal p 0) (true (x 1)))"
    )
    with pytest.raises(GroundingError, match="more than"):
        ground(rules, timeout=None, max_atoms=1000)


def test_unsafe_rule_is_a_grounding_error() -> None:
    rules = parse_rules("(role p) (<= (legal p (go ?x)) (not (true (c ?x))))")
    with pytest.raises(GroundingError, match="clingo cannot ground"):
        ground(rules, timeout=None)


_NAME = st.text(
    alphabet=st.characters(
        codec="ascii", exclude_characters="() ;?\t\n\r\x0b\x0c\"'", min_codepoint=33
    ),
    min_size=1,
    max_size=8,
).filter(lambda s: s.lower() not in {"not", "or", "distinct", "true", "does", "<="})


@settings(max_examples=25, deadline=None)
@given(st.lists(_NAME, min_size=1, max_size=5, unique=True))
def test_any_symbol_survives_the_round_trip(names: list[str]) -> None:
    text = "(role p) " + " ".join(f"(init (f {n}))" for n in names)
    text += " (<= (next (f ?x)) (true (f ?x))) (<= (legal p go) (true (f ?x)))"
    gp = ground(parse_rules(text), timeout=None)
    assert set(gp.true_domain) == {func("f", Const(n)) for n in names}


SIMULTANEOUS = """
(role a) (role b)
(pos 1) (pos 2) (pos 3) (pos 4) (pos 5) (pos 6)
(<= (other ?x ?p) (pos ?x) (pos ?p) (distinct ?x ?p))
(<= (init (cell ?x e)) (pos ?x))
(<= (legal ?r (mark ?p)) (role ?r) (true (cell ?p e)))
(<= (next (cell ?x e))
    (true (cell ?x e)) (does a (mark ?p)) (other ?x ?p) (does b (mark ?q)) (other ?x ?q))
(<= (next (cell ?p a)) (does a (mark ?p)))
(<= (next (cell ?q b)) (does b (mark ?q)) (not (does a (mark ?q))))
(<= (next (cell ?x ?v)) (true (cell ?x ?v)) (distinct ?v e))
(<= open (true (cell ?x e)))
(<= terminal (not open))
(<= (goal ?r 50) (role ?r))
"""


def test_independent_move_literals_are_split_not_multiplied() -> None:
    gp = ground(parse_rules(SIMULTANEOUS), timeout=None)
    # Without splitting, next(cell X e) has one ground rule per (X, P, Q): 6 * 5 * 5 = 150;
    # split, one per X (over two auxiliary atoms with 5 rules each).
    frame = {a for a, t in gp.atoms.items() if str(t).startswith("(next (cell") and "e)" in str(t)}
    assert len(frame) == 6
    assert sum(1 for head, _ in gp.rules if head in frame) == 6
    from ggpkit.gdl.kif import parse_term
    from ggpkit.reasoning.propnet.reasoner import PropnetReasoner

    r = PropnetReasoner.from_rules(parse_rules(SIMULTANEOUS))
    s = r.next(r.initial(), [parse_term("(mark 1)"), parse_term("(mark 2)")])
    cells = sorted(str(f) for f in r.facts(s))
    assert cells == [
        "(cell 1 a)", "(cell 2 b)", "(cell 3 e)", "(cell 4 e)", "(cell 5 e)", "(cell 6 e)",
    ]  # fmt: skip
    s = r.next(s, [parse_term("(mark 3)"), parse_term("(mark 3)")])
    assert "(cell 3 a)" in {str(f) for f in r.facts(s)}
    assert "(cell 3 e)" not in {str(f) for f in r.facts(s)}


LABELLED = """
(role p)
(label 1) (label 2) (label 3) (label 4) (label 5) (label 6)
(cell a) (cell b) (cell c) (cell d) (cell e) (cell f)
(succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(init (step 1))
(init (owner 1 a)) (init (owner 2 b)) (init (owner 3 c))
(<= (legal p (pick ?e)) (label ?e) (true (step ?s)) (succ ?s ?t))
(<= (chosen ?e) (does p (pick ?e)))
(<= (next (owner ?k ?x)) (chosen ?e) (true (owner ?e ?x)) (true (step ?k)))
(<= (next (owner ?k ?x)) (true (owner ?k ?x)) (not (chosen ?k)))
(<= (next (step ?t)) (true (step ?s)) (succ ?s ?t))
(<= terminal (true (step 6)))
(<= (goal p 100) (true (owner 6 ?x)))
(<= (goal p 0) (not (goal p 100)))
"""
"""Hex's groups in small: the cells of the picked label go to the label of this step."""


def test_a_component_is_split_off_when_the_rest_of_the_rule_widens_it() -> None:
    gp = ground(parse_rules(LABELLED), timeout=None)
    # Cells a, b and c can be owned, by 6 labels: 18 heads. Unsplit, next(owner K X) :-
    # chosen(E), true(owner E X), true(step K) grounds to K * E * X = 108 rules; with
    # aux(X) :- chosen(E), true(owner E X) split off, to one rule per (K, X), as the
    # frame rule does.
    heads = {a for a, t in gp.atoms.items() if str(t).startswith("(next (owner")}
    assert len(heads) == 18
    assert sum(1 for head, _ in gp.rules if head in heads) == 2 * 18


def test_the_split_game_plays_as_the_prover_says() -> None:
    from ggpkit.reasoning.propnet.reasoner import PropnetReasoner
    from ggpkit.reasoning.prover.reasoner import Prover

    rules = parse_rules(LABELLED)
    fast, slow = PropnetReasoner.from_rules(rules), Prover(rules)
    for pick in range(1, 7):
        a, b = fast.initial(), slow.initial()
        while not fast.terminal(a):
            assert fast.facts(a) == slow.facts(b)
            legal = fast.legal(a, 0)
            assert legal == slow.legal(b, 0)
            move = legal[(pick + len(fast.facts(a))) % len(legal)]
            a, b = fast.next(a, [move]), slow.next(b, [move])
        assert slow.terminal(b)
        assert fast.facts(a) == slow.facts(b)
        assert fast.goal(a, 0) == slow.goal(b, 0)


FRAME = """
(role a)
(pos 1) (pos 2) (pos 3) (pos 4)
(<= (other ?x ?p) (pos ?x) (pos ?p) (distinct ?x ?p))
(<= (init (cell ?x e)) (pos ?x))
(<= (legal a (mark ?p)) (true (cell ?p e)))
(<= (next (cell ?x ?v)) (true (cell ?x ?v)) (does a (mark ?p)) (other ?x ?p))
(<= (next (cell ?p x)) (does a (mark ?p)))
(<= terminal (not (true (cell 1 e))))
(<= (goal a 100) terminal)
(<= (goal a 0) (not terminal))
"""
"""A frame rule whose move is joined to the cell by a variable the head does not have."""


def test_a_move_stays_in_its_rule_for_the_move_sets() -> None:
    gp = ground(parse_rules(FRAME), timeout=None)
    does = {a for a, t in gp.atoms.items() if str(t).startswith("(does")}
    frame = {a for a, t in gp.atoms.items() if str(t).startswith("(next (cell") and "e)" in str(t)}
    # One component (the move and 'other') that the cell's value ?v widens; but the
    # propnet's move sets merge a rule's bodies that differ in their move alone, so the
    # move stays in the rule rather than going to an auxiliary relation.
    bodies = [body for head, body in gp.rules if head in frame]
    assert len(bodies) == 4 * 3
    assert all(any(abs(x) in does for x in body) for body in bodies)


GRID = """
(role a)
(n 1) (n 2) (n 3) (n 4)
(<= (init (cell ?i ?j b)) (n ?i) (n ?j))
(<= (legal a (mark ?i ?j ?x)) (true (cell ?i ?j b)) (n ?x))
(<= (next (cell ?i ?j ?x)) (does ?r (mark ?i ?j ?x)))
(<= (next (cell ?i ?j ?x)) (true (cell ?i ?j ?x)) (does ?r (mark ?s ?t ?y)) (distinct ?s ?i))
(<= (next (cell ?i ?j ?x)) (true (cell ?i ?j ?x)) (does ?r (mark ?s ?t ?y)) (distinct ?t ?j))
(<= open (true (cell ?i ?j b)))
(<= terminal (not open))
(<= terminal (true (cell 1 1 4)))
(<= (goal a 100) (true (cell 1 1 1)) (true (cell 4 4 4)))
(<= (goal a 0) (not (true (cell 1 1 1))))
(<= (goal a 0) (not (true (cell 4 4 4))))
"""
"""A sudoku's frame rules in small: each grounds to every cell and value times every
move of another row (column): 80 x 48, unless the move's variables that the head
lacks are projected out."""
GRID_RULES_WITH_MOVES = 2 * 80 * 48


def test_a_program_too_big_for_its_moves_grounds_with_the_moves_projected_out() -> None:
    from ggpkit.reasoning.propnet.reasoner import PropnetReasoner
    from ggpkit.reasoning.prover.reasoner import Prover

    rules = parse_rules(GRID)
    assert len(ground(rules, timeout=None).rules) > GRID_RULES_WITH_MOVES  # moves kept
    small = ground(rules, timeout=None, max_atoms=GRID_RULES_WITH_MOVES // 2)
    assert len(small.rules) < GRID_RULES_WITH_MOVES // 4
    fast = PropnetReasoner.from_rules(rules, max_atoms=GRID_RULES_WITH_MOVES // 2)
    slow = Prover(rules)
    for line in range(60):
        a, b = fast.initial(), slow.initial()
        step = 0
        while not fast.terminal(a):
            assert fast.facts(a) == slow.facts(b)
            legal = fast.legal(a, 0)
            assert legal == slow.legal(b, 0)
            move = legal[(line * 7 + step * 3) % len(legal)]
            a, b = fast.next(a, [move]), slow.next(b, [move])
            step += 1
        assert slow.terminal(b) and fast.facts(a) == slow.facts(b)
        assert fast.goal(a, 0) == slow.goal(b, 0)


QUADS = """
(role a) (role b)
(piece p00) (piece p01) (piece p10) (piece p11)
(index 1) (index 2) (index 3) (index 4) (bit 0) (bit 1)
(bitIs 1 p00 0) (bitIs 2 p00 0) (bitIs 1 p01 0) (bitIs 2 p01 1)
(bitIs 1 p10 1) (bitIs 2 p10 0) (bitIs 1 p11 1) (bitIs 2 p11 1)
(<= (same ?p1 ?p2 ?p3 ?p4)
    (bit ?b) (bitIs ?n ?p1 ?b) (bitIs ?n ?p2 ?b) (bitIs ?n ?p3 ?b) (bitIs ?n ?p4 ?b))
(init (control a))
(<= (init (cell ?i empty)) (index ?i))
(<= (legal ?r (put ?p ?i)) (true (control ?r)) (piece ?p) (true (cell ?i empty)))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (next (cell ?i ?p)) (does ?r (put ?p ?i)))
(<= (next (cell ?i ?v)) (true (cell ?i ?v)) (does ?r (put ?p ?j)) (distinct ?i ?j))
(<= (next (control a)) (true (control b)))
(<= (next (control b)) (true (control a)))
(<= line (true (cell 1 ?p1)) (true (cell 2 ?p2)) (true (cell 3 ?p3)) (true (cell 4 ?p4))
    (same ?p1 ?p2 ?p3 ?p4))
(<= open (true (cell ?i empty)))
(<= terminal line)
(<= terminal (not open))
(<= (goal ?r 100) (role ?r) line (not (true (control ?r))))
(<= (goal ?r 0) (role ?r) line (true (control ?r)))
(<= (goal ?r 50) (role ?r) (not line))
"""
"""Quarto in small: four cells in a line win when their pieces share a bit, through
a static relation (``same``) that one rule defines over the pieces' bits."""


def test_a_static_join_is_unfolded_and_its_variables_projected_out() -> None:
    gp = ground(parse_rules(QUADS), timeout=None)
    terminal = next(a for a, t in gp.atoms.items() if t == Const("terminal"))
    # terminal :- line and terminal :- not open; line is not a keyword: a bare number.
    (line,) = {x for head, body in gp.rules if head == terminal for x in body if x > 0}
    # Joined through 'same', line has a rule per four pieces sharing a bit (60); with
    # 'same' unfolded and the first three cells' pieces projected out, one per bit,
    # value and piece of the last cell (the bit's number bounds no auxiliary there).
    assert len([head for head, _ in gp.rules if head == line]) == 8


def test_the_unfolded_game_plays_as_the_prover_says() -> None:
    from ggpkit.reasoning.propnet.reasoner import PropnetReasoner
    from ggpkit.reasoning.prover.reasoner import Prover

    rules = parse_rules(QUADS)
    fast, slow = PropnetReasoner.from_rules(rules), Prover(rules)
    for line in range(300):
        a, b = fast.initial(), slow.initial()
        step = 0
        while not fast.terminal(a):
            assert fast.facts(a) == slow.facts(b)
            joint = []
            for r in (0, 1):
                legal = fast.legal(a, r)
                assert legal == slow.legal(b, r)
                joint.append(legal[(line * 7 + step * 3) % len(legal)])
            a, b = fast.next(a, joint), slow.next(b, joint)
            step += 1
        assert slow.terminal(b)
        assert fast.facts(a) == slow.facts(b)
        assert [fast.goal(a, r) for r in (0, 1)] == [slow.goal(b, r) for r in (0, 1)]


def test_no_auxiliary_where_a_fact_table_fixes_the_projected_variable() -> None:
    from ggpkit.reasoning.grounding.rule_parts import rule_parts

    rules = parse_rules(
        "(role p) (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (init (s 0)) (init on)"
        "(<= (legal p go) (true on))"
        "(<= (next (s ?z)) (true (s ?x)) (succ ?x ?y) (succ ?y ?z) (true on))"
        "(<= (next on) (true on)) (<= terminal (true (s 4))) (<= (goal p 100) (true (s 4)))"
    )
    # Projecting ?x out (aux(Y) :- true(s X), succ(X, Y)) would make each auxiliary an
    # alias of one fact, as in pentago's rows: nodes added, nothing saved.
    heads = [str(head) for head, _ in rule_parts(rules)]
    assert not [h for h in heads if h.startswith("(aux")]


def test_a_table_derived_by_rules_shows_the_fan_in_too() -> None:
    # The same game, its bits given through a rule: projection needs the derived table.
    derived = QUADS.replace("(bitIs ", "(bitFact ", 8) + "(<= (bitIs ?n ?p ?b) (bitFact ?n ?p ?b))"
    gp = ground(parse_rules(derived), timeout=None)
    terminal = next(a for a, t in gp.atoms.items() if t == Const("terminal"))
    (line,) = {x for head, body in gp.rules if head == terminal for x in body if x > 0}
    assert len([head for head, _ in gp.rules if head == line]) == 8


def test_a_column_that_only_a_state_fact_holds_is_projected_out() -> None:
    from ggpkit.gdl.terms import variables
    from ggpkit.reasoning.grounding.rule_parts import rule_parts
    from ggpkit.reasoning.propnet.reasoner import PropnetReasoner
    from ggpkit.reasoning.prover.reasoner import Prover

    rules = parse_rules(
        "(role p) (succ 1 2) (succ 2 3) (col a) (col b) (col c)"
        "(<= (smaller ?x ?y) (succ ?x ?y))"
        "(init (cell a 1 s)) (init (cell b 3 w)) (init (step 1))"
        "(<= (legal p (go ?x ?y)) (col ?x) (succ ?z ?y) (true (step ?z)))"
        "(<= (next (cell ?x ?y s)) (does p (go ?x ?y)))"
        "(<= (next (cell ?x ?y w)) (true (cell ?x ?y w)))"
        "(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))"
        "(<= behind (true (cell ?xw ?yw w)) (true (cell ?xs ?ys s)) (smaller ?ys ?yw))"
        "(<= terminal (true (step 3))) (<= (goal p 100) behind) (<= (goal p 0) (not behind))"
    )
    # behind joined every wolf column with every sheep column; each column, held by
    # the state fact alone, is projected out: aux(YS) :- true(cell XS YS s), and the same
    # for the wolf.
    auxes = [sorted(variables(h)) for h, _ in rule_parts(rules) if str(h).startswith("(aux")]
    assert ["ys"] in auxes and ["yw"] in auxes
    fast, slow = PropnetReasoner.from_rules(rules), Prover(rules)
    for x in ("a", "b", "c"):
        a, b = fast.initial(), slow.initial()
        while not fast.terminal(a):
            move = next(m for m in fast.legal(a, 0) if str(m).startswith(f"(go {x}"))
            assert fast.legal(a, 0) == slow.legal(b, 0)
            a, b = fast.next(a, [move]), slow.next(b, [move])
            assert fast.facts(a) == slow.facts(b)
        assert slow.terminal(b) and fast.goal(a, 0) == slow.goal(b, 0)
