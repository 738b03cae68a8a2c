"""Bit tricks the native engines' compiled kernels share: popcount, lowest set bit, n-th set bit.

Each is one machine instruction where the CPU has it (LLVM's ``ctpop`` and ``cttz``;
x86 BMI2's ``pdep`` for the n-th set bit), called from numba kernels. Counts and
indices come back as int64 whatever the board's type: numba keeps ``int`` of a uint64
a uint64, and a uint64 compared with an int64 goes through floating point, which costs
a random playout more than its move generation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from llvmlite import binding as llvm  # type: ignore[import-untyped]
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

_I64 = ir.IntType(64)


def _is_word(x: Any) -> bool:
    return isinstance(x, types.Integer) and getattr(x, "bitwidth", 0) == 64


def _popcount_typer(typingctx: Any, x: Any) -> Any:
    """LLVM ``ctpop`` of a 64-bit integer, as an int64."""
    if not _is_word(x):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(x), codegen


def _lowest_bit_index_typer(typingctx: Any, x: Any) -> Any:
    """LLVM ``cttz`` of a 64-bit integer (undefined for 0), as an int64."""
    if not _is_word(x):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], cgutils.false_bit)

    return types.int64(x), codegen


def _pdep_typer(typingctx: Any, x: Any, mask: Any) -> Any:
    """x86 BMI2 ``pdep``: deposit the low bits of x at the set bits of mask."""
    if not (_is_word(x) and _is_word(mask)):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        fnty = ir.FunctionType(_I64, [_I64, _I64])
        fn = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
            builder.module, fnty, "llvm.x86.bmi.pdep.64"
        )
        return builder.call(fn, args)

    return mask(x, mask), codegen


popcount = cast(Callable[[Any], int], intrinsic(_popcount_typer))
lowest_bit_index = cast(Callable[[Any], int], intrinsic(_lowest_bit_index_typer))
_pdep = cast(Callable[[Any, Any], Any], intrinsic(_pdep_typer))


def fast_pdep() -> bool:
    """True on x86 CPUs with BMI2 where pdep is one fast instruction (not AMD before Zen 3)."""
    try:
        name = str(llvm.get_host_cpu_name())
        has_bmi2 = bool(llvm.get_host_cpu_features().get("bmi2", False))
    except Exception:  # no host information: take the portable path
        return False
    return has_bmi2 and name not in ("znver1", "znver2") and not name.startswith("bdver")


@njit(cache=True, nogil=True, inline="always")
def nth_bit_loop(b: np.uint64, r: int) -> np.uint64:
    """The ``r``-th lowest set bit of ``b`` (r counts from 0), clearing the lower ones first."""
    for _ in range(r):
        b &= b - np.uint64(1)
    return b & (~b + np.uint64(1))


@njit(cache=True, nogil=True, inline="always")
def nth_bit_pdep(b: np.uint64, r: int) -> np.uint64:
    """:func:`nth_bit_loop` in one ``pdep`` instruction (x86 BMI2 only)."""
    return np.uint64(_pdep(np.uint64(1) << np.uint64(r), np.uint64(b)))


nth_bit = nth_bit_pdep if fast_pdep() else nth_bit_loop
"""The selector kernels use, chosen once for the host CPU (numba's cache is per CPU)."""
