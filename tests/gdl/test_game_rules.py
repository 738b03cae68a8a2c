"""Rule-set structure: atoms through not/or, or-expansion, components, constant splitting."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ggpkit.gdl.game_rules import (
    body_atoms,
    dependency_graph,
    expand_or,
    fluents_read,
    negative_cycles,
    stratify_by_constants,
    strongly_connected_components,
)
from ggpkit.gdl.kif import parse_rules, parse_term


def test_body_atoms_look_through_not_and_or_but_skip_distinct() -> None:
    lit = parse_term("(not (or (p ?x) (not (q ?x)) (distinct ?x 1)))")
    assert [(str(a), neg) for a, neg in body_atoms(lit)] == [("(p ?x)", True), ("(q ?x)", False)]


def test_expand_or_gives_every_combination_and_pushes_not_inside() -> None:
    body = [parse_term("(or (a) (b))"), parse_term("(c)"), parse_term("(not (or (d) (e)))")]
    assert [" ".join(map(str, b)) for b in expand_or(body)] == [
        "(a) (c) (not (d)) (not (e))",
        "(b) (c) (not (d)) (not (e))",
    ]


def test_components_come_dependencies_first() -> None:
    rules = parse_rules("(<= a b) (<= b c) (<= c b) (<= d a) (<= b (true x))")
    comps = strongly_connected_components(dependency_graph(rules).edges)
    order = {r: i for i, comp in enumerate(comps) for r in comp}
    assert ["b", "c"] in comps
    assert order["true"] < order["b"] == order["c"] < order["a"] < order["d"]


@given(st.dictionaries(st.integers(0, 7), st.sets(st.integers(0, 7)), max_size=8))
def test_components_partition_the_graph_and_respect_edges(raw: dict[int, set[int]]) -> None:
    edges = {str(k): {str(v) for v in vs} for k, vs in raw.items()}
    comps = strongly_connected_components(edges)
    nodes = set(edges) | {v for vs in edges.values() for v in vs}
    assert sorted(r for comp in comps for r in comp) == sorted(nodes)
    order = {r: i for i, comp in enumerate(comps) for r in comp}
    for a, vs in edges.items():
        for b in vs:
            assert order[b] <= order[a]  # a depends on b: b's component comes first


def test_split_by_constants_breaks_goal_self_negation() -> None:
    text = """
    (role r)
    (<= (goal r 0) (true (blank ?c)))
    (<= (goal r 100) (not (goal r 0)))
    (<= (best ?v) (goal r ?v))
    """
    rules = parse_rules(text)
    assert len(negative_cycles(rules)) == 1
    split = stratify_by_constants(rules)
    assert negative_cycles(split) == []
    texts = {str(r) for r in split}
    assert "(<= (goal#1=100 r 100) (not (goal#1=0 r 0)))" in texts
    # a variable at the split place is instantiated with each constant
    assert "(<= (best 0) (goal#1=0 r 0))" in texts
    assert "(<= (best 100) (goal#1=100 r 100))" in texts
    # the original relation is the union of its parts (split on argument 1, the value)
    assert "(<= (goal ?_a0 0) (goal#1=0 ?_a0 0))" in texts
    assert "(<= (goal ?_a0 100) (goal#1=100 ?_a0 100))" in texts


def test_a_real_negative_cycle_is_left_unchanged() -> None:
    rules = parse_rules("(<= (p 1) (not (q 1))) (<= (q 1) (not (p 1)))")
    assert stratify_by_constants(rules) == rules


DEALS = parse_rules("""
(role dealer) (role player)
(<= (legal dealer (deal ?n)) (true (control dealer)) (true (size ?s)) (below ?n ?s))
(<= (legal ?p noop) (role ?p) (distinct ?p dealer) (not (true (control ?p))))
(<= (legal ?p (buy ?c)) (true (control ?p)) (affords ?p ?c))
(<= (affords ?p ?c) (true (money ?p ?m)) (not (true (sold ?c))) (cost ?c ?m))
(<= (below ?n ?s) (succ ?n ?s))
(<= (below ?n ?s) (succ ?n ?m) (below ?m ?s))
(<= terminal (true ?anything))
""")


def test_the_fluents_a_roles_legal_moves_read_through_other_relations() -> None:
    dealer, player = parse_term("dealer"), parse_term("player")
    assert fluents_read(DEALS, "legal", dealer) == {"control", "size", "money", "sold"}
    assert fluents_read(DEALS, "legal", player) == {"control", "money", "sold"}
    assert fluents_read(DEALS, "legal") == {"control", "size", "money", "sold"}
    assert fluents_read(DEALS, "terminal") is None  # (true ?anything): any fluent


def test_a_variable_head_told_apart_from_the_role_is_not_its_rule() -> None:
    rules = parse_rules("""
    (<= (legal ?p noop) (role ?p) (distinct ?p nature) (true (turn ?p)))
    (<= (legal nature (draw ?c)) (true (deck ?c)))
    """)
    assert fluents_read(rules, "legal", parse_term("nature")) == {"deck"}
    assert fluents_read(rules, "legal", parse_term("alice")) == {"turn"}
