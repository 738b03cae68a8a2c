"""The native engines' bit kernels against Python's own integer operations."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from ggpkit.games.native import bits

WORDS = st.integers(1, (1 << 64) - 1)


@njit(cache=False)
def _count_and_lowest(b: np.uint64) -> tuple[int, int]:
    return bits.popcount(b), bits.lowest_bit_index(b)


@njit(cache=False)
def _count_and_lowest_signed(b: np.int64) -> tuple[int, int]:
    return bits.popcount(b), bits.lowest_bit_index(b)


@settings(max_examples=300, deadline=None)
@given(board=WORDS)
def test_popcount_and_lowest_bit(board: int) -> None:
    lowest = (board & -board).bit_length() - 1
    assert _count_and_lowest(np.uint64(board)) == (board.bit_count(), lowest)
    if board < 1 << 63:  # the same on a signed word (peg's boards are int64)
        assert _count_and_lowest_signed(np.int64(board)) == (board.bit_count(), lowest)


@settings(max_examples=300, deadline=None)
@given(board=WORDS, data=st.data())
def test_nth_bit_selectors_agree(board: int, data: st.DataObject) -> None:
    set_bits = [1 << i for i in range(64) if board >> i & 1]
    r = data.draw(st.integers(0, len(set_bits) - 1))
    selectors = [bits.nth_bit, bits.nth_bit_loop]
    if bits.fast_pdep():  # the one-instruction path exists only on x86 with BMI2
        selectors.append(bits.nth_bit_pdep)
    for select in selectors:
        assert int(select(np.uint64(board), r)) == set_bits[r]
