"""Reading the recorded ggp-base exchanges (``tests/match/conformance/``) and replaying them.

The recordings hold each HTTP exchange as its request line, header lines and body, and the
reply's status line, header lines and body, exactly as they crossed the wire (the README
there says how they were made). This module rebuilds the raw bytes, reads messages as
token lists, tells whether two messages are the same up to a renaming of symbols (two
scramblings of one game), and serves recorded ggp-base player replies to a referee.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

DATA = Path(__file__).resolve().parent / "conformance"
CRLF = "\r\n"
_TOKEN = re.compile(r"[()]|[^\s()]+")

Exchange = dict[str, Any]
Recording = dict[str, Any]


def recording(name: str) -> Recording:
    data: Recording = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    return data


def recording_names(prefix: str) -> list[str]:
    return sorted(p.stem for p in DATA.glob(f"{prefix}*.json"))


def seat_exchanges(rec: Recording, seat: str) -> list[Exchange]:
    return [e for e in rec["exchanges"] if e["seat"] == seat]


# ---- bytes -----------------------------------------------------------------------------------


def request_bytes(exchange: Exchange) -> bytes:
    """The request exactly as recorded: line, header lines, blank line, body."""
    req = exchange["request"]
    head = CRLF.join([req["line"], *req["headers"]]) + CRLF + CRLF
    return head.encode("latin-1") + str(req["body"]).encode("utf-8")


def reply_bytes(exchange: Exchange) -> bytes:
    """The reply exactly as recorded (in ``ggpkit_referee_*``, a ggp-base GamePlayer's bytes)."""
    rep = exchange["reply"]
    head = CRLF.join([rep["status_line"], *rep["headers"]]) + CRLF + CRLF
    return head.encode("latin-1") + str(rep["body"]).encode("utf-8")


def split_reply(raw: bytes) -> tuple[str, list[str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split(CRLF)
    return lines[0], lines[1:], body


def header_pairs(lines: list[str]) -> list[tuple[str, str]]:
    """``Name: value`` lines as (lower-case name, value): HTTP names ignore case."""
    pairs = [line.split(":", 1) for line in lines]
    return [(name.strip().lower(), value.strip()) for name, value in pairs]


def exchange_raw(port: int, request: bytes, timeout: float = 30) -> bytes:
    """One request on a new connection; the reply read until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        chunks = []
        while data := s.recv(65536):
            chunks.append(data)
    return b"".join(chunks)


# ---- messages --------------------------------------------------------------------------------


def message_text(exchange: Exchange) -> str:
    """The GGP message a request carries: its body, or for GET its URL-decoded path."""
    req = exchange["request"]
    method, target, _ = req["line"].split(" ", 2)
    return unquote_plus(target[1:]) if method == "GET" else str(req["body"])


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


Sexpr = str | list["Sexpr"]


def parse_sexpr(text: str) -> Sexpr:
    """One s-expression as nested lists of atoms (an independent reader, not ggpkit's)."""
    stack: list[list[Sexpr]] = [[]]
    for tok in tokens(text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    assert len(stack) == 1 and len(stack[0]) == 1, f"not one s-expression: {text[:80]!r}"
    return stack[0][0]


def render(expr: Sexpr) -> str:
    if isinstance(expr, str):
        return expr
    return "(" + " ".join(render(e) for e in expr) + ")"


def kind(text: str) -> str:
    """The message's keyword in upper case (INFO, START, PLAY, ...)."""
    expr = parse_sexpr(text)
    assert isinstance(expr, list) and isinstance(expr[0], str)
    return expr[0].upper()


def is_number(atom: str) -> bool:
    return atom.isdigit()


@dataclass
class Renaming:
    """A one-to-one renaming of symbols, learnt from aligned token lists (two scramblings).

    Parentheses, numbers and variables must be equal; every other atom is a symbol whose
    partner must stay the same across everything aligned through one renaming.
    """

    forward: dict[str, str] = field(default_factory=dict)
    backward: dict[str, str] = field(default_factory=dict)

    def align(self, left: list[str], right: list[str]) -> bool:
        """Whether ``left`` is ``right`` under this renaming (extended as needed)."""
        if len(left) != len(right):
            return False
        for a, b in zip(left, right, strict=True):
            if a in "()" or b in "()" or is_number(a) or a.startswith("?"):
                if a != b:
                    return False
                continue
            if self.forward.setdefault(a, b) != b or self.backward.setdefault(b, a) != a:
                return False
        return True

    def to_right(self, text: str) -> str:
        return re.sub(r"[^\s()]+", lambda m: self.forward.get(m.group(), m.group()), text)

    def to_left(self, text: str) -> str:
        return re.sub(r"[^\s()]+", lambda m: self.backward.get(m.group(), m.group()), text)


def start_parts(text: str) -> tuple[str, str, Sexpr, list[str]]:
    """START's match id, role, rules (a list of sentences) and clocks."""
    expr = parse_sexpr(text)
    assert isinstance(expr, list) and len(expr) == 6, text[:80]
    _, match_id, role, rules, start, play = expr
    assert isinstance(match_id, str) and isinstance(role, str)
    assert isinstance(start, str) and isinstance(play, str)
    return match_id, role, rules, [start, play]


def rules_text(rules: Sexpr) -> str:
    assert isinstance(rules, list)
    return "\n".join(render(sentence) for sentence in rules)


def move_list(text: str) -> list[str] | None:
    """The joint move of a PLAY or STOP (each move as text), None for NIL."""
    expr = parse_sexpr(text)
    assert isinstance(expr, list) and len(expr) == 3, text[:80]
    moves = expr[2]
    if isinstance(moves, str):
        assert moves.upper() == "NIL", text[:80]
        return None
    return [render(m) for m in moves]


def info_name(text: str) -> str | None:
    """The name in an INFO reply ``((name N) (status S))``, read independently of ggpkit."""
    expr = parse_sexpr(text)
    if not isinstance(expr, list):
        return None
    for item in expr:
        if isinstance(item, list) and len(item) == 2 and item[0] == "name":
            return render(item[1])
    return None


# ---- a recorded ggp-base player, served again ------------------------------------------------


@dataclass
class Heard:
    """One request a fake player received: line, header lines, body."""

    line: str
    headers: list[str]
    body: str


class RecordedPlayer:
    """Answers the i-th request with the i-th recorded reply, byte for byte (ggp-base's own
    status line and headers). A recorded exchange without a reply, or with one later than
    the play clock and its second of grace, is held until the client hangs up: a late move.

    ``rename`` rewrites the recorded reply's symbols into the names this run uses (the
    referee may scramble differently than when it was recorded).
    """

    def __init__(self, exchanges: list[Exchange], play_clock: int) -> None:
        self.exchanges = exchanges
        self.play_clock = play_clock
        self.heard: list[Heard] = []
        self.rename: Renaming = Renaming()
        self.port = 0
        self._server: asyncio.base_events.Server | None = None

    def late(self, exchange: Exchange) -> bool:
        return exchange["reply"] is None or exchange.get("reply_after_s", 0) > self.play_clock + 1

    async def __aenter__(self) -> RecordedPlayer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            lines = head[:-4].split(CRLF)
            size = dict(header_pairs(lines[1:])).get("content-length", "0")
            body = (await reader.readexactly(int(size))).decode("utf-8")
            index = len(self.heard)
            self.heard.append(Heard(lines[0], lines[1:], body))
            if index >= len(self.exchanges):
                return  # more requests than recorded: the test sees it in ``heard``
            exchange = self.exchanges[index]
            if kind(body) == "START":  # learn the names this run gives the recorded symbols
                self.rename.align(tokens(message_text(exchange)), tokens(body))
            if self.late(exchange):
                await asyncio.wait_for(reader.read(), self.play_clock + 10)
                return
            status, headers, reply = split_reply(reply_bytes(exchange))
            text = self.rename.to_right(reply.decode("utf-8"))
            headers = [
                f"{h.split(':', 1)[0]}: {len(text.encode())}"
                if h.lower().startswith("content-length:")
                else h
                for h in headers
            ]
            writer.write((CRLF.join([status, *headers]) + CRLF + CRLF + text).encode("utf-8"))
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, TimeoutError):
            pass
        finally:
            writer.close()
