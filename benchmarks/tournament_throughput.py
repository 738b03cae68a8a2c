"""Matches per second: the arena's process pool against Ray, on the same short matches.

Three ways to play N random-vs-random matches of small games on this machine's cores:

- ``pool``: ``run_arena`` (a multiprocessing pool, one game per run), as ``ggpkit arena``;
- ``ray``: the same match function (``arena.play_match``) as N Ray tasks, one per match;
- ``tournament``: a whole ``ggpkit tournament`` on Ray: refereed matches, every record
  written to a SQLite store by the one writer.

Before them, ``serial`` plays a sample in this process to give the bare time of a match
(mean and median: the games differ in length); a way's *overhead per match* is
``wall * cores / N - serial mean``: what each match costs beyond its own play.
Run on a quiet machine (``uptime``):

    python benchmarks/tournament_throughput.py --matches 1000 --cpus 2
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from ggpkit.agents.base import Limit
from ggpkit.games.api import Game
from ggpkit.games.library import find_game
from ggpkit.games.registry import load
from ggpkit.match.arena import play_match, run_arena
from ggpkit.tournament.config import TournamentConfig, config_from_options
from ggpkit.tournament.games import resolve_games

SPECS = ("random", "random")


_GAMES: dict[str, Game[Any]] = {}


def game_of(source: str) -> Game[Any]:
    """The game, loaded once in this process."""
    if source not in _GAMES:
        _GAMES[source] = load(source)
    return _GAMES[source]


def sources(games_dir: Path | None) -> list[str]:
    """breakthrough-holes, and ticTacToe.kif from ``games_dir`` or else the game library
    (``ggpkit games fetch ticTacToe``) where it is there."""
    if games_dir is not None:
        tic: Path | None = games_dir / "ticTacToe.kif"
    else:
        found = find_game("ticTacToe")
        tic = found.path if found is not None else None
    return ["breakthrough-holes", *([str(tic)] if tic is not None and tic.is_file() else [])]


def serial(games: list[str], sample: int) -> tuple[float, float]:
    times = []
    for i in range(sample):
        game = game_of(games[i % len(games)])
        started = time.perf_counter()
        play_match(game, SPECS, i, 1, Limit())
        times.append(time.perf_counter() - started)
    return statistics.mean(times), statistics.median(times)


def pool(games: list[str], n: int, cpus: int) -> float:
    started = time.perf_counter()
    for source in games:
        run_arena(source, SPECS, n // len(games), seed=1, jobs=cpus)
    return time.perf_counter() - started


def ray_tasks(games: list[str], n: int) -> tuple[float, float]:
    import ray

    from ggpkit.tournament.games import GameRef, load_ref

    @ray.remote(max_retries=3)
    def one(ref: GameRef, index: int) -> float:
        game = load_ref(ref)  # loaded once per worker process
        started = time.perf_counter()
        play_match(game, SPECS, index, 1, Limit())
        return time.perf_counter() - started

    refs = resolve_games(config_for(games, 1))
    ray.get([one.remote(r, 0) for r in refs * 4])  # workers up, games loaded
    started = time.perf_counter()
    inside = ray.get([one.remote(refs[i % len(refs)], i) for i in range(n)])
    return time.perf_counter() - started, statistics.median(inside)


def config_for(games: list[str], per_pairing: int) -> TournamentConfig:
    return config_from_options(
        {
            "games": games,
            "players": {"a": "random", "b": "random"},
            "matches_per_pairing": per_pairing,
            "startclock": 1,
            "playclock": 1,
        }
    )


def tournament(games: list[str], n: int) -> float:
    from ggpkit.store.sqlite import MatchStore
    from ggpkit.store.tournaments import TournamentStore
    from ggpkit.tournament.ray_backend import RayExecutor
    from ggpkit.tournament.runner import create_tournament, run_tournament

    config = config_for(games, n // len(games))
    with tempfile.TemporaryDirectory() as folder:
        tstore = TournamentStore(MatchStore(Path(folder) / "m.sqlite3"))
        tid = create_tournament(tstore, config, resolve_games(config))
        started = time.perf_counter()
        state = run_tournament(tstore, tid, RayExecutor())
        seconds = time.perf_counter() - started
        assert state.done == n and not state.failed, state
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--serial-sample", type=int, default=100)
    parser.add_argument(
        "--games-dir",
        type=Path,
        default=None,
        help="folder holding ticTacToe.kif (default: the game library)",
    )
    args = parser.parse_args()
    games = sources(args.games_dir)
    n, cpus = args.matches - args.matches % len(games), args.cpus
    bare, median_bare = serial(games, args.serial_sample)
    print(f"games {', '.join(Path(g).name for g in games)}; {n} matches; {cpus} cores")
    print(f"serial: mean match {1000 * bare:.2f} ms, median {1000 * median_bare:.2f} ms")
    rows = [("pool", pool(games, n, cpus), None)]
    import ray

    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    wall, inside = ray_tasks(games, n)
    rows.append(("ray", wall, inside))
    rows.append(("tournament", tournament(games, n), None))
    ray.shutdown()
    print(
        f"{'way':12} {'wall s':>8} {'matches/s':>10} {'overhead ms/match':>18} "
        f"{'median in task ms':>18}"
    )
    for name, seconds, median in rows:
        overhead = 1000 * (seconds * cpus / n - bare)
        shown = "-" if median is None else f"{1000 * median:.2f}"
        print(f"{name:12} {seconds:8.2f} {n / seconds:10.1f} {overhead:18.2f} {shown:>18}")


if __name__ == "__main__":
    main()
