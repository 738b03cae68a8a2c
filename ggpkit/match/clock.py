"""Clocks: the start and play clocks of a match and the deadlines derived from them.

A player must answer *before* the manager's clock runs out, and the answer still
has to travel back over HTTP, so every deadline keeps a safety margin. The
margin grows with the clock (a fraction) but is never below a floor.

A refereed match's clocks go on the wire in START, and ggp-base's players read
them as integers (a ``1.5`` is never answered), so :class:`Clocks` holds whole,
positive seconds and refuses anything else.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ggpkit.errors import GgpkitError

UNTIMED_START = 24 * 3600.0
"""The start clock of untimed matches (arena, terminal play): metagaming is not timed."""


class ClockError(GgpkitError, ValueError):
    """A clock the GGP protocol cannot carry: not a whole, positive number of seconds."""


def whole_seconds(value: float, what: str = "a clock") -> int:
    """``value`` as whole seconds, or ClockError (1.5, 0, -5, nan and inf are refused).

    ggp-base's players parse the clocks of START as integers and never answer a
    START whose clock is ``1.5``; a clock of 0 or less leaves no time to answer.
    """
    if isinstance(value, bool) or not math.isfinite(value) or value < 1 or value % 1:
        raise ClockError(f"{what} must be a whole number of seconds, at least 1 (got {value:g})")
    return int(value)


@dataclass(frozen=True, slots=True)
class Clocks:
    """The clocks of one refereed match, in whole seconds (as they go on the wire).

    ``preview`` is None when no preview clock was given (records then write
    ggp-base's ``-1``).
    """

    start: int
    play: int
    preview: int | None = None

    def __post_init__(self) -> None:
        whole_seconds(self.start, "the start clock")
        whole_seconds(self.play, "the play clock")
        if self.preview is not None:
            whole_seconds(self.preview, "the preview clock")


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
