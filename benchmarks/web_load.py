"""Load test of the web app: N concurrent clients playing games, on 127.0.0.1 only.

Starts ``ggpkit web`` on a free loopback port with a fresh database, then runs
``--clients`` simulated players for ``--seconds``: each starts a session (a person
against the random agent), then plays: it reads the session, posts a random legal
move for its person, and asks the agent to reply, until the game ends and it starts
another. Prints requests/s and p50/p99 latency per kind of request as a table.

    python benchmarks/web_load.py --clients 100 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GAMES = ("breakthrough-holes", "pawn-checkers", "peg")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Connection:
    """One keep-alive HTTP/1.1 connection speaking JSON: a lean client, so that the load
    generator (on the same 2 cores) is not what is measured."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: object = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        data = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                f"Content-Length: {len(data)}", "Content-Type: application/json"]  # fmt: skip
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        status_line = await self.reader.readline()
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        payload = await self.reader.readexactly(length)
        return int(status_line.split()[1]), json.loads(payload) if payload else None


class Tally:
    """Latencies per kind of request, and failures."""

    def __init__(self) -> None:
        self.latencies: dict[str, list[float]] = {}
        self.failures = 0

    async def call(
        self, kind: str, conn: Connection, method: str, path: str, body: object = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:  # fmt: skip
        start = time.perf_counter()
        try:
            status, data = await conn.request(method, path, body, headers)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            self.failures += 1
            conn.writer = None
            return 599, None
        self.latencies.setdefault(kind, []).append(time.perf_counter() - start)
        if status >= 500:
            self.failures += 1
        return status, data


async def player(
    conn: Connection,
    tally: Tally,
    roles: dict[str, list[str]],
    rng: random.Random,
    until: float,
    think: float,
) -> None:
    """A person playing game after game against the random agent, ``think`` s per action."""
    while time.monotonic() < until:
        game = rng.choice(GAMES)
        role = roles[game][0]
        seats = {r: "human" if r == role else "random" for r in roles[game]}
        body = {"game": game, "seats": seats, "agent_time": 0.2}
        status, view = await tally.call("create", conn, "POST", "/api/sessions", body)
        if status != 201:
            continue
        sid, token = view["id"], {"X-Session-Token": view["token"]}
        while not view["finished"] and time.monotonic() < until:
            await asyncio.sleep(rng.uniform(0, 2 * think))
            if view["humans_to_move"]:
                move = {"role": role, "move": rng.choice(view["legal"][role])["move"],
                        "version": view["version"]}  # fmt: skip
                url = f"/api/sessions/{sid}/move"
                status, new = await tally.call("move", conn, "POST", url, move, token)
            else:
                url = f"/api/sessions/{sid}/agent"
                status, new = await tally.call("agent", conn, "POST", url, None, token)
            if status != 200:
                status, new = await tally.call("view", conn, "GET", f"/api/sessions/{sid}")
                if status != 200:
                    break
            view = new


async def run(url: str, clients: int, seconds: float, seed: int, think: float) -> Tally:
    host, port = url.removeprefix("http://").rstrip("/").split(":")
    probe = Connection(host, int(port))
    for _ in range(600):
        try:
            status, games = await probe.request("GET", "/api/games")
            if status == 200:
                break
        except OSError:
            probe.writer = None
        await asyncio.sleep(0.1)
    else:
        raise SystemExit("ggpkit web did not start")
    roles = {g["name"]: g["roles"] for g in games}
    tally = Tally()
    until = time.monotonic() + seconds
    await asyncio.gather(*(
        player(Connection(host, int(port)), tally, roles, random.Random(seed + i), until, think)
        for i in range(clients)
    ))  # fmt: skip
    return tally


def report(tally: Tally, seconds: float, clients: int, think: float) -> None:
    total = sum(len(v) for v in tally.latencies.values())
    rate = total / seconds
    print(f"{clients} clients thinking {think:g} s, {seconds:g} s: {rate:.1f} requests/s, "
          f"{tally.failures} failures")  # fmt: skip
    print(f"| {'request':<8} | {'count':>6} | {'p50 ms':>8} | {'p99 ms':>8} | {'max ms':>8} |")
    print(f"|{'-' * 10}|{'-' * 8}|{'-' * 10}|{'-' * 10}|{'-' * 10}|")
    for kind, values in sorted(tally.latencies.items()):
        values.sort()
        p99 = values[max(0, int(len(values) * 0.99) - 1)]
        print(f"| {kind:<8} | {len(values):>6} | {statistics.median(values) * 1000:>8.1f} | "
              f"{p99 * 1000:>8.1f} | {values[-1] * 1000:>8.1f} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds a player waits before each action (0: as fast as answered)",
    )
    parser.add_argument("--url", help="a running server on 127.0.0.1 (default: start one)")
    args = parser.parse_args()
    if not 1 <= args.clients <= 1000 or not 0 < args.seconds <= 600:
        parser.error("1-1000 clients, up to 600 seconds")
    if args.url:
        if not args.url.startswith(("http://127.0.0.1:", "http://localhost:")):
            parser.error("--url must be on this machine (http://127.0.0.1:PORT)")
        tally = asyncio.run(run(args.url, args.clients, args.seconds, args.seed, args.think))
        report(tally, args.seconds, args.clients, args.think)
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "load.sqlite3"
        cmd = [sys.executable, "-m", "ggpkit", "web", "--port", str(port), "--db", str(db)]
        server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            tally = asyncio.run(
                run(f"http://127.0.0.1:{port}", args.clients, args.seconds, args.seed, args.think)
            )
        finally:
            server.terminate()
            server.wait(10)
    report(tally, args.seconds, args.clients, args.think)


if __name__ == "__main__":
    main()
