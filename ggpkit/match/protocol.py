"""GGP protocol messages: reading what a game manager sends, printing what it sends.

Messages are KIF S-expressions whose keywords (``START``, ``PLAY``, ``NIL``...)
arrive in any case, so keywords are matched case-insensitively; everything else
(match ids, role names, rules, moves) keeps its case because managers scramble
symbol names and a player must echo them back exactly.

GDL-II games (rules with ``sees``) are played with two other forms of PLAY and STOP,
as the Dresden GameController sends them: ``(PLAY <matchid> <turn> <lastmove>
<percepts>)``, where ``<turn>`` counts the joint moves played so far, ``<lastmove>`` is
the player's own move in the last one as it was played and ``<percepts>`` what the
player perceived of it; at turn 0 both are ``NIL``, later an empty set of percepts is
``()``. The two forms are told apart by their number of arguments (:class:`PlayII`,
:class:`StopII`); a player never learns the other roles' moves from them.

The rules inside ``START``/``PREVIEW`` are a list of sentences, not a term (their
head is a list), so this module reads messages with its own small S-expression
reader that remembers the source span of every node; rules are passed on as the
exact text the manager sent and moves are read with the KIF reader from their span.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ggpkit.errors import GgpkitError
from ggpkit.gdl.kif import GdlSyntaxError, parse_term
from ggpkit.gdl.terms import Term
from ggpkit.match.clock import whole_seconds


class ProtocolError(GgpkitError, ValueError):
    """A message that is not a well-formed GGP protocol message; says what and where."""

    def __init__(self, message_text: str, reason: str) -> None:
        shown = message_text if len(message_text) <= 80 else message_text[:77] + "..."
        super().__init__(f"bad GGP message {shown!r}: {reason}")
        self.message_text = message_text
        self.reason = reason


# ---- the S-expression reader ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Node:
    """An atom (``children is None``) or a list, with its span ``text[start:end]``."""

    start: int
    end: int
    atom: str | None
    children: tuple[Node, ...] | None

    def text(self, source: str) -> str:
        return source[self.start : self.end]

    def inner(self, source: str) -> str:
        """The text between the parentheses of a list (the atom itself for an atom)."""
        if self.children is None:
            return self.text(source)
        return source[self.start + 1 : self.end - 1]


_TOKEN_RE = re.compile(r"\s+|;[^\n]*|\(|\)|[^\s();]+")


def read_sexpr(text: str) -> Node:
    """Read exactly one S-expression (atom or list) from ``text``; raise ProtocolError."""
    stack: list[tuple[int, list[Node]]] = []
    top: list[Node] = []
    for m in _TOKEN_RE.finditer(text):
        s = m.group()
        if s[0].isspace() or s[0] == ";":
            continue
        if s == "(":
            stack.append((m.start(), []))
        elif s == ")":
            if not stack:
                raise ProtocolError(text, f"unbalanced ')' at offset {m.start()}")
            start, items = stack.pop()
            node = Node(start, m.end(), None, tuple(items))
            (stack[-1][1] if stack else top).append(node)
        else:
            (stack[-1][1] if stack else top).append(Node(m.start(), m.end(), s, None))
    if stack:
        raise ProtocolError(text, "a '(' is never closed")
    if len(top) != 1:
        raise ProtocolError(text, f"expected one S-expression, found {len(top)}")
    return top[0]


# ---- messages ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Info:
    """``(INFO)`` or Stanford's ``(PING)``: who are you and are you free?"""


@dataclass(frozen=True, slots=True)
class Preview:
    """``(PREVIEW (<rules>) <previewclock>)``: look at a game before any match."""

    rules: str
    clock: float


@dataclass(frozen=True, slots=True)
class Start:
    """``(START <matchid> <role> (<rules>) <startclock> <playclock>)``."""

    match_id: str
    role: str
    rules: str
    start_clock: float
    play_clock: float


@dataclass(frozen=True, slots=True)
class Play:
    """``(PLAY <matchid> NIL|(<moves>))``; ``moves`` is None on the first turn."""

    match_id: str
    moves: tuple[Term, ...] | None


@dataclass(frozen=True, slots=True)
class Stop:
    """``(STOP <matchid> NIL|(<moves>))``: the last joint move; the match is over."""

    match_id: str
    moves: tuple[Term, ...] | None


@dataclass(frozen=True, slots=True)
class PlayII:
    """GDL-II's ``(PLAY <matchid> <turn> <lastmove> <percepts>)``.

    ``turn`` is the number of joint moves played so far; ``move`` the player's own move
    in the last of them, as played (None at turn 0); ``percepts`` what the player
    perceived of that joint move (None at turn 0, else a possibly empty tuple).
    """

    match_id: str
    turn: int
    move: Term | None
    percepts: tuple[Term, ...] | None


@dataclass(frozen=True, slots=True)
class StopII:
    """GDL-II's ``(STOP <matchid> <turn> <lastmove> <percepts>)``: the last step's view."""

    match_id: str
    turn: int
    move: Term | None
    percepts: tuple[Term, ...] | None


@dataclass(frozen=True, slots=True)
class Abort:
    """``(ABORT <matchid>)``: the match ends now, without a result."""

    match_id: str


Message = Info | Preview | Start | Play | Stop | PlayII | StopII | Abort


def _atom(node: Node, text: str, what: str) -> str:
    if node.atom is None:
        raise ProtocolError(text, f"{what} must be a symbol, found {node.text(text)!r}")
    return node.atom


def _clock(node: Node, text: str, what: str) -> float:
    value = _atom(node, text, what)
    try:
        return float(value)
    except ValueError:
        raise ProtocolError(text, f"{what} must be a number of seconds, found {value!r}") from None


def _rules(node: Node, text: str) -> str:
    if node.children is None:
        raise ProtocolError(text, "the rules must be a list of GDL sentences")
    return node.inner(text).strip()


def _moves(node: Node, text: str) -> tuple[Term, ...] | None:
    if node.atom is not None and node.atom.lower() == "nil":
        return None
    if node.children is None:
        raise ProtocolError(text, f"expected NIL or a list of moves, found {node.atom!r}")
    try:
        return tuple(parse_term(child.text(text)) for child in node.children)
    except GdlSyntaxError as e:
        raise ProtocolError(text, f"a move is not a GDL term ({e.message})") from None


def _need(args: Sequence[Node], count: int, text: str, keyword: str) -> None:
    if len(args) < count:
        raise ProtocolError(text, f"{keyword} needs {count} arguments, found {len(args)}")


def _term(node: Node, text: str, what: str) -> Term:
    try:
        return parse_term(node.text(text))
    except GdlSyntaxError as e:
        raise ProtocolError(text, f"{what} is not a GDL term ({e.message})") from None


def _is_nil(node: Node) -> bool:
    return node.atom is not None and node.atom.lower() == "nil"


def _turn(node: Node, text: str) -> int:
    value = _atom(node, text, "the turn")
    if not (value.isascii() and value.isdigit()):
        raise ProtocolError(text, f"the turn must be a count of joint moves, found {value!r}")
    return int(value)


def _percepts(node: Node, text: str) -> tuple[Term, ...]:
    """A list of percepts; ``NIL`` is read as the empty list (``()`` is what is sent)."""
    if _is_nil(node):
        return ()
    if node.children is None:
        raise ProtocolError(text, f"the percepts must be a list, found {node.atom!r}")
    return tuple(_term(child, text, "a percept") for child in node.children)


def _seen(
    turn: int, move: Node, percepts: Node, text: str
) -> tuple[Term | None, tuple[Term, ...] | None]:
    """LASTMOVE and PERCEPTS of a GDL-II message: both NIL at turn 0, both given after."""
    if turn == 0:
        if not _is_nil(move) or not (_is_nil(percepts) or percepts.children == ()):
            raise ProtocolError(text, "at turn 0 the last move and the percepts must be NIL")
        return None, None
    if _is_nil(move):
        raise ProtocolError(text, f"at turn {turn} the last move must be a move, found NIL")
    return _term(move, text, "the last move"), _percepts(percepts, text)


def _play_or_stop(keyword: str, args: Sequence[Node], text: str) -> Message:
    """PLAY or STOP in either form, told apart by arity: GDL's ``<matchid> <moves>`` or
    GDL-II's ``<matchid> <turn> <lastmove> <percepts>``; any other arity is an error
    (a GDL-II message cut short must not be read as a GDL one)."""
    name = keyword.upper()
    if len(args) not in (2, 4):
        raise ProtocolError(
            text,
            f"{name} takes 2 arguments (GDL: match id, joint move) or 4 (GDL-II: match id, "
            f"turn, last move, percepts), found {len(args)}",
        )
    match_id = _atom(args[0], text, "the match id")
    if len(args) == 2:
        moves = _moves(args[1], text)
        return Play(match_id, moves) if keyword == "play" else Stop(match_id, moves)
    turn = _turn(args[1], text)
    move, percepts = _seen(turn, args[2], args[3], text)
    if keyword == "play":
        return PlayII(match_id, turn, move, percepts)
    return StopII(match_id, turn, move, percepts)


def parse_message(text: str) -> Message:
    """Read one manager -> player message; keywords in any case, extra arguments ignored."""
    root = read_sexpr(text)
    if root.children is None or not root.children:
        raise ProtocolError(text, "a message is a non-empty list such as (INFO)")
    head, args = root.children[0], root.children[1:]
    keyword = _atom(head, text, "the message keyword").lower()
    if keyword in ("info", "ping"):
        return Info()
    if keyword == "preview":
        _need(args, 2, text, "PREVIEW")
        return Preview(_rules(args[0], text), _clock(args[1], text, "the preview clock"))
    if keyword == "start":
        _need(args, 5, text, "START")
        return Start(
            match_id=_atom(args[0], text, "the match id"),
            role=_atom(args[1], text, "the role"),
            rules=_rules(args[2], text),
            start_clock=_clock(args[3], text, "the start clock"),
            play_clock=_clock(args[4], text, "the play clock"),
        )
    if keyword in ("play", "stop"):
        return _play_or_stop(keyword, args, text)
    if keyword == "abort":
        _need(args, 1, text, "ABORT")
        return Abort(_atom(args[0], text, "the match id"))
    raise ProtocolError(text, f"unknown message keyword {head.atom!r}")


MAX_NAME = 80
"""Characters kept of the name a player reports in its INFO reply."""


# ---- printing (the manager side) -------------------------------------------------------


def _clock_text(seconds: float) -> str:
    """A clock as the integer ggp-base's players parse; ClockError for anything else."""
    return str(whole_seconds(seconds))


def _moves_text(moves: Sequence[Term | str] | None) -> str:
    if moves is None:
        return "NIL"
    return "(" + " ".join(str(m) for m in moves) + ")"


def format_info() -> str:
    return "(INFO)"


def format_preview(rules: str, clock: float) -> str:
    return f"(PREVIEW ({rules}) {_clock_text(clock)})"


def format_start(
    match_id: str, role: str, rules: str, start_clock: float, play_clock: float
) -> str:
    """The START message; ``rules`` is the GDL text of the sentences, without outer parens.

    The clocks are printed as integers (``10``, never ``10.0`` or ``1.5``): a
    clock that is not whole seconds raises ClockError rather than go on the wire.
    """
    return (
        f"(START {match_id} {role} ({rules}) {_clock_text(start_clock)} {_clock_text(play_clock)})"
    )


def format_play(match_id: str, moves: Sequence[Term | str] | None) -> str:
    return f"(PLAY {match_id} {_moves_text(moves)})"


def format_stop(match_id: str, moves: Sequence[Term | str] | None) -> str:
    return f"(STOP {match_id} {_moves_text(moves)})"


def _seen_text(turn: int, move: Term | str | None, percepts: Sequence[Term | str] | None) -> str:
    if turn < 0:
        raise ValueError(f"a turn counts joint moves: {turn} is negative")
    if turn == 0:
        return "0 NIL NIL"
    if move is None or percepts is None:
        raise ValueError(f"turn {turn} needs the last move and the percepts")
    return f"{turn} {move} (" + " ".join(str(p) for p in percepts) + ")"


def format_play_ii(
    match_id: str, turn: int, move: Term | str | None, percepts: Sequence[Term | str] | None
) -> str:
    """GDL-II's PLAY, as the GameController prints it: ``(PLAY m 0 NIL NIL)`` at turn 0,
    then ``(PLAY m 3 <move> (<percepts>))`` with ``()`` for no percepts."""
    return f"(PLAY {match_id} {_seen_text(turn, move, percepts)})"


def format_stop_ii(
    match_id: str, turn: int, move: Term | str | None, percepts: Sequence[Term | str] | None
) -> str:
    """GDL-II's STOP: the turn, the last move and the percepts of the final joint move."""
    return f"(STOP {match_id} {_seen_text(turn, move, percepts)})"


def format_abort(match_id: str) -> str:
    return f"(ABORT {match_id})"


def parse_info_reply(text: str) -> str | None:
    """The name in an INFO reply ``((name N) (status available))``; None if it gives none.

    A bare ``available`` or ``busy`` (older players), garbage and an empty name all
    give None: the caller keeps the name it had. Quotes around the name are dropped,
    whitespace collapsed, and the name cut to :data:`MAX_NAME` characters (it goes
    into records and tables, and the player chose it).
    """
    try:
        root = read_sexpr(text)
    except ProtocolError:
        return None
    for item in root.children or ():
        parts = item.children
        if not parts or len(parts) < 2 or (parts[0].atom or "").lower() != "name":
            continue
        name = " ".join(text[parts[1].start : parts[-1].end].strip("\"'").split())
        return name[:MAX_NAME] or None
    return None


def format_info_reply(name: str, busy: bool) -> str:
    """The INFO/PING reply: ``((name N) (status available))`` or ``... (status busy))``."""
    return f"((name {name}) (status {'busy' if busy else 'available'}))"


def strip_comments(rules: str) -> str:
    """GDL text without ``;`` comments, so it can be inlined into one message."""
    return "\n".join(line.split(";", 1)[0].rstrip() for line in rules.splitlines()).strip()
