"""The gdl-perf benchmark loop (github.com/AlexLandau/gdl-perf) on the fast reasoner.

The engine repeats random rollouts from the initial state for a given time: legal
moves, a uniformly random joint move and the next state until terminal, then
the goal values. The result is reported as ``key=value`` lines (``version``,
``millisecondsTaken``, ``numStateChanges``, ``numRollouts``), or one
``errorMessage`` line when the game cannot be run. Grounding and compiling are
not timed, as in gdl-perf: only the rollouts are.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ggpkit.gdl.kif import GdlSyntaxError, parse_rules
from ggpkit.reasoning.base import ReasonerError
from ggpkit.reasoning.fast import LANE_THRESHOLD, PropnetReasoner
from ggpkit.reasoning.grounding import GroundingError

VERSION = "ggpkit-propnet-0.1.0"


@dataclass(frozen=True, slots=True)
class PerfResult:
    """The outcome of one benchmark run: counts, or the error that stopped it."""

    milliseconds: int = 0
    state_changes: int = 0
    rollouts: int = 0
    error: str | None = None

    def lines(self) -> str:
        """The gdl-perf results-file text."""
        out = [f"version={VERSION}"]
        if self.error is not None:
            out.append("errorMessage=" + " ".join(self.error.split()))
        else:
            out += [
                f"millisecondsTaken={self.milliseconds}",
                f"numStateChanges={self.state_changes}",
                f"numRollouts={self.rollouts}",
            ]
        return "\n".join(out) + "\n"

    @property
    def rollouts_per_second(self) -> float:
        """Rollouts per second of rollout time (0 when nothing ran)."""
        return 1000.0 * self.rollouts / self.milliseconds if self.milliseconds else 0.0


def run(reasoner: PropnetReasoner, seconds: float, seed: int = 1) -> PerfResult:
    """Roll out from the initial state for ``seconds`` (at least one rollout).

    Batches grow until one takes about a tenth of a second, so the clock is read
    rarely and the limit is overshot by little.
    """
    state = reasoner.initial()
    # Load both compiled kernels first (numba's cache), so that is not timed.
    reasoner.playout_stats(state, 1, seed)
    reasoner.playout_stats(state, LANE_THRESHOLD, seed)
    rollouts = changes = 0
    batch = 1
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        t0 = time.perf_counter()
        totals = reasoner.playout_stats(state, batch, seed)
        seed += 1
        rollouts += totals.playouts
        changes += totals.moves
        now = time.perf_counter()
        if now >= deadline:
            break
        took = now - t0
        if took < 0.05:
            batch *= 2
        left = deadline - now
        if took > 0 and took * 1.2 > left:
            batch = max(1, int(batch * left / took))
    ms = round(1000 * (time.perf_counter() - start))
    return PerfResult(ms, changes, rollouts)


def perftest(gdl_file: Path, seconds: float) -> PerfResult:
    """Read, ground and benchmark one game; every failure becomes an error result."""
    try:
        rules = parse_rules(gdl_file.read_text(encoding="utf-8"), str(gdl_file))
        reasoner = PropnetReasoner.from_rules(rules)
        return run(reasoner, seconds)
    except (OSError, UnicodeDecodeError, GdlSyntaxError, GroundingError, ReasonerError) as e:
        return PerfResult(error=f"{type(e).__name__}: {e}")
