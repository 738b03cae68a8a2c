"""A game repository for the tests: a folder in the ggp.org layout, and a server for it.

The folder is ``ROOT/games/KEY/`` with ``METADATA`` (no version, as in the
ggp-org/ggp-repository checkout), the rulesheet and a description, and ``vN/``
folders holding what a newer version changed. The server answers as the repository
server does (``/games/`` the keys, ``/games/KEY/`` the newest metadata with its
version, ``/games/KEY/vN/FILE`` the newest file at or below version N) on 127.0.0.1,
threaded, and lets a test replace the answer to any path (to send malformed, huge,
slow or stalled answers). Written here from the format, not from the server's code.

Run as a script (``python tests/games/library/repository.py FOLDER [--seconds S]``)
it builds the games below in FOLDER (the countdown race also as ``connectFour``),
prints its URL and serves them for S seconds: the manual check of ``ggpkit games
fetch``.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# Tic-tac-toe, written for these tests from the rules of the game.
TIC_TAC_TOE = """
; Tic-tac-toe: xplayer and oplayer mark cells in turn; three in a line wins.
(role xplayer) (role oplayer)
(index 1) (index 2) (index 3)
(<= (init (cell ?m ?n b)) (index ?m) (index ?n))
(init (control xplayer))
(<= (legal ?r (mark ?m ?n)) (true (control ?r)) (true (cell ?m ?n b)))
(<= (legal xplayer noop) (true (control oplayer)))
(<= (legal oplayer noop) (true (control xplayer)))
(<= (next (cell ?m ?n x)) (does xplayer (mark ?m ?n)))
(<= (next (cell ?m ?n o)) (does oplayer (mark ?m ?n)))
(<= (next (cell ?m ?n ?c)) (true (cell ?m ?n ?c)) (distinct ?c b))
(<= (next (cell ?m ?n b)) (true (cell ?m ?n b)) (does ?r (mark ?j ?k)) (distinct ?m ?j))
(<= (next (cell ?m ?n b)) (true (cell ?m ?n b)) (does ?r (mark ?j ?k)) (distinct ?n ?k))
(<= (next (control oplayer)) (true (control xplayer)))
(<= (next (control xplayer)) (true (control oplayer)))
(<= (line ?c) (index ?m) (true (cell ?m 1 ?c)) (true (cell ?m 2 ?c)) (true (cell ?m 3 ?c)))
(<= (line ?c) (index ?n) (true (cell 1 ?n ?c)) (true (cell 2 ?n ?c)) (true (cell 3 ?n ?c)))
(<= (line ?c) (true (cell 1 1 ?c)) (true (cell 2 2 ?c)) (true (cell 3 3 ?c)))
(<= (line ?c) (true (cell 1 3 ?c)) (true (cell 2 2 ?c)) (true (cell 3 1 ?c)))
(<= open (true (cell ?m ?n b)))
(<= (goal xplayer 100) (line x))
(<= (goal xplayer 50) (not (line x)) (not (line o)))
(<= (goal xplayer 0) (line o))
(<= (goal oplayer 100) (line o))
(<= (goal oplayer 50) (not (line x)) (not (line o)))
(<= (goal oplayer 0) (line x))
(<= terminal (line x))
(<= terminal (line o))
(<= terminal (not open))
"""

# A race: two players take one or two from a pile of five in turn; who takes the last wins.
COUNTDOWN = """
(role first) (role second)
(init (pile 5)) (init (control first))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
(<= (legal ?r (take 1)) (true (control ?r)) (true (pile ?n)) (succ ?m ?n))
(<= (legal ?r (take 2)) (true (control ?r)) (true (pile ?n)) (succ ?m ?n) (succ ?k ?m))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (next (pile ?m)) (does ?r (take 1)) (true (pile ?n)) (succ ?m ?n))
(<= (next (pile ?k)) (does ?r (take 2)) (true (pile ?n)) (succ ?m ?n) (succ ?k ?m))
(<= (next (control second)) (true (control first)))
(<= (next (control first)) (true (control second)))
(<= (next (last ?r)) (does ?r (take ?x)))
(<= terminal (true (pile 0)))
(<= (goal ?r 100) (true (last ?r)))
(<= (goal ?r 0) (role ?r) (not (true (last ?r))))
"""

GAMES = {"ticTacToe": TIC_TAC_TOE, "countdown": COUNTDOWN}

Override = Callable[[BaseHTTPRequestHandler], None]


def write_game(
    root: Path, key: str, rules: str, title: str | None = None, rulesheet: str | None = None
) -> Path:
    """Write version 0 of a game in the repository layout under ``root/games``."""
    folder = root / "games" / key
    folder.mkdir(parents=True, exist_ok=True)
    sheet = rulesheet or f"{key}.kif"
    metadata = {
        "gameName": title or key,
        "rulesheet": sheet,
        "stylesheet": f"{key}.xsl",
        "description": f"{key}.txt",
    }
    (folder / "METADATA").write_text(json.dumps(metadata, indent=2))
    (folder / sheet).write_text(rules)
    (folder / f"{key}.txt").write_text(f"The game {key}, for the tests.\nA second line.\n")
    return folder


def write_version(root: Path, key: str, version: int, rules: str) -> Path:
    """Add version ``version`` of a game: a ``vN`` folder with a new rulesheet only."""
    folder = root / "games" / key / f"v{version}"
    folder.mkdir(parents=True, exist_ok=True)
    metadata = json.loads((root / "games" / key / "METADATA").read_text())
    path = folder / metadata["rulesheet"]
    path.write_text(rules)
    return path


def build(root: Path, games: dict[str, str] | None = None) -> Path:
    """A repository folder with ``games`` (default :data:`GAMES`) at version 0."""
    for key, rules in (games or GAMES).items():
        write_game(root, key, rules)
    return root


class RepositoryServer:
    """A threaded HTTP server for a repository folder; ``overrides`` maps a request path to
    a function that answers it instead."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.overrides: dict[str, Override] = {}
        self.requests: list[str] = []
        server = self
        handler = type("Handler", (_Handler,), {"repository": server})
        self.httpd = _Server(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def start(self) -> RepositoryServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(10)

    def answer(self, path: str) -> tuple[int, bytes]:
        """What the repository has at ``path``: (status, body)."""
        games = self.root / "games"
        if path == "/games/":
            keys = sorted(p.name for p in games.iterdir() if p.is_dir())
            return 200, json.dumps(keys).encode()
        match = re.fullmatch(r"/games/([^/]+)/(?:v(\d+)/)?([^/]*)", path)
        if match is None or not (games / match.group(1)).is_dir():
            return 404, b"not found"
        folder = games / match.group(1)
        newest = max(
            (int(p.name[1:]) for p in folder.iterdir() if re.fullmatch(r"v\d+", p.name)),
            default=0,
        )
        wanted = int(match.group(2)) if match.group(2) is not None else newest
        name = match.group(3) or "METADATA"
        if wanted > newest:
            return 404, b"no such version"
        for version in range(wanted, -1, -1):
            place = folder / f"v{version}" if version else folder
            if (place / name).is_file():
                data = (place / name).read_bytes()
                if name == "METADATA":
                    document = json.loads(data)
                    document["version"] = wanted
                    data = json.dumps(document).encode()
                return 200, data
        return 404, b"not found"


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client hanging up mid-answer is what several tests do on purpose


class _Handler(BaseHTTPRequestHandler):
    repository: RepositoryServer

    def do_GET(self) -> None:
        self.repository.requests.append(self.path)
        override = self.repository.overrides.get(self.path)
        if override is not None:
            override(self)
            return
        status, body = self.repository.answer(self.path)
        send(self, body, status)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def send(handler: BaseHTTPRequestHandler, body: bytes, status: int = 200) -> None:
    """A whole answer with its length."""
    handler.send_response(status)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def sleeping(seconds: float, body: bytes = b"[]") -> Override:
    """An answer sent after ``seconds``."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(seconds)
        send(handler, body)

    return answer


def dripping(body: bytes, every: float) -> Override:
    """An answer sent a byte at a time, one each ``every`` seconds (a slow-loris server)."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        for i in range(len(body)):
            handler.wfile.write(body[i : i + 1])
            handler.wfile.flush()
            time.sleep(every)

    return answer


def unbounded(size: int, claimed: bool) -> Override:
    """An answer of ``size`` bytes, its length said in a header or not (streamed until the
    connection closes, so only counting stops a reader)."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        if claimed:
            handler.send_header("Content-Length", str(size))
        handler.send_header("Connection", "close")
        handler.end_headers()
        chunk = b";" * 65536
        sent = 0
        try:
            while sent < size:
                handler.wfile.write(chunk)
                sent += len(chunk)
        except OSError:
            pass  # the reader hung up, as it should
        handler.close_connection = True

    return answer


def stalling(body: bytes, sent: threading.Event, release: threading.Event) -> Override:
    """Half of an answer, then nothing until ``release`` (at most 60 s); ``sent`` is set
    once the half is out."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body[: len(body) // 2])
        handler.wfile.flush()
        sent.set()
        release.wait(60)

    return answer


def closed_port_url() -> str:
    """A loopback URL where nothing listens (a port bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@contextmanager
def serving(root: Path) -> Iterator[RepositoryServer]:
    """A :class:`RepositoryServer` for ``root``, stopped at the end."""
    server = RepositoryServer(root).start()
    try:
        yield server
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the test games as a game repository.")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seconds", type=float, default=600.0)
    args = parser.parse_args()
    build(args.folder, {"ticTacToe": TIC_TAC_TOE, "connectFour": COUNTDOWN, **GAMES})
    with serving(args.folder) as server:
        print(server.url, flush=True)
        time.sleep(args.seconds)


if __name__ == "__main__":
    main()
