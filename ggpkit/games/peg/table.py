"""The peg solitaire value table: every position reachable from the start, with its exact value.

Why: the search of :mod:`peg_solver` answers most positions in milliseconds, but a
position that has lost its single-peg finish early (say 28 pegs, best 90) makes it
prove a negative over millions of positions, which takes seconds. The table answers
every reachable position with one binary search.

How it is built (``ggpkit solve peg --build-table``, a few minutes, once):

1. forward, level by level (32 pegs down to 1): the children of every position of
   a level, each reduced to its symmetry key (the smallest of its 8 images), sorted
   and made unique, are the next level. The levels hold 23,475,688 positions;
2. backward (1 peg up to 32): a position's value is its goal when no jump is left,
   else the best value among its children, found by binary search in the level below.

Stored in the user cache directory (``$GGPKIT_CACHE_DIR``, else
``$XDG_CACHE_HOME/ggpkit``, else ``~/.cache/ggpkit``), never in the package, as
three ``.npy`` files read with ``mmap``: ``keys`` (uint64, sorted within each level),
``values`` (int8) and ``offsets`` (level ``n`` pegs is ``keys[offsets[n]:offsets[n + 1]]``).
About 210 MB.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ggpkit.errors import GgpkitError
from ggpkit.games.peg.kernels import START
from ggpkit.games.peg.solver import (
    JUMPS,
    SYM_TABLES,
    after_jump,
    canon_key,
    gen_jumps,
    goal_kernel,
)
from ggpkit.reasoning.jit import kernel

TABLE_NAME = "peg-table-v1"
POSITIONS = 23_475_688
"""Positions reachable from the start, up to symmetry (the build checks it gets this many)."""

Progress = Callable[[str, int, int], None]
"""``progress(phase, done, total)``: phase is ``"forward"`` or ``"backward"``, in levels."""


class PegTableError(GgpkitError, RuntimeError):
    """The stored table is missing, damaged, or does not answer a position."""


def cache_dir() -> Path:
    """Where ggpkit keeps built data for this user (created on demand)."""
    env = os.environ.get("GGPKIT_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "ggpkit"


def table_path() -> Path:
    """The directory of the peg table in the cache."""
    return cache_dir() / TABLE_NAME


@kernel
def _children(level: np.ndarray[Any, Any], jumps: np.ndarray[Any, Any], tab: Any) -> Any:
    out = np.empty(level.shape[0] * 12 + 64, dtype=np.uint64)
    n = 0
    mv = np.zeros(80, dtype=np.int64)
    for i in range(level.shape[0]):
        b = level[i]
        k = gen_jumps(b, jumps, mv)
        for t in range(k):
            j = mv[t]
            c = after_jump(b, jumps, j)
            if n >= out.shape[0]:
                grown = np.empty(out.shape[0] * 2, dtype=np.uint64)
                grown[:n] = out[:n]
                out = grown
            out[n] = canon_key(c, tab)
            n += 1
    return out[:n]


@kernel
def _level_values(
    level: np.ndarray[Any, Any],
    lower_keys: np.ndarray[Any, Any],
    lower_vals: np.ndarray[Any, Any],
    jumps: np.ndarray[Any, Any],
    tab: np.ndarray[Any, Any],
    out: np.ndarray[Any, Any],
) -> int:
    """Values of one level from the level below; returns the number of children not found."""
    missing = 0
    mv = np.zeros(80, dtype=np.int64)
    for i in range(level.shape[0]):
        b = level[i]
        k = gen_jumps(b, jumps, mv)
        if k == 0:
            out[i] = goal_kernel(b)
            continue
        best = -1
        for t in range(k):
            j = mv[t]
            c = after_jump(b, jumps, j)
            key = canon_key(c, tab)
            idx = np.searchsorted(lower_keys, key)
            if idx >= lower_keys.shape[0] or lower_keys[idx] != key:
                missing += 1
                continue
            v = int(lower_vals[idx])
            if v > best:
                best = v
                if best == 100:
                    break
        out[i] = best
    return missing


def build(path: Path | None = None, progress: Progress | None = None, start: int = START) -> Path:
    """Build the table of the positions reachable from ``start`` and store it at ``path``.

    ``path`` defaults to :func:`table_path` and ``start`` to the start of the game
    (another start builds a smaller table, for tests). The table is written to a
    temporary directory first and renamed, so a stopped build never leaves a half
    table that looks whole.
    """
    path = path or table_path()
    report = progress or (lambda phase, done, total: None)
    top = start.bit_count()
    if not 1 <= top <= 32:
        raise PegTableError(f"a start position needs 1..32 pegs, not {top}")
    levels: dict[int, np.ndarray[Any, Any]] = {
        top: np.array([canon_key(np.uint64(start), SYM_TABLES)], dtype=np.uint64)
    }
    for pegs in range(top - 1, 0, -1):
        levels[pegs] = np.unique(_children(levels[pegs + 1], JUMPS, SYM_TABLES))
        report("forward", top - pegs, top - 1)
    total = sum(a.size for a in levels.values())
    if start == START and total != POSITIONS:
        raise PegTableError(f"the forward pass found {total} positions, expected {POSITIONS}")
    values: dict[int, np.ndarray[Any, Any]] = {}
    empty_keys = np.zeros(0, dtype=np.uint64)
    empty_vals = np.zeros(0, dtype=np.int8)
    for pegs in range(1, top + 1):
        out = np.zeros(levels[pegs].size, dtype=np.int8)
        lower_k = levels[pegs - 1] if pegs > 1 else empty_keys
        lower_v = values[pegs - 1] if pegs > 1 else empty_vals
        missing = _level_values(levels[pegs], lower_k, lower_v, JUMPS, SYM_TABLES, out)
        if missing:
            raise PegTableError(f"{missing} children of level {pegs} are missing from the table")
        values[pegs] = out
        report("backward", pegs, top)
    offsets = np.zeros(34, dtype=np.int64)
    for pegs in range(1, 33):
        offsets[pegs + 1] = offsets[pegs] + (levels[pegs].size if pegs in levels else 0)
    tmp = path.with_name(path.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    np.save(tmp / "keys.npy", np.concatenate([levels[p] for p in range(1, top + 1)]))
    np.save(tmp / "values.npy", np.concatenate([values[p] for p in range(1, top + 1)]))
    np.save(tmp / "offsets.npy", offsets)
    if path.exists():
        shutil.rmtree(path)
    tmp.rename(path)
    return path


class PegTable:
    """The stored table, memory-mapped: exact values of all positions reachable from the start."""

    def __init__(self, path: Path | None = None) -> None:
        path = path or table_path()
        try:
            self.keys: np.ndarray[Any, Any] = np.load(path / "keys.npy", mmap_mode="r")
            self.values: np.ndarray[Any, Any] = np.load(path / "values.npy", mmap_mode="r")
            self.offsets: np.ndarray[Any, Any] = np.load(path / "offsets.npy")
        except (OSError, ValueError) as e:
            raise PegTableError(
                f"no peg table at {path} ({e}); build it with: ggpkit solve peg --build-table"
            ) from None
        size = int(self.offsets[-1]) if self.offsets.shape == (34,) else -1
        if self.keys.shape != (size,) or self.values.shape != (size,):
            raise PegTableError(f"the peg table at {path} is damaged; rebuild it")
        self.path = path

    @staticmethod
    def available(path: Path | None = None) -> bool:
        """True when a built table is stored at ``path`` (default :func:`table_path`)."""
        path = path or table_path()
        return all((path / f).is_file() for f in ("keys.npy", "values.npy", "offsets.npy"))

    def lookup(self, board: int) -> int | None:
        """The exact value of a position, or None when it is not reachable from the start."""
        pegs = board.bit_count()
        if not 1 <= pegs <= 32:
            return None
        key = canon_key(np.uint64(board), SYM_TABLES)
        lo, hi = int(self.offsets[pegs]), int(self.offsets[pegs + 1])
        idx = lo + int(np.searchsorted(self.keys[lo:hi], key))
        if idx < hi and self.keys[idx] == key:
            return int(self.values[idx])
        return None
