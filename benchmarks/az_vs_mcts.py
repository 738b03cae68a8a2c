"""The learned player against plain MCTS: a learning curve, then equal clocks and equal
simulations. The long measurements of issue 47 (``ggpkit train`` and the ``az`` agent).

For each game: train (``ggpkit.learn``) for ``--hours`` in intervals of ``--interval``
seconds; after each interval the current best model plays ggpkit's default MCTS at
``--move-time`` seconds a move (roles alternated, ``--curve-matches`` matches), a point
of the learning curve with its 95% interval. At the end, ``--matches`` matches at equal
wall clock (``az:time=T`` against ``mcts:time=T``) and as many at equal simulations
(``az:playouts=N`` against ``mcts:playouts=N``). Self-play throughput (positions/s, over
the self-play time only) is printed with every point. Every line also goes to
``OUT/results.jsonl``; models are ``OUT/GAME.model`` (``--resume`` goes on with them).
The finals also seat the hybrid (``hybrid:model=M,time=T``: ggpkit's MCTS whose root the
network helps to judge) against MCTS at equal wall clock.

With ``--trained MODEL`` (one game) nothing is trained: the curve is drawn over the
generations a ``ggpkit train`` run kept (``MODEL.generations/``, every ``--every``-th and
the last), then the finals are played with MODEL.

    python benchmarks/az_vs_mcts.py ../shared/ggp-games/connectFour.kif \\
        ../shared/ggp-games/breakthroughSmall.kif --hours 8 --out /tmp/az --matches 40
    python benchmarks/az_vs_mcts.py ../shared/ggp-games/connectFour.kif \\
        --trained c4.model --out /tmp/az --every 4

Pin it to cores (``taskset``) on a quiet machine; the arena plays one match at a time
(``--jobs``) so that both players get the same cores.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.registry import load
from ggpkit.match.arena import ArenaResult, run_arena


def arena_line(game: Game[Any], specs: list[str], matches: int, jobs: int) -> dict[str, Any]:
    """The first spec's mean goal against the second's, with its 95% interval."""
    result: ArenaResult = run_arena(game, specs, matches, seed=1, jobs=jobs)
    s = result.stats[0]
    return {
        "specs": specs,
        "matches": matches,
        "mean": round(s.mean_goal, 2),
        "ci95": round(s.ci95, 2),
        "wins": s.wins,
        "draws": s.draws,
        "losses": s.losses,
    }


def train_game(source: str, args: argparse.Namespace, log: Any) -> None:
    """The learning curve of one game, then the two final arenas."""
    from ggpkit.learn.settings import TrainSettings
    from ggpkit.learn.trainer import Trainer

    game = load(source)
    out = Path(args.out) / f"{game.name}.model"
    settings = TrainSettings(simulations=args.simulations, mcts_matches=0, seed=args.seed)
    resume = args.resume and out.exists()
    trainer = Trainer(game, out, None if resume else settings, resume)
    budget = args.hours * 3600
    while trainer.counters.seconds < budget - 1:  # a round overshoots; no point for a second
        left = budget - trainer.counters.seconds
        trainer.run(seconds=min(args.interval, left))
        c = trainer.counters
        point = {
            "game": game.name,
            "kind": "curve",
            "seconds": round(c.seconds),
            "generation": c.generation,
            "games": c.games,
            "positions": c.positions,
            "positions_per_s": round(c.positions / max(c.selfplay_seconds, 1e-9), 1),
        }
        specs = [f"az:model={out},time={args.move_time}", f"mcts:time={args.move_time}"]
        point |= arena_line(game, specs, args.curve_matches, args.jobs)
        emit(point, log)
    finals(game, out, args, log)


def finals(game: Game[Any], model: Path, args: argparse.Namespace, log: Any) -> None:
    """The final arenas of one model: equal clocks, equal simulations, the hybrid."""
    t, sims = args.move_time, args.final_simulations
    side = args.side_matches or args.matches
    for kind, specs, matches in (
        ("equal-time", [f"az:model={model},time={t}", f"mcts:time={t}"], args.matches),
        ("equal-simulations", [f"az:model={model},playouts={sims}", f"mcts:playouts={sims}"], side),
        ("hybrid-equal-time", [f"hybrid:model={model},time={t}", f"mcts:time={t}"], side),
    ):
        row = arena_line(game, specs, matches, args.jobs)
        emit({"game": game.name, "kind": kind} | row, log)


def generations_curve(source: str, model: Path, args: argparse.Namespace, log: Any) -> None:
    """The curve over the generations a run kept, then the finals of its best."""
    from ggpkit.learn.checkpoint import generation_path

    game = load(source)
    kept = sorted(generation_path(model, 0).parent.glob("*.model"))
    if not kept:
        raise SystemExit(f"{model}: no generations kept beside it (MODEL.generations/)")
    chosen = kept[:: args.every] + ([kept[-1]] if (len(kept) - 1) % args.every else [])
    for path in chosen:
        t = args.move_time
        specs = [f"az:model={path},time={t}", f"mcts:time={t}"]
        row = {"game": game.name, "kind": "curve", "generation": int(path.stem)}
        emit(row | arena_line(game, specs, args.curve_matches, args.jobs), log)
    finals(game, model, args, log)


def emit(row: dict[str, Any], log: Any) -> None:
    """A result line on stdout and in the log."""
    print(json.dumps(row), flush=True)
    log.write(json.dumps(row) + "\n")
    log.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="+", help="games (names or .kif paths)")
    parser.add_argument("--out", required=True, help="folder for the models and results")
    parser.add_argument("--hours", type=float, default=8.0, help="training time per game")
    parser.add_argument("--interval", type=float, default=1800.0, help="seconds between points")
    parser.add_argument("--move-time", type=float, default=1.0, help="seconds a move")
    parser.add_argument("--curve-matches", type=int, default=20, help="matches per curve point")
    parser.add_argument("--matches", type=int, default=40, help="matches of the final arenas")
    parser.add_argument("--side-matches", type=int, help="of equal sims and hybrid (--matches)")
    parser.add_argument("--simulations", type=int, default=64, help="self-play simulations")
    parser.add_argument("--final-simulations", type=int, default=800, help="equal-sims arena")
    parser.add_argument("--jobs", type=int, default=1, help="arena worker processes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", action="store_true", help="go on with models in --out")
    parser.add_argument("--trained", help="a trained MODEL: its kept generations, no training")
    parser.add_argument("--every", type=int, default=1, help="with --trained: every k-th")
    args = parser.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with open(Path(args.out) / "results.jsonl", "a") as log:
        if args.trained is not None:
            if len(args.games) != 1:
                raise SystemExit("--trained takes one game, the model's")
            generations_curve(args.games[0], Path(args.trained), args, log)
        for source in [] if args.trained is not None else args.games:
            train_game(source, args, log)
    print(f"done in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
