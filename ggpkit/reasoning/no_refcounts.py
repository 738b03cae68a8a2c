"""``@njit_no_refcounts``: numba's ``njit(cache=True, nogil=True)`` without its
reference-counting runtime, for kernels that allocate nothing.

Why: numba counts references to every array a compiled function takes, with an
atomic increment on entry and a decrement on every way out, and leaves it to an LLVM
pass to remove the pairs it can prove useless. That pass gives up on a function
whose control flow is deeper than 15 blocks from the increment to the decrement, or
wider than 1,000 blocks, which every playout and search loop here is; a function
that takes the search tree (a tuple of 19 arrays) paid 19 pairs a call. The counts
were a quarter of the split playouts' time and a third of the compiled tree's
(measured with ``perf``: samples in ``NRT_incref``/``NRT_decref``).

Without the runtime a function cannot allocate, and neither can anything it calls
(it is compiled under the same flags): numba refuses to compile such a function, so
the mistake shows at once. A slice assignment between arrays may allocate (numba
copies the source when the two could overlap): use
:func:`~ggpkit.reasoning.propnet_kernels.copy_into`. Kernels that allocate keep plain
``njit`` and do it before calling these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit

_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}


def njit_no_refcounts(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` with numba in nopython mode, cached on disk, without reference
    counts (a numba dispatcher, untyped like ``njit``'s)."""
    return njit(**_OPTIONS)(fn)
