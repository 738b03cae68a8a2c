"""Every GDL-II game of a folder over HTTP: ggpkit's referee and player servers, each player
its own process, and the faults of each match counted by kind.

One match a game, every seat played by a ``ggpkit player`` process serving ``--agent``
(the default player unless told), started once for the whole run; the referee runs
here and sends the GDL-II messages. A line per game goes to ``--out`` (JSON lines) as it
ends, and a run that finds the file goes on with the games it lacks. The table at the end
counts, per match, the steps where a player's answer was late (TO), failed to arrive
(CE) or was illegal (IL), and says whether the referee's record replays. Timings
depend on the machine; nothing here asserts them.

    python benchmarks/gdl2_over_http.py GAMES_DIR [--agent mcts] [--playclock 3]
        [--startclock 10] [--out gdl2_http.jsonl] [--games A.kif B.kif] [--port 9360]
        [--max-steps 200]

Some games never end if their players stall (ConnectThreeDecompositionII: a player
that would lose may play ``noop`` for ever, and the rules have no step limit); a match is
aborted after ``--max-steps`` and shown so.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from vs_ggp_base import wait_for_port  # this folder's: the scripts run from it

from ggpkit.games.gdl.game import load_kif_file, rules_of_file
from ggpkit.match.clock import Clocks
from ggpkit.match.players import HttpPlayer
from ggpkit.match.protocol import strip_comments
from ggpkit.match.recorder import NullRecorder
from ggpkit.match.records import MatchRecord
from ggpkit.match.referee import Referee
from ggpkit.match.replay import replay

READY_SECONDS = 300.0
"""How long a player server may take to warm its kernels up and listen."""


def start_players(ports: list[int], agent: str, warmup: bool) -> list[subprocess.Popen[bytes]]:
    """A player server on each of ``ports``, each on one thread."""
    servers = []
    for port in ports:
        command = [sys.executable, "-m", "ggpkit", "player", "--port", str(port),
                   "--agent", agent, "--threads", "1", "--no-db"]  # fmt: skip
        command += [] if warmup else ["--no-warmup"]
        servers.append(subprocess.Popen(command, stdout=subprocess.DEVNULL))
    for port in ports:
        wait_for_port(port, READY_SECONDS)
    return servers


def play(path: Path, ports: list[int], clocks: Clocks, seed: int, most: int) -> dict[str, Any]:
    """One match of the game at ``path`` between the player servers on ``ports`` (one a
    seat), aborted after ``most`` steps; its line of results."""
    game = load_kif_file(path)
    rules = strip_comments(rules_of_file(path))
    players = [HttpPlayer(f"http://127.0.0.1:{port}") for port in ports[: len(game.seats)]]
    referee = Referee(game, rules, players, clocks, NullRecorder(), seed=seed, max_steps=most)
    began = time.perf_counter()
    record = asyncio.run(referee.run())
    faults = {code: 0 for code in ("TO", "CE", "IL")}
    for errors in record.errors:
        for error in errors:
            if error:
                faults[error[:2]] = faults.get(error[:2], 0) + 1
    return {
        "game": path.name,
        "seats": len(game.seats),
        "reasoner": game.reasoner_name,
        "steps": record.steps,
        "aborted": record.is_aborted,
        "faults": faults,
        "replays": replays(record, game),
        "seconds": round(time.perf_counter() - began, 1),
    }


def replays(record: MatchRecord, game: Any) -> bool:
    """Whether the record, written and read back, replays on the game (an aborted one as
    far as it went)."""
    try:
        replay(MatchRecord.loads(record.dumps()), game)
    except Exception:
        return False
    return record.is_completed or record.is_aborted


def table(lines: list[dict[str, Any]]) -> str:
    rows = ["| game | seats | reasoner | steps | TO | CE | IL | replays | seconds |",
            "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    aborted = " (aborted)"
    for line in lines:
        faults = line["faults"]
        rows.append(
            f"| {line['game']} | {line['seats']} | {line['reasoner']} | {line['steps']}"
            f"{aborted if line.get('aborted') else ''} | "
            f"{faults.get('TO', 0)} | {faults.get('CE', 0)} | {faults.get('IL', 0)} | "
            f"{'yes' if line['replays'] else 'NO'} | {line['seconds']} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games_dir", type=Path, help="a folder of GDL-II .kif files")
    parser.add_argument("--agent", default="mcts", help="the players' agent spec")
    parser.add_argument("--startclock", type=int, default=10)
    parser.add_argument("--playclock", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--port", type=int, default=9360, help="the first player's port")
    parser.add_argument(
        "--max-steps",
        type=int,
        default=200,
        help="abort a match after this many steps (players that stall)",
    )
    parser.add_argument("--no-warmup", action="store_true", help="players skip the warm-up")
    parser.add_argument("--out", type=Path, default=Path("gdl2_http.jsonl"))
    parser.add_argument("--games", nargs="*", help="file names in GAMES_DIR (default: all)")
    args = parser.parse_args()
    names = args.games or sorted(p.name for p in args.games_dir.glob("*.kif"))
    done = [json.loads(t) for t in args.out.read_text().splitlines()] if args.out.exists() else []
    left = [n for n in names if n not in {line["game"] for line in done}]
    seats = max((len(load_kif_file(args.games_dir / n).seats) for n in left), default=0)
    ports = [args.port + i for i in range(seats)]
    servers = start_players(ports, args.agent, not args.no_warmup) if left else []
    clocks = Clocks(args.startclock, args.playclock)
    try:
        for name in left:
            line = play(args.games_dir / name, ports, clocks, args.seed, args.max_steps)
            print(json.dumps(line), flush=True)
            with args.out.open("a") as out:
                out.write(json.dumps(line) + "\n")
            done.append(line)
    finally:
        for server in servers:
            server.terminate()
    print(table([line for line in done if line["game"] in names]))


if __name__ == "__main__":
    main()
