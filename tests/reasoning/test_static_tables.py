"""Static relations' tables for projection: rows from facts and rules, or None."""

from __future__ import annotations

import pytest

from ggpkit.gdl.kif import parse_rules
from ggpkit.gdl.terms import Term
from ggpkit.reasoning.grounding import static_tables
from ggpkit.reasoning.grounding.literals import Part
from ggpkit.reasoning.grounding.rule_parts import _expand, dynamic_predicates
from ggpkit.reasoning.grounding.static_tables import StaticTables

RULES = """
(role p) (init (at 1))
(n 1) (n 2) (n 3) (n 4) (n 5)
(succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
(<= (two ?x ?z) (succ ?x ?y) (succ ?y ?z))
(<= (apart ?x ?y) (n ?x) (n ?y) (distinct ?x ?y) (not (succ ?x ?y)))
(<= (reach ?x ?y) (succ ?x ?y))
(<= (reach ?x ?z) (succ ?x ?y) (reach ?y ?z))
(<= (pair (p ?x) ?y) (n ?x) (two ?x ?y))
(<= (legal p go) (true (at ?x)))
(<= (next (at ?y)) (true (at ?x)) (succ ?x ?y))
(<= terminal (true (at 5)))
(<= (goal p 100) (true (at 5)))
"""


def tables() -> StaticTables:
    parts: list[Part] = [(rule.head, body) for rule in parse_rules(RULES) for body in _expand(rule)]
    return StaticTables(parts, dynamic_predicates(parts))


def rows(found: list[tuple[Term, ...]] | None) -> set[tuple[str, ...]]:
    assert found is not None
    return {tuple(str(t) for t in row) for row in found}


def test_a_relation_defined_by_rules_is_joined_from_its_facts() -> None:
    t = tables()
    assert rows(t.rows(("two", 2))) == {("1", "3"), ("2", "4"), ("3", "5")}
    # distinct and negation on a static relation filter the join
    expected = {(str(a), str(b)) for a in range(1, 6) for b in range(1, 6) if b not in (a, a + 1)}
    assert rows(t.rows(("apart", 2))) == expected
    assert rows(t.rows(("pair", 2))) == {("(p 1)", "3"), ("(p 2)", "4"), ("(p 3)", "5")}


def test_no_table_for_recursive_or_dynamic_relations() -> None:
    t = tables()
    assert t.rows(("reach", 2)) is None
    assert t.rows(("legal", 2)) is None


def test_a_relation_past_the_budget_has_no_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(static_tables, "MAX_ROWS", 5)
    t = tables()
    assert t.rows(("apart", 2)) is None  # 15 rows
    assert rows(t.rows(("two", 2))) == {("1", "3"), ("2", "4"), ("3", "5")}


def test_a_very_long_chain_of_relations_has_no_table_and_no_crash() -> None:
    chain = " ".join(f"(<= (r{i} ?x) (r{i + 1} ?x))" for i in range(3000))
    parts: list[Part] = [
        (rule.head, body)
        for rule in parse_rules(f"(role p) (r3000 1) {chain}")
        for body in _expand(rule)
    ]
    t = StaticTables(parts, dynamic_predicates(parts))
    assert t.rows(("r0", 1)) is None
    assert rows(t.rows(("r2999", 1))) == {("1",)}
