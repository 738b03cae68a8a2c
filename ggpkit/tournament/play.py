"""One tournament match, played wherever the executor runs it (a Ray worker, usually).

A :class:`MatchTask` is plain data (picklable, no open files), so any machine of the
cluster can play it: the game travels as its rules, players as their specs. The match
is refereed by :class:`~ggpkit.match.referee.Referee`, so every step goes through the
one match driver, with the same clocks and fault codes as any refereed match; the whole
record comes back and the tournament's one writer stores it.

A player given as a command gets its own process for the match, on a free port, bound
to the worker's life (it dies with the worker, even after ``kill -9``), in its own process
group, which is ended with the match.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game
from ggpkit.match.arena import derive_seed
from ggpkit.match.clock import Clocks
from ggpkit.match.players import HttpPlayer, RefereedPlayer, player_from_spec
from ggpkit.match.records import MatchRecord
from ggpkit.match.referee import Referee
from ggpkit.match.remote import PlayerFault
from ggpkit.processes import die_with_parent
from ggpkit.tools.warmup import warm_up_game
from ggpkit.tournament.config import PlayerEntry
from ggpkit.tournament.games import GameRef, load_ref


class MatchFailed(GgpkitError):
    """A match that could not be played, as one line: ``ErrorClass: what went wrong``.

    Plain (one text argument), so it crosses from a worker to the driver intact, which
    not every error with a richer constructor does (``PlayerFault`` arrives unpicklable).
    """


COMMAND_READY_SECONDS = 60.0
"""How long a player started by a command may take to listen (a JVM is slow to start)."""


@dataclass(frozen=True, slots=True)
class MatchTask:
    """Everything needed to play one slot, anywhere."""

    slot_key: str
    match_id: str
    game: GameRef
    players: tuple[PlayerEntry, ...]
    """One per seat (every role but nature's), in role order."""
    startclock: int
    playclock: int
    seed: int
    max_steps: int | None = None
    """Steps after which the match is aborted (None: no limit)."""

    @property
    def cpus(self) -> int:
        """Cores the match asks for: its hungriest player's (turn-taking players think in turn)."""
        return max(p.cpus for p in self.players)


def play_task(task: MatchTask) -> MatchRecord:
    """Play the match to its end and return its whole record (source ``tournament``).

    Any error ggpkit raises on purpose (a game error, a player that never started)
    comes out as :class:`MatchFailed`.
    """
    try:
        return _play(task)
    except GgpkitError as e:
        raise MatchFailed(f"{type(e).__name__}: {e}") from None


def _play(task: MatchTask) -> MatchRecord:
    game = load_ref(task.game)
    _warm(task.game, game)
    with ExitStack() as stack:
        players = [
            stack.enter_context(_player(entry, derive_seed(task.seed, j)))
            for j, entry in enumerate(task.players)
        ]
        referee = Referee(
            game,
            task.game.rules,
            players,
            Clocks(task.startclock, task.playclock),
            match_id=task.match_id,
            seed=task.seed,
            source="tournament",
            max_steps=task.max_steps,
        )
        record = asyncio.run(referee.run())
    # Tables, cross-table and replays name players as the tournament does (not by the
    # name a remote player gives itself, nor by its agent spec).
    record.player_names = list(task.game.with_nature([entry.name for entry in task.players]))
    return record


_WARMED: set[GameRef] = set()
"""The games this worker process has warmed up."""


def _warm(ref: GameRef, game: Game[Any]) -> None:
    """Warm the game's compiled kernels before its first match in this process.

    Why: numba compiles a kernel on its first call, seconds to a minute of CPU on a
    fresh install, and a match's clocks must not pay for it: a player compiling its
    tree would lose its first matches on time to any player that does not.
    """
    if ref not in _WARMED:
        warm_up_game(game)
        _WARMED.add(ref)


@contextmanager
def _player(entry: PlayerEntry, seed: int) -> Iterator[RefereedPlayer]:
    if entry.kind == "command":
        with command_player(entry.target) as url:
            yield HttpPlayer(url, name=entry.name)
    elif entry.kind == "url":
        yield HttpPlayer(entry.target, name=entry.name)
    else:
        yield player_from_spec(entry.target, seed)


@contextmanager
def command_player(command: str) -> Iterator[str]:
    """Start ``command`` (``{port}`` filled in with a free port); its URL once it listens."""
    port = _free_port()
    parent = os.getpid()
    argv = shlex.split(command.replace("{port}", str(port)))
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: die_with_parent(parent),
        start_new_session=True,  # its own process group: a wrapper script's children end too
    )
    try:
        _wait_listening(port, process)
        yield f"http://127.0.0.1:{port}/"
    finally:
        _end_group(process)


def _end_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the command's process group, SIGKILL after 5 s."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, None)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + COMMAND_READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise PlayerFault("CE", f"the player command ended (status {process.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise PlayerFault("CE", f"the player command did not listen within {COMMAND_READY_SECONDS:g} s")
