"""The one numba decorator the solvers use: ``njit(cache=True)`` with its type kept for mypy.

numba is untyped, so a bare ``@njit`` would make every kernel ``Any`` under
``mypy --strict``; this wrapper says the decorated function keeps its signature.
``cache=True`` keeps compiled kernels on disk, so only the first run pays the compile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from numba import njit

F = TypeVar("F", bound=Callable[..., Any])


def kernel(fn: F) -> F:
    """Compile ``fn`` with numba in nopython mode, cached on disk."""
    return cast(F, njit(cache=True, nogil=True)(fn))
