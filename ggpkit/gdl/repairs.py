"""Repairs at load time: defects of public game descriptions read as a reasoner reads them.

Some public games (GDL-II ones above all) were written for, and played on, Prolog-style
reasoners, which do not check the rules statically: a defect that the checker refuses
still has a reading there, the one the game has always been played with. ``ggpkit.load``
takes that reading for four defects, only where the checker flags the rule as an
error, and for a fifth that it warns of; each repair becomes a warning (a
:class:`~ggpkit.gdl.checker.Problem` at the place of the original text, saying what was
read how), which ``ggpkit check`` prints and the loaded game's ``GameInfo.notes``
carries:

* a stray top-level sentence that is a keyword misuse with no rule meaning (``(true
  (turn ?c))`` left behind after a rule closed early): dropped;
* a bare ``not`` before an atom in a rule body (``(<= terminal not open)``): read as
  ``(not open)``;
* a relation used with two arities (``(next-player random)`` beside ``(next-player a
  b)``, ``(true secretnumber ?n)``): a Prolog predicate is a name *and* an arity, so the
  uses with the other arity are a relation apart, renamed to a name the game cannot
  use; with no rule of its own it is never true, and ``not`` of it holds;
* a variable unsafe only because it stands in a ``distinct`` or a ``not`` while it is a
  role argument of the head (``(<= (legal ?p noop) (distinct ?p random) ...)``): a
  reasoner asks such a rule for one role at a time, so it is bound by adding ``(role
  ?p)`` to the body;
* a relation used in a body that nothing defines (the checker's warning) whose name is
  one edit from the name of exactly one defined relation of the same arity
  (``winningolor`` beside ``winningcolor``): read as that relation, a misspelling being
  the only reading under which the rule can ever hold.

Everything else stays an error: a file whose errors are not all repaired is refused at
the first error that remains, and ``ggpkit check`` stays strict (it reports the
original errors and warnings, then says that ``ggpkit.load`` repairs them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ggpkit.gdl.checker import KEYWORD_ARITY, Problem, check_rules, errors
from ggpkit.gdl.game_rules import (
    body_atoms,
    expand_or,
    fresh_name,
    is_role_fact,
    map_atoms,
    relation,
    symbol_names,
)
from ggpkit.gdl.kif import Rule
from ggpkit.gdl.terms import Const, Func, Pos, Term, Var, variables


@dataclass(frozen=True, slots=True)
class Repaired:
    """What :func:`repair_rules` made of a rule set."""

    rules: tuple[Rule, ...]
    """The rules as they are read: the original ones where nothing was repaired."""
    repairs: tuple[Problem, ...]
    """One warning per repair, at the place of the original text."""
    problems: tuple[Problem, ...]
    """The checker's problems of :attr:`rules` (the original problems when nothing was
    repaired): an error among them refuses the game."""

    @property
    def errors(self) -> list[Problem]:
        """The errors that remain: the game is refused at the first one."""
        return errors(self.problems)


Repair = Callable[[list[Rule], Sequence[Problem]], tuple[list[Rule], list[Problem]]]


def repair_rules(
    rules: Sequence[Rule], problems: Sequence[Problem] | None = None, file: str | None = None
) -> Repaired:
    """The rules with every repairable error repaired, and every misspelt relation the
    checker warns of read as the one meant (``problems``: the checker's, when already
    known). Rules with nothing a repair applies to come back unchanged with their
    problems."""
    found = list(problems) if problems is not None else check_rules(rules, file)
    flagged = errors(found)
    undefined = [p for p in found if p.code == "undefined" and p.severity == "warning"]
    if not flagged and not undefined:
        return Repaired(tuple(rules), (), tuple(found))
    current, warnings = read_misspelt_relations(list(rules), undefined)
    for repair in REPAIRS if flagged else ():
        current, made = repair(current, flagged)
        warnings.extend(made)
    if not warnings:
        return Repaired(tuple(rules), (), tuple(found))
    after = check_rules(current, file)
    return Repaired(tuple(current), tuple(_sorted(warnings)), tuple(after))


def _sorted(problems: Iterable[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: (p.pos.line, p.pos.col, p.message))


# ---- which rules the checker flags --------------------------------------------------------------


def _positions(rule: Rule) -> set[Pos]:
    """The source positions of a rule and of every term in it."""
    out = {rule.pos} if rule.pos is not None else set()
    todo: list[Term] = [rule.head, *rule.body]
    while todo:
        term = todo.pop()
        if term.pos is not None:
            out.add(term.pos)
        if isinstance(term, Func):
            todo.extend(term.args)
    return out


def _flagged(rule: Rule, flagged: Sequence[Problem], codes: Iterable[str]) -> bool:
    """True when the checker reports an error of one of ``codes`` inside ``rule``."""
    wanted = set(codes)
    where = {p.pos for p in flagged if p.code in wanted}
    return bool(where & _positions(rule))


def _warning(where: Term | Rule, message: str) -> Problem:
    pos = where.pos or Pos("<string>", 1, 1)
    return Problem(pos, "warning", "repaired", message)


# ---- the repairs --------------------------------------------------------------------------------

_NEVER_HEADS = frozenset({"true", "does", "not", "or", "distinct"})
"""Keywords that can never be the head of a rule: a sentence of theirs means nothing."""


def drop_stray_sentences(rules: list[Rule], flagged: Sequence[Problem]) -> tuple[
    list[Rule], list[Problem]
]:  # fmt: skip
    """Drop a top-level sentence (no ``<=``) of ``true``, ``does``, ``not``, ``or`` or
    ``distinct``.

    Why: no rule can conclude such a sentence, and a reasoner asks ``true`` and ``does``
    of the state and the moves, never of the rules; such a sentence is what is left when
    a rule's closing parenthesis came too early (its last condition then stands alone).
    The rule before it is read as it was closed.
    """
    out: list[Rule] = []
    made: list[Problem] = []
    for rule in rules:
        head = rule.head
        stray = (
            not rule.body
            and rule.pos == head.pos
            and relation(head) in _NEVER_HEADS
            and _flagged(rule, flagged, ("keyword",))
        )
        if not stray:
            out.append(rule)
            continue
        made.append(
            _warning(
                head,
                f"the top-level sentence {head} is no rule ('{relation(head)}' cannot be a "
                "head; a rule closed too early?): dropped, as a reasoner never asks for it",
            )
        )
    return out, made


def _is_bare_not(lit: Term) -> bool:
    return isinstance(lit, Const) and lit.name == "not"


def read_bare_not(rules: list[Rule], flagged: Sequence[Problem]) -> tuple[
    list[Rule], list[Problem]
]:  # fmt: skip
    """Read a bare ``not`` followed by an atom in a rule body as the negation of the atom.

    Why: ``(<= terminal not open)`` has an author who meant ``(not open)`` and left out
    the parentheses; ``not`` alone is no relation (the keyword takes one argument), so
    the only reading it has is the one that applies it to the literal that follows.
    """
    out: list[Rule] = []
    made: list[Problem] = []
    for rule in rules:
        if not any(map(_is_bare_not, rule.body)) or not _flagged(rule, flagged, ("arity",)):
            out.append(rule)
            continue
        body: list[Term] = []
        i = 0
        while i < len(rule.body):
            lit = rule.body[i]
            after = rule.body[i + 1] if i + 1 < len(rule.body) else None
            if _is_bare_not(lit) and after is not None and not _is_bare_not(after):
                body.append(Func("not", (after,), lit.pos))
                made.append(_warning(lit, f"a bare 'not' before {after}: read as (not {after})"))
                i += 2
            else:
                body.append(lit)
                i += 1
        out.append(Rule(rule.head, tuple(body), rule.pos))
    return out, made


def _atoms_of(rule: Rule) -> list[tuple[Term, bool]]:
    """(atom, is_head) for the head and every body atom of a rule (through not and or)."""
    found = [(rule.head, True)]
    for lit in rule.body:
        found += [(atom, False) for atom, _ in body_atoms(lit)]
    return found


def _arity(atom: Term) -> int:
    return len(atom.args) if isinstance(atom, Func) else 0


def split_arities(rules: list[Rule], flagged: Sequence[Problem]) -> tuple[
    list[Rule], list[Problem]
]:  # fmt: skip
    """Rename the uses of a relation with a second arity to a relation apart.

    Why: a Prolog predicate is its name and its arity, so ``(next-player random)`` and
    ``(next-player a b)`` are two relations there, each with its own rules; the one that
    has none is never true, and ``not`` of it holds. The arity that keeps the name is the
    keyword's own (``true`` takes 1), else the one that has rules (the first written
    where several have), else the first written; each other arity gets a fresh name
    (``next-player/1``) that no name of the game can meet. A keyword used with another
    arity in a head stays an error: it would define a relation nobody asks for.
    """
    where = {p.pos for p in flagged if p.code == "arity"}
    first: dict[str, list[int]] = {}  # arities in the order written
    defined: dict[str, set[int]] = {}
    touched: set[str] = set()
    for rule in rules:
        for atom, is_head in _atoms_of(rule):
            name, n = relation(atom), _arity(atom)
            if name in ("not", "distinct", "or"):
                continue
            if n not in first.setdefault(name, []):
                first[name].append(n)
            if is_head:
                defined.setdefault(name, set()).add(n)
            if atom.pos in where:
                touched.add(name)
    keep: dict[str, int] = {}
    for name in touched:
        arities = first[name]
        if len(arities) < 2 and name not in KEYWORD_ARITY:
            continue
        with_rules = [n for n in arities if n in defined.get(name, set())]
        keep[name] = KEYWORD_ARITY.get(name, (with_rules or arities)[0])
    if not keep:
        return rules, []
    used = symbol_names(rules)
    fresh: dict[tuple[str, int], str] = {}
    made: list[Problem] = []

    def rename(atom: Term, is_head: bool) -> Term:
        name, n = relation(atom), _arity(atom)
        if name not in keep or n == keep[name] or (is_head and name in KEYWORD_ARITY):
            return atom
        key = (name, n)
        if key not in fresh:
            fresh[key] = fresh_name(f"{name}/{n}", used)
        new = fresh[key]
        if n in defined.get(name, set()):
            meaning = "defined by its own rules"
        else:
            meaning = "which no rule defines: never true, so a 'not' of it holds"
        if name in KEYWORD_ARITY:
            said = f"'{name}' takes {keep[name]} argument(s), {n} here"
        else:
            said = f"'{name}' with {n} argument(s) here, with {keep[name]} elsewhere"
        made.append(_warning(atom, f"{said}: read as a relation apart, '{new}', {meaning}"))
        args = atom.args if isinstance(atom, Func) else ()
        return Func(new, args, atom.pos) if args else Const(new, atom.pos)

    out = [
        Rule(
            rename(rule.head, True),
            tuple(map_atoms(lit, lambda a: rename(a, False)) for lit in rule.body),
            rule.pos,
        )
        for rule in rules
    ]
    return out, made


ROLE_ARGUMENTS = frozenset(
    {("role", 0), ("legal", 0), ("goal", 0), ("sees", 0), ("does", 0), ("input", 0)}
)
"""The argument places of the keywords that hold a role."""


def role_positions(rules: Sequence[Rule]) -> set[tuple[str, int]]:
    """(relation, argument index) of every place that can only hold a role.

    The keywords' own (:data:`ROLE_ARGUMENTS`), and, to a fixpoint, every argument of a
    relation of the game that each use in a rule body fills with a declared role or with
    a variable standing at a role place of the same rule (``should_see ?player ...`` used
    only in ``(<= (sees ?player ...) (should_see ?player ...))``).
    """
    roles = {
        r.head.args[0].name
        for r in rules
        if is_role_fact(r) and isinstance(r.head, Func) and isinstance(r.head.args[0], Const)
    }
    uses: dict[tuple[str, int], list[tuple[Rule, Term]]] = {}
    for rule in rules:
        for lit in rule.body:
            for atom, _ in body_atoms(lit):
                if relation(atom) in KEYWORD_ARITY or not isinstance(atom, Func):
                    continue
                for k, arg in enumerate(atom.args):
                    uses.setdefault((atom.name, k), []).append((rule, arg))
    places = set(ROLE_ARGUMENTS)

    def at_role_place(rule: Rule, var: str) -> bool:
        atoms = [rule.head]
        for lit in rule.body:
            atoms += [a for a, negated in body_atoms(lit) if not negated]
        return any(
            isinstance(a, Func)
            and any(
                isinstance(x, Var) and x.name == var and (a.name, k) in places
                for k, x in enumerate(a.args)
            )
            for a in atoms
        )

    def is_role(rule: Rule, arg: Term) -> bool:
        if isinstance(arg, Const):
            return arg.name in roles
        return isinstance(arg, Var) and at_role_place(rule, arg.name)

    changed = True
    while changed:
        changed = False
        for key, args in uses.items():
            if key not in places and all(is_role(rule, arg) for rule, arg in args):
                places.add(key)
                changed = True
    return places


def bind_role_variables(rules: list[Rule], flagged: Sequence[Problem]) -> tuple[
    list[Rule], list[Problem]
]:  # fmt: skip
    """Add ``(role ?v)`` to a rule whose role argument ``?v`` of the head is unsafe only
    because no positive literal binds it where a ``distinct`` or a ``not`` tests it.

    Why: ``(<= (legal ?player noop) (distinct ?player random) (true pregame))`` is asked,
    by a Prolog-style reasoner, for one role at a time (a legal move, a goal or a percept
    is always some role's), so ``?player`` is bound before ``distinct`` runs: the rule
    means "every role but nature", which ``(role ?player)`` says for any reasoner.
    """
    places = role_positions(rules)
    out: list[Rule] = []
    made: list[Problem] = []
    for rule in rules:
        head = rule.head
        if not rule.body or not isinstance(head, Func) or not _flagged(rule, flagged, ("safety",)):
            out.append(rule)
            continue
        candidates: list[Var] = []
        for k, arg in enumerate(head.args):
            if (head.name, k) in places and isinstance(arg, Var) and arg not in candidates:
                candidates.append(arg)
        unsafe = set()
        for body in expand_or(rule.body):
            bound: set[str] = set()
            tested: set[str] = set()
            for lit in body:
                if relation(lit) in ("not", "distinct"):
                    tested |= variables(lit)
                bound |= {
                    v for atom, negated in body_atoms(lit) if not negated for v in variables(atom)
                }
            unsafe |= tested - bound
        bind = [v for v in candidates if v.name in unsafe]
        if not bind:
            out.append(rule)
            continue
        added: tuple[Term, ...] = tuple(Func("role", (Var(v.name, v.pos),), v.pos) for v in bind)
        out.append(Rule(head, (*added, *rule.body), rule.pos))
        for v in bind:
            made.append(
                _warning(
                    v,
                    f"{v}, a role argument of '{head.name}', is bound by no positive literal, "
                    f"only tested by 'distinct' or 'not': read as for every role, (role {v}) "
                    "added to the body",
                )
            )
    return out, made


# ---- a misspelt relation (a warning, not an error) ----------------------------------------------


def one_edit_apart(a: str, b: str) -> bool:
    """True when ``b`` is ``a`` with one letter inserted, deleted or replaced, or two
    adjacent letters swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        i = diff[0]
        return diff == [i, i + 1] and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long[k]), len(short))
    return short[i:] == long[i + 1 :]


MISSPELT_LENGTH = 4
"""The shortest name read as misspelt: one letter of ``p`` or ``ab`` is no slip of the
keyboard but another name (small test games use ``p`` and ``q`` side by side)."""


def misspellings(rules: Sequence[Rule], undefined: Sequence[Problem]) -> dict[
    tuple[str, int], str
]:  # fmt: skip
    """(name, arity) of each relation the checker warns is never defined, for those read
    as misspelt: the name of the one defined relation (a rule's head or a fact) of the
    same arity one edit away, neither name a keyword, the undefined one of
    :data:`MISSPELT_LENGTH` letters at least. Two such names, or none: no reading.
    """
    where = {p.pos for p in undefined}
    defined = {(relation(r.head), _arity(r.head)) for r in rules}
    defined_names = {name for name, _ in defined}
    meant: dict[tuple[str, int], str] = {}
    for rule in rules:
        for atom, _ in _atoms_of(rule)[1:]:
            name, n = relation(atom), _arity(atom)
            if (
                atom.pos not in where
                or name in defined_names
                or name in KEYWORD_ARITY
                or len(name) < MISSPELT_LENGTH
            ):
                continue
            near = [
                other
                for other, m in defined
                if m == n and other not in KEYWORD_ARITY and one_edit_apart(name, other)
            ]
            if len(near) == 1:
                meant[(name, n)] = near[0]
    return meant


def read_misspelt_relations(rules: list[Rule], undefined: Sequence[Problem]) -> tuple[
    list[Rule], list[Problem]
]:  # fmt: skip
    """Read a relation that nothing defines as the defined relation one edit away.

    Why: a relation no rule defines is never true, so a rule that uses it positively
    can never hold (``(winningolor ?o ?k2)`` beside the facts of ``winningcolor`` leaves
    a role without a goal); a name one letter from exactly one defined relation of the
    same arity has no other reading than a slip of the keyboard. ``undefined``: the
    checker's "never defined" warnings, one per relation, at its first use; every use
    of the name with that arity is read so, each with its warning.
    """
    meant = misspellings(rules, undefined)
    if not meant:
        return rules, []
    made: list[Problem] = []

    def reread(atom: Term) -> Term:
        name, n = relation(atom), _arity(atom)
        other = meant.get((name, n))
        if other is None:
            return atom
        made.append(
            _warning(atom, f"'{name}' is never defined: read as '{other}', one letter apart")
        )
        args = atom.args if isinstance(atom, Func) else ()
        return Func(other, args, atom.pos) if args else Const(other, atom.pos)

    out = [
        Rule(rule.head, tuple(map_atoms(lit, reread) for lit in rule.body), rule.pos)
        for rule in rules
    ]
    return out, made


REPAIRS: tuple[Repair, ...] = (
    drop_stray_sentences,
    read_bare_not,
    split_arities,
    bind_role_variables,
)
"""The repairs of errors, in the order they run (a sentence dropped is not repaired
further), after :func:`read_misspelt_relations`, which acts on the checker's warnings."""
