"""The table of states the one-role searches keep: each state's bits whole, hashed.

Why whole: no hash collision can pass for a state, so a search that meets a state
again knows it for sure. The table is open addressing over a power of two of slots,
each with the row's hash, its bits and whether it is used; a search keeps its own
values per slot beside it. Both searches run in calls of a budget of states, timed
by the first one, so that a big network's call does not eat a play clock.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpkit.search.tree.kernels import row_hash

FIRST_STATES = 64
"""States of a first call, which times them (a state of a big network costs a
millisecond or more: the first call must not eat a play clock)."""

CALL_SECONDS = 0.05
"""What a later call aims to take: the deadline is read between calls only."""


@njit(cache=True, nogil=True)
def find(row, keys, rows, used):  # type: ignore[no-untyped-def]
    """The slot of state ``row`` in the table, or -1 - (the free slot it would take)."""
    mask = np.uint64(keys.shape[0] - 1)
    h = row_hash(row)
    s = np.int64(h & mask)
    while used[s]:
        if keys[s] == h and np.array_equal(rows[s], row):
            return s
        s = np.int64((np.uint64(s) + np.uint64(1)) & mask)
    return -1 - s


@njit(cache=True, nogil=True)
def key_hash(row, key):  # type: ignore[no-untyped-def]
    """:func:`~ggpkit.search.tree.kernels.row_hash` of the row's items where ``key`` is 1
    (0 elsewhere)."""
    h = np.uint64(0xCBF29CE484222325)
    for i in range(row.shape[0]):
        h = (h ^ np.uint64(row[i] & key[i])) * np.uint64(0x100000001B3)
    return h ^ (h >> np.uint64(29))


@njit(cache=True, nogil=True)
def find_key(row, key, keys, rows, used):  # type: ignore[no-untyped-def]
    """:func:`find` of a table whose states are told apart by the items where ``key`` is
    1 alone (the slot of a state equal there to ``row``)."""
    mask = np.uint64(keys.shape[0] - 1)
    h = key_hash(row, key)
    s = np.int64(h & mask)
    while used[s]:
        if keys[s] == h and _same_key(rows[s], row, key):
            return s
        s = np.int64((np.uint64(s) + np.uint64(1)) & mask)
    return -1 - s


@njit(cache=True, nogil=True, inline="always")
def _same_key(a, b, key):  # type: ignore[no-untyped-def]
    for i in range(a.shape[0]):  # noqa: SIM110 - a loop numba compiles
        if (a[i] ^ b[i]) & key[i]:
            return False
    return True


class StateTable:
    """The slots (``keys``, ``rows``, ``used``): as many, a power of two, as fit in
    ``memory`` bytes where a slot takes the state's bits and ``extra`` bytes more."""

    def __init__(self, nb: int, memory: int, extra: int) -> None:
        capacity = 1 << max(10, int(memory // (nb + extra)).bit_length() - 1)
        self.keys = np.zeros(capacity, dtype=np.uint64)
        self.rows = np.zeros((capacity, nb), dtype=np.uint8)
        self.used = np.zeros(capacity, dtype=np.bool_)

    @property
    def capacity(self) -> int:
        return int(self.keys.shape[0])


def call_states(budget: int | None, rate: float) -> int:
    """New states for the next call: ``budget`` where given, else :data:`FIRST_STATES`
    before any rate (states a second) is known, then what :data:`CALL_SECONDS` take."""
    return budget or (FIRST_STATES if rate <= 0 else max(16, int(rate * CALL_SECONDS)))
