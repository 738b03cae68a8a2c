"""The gdl-perf benchmark loop (github.com/AlexLandau/gdl-perf) on the reasoner ``load`` picks.

The engine repeats random rollouts from the initial state for a given time: legal
moves, a uniformly random joint move and the next state until terminal, then
the goal values. The result is reported as ``key=value`` lines (``version``,
``millisecondsTaken``, ``numStateChanges``, ``numRollouts``), or one
``errorMessage`` line when the game cannot be run. Grounding and compiling are
not timed, as in gdl-perf: only the rollouts are.

The reasoner is the one a loaded game would play on (the propnet where the rules
ground in time, else the join code), so the figure is what a player gets. On the
propnet, ``batch`` runs 64 rollouts at a time on the bit-parallel kernel and
``scalar`` one at a time on the scalar kernel, the way a tree search uses it; the
join code has one loop over the reasoner's API for both. The ``version`` line says
which was measured (``ggpkit-propnet-batch-0.1.0``, ``ggpkit-joincode-0.1.0``, ...).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ggpkit import __version__
from ggpkit.games.gdl.game import COMPILE_TIMEOUT, GdlGameError, make_reasoner
from ggpkit.gdl.kif import GdlSyntaxError, parse_rules, read_kif_file
from ggpkit.reasoning.base import Reasoner, ReasonerError
from ggpkit.reasoning.grounding.grounder import GroundingError
from ggpkit.reasoning.propnet.reasoner import DEFAULT_MAX_STEPS, LANE_THRESHOLD, PropnetReasoner

Mode = Literal["batch", "scalar"]
MODES: tuple[Mode, ...] = ("batch", "scalar")

_BATCH_SECONDS = 0.05
"""A compiled batch grows until one takes this long, so the clock is read rarely."""


@dataclass(frozen=True, slots=True)
class PerfResult:
    """The outcome of one benchmark run: counts, or the error that stopped it."""

    milliseconds: int = 0
    state_changes: int = 0
    rollouts: int = 0
    error: str | None = None
    engine: str = "ggpkit"
    """What was measured, for the ``version`` line: ``ggpkit-propnet-batch`` and so on."""

    def lines(self) -> str:
        """The gdl-perf results-file text."""
        out = [f"version={self.engine}-{__version__}"]
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


def run_propnet(
    reasoner: PropnetReasoner, seconds: float, mode: Mode = "batch", seed: int = 1
) -> PerfResult:
    """Roll out from the initial state on the compiled kernels for ``seconds``.

    ``batch`` calls grow until one takes about ``_BATCH_SECONDS``; ``scalar`` calls
    stay below the lane threshold, so every rollout runs alone on the scalar kernel.
    At least one call is made.
    """
    state = reasoner.initial()
    # Load both compiled kernels first (numba's cache), so that is not timed.
    reasoner.playout_stats(state, 1, seed)
    reasoner.playout_stats(state, LANE_THRESHOLD, seed)
    cap = LANE_THRESHOLD - 1 if mode == "scalar" else None
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
        batch = _next_batch(batch, now - t0, deadline - now, cap)
    ms = round(1000 * (time.perf_counter() - start))
    return PerfResult(ms, changes, rollouts, engine=f"ggpkit-propnet-{mode}")


def _next_batch(batch: int, took: float, left: float, cap: int | None) -> int:
    """The next batch: doubled while fast, cut to fit the time left, at most ``cap``."""
    if took < _BATCH_SECONDS:
        batch *= 2
    if took > 0 and took * 1.2 > left:
        batch = max(1, int(batch * left / took))
    return batch if cap is None else min(batch, cap)


def run_api(
    reasoner: Reasoner[Any], seconds: float, seed: int = 1, name: str = "api"
) -> PerfResult:
    """Roll out through the reasoner's API (``legal``, ``next``, ``terminal``, ``goal``).

    Counts whole rollouts only: a rollout the deadline cuts short is left out, with
    its state changes, and the time is taken at the end of the last whole one. At
    least one rollout is played.
    """
    rng = random.Random(seed)
    first = reasoner.initial()
    roles = range(len(reasoner.roles))
    rollouts = changes = 0
    start = end = time.perf_counter()
    deadline = start + seconds
    while True:
        state, steps = first, 0
        while not reasoner.terminal(state):
            if rollouts and time.perf_counter() >= deadline:
                return PerfResult(round(1000 * (end - start)), changes, rollouts, engine=name)
            moves = [_random_move(reasoner, state, r, rng) for r in roles]
            state, steps = reasoner.next(state, moves), steps + 1
            if steps > DEFAULT_MAX_STEPS:
                raise ReasonerError(f"a random playout went past {DEFAULT_MAX_STEPS} moves")
        for r in roles:
            reasoner.goal(state, r)
        rollouts, changes, end = rollouts + 1, changes + steps, time.perf_counter()
        if end >= deadline:
            return PerfResult(round(1000 * (end - start)), changes, rollouts, engine=name)


def _random_move(reasoner: Reasoner[Any], state: Any, role: int, rng: random.Random) -> Any:
    moves = reasoner.legal(state, role)
    if not moves:
        raise ReasonerError("a role has no legal move in a non-terminal state")
    return rng.choice(moves)


def perftest(
    gdl_file: Path, seconds: float, mode: Mode = "batch", timeout: float | None = None
) -> PerfResult:
    """Read the rules, make the reasoner ``load`` would and benchmark it.

    ``timeout`` bounds the propnet's compilation (the loader's default when None).
    Every failure becomes an error result.
    """
    engine = "ggpkit"
    try:
        rules = parse_rules(read_kif_file(gdl_file), str(gdl_file))
        reasoner, _, _ = make_reasoner(rules, "auto", timeout or COMPILE_TIMEOUT)
        if isinstance(reasoner, PropnetReasoner):
            engine = f"ggpkit-propnet-{mode}"
            return run_propnet(reasoner, seconds, mode)
        engine = "ggpkit-joincode"
        return run_api(reasoner, seconds, name=engine)
    except (OSError, GdlSyntaxError, GroundingError, ReasonerError, GdlGameError) as e:
        return PerfResult(error=f"{type(e).__name__}: {e}", engine=engine)
