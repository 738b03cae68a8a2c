"""The numba helpers every compiled kernel shares: two decorators, a random stream, a copy.

- :func:`kernel`: ``njit(cache=True, nogil=True)`` with the decorated function's type kept
  for mypy (numba is untyped, so a bare ``@njit`` would make every kernel ``Any``). The
  native solvers use it.
- :func:`njit_no_refcounts`: the same without numba's reference-counting runtime, for
  kernels that allocate nothing (the playout and search loops).
- :func:`seed_stream` and :func:`rand_below`: xorshift64* streams, one per playout, so a
  playout's moves do not depend on which kernel or lane runs it.
- :func:`copy_into`: ``dst[:] = src`` without allocating.

Why no reference counts: numba counts references to every array a compiled function
takes, with an atomic increment on entry and a decrement on every way out, and leaves it
to an LLVM pass to remove the pairs it can prove useless. That pass gives up on a
function whose control flow is deeper than 15 blocks from the increment to the
decrement, or wider than 1,000 blocks, which every playout and search loop here is; a
function that takes the search tree (a tuple of arrays) pays a pair per array a call.

Without the runtime a function cannot allocate, and neither can anything it calls (it is
compiled under the same flags): numba refuses to compile such a function, so the mistake
shows at once. A slice assignment between arrays may allocate (numba copies the source
when the two could overlap): use :func:`copy_into`. Kernels that allocate keep plain
``njit`` (or :func:`kernel`) and do it before calling these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
from numba import njit

_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}


def njit_no_refcounts(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` with numba in nopython mode, cached on disk, without reference
    counts (a numba dispatcher, untyped like ``njit``'s)."""
    return njit(**_OPTIONS)(fn)


F = TypeVar("F", bound=Callable[..., Any])


def kernel(fn: F) -> F:
    """Compile ``fn`` with numba in nopython mode, cached on disk."""
    return cast(F, njit(cache=True, nogil=True)(fn))


@njit(cache=True, nogil=True)
def seed_stream(seed, j):  # type: ignore[no-untyped-def]
    """The xorshift state of playout ``j`` of a batch (splitmix64 of seed and index).

    Every playout has its own stream, so its moves do not depend on which kernel
    (scalar or 64-lane) runs it, nor on which lane: both kernels give equal totals.
    """
    z = np.uint64(seed) + np.uint64(j + 1) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    if z == 0:
        z = np.uint64(88172645463325252)
    return z


@njit(cache=True, nogil=True, inline="always")
def rand_below(rng, n):  # type: ignore[no-untyped-def]
    """One xorshift64* step: the new state and a number in ``0 .. n - 1``."""
    rng ^= rng >> np.uint64(12)
    rng ^= rng << np.uint64(25)
    rng ^= rng >> np.uint64(27)
    pick = ((rng * np.uint64(2685821657736338717)) >> np.uint64(33)) % np.uint64(n)
    return rng, np.int64(pick)


@njit(cache=True, nogil=True, inline="always")
def copy_into(dst, src):  # type: ignore[no-untyped-def]
    """``dst[:] = src``, element by element: numba's slice assignment may copy its source
    first, which needs the reference-counting runtime that the kernels leave out."""
    for i in range(src.shape[0]):
        dst[i] = src[i]
