"""A propnet still compiling when its game had to start: meanwhile the game runs on the join code.

A player's start clock can end before a big game's network is built, and a busy
opponent on the same machine slows the build further. Rather than play the whole match
on the join-code prover, much slower than a propnet, the compilation goes on
in its child process and the player swaps the game for its propnet twin at a later
move (:mod:`ggpkit.match.player_server`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ggpkit.reasoning.base import GroundingError

if TYPE_CHECKING:  # the grounder (clingo) loads only when a propnet is built
    from ggpkit.reasoning.grounding.grounder import Compiled, CompileJob

G = TypeVar("G")

log = logging.getLogger("ggpkit.games")


class PendingPropnet(Generic[G]):
    """A compilation going on in the background, and how to make its game once it is done."""

    def __init__(self, job: CompileJob[Any], make: Callable[[Compiled[Any]], G]) -> None:
        self._job = job
        self._make = make
        self._game: G | None = None
        self.failed = False
        """True once the compilation has failed (or was cancelled): it will never be ready."""

    def ready(self, seconds: float = 0.0) -> G | None:
        """The game on the propnet if it is built within ``seconds``; None if not (yet)."""
        if self._game is not None or self.failed:
            return self._game
        try:
            compiled = self._job.wait(seconds)
        except GroundingError as e:
            log.warning("the propnet compiled in the background is not coming: %s", e)
            self.failed = True
            return None
        if compiled is not None:
            self._game = self._make(compiled)
        return self._game

    def cancel(self) -> None:
        """End the compilation (nothing else will be made of it)."""
        self._job.cancel()
        self.failed = self._game is None
