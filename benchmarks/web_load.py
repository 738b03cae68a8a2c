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
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

GAMES = ("breakthrough-holes", "pawn-checkers", "peg")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def wait_up(client: httpx.AsyncClient) -> None:
    for _ in range(600):
        try:
            if (await client.get("/api/agents")).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        await asyncio.sleep(0.1)
    raise SystemExit("ggpkit web did not start")


class Tally:
    """Latencies per kind of request, and failures."""

    def __init__(self) -> None:
        self.latencies: dict[str, list[float]] = {}
        self.failures = 0

    async def call(self, kind: str, request: object) -> httpx.Response | None:
        start = time.perf_counter()
        try:
            response = await request  # type: ignore[misc]
        except httpx.HTTPError:
            self.failures += 1
            return None
        self.latencies.setdefault(kind, []).append(time.perf_counter() - start)
        if response.status_code >= 500:
            self.failures += 1
        return response


async def player(client: httpx.AsyncClient, tally: Tally, rng: random.Random, until: float) -> None:
    while time.monotonic() < until:
        game = rng.choice(GAMES)
        roles = (await client.get("/api/games")).json()
        role = next(g["roles"] for g in roles if g["name"] == game)[0]
        seats = {r: "human" if r == role else "random" for r in next(
            g["roles"] for g in roles if g["name"] == game)}  # fmt: skip
        body = {"game": game, "seats": seats, "agent_time": 0.2}
        r = await tally.call("create", client.post("/api/sessions", json=body))
        if r is None or r.status_code != 201:
            continue
        view = r.json()
        sid, headers = view["id"], {"X-Session-Token": view["token"]}
        while not view["finished"] and time.monotonic() < until:
            if view["humans_to_move"]:
                legal = view["legal"][role]
                move = {"role": role, "move": rng.choice(legal)["move"], "version": view["version"]}
                url = f"/api/sessions/{sid}/move"
                r = await tally.call("move", client.post(url, json=move, headers=headers))
            else:
                r = await tally.call(
                    "agent", client.post(f"/api/sessions/{sid}/agent", headers=headers)
                )
            if r is None or r.status_code != 200:
                r = await tally.call("view", client.get(f"/api/sessions/{sid}"))
                if r is None:
                    break
            view = r.json()


async def run(url: str, clients: int, seconds: float, seed: int) -> Tally:
    tally = Tally()
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        await wait_up(client)
        until = time.monotonic() + seconds
        await asyncio.gather(
            *(player(client, tally, random.Random(seed + i), until) for i in range(clients))
        )
    return tally


def report(tally: Tally, seconds: float, clients: int) -> None:
    total = sum(len(v) for v in tally.latencies.values())
    print(f"{clients} clients, {seconds:g} s: {total / seconds:.1f} requests/s, "
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
    parser.add_argument("--url", help="a running server on 127.0.0.1 (default: start one)")
    args = parser.parse_args()
    if not 1 <= args.clients <= 1000 or not 0 < args.seconds <= 600:
        parser.error("1-1000 clients, up to 600 seconds")
    if args.url:
        if not args.url.startswith(("http://127.0.0.1:", "http://localhost:")):
            parser.error("--url must be on this machine (http://127.0.0.1:PORT)")
        report(asyncio.run(run(args.url, args.clients, args.seconds, args.seed)), args.seconds,
               args.clients)  # fmt: skip
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "load.sqlite3"
        cmd = [sys.executable, "-m", "ggpkit", "web", "--port", str(port), "--db", str(db)]
        server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            tally = asyncio.run(
                run(f"http://127.0.0.1:{port}", args.clients, args.seconds, args.seed)
            )
        finally:
            server.terminate()
            server.wait(10)
    report(tally, args.seconds, args.clients)


if __name__ == "__main__":
    main()
