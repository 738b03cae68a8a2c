"""Static checks of a GDL game description, reported as ``file:line:col: severity: message``.

The checks follow the GDL specification (Love et al., *General Game Playing: Game
Description Language Specification*) as real game managers apply it:

* ``syntax``: the text cannot be read;
* ``missing``: a required relation (``role``, ``legal``, ``goal``, ``terminal``) is absent;
* ``arity``: a relation used with different numbers of arguments, or a keyword with the
  wrong number;
* ``keyword``: a keyword where it may not stand (``true``/``does`` as a rule head,
  ``init``/``next``/``sees`` inside a body, ``role`` other than as a fact, ``<=`` anywhere
  but at the top level, ...), a role that is no constant or is declared twice, a number or
  a string standing as a sentence;
* ``dependency``: ``init``, ``role``, ``base``, ``input`` depending on ``true`` or ``does``,
  ``init`` on the state relations, ``legal``/``goal``/``terminal`` on ``does``, or a
  percept (``sees``) on ``next`` or ``init``;
* ``chance``: GDL-II's nature, the role ``random``, with no ``legal`` rule that can give
  it a move;
* ``safety``: a variable of the head, of a negation or of a ``distinct`` that no positive
  literal of the body binds;
* ``stratification``: recursion through ``not`` (after splitting relations by constant
  arguments, so ``(<= (goal r 100) (not (goal r 0)))`` is accepted, as ggp-base does);
* ``recursion``: the recursion restriction of the specification (which keeps the set of
  derivable facts finite);
* ``goal``: a goal value that is not an integer 0..100;
* warnings: relations used but never defined (always false), keywords that are legal
  but unusual in a body, a percept for something that is no role.

GDL-II (Thielscher, 2010) is told by ``sees``: ``(sees ?role ?percept)`` is what a role
perceives after a joint move, computed like ``next`` from the current state and the
moves, so it stands only as a rule head and never depends on the next state. In GDL-II
rules the role ``random`` is nature, whose moves are drawn at random; a role named
``random`` in rules without ``sees`` is an ordinary GDL role (beatMania's).

Every problem carries the source position of the term at fault, so a person can go
straight to it. ``check_rules`` is the library call; ``ggpkit check`` prints the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ggpkit.gdl.game_rules import (
    base_relation,
    body_atoms,
    can_name,
    chance_role,
    dependency_graph,
    expand_or,
    is_role_fact,
    negative_cycles,
    relation,
    stratify_by_constants,
    strongly_connected_components,
)
from ggpkit.gdl.kif import GdlSyntaxError, Rule, parse_rules, read_kif_file
from ggpkit.gdl.terms import Const, Func, Pos, Term, Var, is_ground, is_number, variables

# Fixed arities of the GDL keywords used as relations.
KEYWORD_ARITY = {
    "role": 1,
    "init": 1,
    "true": 1,
    "does": 2,
    "next": 1,
    "legal": 2,
    "goal": 2,
    "terminal": 0,
    "base": 1,
    "input": 2,
    "sees": 2,
    "distinct": 2,
    "not": 1,
}
REQUIRED = ("role", "legal", "goal", "terminal")
STATE_RELATIONS = frozenset({"true", "does", "next", "legal", "goal", "terminal"})


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem found by the checker, printed as ``file:line:col: severity: message``.

    ``severity`` is ``"error"`` (the game cannot be played as written) or ``"warning"``
    (legal GDL that is probably a mistake); ``code`` names the kind of check.
    """

    pos: Pos
    severity: str
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.pos}: {self.severity}: {self.message}"


class _Report:
    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[Problem] = []
        self._seen: set[tuple[str, str, str]] = set()

    def add(self, where: Term | Rule | Pos | None, severity: str, code: str, message: str) -> None:
        pos = where if isinstance(where, Pos) else (where.pos if where is not None else None)
        pos = pos or Pos(self.file, 1, 1)
        key = (str(pos), code, message)
        if key not in self._seen:
            self._seen.add(key)
            self.problems.append(Problem(pos, severity, code, message))

    def error(self, where: Term | Rule | Pos | None, code: str, message: str) -> None:
        self.add(where, "error", code, message)

    def warning(self, where: Term | Rule | Pos | None, code: str, message: str) -> None:
        self.add(where, "warning", code, message)


def check_text(text: str, file: str = "<string>") -> list[Problem]:
    """Read and check a game description; a syntax error or a limit crossed is one problem."""
    try:
        return check_rules(parse_rules(text, file), file)
    except GdlSyntaxError as e:
        return [Problem(e.pos, "error", "syntax", e.message)]


def check_file(path: Path | str) -> list[Problem]:
    """Check a ``.kif`` file (never reading more of it than the reader accepts)."""
    try:
        text = read_kif_file(path)
    except GdlSyntaxError as e:
        return [Problem(e.pos, "error", "syntax", e.message)]
    return check_text(text, str(path))


def errors(problems: Iterable[Problem]) -> list[Problem]:
    """The problems that are errors."""
    return [p for p in problems if p.severity == "error"]


def check_rules(rules: Sequence[Rule], file: str | None = None) -> list[Problem]:
    """Every problem of a game description, sorted by position."""
    if file is None:
        file = next((r.pos.file for r in rules if r.pos is not None), "<string>")
    report = _Report(file)
    _check_gdl2(rules, report)
    _check_keywords(rules, report)
    _check_arity(rules, report)
    _check_required(rules, report)
    _check_safety(rules, report)
    _check_goal_values(rules, report)
    _check_dependencies(rules, report)
    _check_undefined(rules, report)
    return sorted_problems(report.problems)


def sorted_problems(problems: Iterable[Problem]) -> list[Problem]:
    """Problems in the order of the text (as :func:`check_rules` gives them)."""
    return sorted(problems, key=lambda p: (p.pos.line, p.pos.col, p.severity, p.message))


# ---- individual checks ----------------------------------------------------------------


def _atoms(rule: Rule) -> Iterable[tuple[Term, bool, bool]]:
    """(atom, in_body, negated) for the head and every body atom of a rule."""
    yield rule.head, False, False
    for lit in rule.body:
        for atom, negated in body_atoms(lit):
            yield atom, True, negated


def _check_gdl2(rules: Sequence[Rule], report: _Report) -> None:
    """GDL-II's own restrictions: nature can move, and percepts go to roles.

    Where the rules make ``random`` nature, some ``legal`` rule head must be able to name
    it (the constant itself or a variable): otherwise nature has no move in any state
    and no match could take a step. A percept whose role is a constant that no
    ``role`` fact declares is seen by nobody: legal, but probably a misspelling.
    """
    chance = chance_role(rules)
    if chance is not None and not any(can_name(r.head, "legal", chance) for r in rules):
        declared = next(r for r in rules if is_role_fact(r, chance))
        report.error(
            declared.head,
            "chance",
            f"the role '{chance}' is nature in GDL-II, but no 'legal' rule can give it a move",
        )
    roles = {
        r.head.args[0].name
        for r in rules
        if is_role_fact(r) and isinstance(r.head, Func) and isinstance(r.head.args[0], Const)
    }
    for rule in rules:
        head = rule.head
        if isinstance(head, Func) and head.name == "sees" and len(head.args) == 2:
            who = head.args[0]
            if isinstance(who, Const) and who.name not in roles:
                report.warning(who, "undefined", f"a percept for '{who}', which is no role")


def _check_keywords(rules: Sequence[Rule], report: _Report) -> None:
    roles: dict[str, Term] = {}
    for rule in rules:
        head = rule.head
        name = relation(head)
        if name in ("true", "does"):
            report.error(head, "keyword", f"'{name}' may only appear in a rule body, not as a head")
        elif name in ("not", "or", "distinct"):
            report.error(head, "keyword", f"'{name}' cannot be the head of a rule")
        elif name == "role":
            _check_role(rule, roles, report)
        _check_not_a_value(head, report)
        for lit in rule.body:
            _check_body_literal(lit, report)
        _check_nested_implications(rule, report)


def _check_role(rule: Rule, roles: dict[str, Term], report: _Report) -> None:
    """A role is a constant given once by a fact: the roles are a fixed, ordered list."""
    head = rule.head
    if rule.body:
        report.error(head, "keyword", "'role' must be given as a fact, not by a rule")
        return
    if not isinstance(head, Func) or len(head.args) != 1:
        return  # the arity check reports it
    role = head.args[0]
    if not isinstance(role, Const):
        report.error(role, "keyword", f"a role must be a constant, found {role}")
        return
    first = roles.get(role.name)
    if first is None:
        roles[role.name] = head
        return
    where = f" (first at {first.pos.line}:{first.pos.col})" if first.pos else ""
    report.error(head, "keyword", f"duplicate role '{role.name}'{where}")


def _check_not_a_value(atom: Term, report: _Report) -> None:
    """A number or a string standing where a sentence must (the reader refuses them as
    the name of a list, but a bare constant is read as a sentence of arity 0)."""
    if isinstance(atom, Const) and is_number(atom.name):
        report.error(atom, "keyword", f"a number cannot be a relation: '{atom.name}'")
    elif isinstance(atom, Const) and atom.name.startswith('"'):
        report.error(atom, "keyword", f"a string cannot be a relation: {atom.name}")


def _check_nested_implications(rule: Rule, report: _Report) -> None:
    """``<=`` makes a rule out of a top-level term; anywhere inside one it means nothing
    (GDL has no rules inside rules), so every nested ``<=`` is an error."""
    todo: list[Term] = [rule.head, *rule.body]
    while todo:
        term = todo.pop()
        if term.name == "<=":
            report.error(
                term,
                "keyword",
                "an implication '<=' may stand only at the top level, not inside a rule or term",
            )
        if isinstance(term, Func):
            todo.extend(term.args)


def _check_body_literal(lit: Term, report: _Report) -> None:
    if isinstance(lit, Var):
        report.error(lit, "keyword", f"a body literal cannot be a variable '{lit}'")
        return
    _check_not_a_value(lit, report)
    name = lit.name
    if name == "not":
        if isinstance(lit, Func) and len(lit.args) == 1:
            inner = lit.args[0]
            if isinstance(inner, Var):
                report.error(inner, "keyword", f"'not' needs a literal, found the variable {inner}")
            else:
                _check_body_literal(inner, report)
        return
    if name == "or":
        if isinstance(lit, Func):
            for a in lit.args:
                _check_body_literal(a, report)
        if not isinstance(lit, Func) or not lit.args:
            report.error(lit, "keyword", "'or' needs at least one literal")
        return
    if name in ("init", "next"):
        report.error(lit, "keyword", f"'{name}' may only appear as a rule head, not in a body")
    elif name == "sees":
        report.error(
            lit,
            "keyword",
            "'sees' may only appear as a rule head, not in a body: a percept is what the "
            "rules tell a role, never a condition of them",
        )
    elif name in ("base", "input"):
        report.warning(lit, "keyword", f"'{name}' in a rule body is unusual")


def _check_arity(rules: Sequence[Rule], report: _Report) -> None:
    first: dict[str, tuple[int, Term]] = {}
    for rule in rules:
        for atom, _, _ in _atoms(rule):
            _arity_of(atom, first, report)
        for lit in rule.body:
            _connective_arity(lit, report)


def _connective_arity(lit: Term, report: _Report) -> None:
    if not isinstance(lit, Func | Const):
        return
    n = len(lit.args) if isinstance(lit, Func) else 0
    if lit.name == "not":
        if n != 1:
            report.error(lit, "arity", f"'not' takes 1 argument, found {n}")
        elif isinstance(lit, Func):
            _connective_arity(lit.args[0], report)
    elif lit.name == "distinct":
        if n != 2:
            report.error(lit, "arity", f"'distinct' takes 2 arguments, found {n}")
    elif lit.name == "or" and isinstance(lit, Func):
        for a in lit.args:
            _connective_arity(a, report)


def _arity_of(atom: Term, first: dict[str, tuple[int, Term]], report: _Report) -> None:
    name = relation(atom)
    n = len(atom.args) if isinstance(atom, Func) else 0
    expected = KEYWORD_ARITY.get(name)
    if expected is not None:
        if n != expected:
            report.error(
                atom, "arity", f"'{name}' takes {expected} argument(s), found {n} in {atom}"
            )
        return
    seen = first.get(name)
    if seen is None:
        first[name] = (n, atom)
    elif seen[0] != n:
        where = seen[1].pos
        report.error(
            atom,
            "arity",
            f"relation '{name}' used with {n} argument(s) here but with {seen[0]} at "
            f"{where.line}:{where.col}"
            if where
            else f"relation '{name}' has two arities",
        )


def _check_required(rules: Sequence[Rule], report: _Report) -> None:
    heads = {relation(r.head) for r in rules}
    if rules and not heads & set(REQUIRED):
        report.error(
            Pos(report.file, 1, 1),
            "missing",
            "a fragment, not a game: it defines none of 'role', 'legal', 'goal' and "
            "'terminal' (rules meant to be added to another game's)",
        )
        return
    for name in REQUIRED:
        if name not in heads:
            report.error(Pos(report.file, 1, 1), "missing", f"the game defines no '{name}'")
    if "init" not in heads:
        report.warning(
            Pos(report.file, 1, 1), "missing", "the game defines no 'init' (empty initial state)"
        )


def _first_occurrence(terms: Iterable[Term], name: str) -> Term | None:
    for t in terms:
        if isinstance(t, Var) and t.name == name:
            return t
        if isinstance(t, Func):
            found = _first_occurrence(t.args, name)
            if found is not None:
                return found
    return None


def _check_safety(rules: Sequence[Rule], report: _Report) -> None:
    for rule in rules:
        if not rule.body:
            if not is_ground(rule.head):
                var = _first_occurrence([rule.head], sorted(variables(rule.head))[0])
                report.error(var or rule.head, "safety", f"a fact cannot contain variables: {var}")
            continue
        for body in expand_or(rule.body):
            bound: set[str] = set()
            for lit in body:
                for atom, negated in body_atoms(lit):
                    if not negated:
                        bound |= variables(atom)
            for v in sorted(variables(rule.head) - bound):
                occ = _first_occurrence([rule.head], v)
                report.error(
                    occ or rule.head,
                    "safety",
                    f"unsafe rule: the head variable ?{v} does not occur in a positive "
                    "literal of the body",
                )
            for lit in body:
                kind = "distinct" if relation(lit) == "distinct" else "negation"
                if relation(lit) not in ("not", "distinct"):
                    continue
                for v in sorted(variables(lit) - bound):
                    occ = _first_occurrence([lit], v)
                    report.error(
                        occ or lit,
                        "safety",
                        f"unsafe rule: the variable ?{v} of this {kind} does not occur in a "
                        "positive literal of the body",
                    )


def _check_goal_values(rules: Sequence[Rule], report: _Report) -> None:
    for rule in rules:
        head = rule.head
        if isinstance(head, Func) and head.name == "goal" and len(head.args) == 2:
            value = head.args[1]
            if isinstance(value, Var):
                continue
            ok = isinstance(value, Const) and value.name.isdigit() and 0 <= int(value.name) <= 100
            if not ok:
                report.error(value, "goal", f"a goal value must be an integer 0..100, not {value}")


def _check_dependencies(rules: Sequence[Rule], report: _Report) -> None:
    graph = dependency_graph(rules)
    reach = {rel: graph.reachable(rel) for rel in graph.edges}
    first_head: dict[str, Rule] = {}
    for rule in rules:
        first_head.setdefault(relation(rule.head), rule)

    def bad(rel: str, forbidden: Iterable[str]) -> list[str]:
        deps = reach.get(rel, set()) | ({rel} if rel in reach.get(rel, set()) else set())
        return sorted(set(forbidden) & deps)

    for rel, forbidden in (
        ("init", STATE_RELATIONS),
        ("role", STATE_RELATIONS),
        ("base", ("true", "does")),
        ("input", ("true", "does")),
        ("legal", ("does",)),
        ("goal", ("does",)),
        ("terminal", ("does",)),
        ("sees", ("next", "init")),
    ):
        found = bad(rel, forbidden)
        if found:
            culprit: Term | Rule | None = _literal_depending_on(rules, rel, found[0], reach)
            report.error(
                culprit or first_head.get(rel),
                "dependency",
                f"'{rel}' must not depend on {', '.join(repr(f) for f in found)}"
                + _DEPENDENCY_WHY.get(rel, ""),
            )
    comps = strongly_connected_components(graph.edges)
    comp_of = {r: i for i, comp in enumerate(comps) for r in comp}
    for _rule, atom, head in negative_cycles(stratify_by_constants(rules)):
        body_rel = base_relation(relation(atom))
        head = base_relation(head)
        report.error(
            atom,
            "stratification",
            f"negation through recursion: '{head}' depends on (not {body_rel}) and "
            f"'{body_rel}' depends on '{head}'",
        )
    _check_recursion_restriction(rules, comp_of, report)


_DEPENDENCY_WHY = {
    "sees": " (a percept comes from the current state and the joint move, not the next state)"
}


def _literal_depending_on(
    rules: Sequence[Rule], rel: str, target: str, reach: dict[str, set[str]]
) -> Term | None:
    """The first body atom of a rule for ``rel`` that leads to ``target`` (its position)."""
    for rule in rules:
        if relation(rule.head) != rel:
            continue
        for lit in rule.body:
            for atom, _ in body_atoms(lit):
                r = relation(atom)
                if r == target or target in reach.get(r, set()):
                    return atom
    return None


def _check_recursion_restriction(
    rules: Sequence[Rule], comp_of: dict[str, int], report: _Report
) -> None:
    """GDL spec, section 3.4: an argument of a recursive subgoal must be ground, a head
    argument, or bound by a positive subgoal outside the cycle."""
    for rule in rules:
        head = rule.head
        head_rel = relation(head)
        head_args = head.args if isinstance(head, Func) else ()
        for body in expand_or(rule.body):
            outside: set[str] = set()
            recursive: list[Term] = []
            for lit in body:
                for atom, negated in body_atoms(lit):
                    if negated:
                        continue
                    if comp_of.get(relation(atom)) == comp_of.get(head_rel):
                        recursive.append(atom)
                    else:
                        outside |= variables(atom)
            for atom in recursive:
                if not isinstance(atom, Func):
                    continue
                for arg in atom.args:
                    if is_ground(arg) or arg in head_args or variables(arg) <= outside:
                        continue
                    report.error(
                        arg,
                        "recursion",
                        f"recursion restriction: the argument {arg} of the recursive "
                        f"'{relation(atom)}' is neither ground, nor a head argument, nor bound "
                        "by a literal outside the recursion",
                    )


def _check_undefined(rules: Sequence[Rule], report: _Report) -> None:
    defined = {relation(r.head) for r in rules} | {"true", "does", "<="}  # '<=': an error
    for rule in rules:
        for lit in rule.body:
            for atom, _ in body_atoms(lit):
                name = relation(atom)
                if name not in defined:
                    report.warning(
                        atom, "undefined", f"relation '{name}' is never defined (always false)"
                    )
                    defined.add(name)
