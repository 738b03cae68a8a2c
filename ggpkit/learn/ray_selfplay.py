"""Self-play on Ray: workers (actors) play the games of a round, the learner trains here.

Each worker loads the game itself (by the name or path the run was given: a game object
need not pickle) and plays its share of the round's games in flight with the parameters
sent for that round. The learner, the buffer and the checkpoints stay in the driver, so
resuming is the same as without Ray: a killed run loses the round in flight.
"""

from __future__ import annotations

import importlib
from typing import Any

from ggpkit.agents.learned.network import NetConfig, Params
from ggpkit.games.api import Game
from ggpkit.learn.selfplay import Outcome
from ggpkit.learn.settings import TrainSettings
from ggpkit.learn.trainer import LocalSelfPlay, Players

ray: Any = importlib.import_module("ray")  # the ray extra; untyped, so held as Any


class _Worker:
    """One self-play process: a game loaded once, games played on request."""

    def __init__(self, source: str, config: NetConfig, settings: TrainSettings) -> None:
        from ggpkit.games.registry import load

        self.local = LocalSelfPlay(load(source), config, settings)

    def play(self, params: Params, count: int, seed: int) -> list[Outcome]:
        return self.local.play(params, count, seed)


class RaySelfPlay:
    """A round's games split among ``workers`` Ray actors."""

    def __init__(
        self, source: str, config: NetConfig, settings: TrainSettings, workers: int
    ) -> None:
        actor = ray.remote(num_cpus=1)(_Worker)
        self.workers: list[Any] = [actor.remote(source, config, settings) for _ in range(workers)]

    def play(self, params: Params, count: int, seed: int) -> list[Outcome]:
        shared = ray.put(params)
        shares = [
            count // len(self.workers) + (i < count % len(self.workers))
            for i in range(len(self.workers))
        ]
        calls = [
            w.play.remote(shared, n, seed * 7919 + i)
            for i, (w, n) in enumerate(zip(self.workers, shares, strict=True))
            if n > 0
        ]
        done: list[list[Outcome]] = ray.get(calls)
        return [o for part in done for o in part]


def ray_players(source: str, address: str, workers: int | None = None) -> Players:
    """The self-play of a run on the Ray cluster at ``address`` (``local``: start one here),
    on ``workers`` actors (default: one a CPU of the cluster)."""
    if not ray.is_initialized():
        ray.init(address=None if address == "local" else address, log_to_driver=False)
    if workers is None:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    count = workers

    def make(game: Game[Any], config: NetConfig, settings: TrainSettings) -> RaySelfPlay:
        return RaySelfPlay(source, config, settings, count)

    return make
