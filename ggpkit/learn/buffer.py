"""The replay buffer: the latest self-play positions with their search and outcome targets.

Plain numpy rings, so a checkpoint stores them as arrays and a learner samples them
without copying the whole buffer. One row per position:

* ``features``: the network's 0/1 input (``int8``);
* ``policy``: per role, the root's visit shares over its actions (every role's actions
  one after another, zero off the legal moves); ``legal``: 1 on each role's legal moves;
* ``chose``: 1 for the roles that had a choice (the others' policies carry no target);
* ``shares``: every role's goal share at the end of the game.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

FIELDS = ("features", "policy", "legal", "chose", "shares")


class Sample(NamedTuple):
    """Rows drawn for one training step (a tuple, so JAX passes it as arrays)."""

    features: npt.NDArray[np.float32]
    policy: npt.NDArray[np.float32]
    legal: npt.NDArray[np.float32]
    chose: npt.NDArray[np.float32]
    shares: npt.NDArray[np.float32]


class ReplayBuffer:
    """A ring of ``capacity`` positions."""

    def __init__(self, capacity: int, inputs: int, actions: int, roles: int) -> None:
        self.capacity = capacity
        self.arrays: dict[str, npt.NDArray[Any]] = {
            "features": np.zeros((capacity, inputs), dtype=np.int8),
            "policy": np.zeros((capacity, actions), dtype=np.float32),
            "legal": np.zeros((capacity, actions), dtype=np.int8),
            "chose": np.zeros((capacity, roles), dtype=np.int8),
            "shares": np.zeros((capacity, roles), dtype=np.float32),
        }
        self.next = 0
        self.size = 0

    def add(self, rows: dict[str, npt.NDArray[Any]]) -> None:
        """Append rows (one array per field, same length), overwriting the oldest."""
        count = len(rows["features"])
        for start in range(0, count, self.capacity):
            chunk = {k: v[start : start + self.capacity] for k, v in rows.items()}
            n = len(chunk["features"])
            at = (self.next + np.arange(n)) % self.capacity
            for name in FIELDS:
                self.arrays[name][at] = chunk[name]
            self.next = int((self.next + n) % self.capacity)
            self.size = min(self.capacity, self.size + n)

    def sample(self, count: int, rng: np.random.Generator) -> Sample:
        """``count`` rows drawn uniformly (with replacement) from those kept."""
        at = rng.integers(0, self.size, size=count)
        a = self.arrays
        return Sample(*(a[name][at].astype(np.float32) for name in FIELDS))

    def to_state(self) -> dict[str, Any]:
        """The kept rows and the ring's position, for a checkpoint."""
        rows = {k: v[: self.size] for k, v in self.arrays.items()}
        return {"next": self.next, "size": self.size, **rows}

    def restore(self, state: dict[str, Any]) -> None:
        """Rows from :meth:`to_state` (a smaller capacity keeps the newest)."""
        size = int(state["size"])
        nxt = int(state["next"])
        order = np.roll(np.arange(size), -nxt) if size else np.arange(0)
        self.add({k: np.asarray(state[k])[order] for k in FIELDS})
