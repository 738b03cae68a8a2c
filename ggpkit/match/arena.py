"""The arena: many matches between agent specs, roles rotated fairly, played in parallel.

Match ``i`` gives seat ``j`` to agent ``(i + j) mod n``, so over a multiple of ``n``
matches every agent plays every seat equally often (first-move advantage cancels).
The seats are the game's roles but its chance role (GDL-II's ``random``), whose moves
the match driver draws: ``ggpkit arena GAME SPEC`` plays a one-player game of chance.
Each match builds fresh agents from their specs with seeds derived from the run's
seed, the match index and the role, so a run is reproducible given its seed (up to
the wall clock: time-limited agents search as far as the machine lets them).

Matches run in worker processes (``jobs``); each worker loads the game itself by
name (or receives the game object, for unregistered games), plays the match, and
returns a :class:`MatchRecord` with the moves, states and goals. The parent calls
``on_match_done(record)`` for each finished match as it arrives: the hook through
which a match store (written elsewhere) can keep every game played.

Scoring: an agent *wins* a match when its goal is strictly the highest of all seats,
*draws* when it shares the highest goal, and *loses* otherwise; in a one-seat game
(a puzzle such as peg) only the goal 100 is a win. The 95% confidence
interval of an agent's mean goal uses Student's t.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import random
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ggpkit.agents.base import AgentError, Limit
from ggpkit.agents.specs import SpecError, make_agent, parse_spec
from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game, GameError
from ggpkit.games.registry import load
from ggpkit.match.clock import UNTIMED_START
from ggpkit.match.driver import MatchDriver
from ggpkit.match.players import NATURE, LocalPlayer, Player
from ggpkit.match.records import MatchRecord as GgpRecord
from ggpkit.match.remote import PlayerFault
from ggpkit.processes import die_with_parent, usable_cpus
from ggpkit.search.contract import SimultaneousMovesError

MAX_STEPS = 10_000
"""A match longer than this is stopped as broken (every GGP game is finite)."""


class ArenaError(GgpkitError):
    """An arena run that cannot go on: a bad spec, or a match that never ends."""


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One finished match, as handed to ``on_match_done``.

    ``agents[j]`` is the spec that played ``roles[j]`` (:data:`~ggpkit.match.players.NATURE`
    at the chance role); ``moves[k]`` is the k-th joint move (role order, canonical
    text, nature's drawn move included); ``states`` are the game's own state objects
    from the initial one to the terminal one (``game.facts(state)`` gives their facts).
    """

    index: int
    game: str
    roles: tuple[str, ...]
    agents: tuple[str, ...]
    seed: int
    moves: tuple[tuple[str, ...], ...]
    states: tuple[Hashable, ...]
    goals: dict[str, int]
    seconds: float
    errors: tuple[tuple[str, ...], ...] = ()
    """Per joint move, each role's error code (``TO``, ``CE``, ``IL <move>``; ``""``: none)."""
    chance_role: str | None = None
    """The role whose moves nature drew, or None."""
    percepts: tuple[tuple[tuple[str, ...], ...], ...] = ()
    """Per joint move and role, what the role perceived of it (imperfect information)."""

    @property
    def seats(self) -> tuple[str, ...]:
        """The roles the agents played: every role but nature's."""
        return tuple(r for r in self.roles if r != self.chance_role)


@dataclass(frozen=True, slots=True)
class AgentStats:
    """One agent's results over a run."""

    slot: int
    spec: str
    matches: int
    mean_goal: float
    ci95: float
    """Half-width of the 95% confidence interval of ``mean_goal``."""
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True, slots=True)
class ArenaResult:
    """The outcome of an arena run."""

    game: str
    specs: tuple[str, ...]
    matches: int
    seed: int
    time: float | None
    stats: tuple[AgentStats, ...]
    mean_length: float
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """Plain data for ``--json``."""
        return {
            "game": self.game,
            "agents": list(self.specs),
            "matches": self.matches,
            "seed": self.seed,
            "time": self.time,
            "mean_length": self.mean_length,
            "seconds": round(self.seconds, 3),
            "results": [
                {
                    "agent": s.spec,
                    "slot": s.slot,
                    "matches": s.matches,
                    "mean_goal": s.mean_goal,
                    "ci95": s.ci95,
                    "wins": s.wins,
                    "draws": s.draws,
                    "losses": s.losses,
                }
                for s in self.stats
            ],
        }


def derive_seed(seed: int, *parts: int) -> int:
    """A 63-bit seed from the run seed and indices, the same in every process."""
    return random.Random(":".join(str(p) for p in (seed, *parts))).getrandbits(63)


def assignment(match_index: int, n: int) -> list[int]:
    """Agent slot playing each seat in match ``match_index`` (rotation)."""
    return [(match_index + j) % n for j in range(n)]


def play_match(
    game: Game[Any],
    specs: Sequence[str],
    index: int,
    seed: int,
    limit: Limit,
) -> MatchRecord:
    """Play match ``index`` through the match driver: fresh agents from ``specs`` in rotated
    seats (nature's moves drawn by the driver, from the match's seed).

    Each move is clocked by ``limit.time`` (None: the agents' own limits only); a late,
    failed or illegal answer is replaced by a random legal move and its code kept in
    ``errors``, exactly as in a refereed match.
    """
    seats = game.seats
    slots = assignment(index, len(seats))
    players: list[Player] = [
        LocalPlayer(make_agent(specs[s], seed=derive_seed(seed, index, j)), specs[s], seed)
        for j, s in enumerate(slots)
    ]
    names = iter(specs[s] for s in slots)
    agents = [next(names) if role in seats else NATURE for role in game.roles]
    record = GgpRecord(
        match_id=f"arena-{index}",
        game_name=game.name,
        rules="",
        roles=list(game.roles),
        start_clock=0.0,
        play_clock=limit.time or 0.0,
        player_names=agents,
    )
    rng = random.Random(derive_seed(seed, index, len(game.roles)))
    driver = MatchDriver(game, record, rng=rng, chance_seed=derive_seed(seed, index, -1))
    states: list[Hashable] = [driver.state]
    started = time.perf_counter()

    async def run() -> None:
        for player, role in zip(players, seats, strict=True):
            await player.start(record.match_id, role, game, "", UNTIMED_START, limit.time or 0.0)
        try:
            await driver.run(players, limit.time, lambda step: states.append(step.state), MAX_STEPS)
        finally:
            for player, role in zip(players, seats, strict=True):
                await player.stop(record.match_id, driver.told(role), 1.0)

    driver.begin()
    asyncio.run(run())
    if not driver.finished:
        raise ArenaError(f"{game.name}: match {index} passed {MAX_STEPS} moves")
    return MatchRecord(
        index=index,
        game=game.name,
        roles=tuple(game.roles),
        agents=tuple(agents),
        seed=seed,
        moves=tuple(tuple(m) for m in record.moves),
        states=tuple(states),
        goals=game.goals(driver.state),
        seconds=time.perf_counter() - started,
        errors=tuple(tuple(e) for e in record.errors),
        chance_role=record.chance_role,
        percepts=tuple(tuple(tuple(p) for p in step) for step in record.percepts),
    )


# ---- workers ----------------------------------------------------------------------------

_worker_game: Game[Any] | None = None


def _init_pool_worker(game: str | Game[Any], parent: int) -> None:
    die_with_parent(parent)
    _init_worker(game)


def _init_worker(game: str | Game[Any]) -> None:
    global _worker_game
    _worker_game = load(game) if isinstance(game, str) else game


def _worker(args: tuple[Sequence[str], int, int, Limit]) -> MatchRecord:
    """Play one match in a worker; errors come back as one-line ArenaErrors (picklable)."""
    specs, index, seed, limit = args
    assert _worker_game is not None
    try:
        return play_match(_worker_game, specs, index, seed, limit)
    except ArenaError:
        raise
    except (GameError, SpecError, AgentError, SimultaneousMovesError, PlayerFault) as e:
        raise ArenaError(str(e)) from None


def _records(
    game: str | Game[Any],
    specs: Sequence[str],
    matches: int,
    seed: int,
    limit: Limit,
    jobs: int,
) -> Iterator[MatchRecord]:
    tasks = [(tuple(specs), i, seed, limit) for i in range(matches)]
    if jobs <= 1 or matches <= 1:
        _init_worker(game)
        for task in tasks:
            yield _worker(task)
        return
    ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    workers = min(jobs, matches)
    init_args = (game, os.getpid())
    with ctx.Pool(workers, initializer=_init_pool_worker, initargs=init_args) as pool:
        yield from pool.imap_unordered(_worker, tasks)


def _t95(df: int) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom."""
    table = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)
    if df <= 0:
        return math.inf
    if df <= len(table):
        return table[df - 1]
    return 1.96 + 2.4 / df  # within 0.01 of the exact quantile from df = 11 on


def summarize(specs: Sequence[str], records: Sequence[MatchRecord]) -> tuple[AgentStats, ...]:
    """Per agent slot: mean goal with its 95% CI, and wins/draws/losses."""
    n = len(specs)
    goals: list[list[int]] = [[] for _ in range(n)]
    wdl = [[0, 0, 0] for _ in range(n)]
    for rec in records:
        values = [rec.goals[r] for r in rec.seats]
        top = max(values)
        for j, slot in enumerate(assignment(rec.index, n)):
            goals[slot].append(values[j])
            if n == 1:  # a puzzle: only the top goal is a win
                wdl[slot][0 if values[j] == 100 else 2] += 1
            elif values[j] < top:
                wdl[slot][2] += 1
            elif values.count(top) == 1:
                wdl[slot][0] += 1
            else:
                wdl[slot][1] += 1
    out = []
    for slot in range(n):
        xs = goals[slot]
        m = len(xs)
        mean = sum(xs) / m if m else 0.0
        if m > 1:
            var = sum((x - mean) ** 2 for x in xs) / (m - 1)
            ci = _t95(m - 1) * math.sqrt(var / m)
        else:
            ci = math.inf if m == 1 else 0.0
        w, d, loss = wdl[slot]
        out.append(AgentStats(slot, specs[slot], m, mean, ci, w, d, loss))
    return tuple(out)


def run_arena(
    game: str | Game[Any],
    specs: Sequence[str],
    matches: int,
    seed: int | None = None,
    jobs: int | None = None,
    time_limit: float | None = None,
    on_match_done: Callable[[MatchRecord], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ArenaResult:
    """Play ``matches`` matches of ``game`` (a registered name, a path, or a Game) between specs.

    ``specs`` gives one agent per seat (every role but nature's: ``game.seats``);
    ``time_limit`` is each move's time in seconds
    (on top of the specs' own limits); ``jobs`` worker processes (default: the cores);
    ``on_match_done`` sees every finished match; ``progress(done, total)`` follows along.
    """
    loaded = load(game) if isinstance(game, str) else game
    seats = loaded.seats
    if len(specs) != len(seats):
        what = "role" if seats == loaded.roles else "seat"
        but = "" if seats == loaded.roles else f", every role but {loaded.info.chance_role}"
        raise ArenaError(
            f"{loaded.name} has {len(seats)} {what}{'' if len(seats) == 1 else 's'} "
            f"({', '.join(seats)}{but}): "
            f"give {len(seats)} agent{'' if len(seats) == 1 else 's'}, "
            f"got {len(specs)}"
        )
    if matches < 1:
        raise ArenaError("--matches must be at least 1")
    parsed = [parse_spec(spec) for spec in specs]
    for spec in parsed:
        make_agent(spec)  # fail early on bad or unavailable specs
    if any(spec.name == "human" for spec in parsed):
        jobs = 1  # a person answers at this terminal, not in a worker process
    if seed is None:
        seed = random.SystemRandom().getrandbits(31)
    jobs = jobs if jobs is not None else usable_cpus()
    limit = Limit(time=time_limit)
    started = time.perf_counter()
    records: list[MatchRecord] = []
    source: str | Game[Any] = game  # a name or path: each worker loads the game itself
    for rec in _records(source, specs, matches, seed, limit, jobs):
        records.append(rec)
        if on_match_done is not None:
            on_match_done(rec)
        if progress is not None:
            progress(len(records), matches)
    records.sort(key=lambda r: r.index)
    lengths = [len(r.moves) for r in records]
    return ArenaResult(
        game=loaded.name,
        specs=tuple(specs),
        matches=matches,
        seed=seed,
        time=time_limit,
        stats=summarize(specs, records),
        mean_length=sum(lengths) / len(lengths),
        seconds=time.perf_counter() - started,
    )
