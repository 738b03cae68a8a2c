"""The training loop: self-play, the replay buffer, training steps, gated generations.

A round plays ``games_in_flight`` self-play games with the best network (AlphaGo Zero's
rule: the data comes from the player that won its place), adds their positions to the
buffer, trains the candidate network ``train_steps`` batches, and every
``generation_games`` games plays the gating arena, candidate against best; a candidate
that scores ``gate_score`` becomes the best, the next generation. Each round ends with a
checkpoint (:mod:`~ggpkit.learn.checkpoint`), so a run stopped in any way goes on with
``resume``, losing at most the round in progress. Each generation's best network is also
kept, in ``MODEL.generations/``, for learning curves (``benchmarks/learning_curve.py``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from flax import serialization

from ggpkit.agents.learned.model_file import Model, fingerprint
from ggpkit.agents.learned.network import NetConfig, Network, Params, init_params
from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game
from ggpkit.games.encoding import Encoding
from ggpkit.learn.buffer import ReplayBuffer
from ggpkit.learn.checkpoint import (
    Checkpoint,
    Counters,
    load_checkpoint,
    save_checkpoint,
    save_generation,
    state_path,
)
from ggpkit.learn.optimize import make_step
from ggpkit.learn.selfplay import Outcome, Play, play_matches
from ggpkit.learn.settings import TrainSettings


class TrainError(GgpkitError):
    """A training run that cannot start or go on (a model in the way, a game it cannot learn)."""


@dataclass(frozen=True, slots=True)
class Progress:
    """What the live view shows after each round."""

    counters: Counters
    losses: dict[str, float]
    games_per_second: float
    positions_per_second: float
    gated: bool
    """Whether this round ended with a gating arena (its result is ``counters.history[-1]``)."""


class SelfPlayer(Protocol):
    """Plays self-play games with given parameters: here, or on Ray workers."""

    def play(self, params: Params, count: int, seed: int) -> list[Outcome]: ...


Players = Callable[[Game[Any], NetConfig, TrainSettings], SelfPlayer]
"""Makes the self-play of a run, once its network and settings are known."""


class LocalSelfPlay:
    """Self-play in this process, every game in flight searched together."""

    def __init__(self, game: Game[Any], config: NetConfig, settings: TrainSettings) -> None:
        self.game = game
        self.encoding = Encoding(game)
        self.config = config
        self.play_settings = Play(
            settings.simulations, settings.temperature_moves, settings.noise, True,
            settings.max_moves,
        )  # fmt: skip

    def play(self, params: Params, count: int, seed: int) -> list[Outcome]:
        network = Network(self.encoding, self.config, params)
        seats = tuple(0 for _ in self.game.roles)
        return play_matches(
            self.game, [network], [seats] * count, self.play_settings, random.Random(seed)
        )


def check_learnable(game: Game[Any]) -> None:
    """TrainError for a game the trainer cannot learn (yet): hidden information, chance."""
    if game.info.imperfect or game.info.chance_role is not None:
        raise TrainError(f"{game.name}: learning games of imperfect information is not supported")


def run_rounds(
    one_round: Callable[[float], Progress],
    seconds: float | None,
    rounds: int | None,
    progress: Callable[[Progress], None] | None,
) -> None:
    """Call ``one_round`` (given when the run began) until ``seconds`` of wall clock have
    passed (the round running then is finished) or ``rounds`` were played; at least once."""
    began = time.monotonic()
    done = 0
    while True:
        report = one_round(began)
        done += 1
        if progress is not None:
            progress(report)
        if rounds is not None and done >= rounds:
            break
        if seconds is not None and time.monotonic() - began >= seconds:
            break
        if seconds is None and rounds is None:
            break


class Trainer:
    """One training run of a game, written to ``out`` (see the module docstring)."""

    def __init__(
        self,
        game: Game[Any],
        out: Path,
        settings: TrainSettings | None = None,
        resume: bool = False,
        players: Players | None = None,
    ) -> None:
        check_learnable(game)
        self.game = game
        self.out = out
        self.encoding = Encoding(game)
        point = self._resumed() if resume else self._fresh(settings or TrainSettings())
        self.settings = TrainSettings(**point.settings)
        self.config = point.model.config
        self.best = point.model
        self.candidate = point.candidate
        self.counters = point.counters
        s = self.settings
        self.tx, self.step = make_step(self.config, s.learning_rate, s.weight_decay)
        self.opt_state = serialization.from_state_dict(
            self.tx.init(self.candidate), point.opt_state
        )
        self.buffer = ReplayBuffer(
            self.settings.buffer, self.config.inputs, sum(self.config.actions), len(game.roles)
        )
        self.buffer.restore(point.buffer)
        self.selfplay = (players or LocalSelfPlay)(game, self.config, self.settings)
        self.losses: dict[str, float] = {}
        save_checkpoint(self.out, self._checkpoint())
        if not resume:
            save_generation(self.out, self.best)  # generation 0: the curve's untrained start

    def _fresh(self, settings: TrainSettings) -> Checkpoint:
        if state_path(self.out).exists() or self.out.exists():
            raise TrainError(f"{self.out} exists: give --resume to go on training it")
        s = settings
        config = NetConfig.for_encoding(
            self.encoding, channels=s.channels, blocks=s.blocks, hidden=s.hidden
        )
        params = init_params(config, s.seed)
        model = Model(self.game.name, fingerprint(self.encoding), config, params)
        tx, _ = make_step(config, s.learning_rate, s.weight_decay)
        empty = ReplayBuffer(1, config.inputs, sum(config.actions), len(self.game.roles))
        opt = serialization.to_state_dict(tx.init(params))
        return Checkpoint(model, params, opt, empty.to_state(), Counters(), asdict(s))

    def _resumed(self) -> Checkpoint:
        point = load_checkpoint(self.out)
        if point.model.fingerprint != fingerprint(self.encoding):
            raise TrainError(f"{self.out} was trained on {point.model.game}, not {self.game.name}")
        return point

    def _checkpoint(self) -> Checkpoint:
        return Checkpoint(
            self.best,
            self.candidate,
            serialization.to_state_dict(self.opt_state),
            self.buffer.to_state(),
            self.counters,
            asdict(self.settings),
        )

    # ---- the loop ---------------------------------------------------------------------

    def run(
        self,
        seconds: float | None = None,
        rounds: int | None = None,
        progress: Callable[[Progress], None] | None = None,
    ) -> Counters:
        """Train for ``seconds`` of wall clock (the round running then is finished) or
        ``rounds`` rounds, whichever comes first; at least one round."""
        run_rounds(self.round, seconds, rounds, progress)
        return self.counters

    def close(self) -> None:
        """Nothing to release here (a run on Ray ends its actors)."""

    def round(self, began: float) -> Progress:
        """One round: self-play, training, maybe a gating arena, then a checkpoint."""
        c = self.counters
        s = self.settings
        start = time.monotonic()
        outcomes = self.selfplay.play(self.best.params, s.games_in_flight, s.seed + c.games)
        played = time.monotonic() - start
        new_positions = self._learn_from(outcomes)
        c.selfplay_seconds += played
        self._train(s.train_steps)
        gated = c.games - c.last_gate >= s.generation_games
        if gated:
            self._gate()
        c.seconds += time.monotonic() - start
        save_checkpoint(self.out, self._checkpoint())
        return Progress(
            replace(c, history=list(c.history)),
            dict(self.losses),
            len(outcomes) / max(played, 1e-9),
            new_positions / max(played, 1e-9),
            gated,
        )

    def _learn_from(self, outcomes: Sequence[Outcome]) -> int:
        count = 0
        for outcome in outcomes:
            self.counters.games += 1
            if outcome.rows is None:
                self.counters.dropped += 1
                continue
            self.buffer.add(outcome.rows)
            count += len(outcome.rows["features"])
        self.counters.positions += count
        return count

    def _train(self, steps: int) -> None:
        s = self.settings
        if self.buffer.size == 0:
            return  # every game of the round was cut; sampling draws with replacement else
        rng = np.random.default_rng([s.seed, self.counters.steps])
        for _ in range(steps):
            batch = self.buffer.sample(s.batch_size, rng)
            self.candidate, self.opt_state, self.losses = self.step(
                self.candidate, self.opt_state, batch
            )
            self.counters.steps += 1

    def _gate(self) -> None:
        """The gating arena, candidate (network 0) against best (network 1)."""
        from ggpkit.learn.gating import gate

        c = self.counters
        c.last_gate = c.games
        entry = gate(self, self.candidate, self.best.params)
        if entry["promoted"]:
            c.generation += 1
            self.best = Model(
                self.game.name, self.best.fingerprint, self.config, self.candidate, c.generation
            )
            save_checkpoint(self.out, self._checkpoint())
            save_generation(self.out, self.best)
            entry |= self._against_mcts()
        entry["generation"] = c.generation
        c.history.append(entry)

    def _against_mcts(self) -> dict[str, Any]:
        from ggpkit.learn.gating import against_mcts

        if self.settings.mcts_matches <= 0:
            return {}
        return {"vs_mcts": against_mcts(self.game, self.out, self.settings)}
