"""A learned model on disk: the network's config and parameters, and the game they fit.

One file (Flax's msgpack of ``{"meta": JSON text, "params": arrays}``), written
atomically (:func:`~ggpkit.games.library.storage.write_atomic`), so a reader, or a
trainer killed while writing, sees the old model or the new one, whole. The meta names
the game and a fingerprint of its facts and moves: a model is refused on a game whose
encoding differs, since its inputs and actions would mean other things.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flax import serialization

from ggpkit.agents.base import AgentError
from ggpkit.agents.learned.network import NetConfig, Network, Params
from ggpkit.games.encoding import Encoding
from ggpkit.games.library.storage import write_atomic

FORMAT = "ggpkit-az/1"


class ModelError(AgentError):
    """A model file that is missing, unreadable, or made for another game."""


def fingerprint(encoding: Encoding) -> str:
    """A digest of a game's base facts and moves, in order: what a model's inputs and
    actions stand for."""
    text = "\n".join(str(f) for f in encoding.base)
    text += "\n--\n" + "\n--\n".join("\n".join(str(m) for m in ms) for ms in encoding.moves)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Model:
    """What a model file holds."""

    game: str
    fingerprint: str
    config: NetConfig
    params: Params
    generation: int = 0

    def network(self, encoding: Encoding) -> Network:
        """The network for a game; ModelError when the model was made for another."""
        if fingerprint(encoding) != self.fingerprint:
            raise ModelError(
                f"the model was trained on {self.game}, whose facts and moves differ from "
                f"{encoding.game.name}'s"
            )
        return Network(encoding, self.config, self.params)


def to_bytes(model: Model) -> bytes:
    """The model as the bytes of its file."""
    meta = {
        "format": FORMAT,
        "game": model.game,
        "fingerprint": model.fingerprint,
        "config": model.config.to_json(),
        "generation": model.generation,
    }
    data: bytes = serialization.msgpack_serialize(
        {"meta": json.dumps(meta), "params": serialization.to_state_dict(model.params)}
    )
    return data


def from_bytes(data: bytes, where: str) -> Model:
    """A model from its file's bytes; ModelError when they are not one."""
    try:
        raw: Any = serialization.msgpack_restore(data)
        meta = json.loads(raw["meta"])
        if meta.get("format") != FORMAT:
            raise ModelError(f"{where}: not a ggpkit model ({meta.get('format')!r})")
        return Model(
            game=str(meta["game"]),
            fingerprint=str(meta["fingerprint"]),
            config=NetConfig.from_json(meta["config"]),
            params=raw["params"],
            generation=int(meta.get("generation", 0)),
        )
    except ModelError:
        raise
    except Exception as e:  # msgpack and JSON raise many kinds on a foreign file
        raise ModelError(f"{where}: not a ggpkit model ({type(e).__name__}: {e})") from None


def save(path: Path, model: Model) -> None:
    """Write a model file atomically."""
    write_atomic(path, to_bytes(model))


def load_model(path: Path) -> Model:
    """Read a model file; ModelError when it is missing or not a model."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ModelError(f"cannot read the model {path}: {e.strerror or e}") from None
    return from_bytes(data, str(path))
