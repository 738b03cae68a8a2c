"""Clocks: the start and play clocks of a match and the deadlines derived from them.

A player must answer *before* the manager's clock runs out, and the answer still
has to travel back over HTTP, so every deadline keeps a safety margin. The
margin grows with the clock (a fraction) but is never below a floor.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

UNTIMED_START = 24 * 3600.0
"""The start clock of untimed matches (arena, terminal play): metagaming is not timed."""


@dataclass(frozen=True, slots=True)
class Clocks:
    """The clocks of one match, in seconds."""

    start: float
    play: float
    preview: float = 0.0


def safety_margin(clock: float, fraction: float = 0.1, floor: float = 0.3) -> float:
    """Seconds kept back from a clock for transport and bookkeeping (never the whole clock)."""
    return min(max(clock * fraction, floor), clock * 0.5)


def thinking_time(clock: float) -> float:
    """The time an agent may think within ``clock`` seconds, margin taken off."""
    return max(clock - safety_margin(clock), 0.0)


@dataclass(frozen=True, slots=True)
class Deadline:
    """A point in monotonic time; ``remaining()`` is never negative."""

    at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(time.monotonic() + seconds)

    def remaining(self) -> float:
        return max(self.at - time.monotonic(), 0.0)

    def expired(self) -> bool:
        return time.monotonic() >= self.at
