"""Self-play throughput (positions a second) of ``ggpkit train`` on one core, two cores
(two Ray workers on this machine) and two Ray nodes (a test cluster of two one-CPU
nodes on this machine), in one run, as medians over repeats with ratios to one core.

The network is an untrained one of the trainer's default size (its weights do not change
the work per position); each repeat plays rounds of ``--games-in-flight`` games until
``--seconds`` have passed and counts the positions of the games it finished.

    python benchmarks/selfplay_throughput.py ../shared/ggp-games/connectFour.kif --seconds 30

Run it on a quiet machine: it is a timing.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time
from typing import Any


def _rate(players: Any, params: Any, seconds: float, games: int) -> float:
    """Positions a second of ``players`` (a self-play of the trainer) over ``seconds``."""
    players.play(params, games, 0)  # warm: JAX compiles, workers load the game
    began = time.monotonic()
    positions = 0
    seed = 1
    while time.monotonic() - began < seconds:
        outcomes = players.play(params, games, seed)
        positions += sum(len(o.rows["features"]) for o in outcomes if o.rows is not None)
        seed += 1
    return positions / (time.monotonic() - began)


def _setup(source: str) -> tuple[Any, Any, Any]:
    from ggpkit.agents.learned.network import NetConfig, init_params
    from ggpkit.games.encoding import Encoding
    from ggpkit.games.registry import load
    from ggpkit.learn.settings import TrainSettings

    game = load(source)
    s = TrainSettings()
    config = NetConfig.for_encoding(
        Encoding(game), channels=s.channels, blocks=s.blocks, hidden=s.hidden
    )
    return game, config, (s, init_params(config, 0))


def _one_core(source: str, seconds: float, games: int, queue: Any) -> None:
    """In a child process pinned to one CPU: the trainer's local self-play."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    from ggpkit.learn.trainer import LocalSelfPlay

    game, config, (settings, params) = _setup(source)
    queue.put(_rate(LocalSelfPlay(game, config, settings), params, seconds, games))


def one_core(source: str, seconds: float, games: int) -> float:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=_one_core, args=(source, seconds, games, queue))
    child.start()
    rate = float(queue.get())
    child.join()
    return rate


def on_ray(source: str, seconds: float, games: int, nodes: int) -> float:
    """Two Ray workers: on one node of two CPUs, or on two nodes of one CPU each."""
    import ray
    from ray.cluster_utils import Cluster

    from ggpkit.learn.ray_selfplay import RaySelfPlay

    _, config, (settings, params) = _setup(source)
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 2 // nodes, "include_dashboard": False},
    )
    try:
        for _ in range(nodes - 1):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)
        players = RaySelfPlay(source, config, settings, 2)
        assert len(set(players.nodes())) == nodes
        return _rate(players, params, seconds, games)
    finally:
        ray.shutdown()
        cluster.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help="a game name or .kif path")
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds a repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games-in-flight", type=int, default=16)
    args = parser.parse_args()
    runs: dict[str, list[float]] = {"one core": [], "two cores (Ray)": [], "two Ray nodes": []}
    for _ in range(args.repeats):
        runs["one core"].append(one_core(args.game, args.seconds, args.games_in_flight))
        runs["two cores (Ray)"].append(on_ray(args.game, args.seconds, args.games_in_flight, 1))
        runs["two Ray nodes"].append(on_ray(args.game, args.seconds, args.games_in_flight, 2))
    base = statistics.median(runs["one core"])
    print(f"| {args.game} | positions/s (median of {args.repeats}) | runs | x one core |")
    print("|---|---|---|---|")
    for name, rates in runs.items():
        median = statistics.median(rates)
        shown = ", ".join(f"{r:.0f}" for r in rates)
        print(f"| {name} | {median:.0f} | {shown} | {median / base:.2f} |")


if __name__ == "__main__":
    main()
