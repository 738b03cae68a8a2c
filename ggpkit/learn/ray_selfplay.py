"""Training on Ray: self-play workers and one learner, each a Ray actor.

Each self-play worker loads the game itself (by the name or path the run was given: a game
object need not pickle) and plays its share of the round's games in flight with the
parameters sent for that round. The learner is an actor too, holding the
:class:`~ggpkit.learn.trainer.Trainer` (the network, the buffer, the gating), placed on
the node of the process that started the run, so that its checkpoints are written where
that process wrote them and ``--resume`` finds them there: a killed run loses the round
in flight, as without Ray. It asks for no CPU of its own: it trains while the workers
wait for the next round's parameters.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ggpkit.agents.learned.network import NetConfig, Params
from ggpkit.games.api import Game
from ggpkit.learn.checkpoint import Counters
from ggpkit.learn.selfplay import Outcome
from ggpkit.learn.settings import TrainSettings
from ggpkit.learn.trainer import LocalSelfPlay, Progress, TrainError, run_rounds

ray: Any = importlib.import_module("ray")  # the ray extra; untyped, so held as Any


def _node() -> str:
    """The Ray node this process runs on."""
    return str(ray.get_runtime_context().get_node_id())


class _Worker:
    """One self-play process: a game loaded once, games played on request."""

    def __init__(self, source: str, config: NetConfig, settings: TrainSettings) -> None:
        from ggpkit.games.registry import load

        self.local = LocalSelfPlay(load(source), config, settings)

    def play(self, params: Params, count: int, seed: int) -> list[Outcome]:
        return self.local.play(params, count, seed)

    def node(self) -> str:
        return _node()


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

    def nodes(self) -> list[str]:
        """The node of each worker."""
        return list(ray.get([w.node.remote() for w in self.workers]))


def connect(address: str) -> None:
    """Join the Ray cluster at ``address`` (``local``: start one here), once."""
    if not ray.is_initialized():
        ray.init(address=None if address == "local" else address, log_to_driver=False)


class _Learner:
    """The learner's actor: a Trainer whose self-play runs on worker actors."""

    def __init__(self) -> None:
        from ggpkit.learn.trainer import Trainer

        self.trainer: Trainer | None = None

    def open(
        self, source: str, out: str, settings: TrainSettings, resume: bool, workers: int
    ) -> str | None:
        """Start or resume the run; the reason where it cannot (None: it can)."""
        from ggpkit.agents.learned.model_file import ModelError
        from ggpkit.games.registry import load
        from ggpkit.learn.trainer import Trainer

        def make(game: Game[Any], config: NetConfig, s: TrainSettings) -> RaySelfPlay:
            return RaySelfPlay(source, config, s, workers)

        try:
            self.trainer = Trainer(load(source), Path(out), settings, resume, make)
        except (TrainError, ModelError) as e:
            return str(e)
        return None

    def round(self, began: float) -> Progress:
        assert self.trainer is not None, "open the run first"
        return self.trainer.round(began)

    def counters(self) -> Counters:
        assert self.trainer is not None, "open the run first"
        return self.trainer.counters

    def nodes(self) -> dict[str, list[str]]:
        """The learner's node and its workers' nodes."""
        assert self.trainer is not None, "open the run first"
        selfplay = self.trainer.selfplay
        assert isinstance(selfplay, RaySelfPlay)
        return {"learner": [_node()], "workers": selfplay.nodes()}


class RayTrainer:
    """A training run on a Ray cluster, driven from here as a local
    :class:`~ggpkit.learn.trainer.Trainer` is (``run``, ``counters``)."""

    def __init__(
        self,
        source: str,
        out: Path,
        settings: TrainSettings,
        resume: bool,
        address: str,
        workers: int | None = None,
    ) -> None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        connect(address)
        count = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        here = NodeAffinitySchedulingStrategy(node_id=_node(), soft=False)
        actor = ray.remote(num_cpus=0, scheduling_strategy=here)(_Learner)
        self.learner: Any = actor.remote()
        opened = self.learner.open.remote(source, str(out.resolve()), settings, resume, count)
        reason = ray.get(opened)
        if reason is not None:
            self.close()
            raise TrainError(reason)

    def close(self) -> None:
        """End the learner's actor, and with it its workers (actors share their owner's
        fate), so that their CPUs are free for another run."""
        ray.kill(self.learner)

    @property
    def counters(self) -> Counters:
        return ray.get(self.learner.counters.remote())  # type: ignore[no-any-return]

    def nodes(self) -> dict[str, list[str]]:
        """Where the learner and the self-play workers run (node ids)."""
        return ray.get(self.learner.nodes.remote())  # type: ignore[no-any-return]

    def run(
        self,
        seconds: float | None = None,
        rounds: int | None = None,
        progress: Callable[[Progress], None] | None = None,
    ) -> Counters:
        """As :meth:`ggpkit.learn.trainer.Trainer.run`, each round played by the learner."""

        def one_round(began: float) -> Progress:
            return ray.get(self.learner.round.remote(began))  # type: ignore[no-any-return]

        run_rounds(one_round, seconds, rounds, progress)
        return self.counters
