"""What a listing says of a library game (its roles and kind), from a cheap read of its rules.

The GDL reader and checker only: no grounding, no reasoner, so that listing the
library imports no engine and compiles nothing. Even so, checking a few hundred games
takes seconds, so each outline is kept in ``outlines.json`` in the library's folder,
under the SHA-256 of the rulesheet's bytes (a version of a game never changes, and a
file edited in a folder gets a new hash). The index is only a cache: its entries are
validated when read and recomputed when missing or odd, and a listing that computed any
rewrites it with exactly the games it listed.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ggpkit.errors import GgpkitError
from ggpkit.games.library.errors import MalformedAnswerError
from ggpkit.games.library.storage import library_dir, read_json, write_json
from ggpkit.gdl.checker import check_rules, errors
from ggpkit.gdl.game_rules import uses_sees
from ggpkit.gdl.kif import MAX_TEXT_CHARS, parse_rules
from ggpkit.gdl.terms import Const, Func

GDL = "GDL"
GDL2 = "GDL-II"
CHECK_ERRORS = "GDL with check errors"
SYNTAX_ERROR = "GDL with a syntax error"
UNREADABLE = "unreadable"
KINDS = (GDL, GDL2, CHECK_ERRORS, SYNTAX_ERROR, UNREADABLE)
MAX_ROLES = 100
FORMAT = 2


@dataclass(frozen=True, slots=True)
class Outline:
    """A game's roles (in the order the rules declare them) and its kind (one of
    :data:`KINDS`: whether ggpkit can play it as written)."""

    roles: tuple[str, ...]
    kind: str


def outline_of_text(text: str, file: str) -> Outline:
    """Read and check rules; never raises for bad rules (the kind says what is wrong)."""
    try:
        rules = parse_rules(text, file)
    except GgpkitError:
        return Outline((), SYNTAX_ERROR)
    except RecursionError:
        return Outline((), UNREADABLE)
    roles = tuple(
        arg.name
        for rule in rules
        if isinstance(rule.head, Func) and rule.head.name == "role" and not rule.body
        for arg in rule.head.args[:1]
        if isinstance(arg, Const)
    )[:MAX_ROLES]
    try:
        problems = errors(check_rules(rules, file))
    except (GgpkitError, RecursionError):
        return Outline(roles, UNREADABLE)
    if problems:
        return Outline(roles, CHECK_ERRORS)
    return Outline(roles, GDL2 if uses_sees(rules) else GDL)


def outlines(
    paths: Sequence[Path], on_compute: Callable[[int], None] | None = None
) -> list[Outline]:
    """The outline of each rules file, from the index where it has them; ``on_compute`` is
    told how many must be computed before they are (so a caller can show progress)."""
    index_path = library_dir() / "outlines.json"
    index = _read_index(index_path)
    digests: list[str | None] = []
    for path in paths:
        try:
            with open(path, "rb") as f:
                digests.append(hashlib.sha256(f.read(4 * MAX_TEXT_CHARS + 1)).hexdigest())
        except OSError:
            digests.append(None)
    missing = [i for i, d in enumerate(digests) if d is None or d not in index]
    if missing and on_compute is not None:
        on_compute(len(missing))
    result: list[Outline] = []
    for path, digest in zip(paths, digests, strict=True):
        known = index.get(digest) if digest is not None else None
        if known is None:
            known = _outline_of_file(path)
            if digest is not None:
                index[digest] = known
        result.append(known)
    kept = {d: index[d] for d in digests if d is not None}
    if missing:
        _write_index(index_path, kept)
    return result


def _outline_of_file(path: Path) -> Outline:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_TEXT_CHARS + 1)
    except OSError:
        return Outline((), UNREADABLE)
    if len(text) > MAX_TEXT_CHARS:
        return Outline((), UNREADABLE)
    return outline_of_text(text, str(path))


def _read_index(path: Path) -> dict[str, Outline]:
    """The index's valid entries (an unreadable index is an empty one: it is only a cache)."""
    try:
        document: Any = read_json(path)
    except (MalformedAnswerError, OSError):
        return {}
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return {}
    entries = document.get("outlines")
    found: dict[str, Outline] = {}
    if not isinstance(entries, dict):
        return found
    for digest, entry in entries.items():
        if not isinstance(entry, dict):
            continue
        roles, kind = entry.get("roles"), entry.get("kind")
        if (
            len(digest) == 64
            and kind in KINDS
            and isinstance(roles, list)
            and len(roles) <= MAX_ROLES
            and all(isinstance(r, str) and len(r) <= 200 for r in roles)
        ):
            found[digest] = Outline(tuple(roles), kind)
    return found


def _write_index(path: Path, index: dict[str, Outline]) -> None:
    document = {
        "format": FORMAT,
        "outlines": {d: {"roles": list(o.roles), "kind": o.kind} for d, o in index.items()},
    }
    with contextlib.suppress(OSError):  # a read-only data folder: computed again next time
        write_json(path, document)
