"""The trainer's checkpoint: everything a run needs to go on, in one file written atomically.

``MODEL`` (what ``az:model=MODEL`` plays) is the current best network; ``MODEL.train``
beside it holds the run: both networks, the optimiser's state, the replay buffer, the
counters and each generation's scores. Each file is written to a temporary file and
renamed over its name, the checkpoint first and the model after, so a trainer killed at
any instant (``kill -9``) leaves a whole checkpoint, at worst one step behind the model,
and ``--resume`` rewrites the model from it. What is lost is what was not yet written:
the games in flight and the training steps after them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from flax import serialization

from ggpkit.agents.learned.model_file import FORMAT, Model, ModelError
from ggpkit.agents.learned.network import Params
from ggpkit.games.library.storage import write_atomic


@dataclass(slots=True)
class Counters:
    """How far a run has gone, over all its resumptions."""

    generation: int = 0
    games: int = 0
    dropped: int = 0
    """Self-play games cut at the length bound (not learned from)."""
    positions: int = 0
    steps: int = 0
    selfplay_seconds: float = 0.0
    seconds: float = 0.0
    last_gate: int = 0
    """``games`` at the last gating arena."""
    history: list[dict[str, Any]] = field(default_factory=list)
    """One entry per gating arena: generation, games, score against the best, promoted,
    and the score against plain MCTS where measured."""


@dataclass(slots=True)
class Checkpoint:
    """What ``MODEL.train`` holds."""

    model: Model
    """The best network, as the model file has it."""
    candidate: Params
    opt_state: Any
    """Flax's state dict of the optimiser's state (restored against a fresh one)."""
    buffer: dict[str, Any]
    counters: Counters
    settings: dict[str, Any]


def state_path(model_path: Path) -> Path:
    """Where the checkpoint of a model lives."""
    return model_path.with_name(model_path.name + ".train")


def generation_path(model_path: Path, generation: int) -> Path:
    """Where a run keeps the best network of one generation: ``MODEL.generations/NNNN.model``,
    so a learning curve can replay every generation against a fixed opponent."""
    return model_path.with_name(model_path.name + ".generations") / f"{generation:04d}.model"


def save_generation(model_path: Path, model: Model) -> None:
    """Keep ``model`` as its generation's network (atomically; a rewrite replaces it)."""
    from ggpkit.agents.learned.model_file import save

    path = generation_path(model_path, model.generation)
    path.parent.mkdir(parents=True, exist_ok=True)
    save(path, model)


def save_checkpoint(model_path: Path, point: Checkpoint) -> None:
    """Write the checkpoint, then the model, each atomically."""
    from ggpkit.agents.learned.model_file import save, to_bytes

    meta = {
        "format": FORMAT,
        "counters": asdict(point.counters),
        "settings": point.settings,
    }
    data = serialization.msgpack_serialize(
        {
            "meta": json.dumps(meta),
            "model": to_bytes(point.model),
            "candidate": serialization.to_state_dict(point.candidate),
            "opt_state": point.opt_state,
            "buffer": point.buffer,
        }
    )
    write_atomic(state_path(model_path), data)
    save(model_path, point.model)


def load_checkpoint(model_path: Path) -> Checkpoint:
    """Read ``MODEL.train``; ModelError when it is missing or damaged."""
    from ggpkit.agents.learned.model_file import from_bytes

    where = state_path(model_path)
    try:
        raw: Any = serialization.msgpack_restore(where.read_bytes())
        meta = json.loads(raw["meta"])
        counters = Counters(**meta["counters"])
        return Checkpoint(
            model=from_bytes(raw["model"], str(where)),
            candidate=raw["candidate"],
            opt_state=raw["opt_state"],
            buffer=raw["buffer"],
            counters=counters,
            settings=meta["settings"],
        )
    except OSError as e:
        raise ModelError(f"cannot resume: no checkpoint at {where} ({e.strerror or e})") from None
    except (KeyError, TypeError, ValueError) as e:
        raise ModelError(f"cannot resume: {where} is damaged ({type(e).__name__}: {e})") from None
