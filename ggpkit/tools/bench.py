"""The benchmark behind ``ggpkit bench``: random playouts/s and joint moves/s per game and engine.

Each (game, engine) pair is measured from the initial state through
``game.playout_stats`` (so native games run their compiled kernels): one
warm-up batch first (numba compiles there, and is not timed), then a batch size
calibrated to about ``seconds`` per run, then ``repeat`` timed runs whose median
is reported. Time is the measuring thread's CPU time (one core, whatever else
the machine is doing); wall-clock rates are reported alongside. Nothing here
asserts speed; failures to load or run a game become a row with a note, so one
broken game never hides the others.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.registry import games, load

ENGINES = ("native", "gdl")

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class BenchRow:
    """One measured (game, engine) pair; the rates are None when it could not be measured.

    ``playouts_per_s`` and ``moves_per_s`` are per CPU-second of one thread (one core);
    the ``wall_`` rates are per wall-clock second.
    """

    game: str
    engine: str
    playouts_per_s: float | None
    moves_per_s: float | None
    batch: int
    """Playouts per timed run."""
    runs: int
    note: str = ""
    wall_playouts_per_s: float | None = None
    wall_moves_per_s: float | None = None
    search_per_s: float | None = None
    """Simulations per CPU-second inside a tree search (``bench``'s ``search`` hook)."""
    search_iterations_per_s: float | None = None
    """Passes down the tree per CPU-second in that search."""

    def as_dict(self) -> dict[str, Any]:
        """The row as plain JSON-ready data."""
        return asdict(self)


def _error_note(prefix: str, error: BaseException) -> str:
    """A short one-line note for a table cell (the full error is the engine owner's to see)."""
    if isinstance(error, FileNotFoundError) and error.filename:
        return f"{prefix}: no file {Path(str(error.filename)).name}"
    lines = str(error).strip().splitlines()
    text = f"{prefix}: {type(error).__name__}" + (f": {lines[0]}" if lines else "")
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True, slots=True)
class Measurement:
    """Median rates of one game on one engine.

    The main rates are per CPU-second of the measuring thread, so a busy shared
    machine does not halve them; the wall-clock rates are kept alongside.
    """

    playouts_per_s: float
    moves_per_s: float
    wall_playouts_per_s: float
    wall_moves_per_s: float
    batch: int


def measure(game: Game[Any], seconds: float, repeat: int, seed: int = 1) -> Measurement:
    """Median rates over ``repeat`` runs of about ``seconds`` (thread CPU time) each.

    The warm-up batch absorbs compilation; a doubling calibration then sizes the
    batch so that one run takes about ``seconds``.
    """
    state = game.initial_state()
    game.playout_stats(state, 1, seed)  # warm-up: compile kernels, fill caches
    count, elapsed = 1, 0.0
    while True:
        start = time.thread_time()
        game.playout_stats(state, count, seed)
        elapsed = time.thread_time() - start
        if elapsed >= seconds / 5 or count >= 1 << 40:
            break
        count = count * 2 if elapsed <= 0 else max(count * 2, int(count * seconds / 4 / elapsed))
    batch = max(1, int(count * seconds / elapsed)) if elapsed > 0 else count
    cpu: list[tuple[float, float]] = []
    wall: list[tuple[float, float]] = []
    for run in range(repeat):
        wall_start, cpu_start = time.perf_counter(), time.thread_time()
        stats = game.playout_stats(state, batch, seed + run + 1)
        cpu_s = max(time.thread_time() - cpu_start, 1e-9)
        wall_s = max(time.perf_counter() - wall_start, 1e-9)
        cpu.append((stats.playouts / cpu_s, stats.moves / cpu_s))
        wall.append((stats.playouts / wall_s, stats.moves / wall_s))
    return Measurement(
        statistics.median(r[0] for r in cpu),
        statistics.median(r[1] for r in cpu),
        statistics.median(r[0] for r in wall),
        statistics.median(r[1] for r in wall),
        batch,
    )


@dataclass(frozen=True, slots=True)
class SearchSpeed:
    """How fast a tree search runs: simulations and passes down the tree per CPU-second."""

    simulations_per_s: float
    iterations_per_s: float


SearchRate = Callable[[Game[Any], float, int], SearchSpeed]
"""``(game, seconds, repeat) -> SearchSpeed`` of a search from the start."""


def bench(
    names: Sequence[str] | None = None,
    engines: Iterable[str] = ENGINES,
    seconds: float = 1.0,
    repeat: int = 3,
    progress: Progress | None = None,
    search: SearchRate | None = None,
) -> list[BenchRow]:
    """Benchmark every named game (default: all registered) on every engine asked for.

    A name ending in ``.kif`` is a rule file, measured on the GDL engine only.

    An engine that cannot load a game (e.g. no GDL engine yet) gives a row with a
    note instead of rates. ``search``, when given, also measures how many simulations
    a tree search gets through (agents live above this layer, so the caller brings it).
    """
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    if seconds <= 0:
        raise ValueError("seconds must be positive")
    say = progress or (lambda _message: None)
    rows: list[BenchRow] = []
    for name in names if names is not None else list(games()):
        # a rule file has one engine, the GDL one
        for engine in ["gdl"] if name.endswith(".kif") else engines:
            say(f"{name} ({engine}): loading")
            try:
                game = load(name, engine=engine)
            except Exception as e:  # any failure of someone's engine is a note, not a crash
                rows.append(BenchRow(name, engine, None, None, 0, 0, _error_note("not loaded", e)))
                continue
            runs = f"{repeat} run{'' if repeat == 1 else 's'}"
            say(f"{name} ({engine}): warm-up and {runs} of ~{seconds:g}s")
            try:
                m = measure(game, seconds, repeat)
            except Exception as e:
                rows.append(BenchRow(name, engine, None, None, 0, 0, _error_note("failed", e)))
                continue
            searched = None
            if search is not None:
                say(f"{name} ({engine}): search, {runs} of ~{seconds:g}s")
                searched = search(game, seconds, repeat)
            rows.append(
                BenchRow(
                    name, engine, m.playouts_per_s, m.moves_per_s, m.batch, repeat, "",
                    m.wall_playouts_per_s, m.wall_moves_per_s,
                    None if searched is None else searched.simulations_per_s,
                    None if searched is None else searched.iterations_per_s,
                )
            )  # fmt: skip
    return rows
