"""The recorder interface: how a referee or player server reports a match as it goes.

The store sits above the match layer, so the match layer cannot import it; instead
the referee calls these three methods and the store implements them. A recorder
writes each step as it arrives, so a crash loses at most the step in flight.
"""

from __future__ import annotations

from typing import Protocol

from ggpkit.match.records import MatchRecord


class MatchRecorder(Protocol):
    """Receives a match record as it grows: once at the start, after each step, at the end."""

    def match_started(self, record: MatchRecord) -> None:
        """The record has its header and the initial state."""

    def step_played(self, record: MatchRecord) -> None:
        """The record's last joint move, errors and state are new."""

    def match_ended(self, record: MatchRecord) -> None:
        """The record is completed (goals set) or aborted."""


class NullRecorder:
    """A recorder that keeps nothing (tests, or ``--no-db``)."""

    def match_started(self, record: MatchRecord) -> None:
        pass

    def step_played(self, record: MatchRecord) -> None:
        pass

    def match_ended(self, record: MatchRecord) -> None:
        pass
