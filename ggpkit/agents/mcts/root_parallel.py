"""Root-parallel search: more searches of the same position in worker processes.

Why processes: the tree search runs in Python, so threads would take turns on one
core. Each worker is forked when the match starts (it inherits the game: nothing
is pickled but states and moves), keeps its own tree from move to move, and
answers each move with its visit counts at the root; the agent that asked adds
them to its own. In a one-role game a worker also sends the best line it has seen
from the position (a puzzle is won by one line, not by visits): the agent plays the
best line any search found. Workers end with the match (:meth:`SearchWorkers.stop`) or with
their parent (:func:`ggpkit.processes.die_with_parent`).

A daemonic process (an arena pool worker, a Ray task's worker process) may not
start children: there the search simply runs alone.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Protocol

from ggpkit.agents.base import Limit
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term
from ggpkit.processes import die_with_parent

Visits = dict[Term, int]


@dataclass(frozen=True, slots=True)
class Reply:
    """A worker's answer: its root visit counts, and in a one-role game the best value
    (0..1) its search has seen from the position and that line's moves (none: -1)."""

    visits: Visits
    line_value: float = -1.0
    line: tuple[Term, ...] = ()


class RootSearcher(Protocol):
    """What a worker runs: a search that can report its root visit counts."""

    def start(self, game: Game[Any], role: str) -> None: ...

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term: ...

    def root_visits(self, role: str) -> Visits: ...

    def line_from(self, state: Hashable) -> tuple[float, tuple[Term, ...]]: ...


def can_fork_workers() -> bool:
    """Whether this process may start worker processes (fork, and not itself daemonic)."""
    return (
        "fork" in multiprocessing.get_all_start_methods()
        and not multiprocessing.current_process().daemon
    )


class SearchWorkers:
    """``count`` forked searchers, asked together and answered by request number."""

    def __init__(self, count: int, make: Callable[[int], RootSearcher]) -> None:
        self.count = count
        self.make = make
        self._links: list[tuple[BaseProcess, Connection]] = []
        self._request = 0

    def start(self, game: Game[Any], role: str) -> None:
        """Fork the workers for a new match (ending those of an earlier one)."""
        self.stop()
        if not can_fork_workers():
            return
        ctx = multiprocessing.get_context("fork")
        for i in range(self.count):
            mine, theirs = ctx.Pipe()
            args = (theirs, self.make(i), game, role, os.getpid())
            proc = ctx.Process(target=_serve, args=args, daemon=True, name="ggpkit-search")
            proc.start()
            theirs.close()
            self._links.append((proc, mine))

    def ask(self, state: Hashable, role: str, limit: Limit) -> None:
        """Every worker starts searching ``state`` for ``role`` within ``limit``."""
        self._request += 1
        for _, conn in self._links:
            try:
                conn.send((self._request, state, role, limit))
            except (OSError, ValueError):  # a dead worker is simply not heard from
                continue

    def collect(self, deadline: float) -> list[Reply]:
        """The workers' replies to the last request, as many as come by ``deadline``."""
        replies: list[Reply] = []
        for _, conn in self._links:
            while True:
                left = deadline - time.monotonic()
                try:
                    if not conn.poll(max(left, 0.0)):
                        break
                    request, reply = conn.recv()
                except (EOFError, OSError):
                    break
                if request == self._request:
                    replies.append(reply)
                    break
        return replies

    def stop(self) -> None:
        """End every worker."""
        for proc, conn in self._links:
            with contextlib.suppress(OSError, ValueError):
                conn.send(None)
            conn.close()
            proc.join(timeout=1.0)
            if proc.is_alive():
                proc.kill()
                proc.join()
        self._links = []


def _serve(
    conn: Connection, searcher: RootSearcher, game: Game[Any], role: str, parent: int
) -> None:
    """A worker's life: start the match, then answer requests until told to stop."""
    die_with_parent(parent)
    searcher.start(game, role)
    while True:
        message = _latest(conn)
        if message is None:
            return
        request, state, asked_role, limit = message
        try:
            searcher.select(game, state, asked_role, limit)
            reply = Reply(searcher.root_visits(asked_role), *searcher.line_from(state))
        except Exception:  # a failed search says nothing; the agent that asked goes on
            reply = Reply({})
        try:
            conn.send((request, reply))
        except (OSError, ValueError):
            return


def _latest(conn: Connection) -> Any:
    """The newest waiting message (older requests are stale: their answer is too late)."""
    try:
        message = conn.recv()
        while message is not None and conn.poll(0):
            message = conn.recv()
    except (EOFError, OSError):
        return None
    return message


def merged_choice(own: Visits, others: list[Visits], fallback: Term) -> Term:
    """The move with the most visits over every search (``fallback`` on a tie or none)."""
    total: dict[Term, int] = dict(own)
    for visits in others:
        for move, count in visits.items():
            total[move] = total.get(move, 0) + count
    if not total:
        return fallback
    best = max(total.values())
    if total.get(fallback, -1) == best:
        return fallback
    return max(total, key=lambda m: (total[m], str(m)))
