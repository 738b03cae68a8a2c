"""Run a folder of public GDL games: load, check and play random matches of each.

Every game ends as *played* (each match reached a terminal state with one goal
value 0..100 per role) or *rejected* with a reason a person understands: syntax
error, check error, timeout, goal error, no legal move, no terminal
state within the step limit, reasoner error, or crash. Each game runs in its own
child process with a hard time limit, so a game that hangs, recurses without end
or exhausts memory cannot stop the run or take the caller down.

Without a folder, ``ggpkit corpus`` runs the GDL games of the game library
(:mod:`ggpkit.games.library`: the games fetched from repositories, the folders added
to it and ``$GGPKIT_GAMES_DIR``), each under its library name.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from functools import partial
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ggpkit.games.api import GameError
from ggpkit.gdl.kif import GdlSyntaxError
from ggpkit.processes import die_with_parent

PLAYED = "played"
REJECTED = "rejected"

# The reasons a game is rejected, most specific first.
REASONS = (
    "syntax error",
    "check error",
    "reasoner error",
    "no legal move",
    "goal error",
    "no terminal",
    "timeout",
    "crash",
)


@dataclass(frozen=True, slots=True)
class GameResult:
    """What happened to one game of the corpus."""

    name: str
    path: str
    status: str
    """``"played"`` or ``"rejected"``."""
    reason: str
    """One of :data:`REASONS` when rejected, ``""`` when played."""
    detail: str
    """The error message (first line of each problem) when rejected; goal summary when played."""
    matches: int
    """Matches played to a terminal state."""
    moves: int
    """Joint moves played in those matches, in total."""
    seconds: float
    """Wall-clock time of the game (load, check and all matches)."""
    reasoner: str
    load_seconds: float = 0.0
    """Of ``seconds``, the time to load and check the rules (the reasoner's compilation
    included), the rest being play; 0 where unknown (a timeout or a crash)."""

    @property
    def play_seconds(self) -> float:
        """The time of the matches: ``seconds`` less ``load_seconds``."""
        return max(0.0, self.seconds - self.load_seconds)

    def as_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data."""
        return asdict(self)


def game_files(folder: Path) -> list[Path]:
    """The ``.kif`` files of a folder, sorted by name."""
    return sorted(p for p in folder.iterdir() if p.suffix == ".kif" and p.is_file())


def library_game_files() -> dict[str, Path]:
    """The rules file of every GDL game of the game library, by name (sorted)."""
    from ggpkit.games.library import game_files as library_files

    return dict(sorted(library_files().items()))


class _Rejected(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def play_game(
    path: Path, matches: int, seed: int, reasoner: str = "prover", max_steps: int = 5000
) -> GameResult:
    """Load, check and play ``matches`` random matches of one game, in this process."""
    from ggpkit.games.gdl.game import GdlCheckError, load_kif_file

    start = time.perf_counter()
    loaded: float | None = None
    name = path.stem
    played = moves = 0
    used = reasoner
    try:
        try:
            game = load_kif_file(path, reasoner=reasoner)
        except GdlSyntaxError as e:
            raise _Rejected("syntax error", str(e)) from None
        except GdlCheckError as e:
            errs = [p for p in e.problems if p.severity == "error"]
            raise _Rejected("check error", "; ".join(str(p) for p in errs[:3])) from None
        except GameError as e:
            raise _Rejected("reasoner error", str(e)) from None
        used = game.reasoner_name
        loaded = time.perf_counter() - start
        rng = random.Random(seed)
        goal_seen: Counter[str] = Counter()
        for _ in range(matches):
            state = _step(game.initial_state, "reasoner error")
            steps = 0
            while not _step(partial(game.is_terminal, state), "reasoner error"):
                if steps >= max_steps:
                    raise _Rejected("no terminal", f"no terminal state after {max_steps} moves")
                legal = _step(partial(game.all_legal_moves, state), "reasoner error")
                for role, ms in zip(game.roles, legal, strict=True):
                    if not ms:
                        raise _Rejected(
                            "no legal move", f"role {role} has no legal move after {steps} moves"
                        )
                joint = [rng.choice(ms) for ms in legal]
                state = _step(partial(game._next, state, joint), "reasoner error")
                steps += 1
            goals = _step(partial(game.goals, state), "goal error")
            goal_seen[" ".join(f"{r}={g}" for r, g in goals.items())] += 1
            played += 1
            moves += steps
        detail = ", ".join(f"{k} x{n}" for k, n in goal_seen.most_common(3))
        took = time.perf_counter() - start
        return GameResult(name, str(path), PLAYED, "", detail, played, moves, took, used, loaded)
    except _Rejected as r:
        took = time.perf_counter() - start
        return GameResult(
            name, str(path), REJECTED, r.reason, r.detail, played, moves, took, used,
            took if loaded is None else loaded,
        )  # fmt: skip


def _step(call: Callable[[], Any], reason: str) -> Any:
    """Run one engine call; a GameError becomes a rejection for ``reason``."""
    try:
        return call()
    except GameError as e:
        raise _Rejected(reason, str(e)) from None


def _child(
    conn: Connection, path: str, name: str, matches: int, seed: int, reasoner: str, parent: int
) -> None:
    die_with_parent(parent)
    try:
        result = replace(play_game(Path(path), matches, seed, reasoner), name=name)
    except RecursionError:
        result = _crash(path, name, "recursion too deep", reasoner)
    except MemoryError:
        result = _crash(path, name, "out of memory", reasoner)
    except Exception as e:  # any engine bug must end as a "crash" row, not a dead run
        last = traceback.extract_tb(e.__traceback__)[-1]
        where = f"{Path(last.filename).name}:{last.lineno}"
        result = _crash(path, name, f"{type(e).__name__}: {e} (at {where})", reasoner)
    conn.send(result)
    conn.close()


def _crash(path: str, name: str, detail: str, reasoner: str) -> GameResult:
    return GameResult(name, path, REJECTED, "crash", detail, 0, 0, 0.0, reasoner)


def run_isolated(
    path: Path,
    matches: int,
    seed: int,
    timeout: float,
    reasoner: str = "prover",
    name: str | None = None,
) -> GameResult:
    """:func:`play_game` in a child process killed after ``timeout`` seconds."""
    name = name or path.stem
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx: Any = multiprocessing.get_context(method)
    receive, send = ctx.Pipe(duplex=False)
    start = time.perf_counter()
    args = (send, str(path), name, matches, seed, reasoner, os.getpid())
    proc = ctx.Process(target=_child, args=args, daemon=True)
    proc.start()
    send.close()
    result: GameResult | None = None
    try:
        if receive.poll(timeout):
            result = receive.recv()
    except EOFError:
        result = None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()
    elapsed = time.perf_counter() - start
    if result is None:
        if elapsed >= timeout:
            return GameResult(
                name, str(path), REJECTED, "timeout",
                f"not finished within {timeout:g} s", 0, 0, elapsed, reasoner,
            )  # fmt: skip
        return GameResult(
            name, str(path), REJECTED, "crash",
            f"the game process died (exit code {proc.exitcode})", 0, 0, elapsed, reasoner,
        )  # fmt: skip
    return result


def run_corpus(
    paths: Iterable[Path],
    matches: int = 1,
    timeout: float = 60.0,
    seed: int = 0,
    reasoner: str = "prover",
    on_result: Callable[[GameResult], None] | None = None,
    names: Mapping[Path, str] | None = None,
) -> list[GameResult]:
    """Run every game in its own process, one after the other; results in input order.
    ``names`` gives a game a name other than its file's stem (a library game's key)."""
    results = []
    for path in paths:
        name = names.get(path) if names is not None else None
        result = run_isolated(path, matches, seed, timeout, reasoner, name)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def summary(results: Iterable[GameResult]) -> dict[str, int]:
    """Counts: ``played`` and one entry per rejection reason (only those that occurred)."""
    counts: Counter[str] = Counter()
    for r in results:
        counts[PLAYED if r.status == PLAYED else r.reason] += 1
    order = [PLAYED, *REASONS]
    return {k: counts[k] for k in order if counts[k]}
