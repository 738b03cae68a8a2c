"""``ggpkit solve GAME``: the exact value of a game (or a position) by its solver.

A game's own exact solver is used when it declares one (``info.capabilities.solver``),
else the generic solver. The command prints what the solver reports, the solve time,
then the perfect-play line, replayed through the game API as a check (it refuses an
illegal move, and the end must give the solved goals). The last line is always
``value: ROLE=GOAL ...``.
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import plural, status_line, stderr_progress

if TYPE_CHECKING:
    import random

    from ggpkit.games.api import Game
    from ggpkit.games.capabilities import Solution, Solver


def _value_line(game: Game[Any], goals: dict[str, int]) -> str:
    return "value: " + " ".join(f"{r}={goals[r]}" for r in game.roles)


def _position(game: Game[Any], text: str | None) -> Hashable:
    """The state named by ``--position``: a move list from the start, or the state's facts.

    A move list is replayed through the game API; facts (the form match records
    store, with or without the outer brackets) go to ``game.state_from_facts``.
    """
    state: Hashable = game.initial_state()
    if text is None:
        return state
    from ggpkit.games.api import GameError
    from ggpkit.gdl.kif import parse_terms

    stripped = text.strip()
    if stripped.startswith("(") and stripped[1:].lstrip().startswith("("):
        stripped = stripped[1:].rstrip().removesuffix(")")
    terms = parse_terms(stripped)
    try:
        for move in terms:
            state = game.play(state, move)
        return state
    except GameError as as_moves:
        try:
            made: Hashable = game.state_from_facts(terms)
            return made
        except GameError as as_facts:
            raise GameError(
                f"--position is neither a move list from the start ({as_moves}) nor the "
                f"facts of a position ({as_facts})"
            ) from None


def _mover(game: Game[Any], state: Hashable) -> str:
    from ggpkit.agents.solvers.generic import SolverError

    mover = game.to_move(state)
    if mover is None:
        raise SolverError("the solvers play turn-taking games: no single role is to move here")
    return mover


def _solve(game: Game[Any], state: Hashable, solver: Solver) -> None:
    from ggpkit.agents.solvers.generic import SolverError

    mover = _mover(game, state)
    with status_line(f"solving {game.name} for {mover}"):
        started = time.perf_counter()
        solution: Solution = solver.solve(game, state, mover)
        elapsed = time.perf_counter() - started
    for note in solution.notes:
        typer.echo(note)
    typer.echo(f"solve time: {elapsed:.3f} s")
    if solution.plies is not None:
        typer.echo(
            f"plies: {solution.plies} (the winner wins as fast as it can, "
            "the loser holds out as long as it can)"
        )
    end, plies = _play_line(game, state, solver)
    goals = game.goals(end)
    if goals != dict(solution.goals) or solution.plies not in (None, plies):
        solved = "?" if solution.plies is None else plural(solution.plies, "joint move")
        raise SolverError(
            f"the perfect-play line ends after {plural(plies, 'joint move')} with {goals}, "
            f"not as solved ({dict(solution.goals)}, {solved})"
        )
    typer.echo(
        f"check: {plural(plies, 'joint move')}, each legal by the rules; the game ends with "
        f"{_value_line(game, goals).removeprefix('value: ')}"
    )
    typer.echo(_value_line(game, goals))


def _play_line(game: Game[Any], state: Hashable, solver: Solver) -> tuple[Hashable, int]:
    """Play the solver's moves to the end through the game API, printing them."""
    from ggpkit.agents.solvers.generic import SolverError

    plies = 0
    with status_line("perfect-play line") as say:
        while not game.is_terminal(state):
            role = _mover(game, state)
            say(f"perfect-play line: move {plies + 1}")
            move = solver.solve(game, state, role).move
            if move is None:
                raise SolverError(f"the solver gave no move for {role}")
            plies += 1
            typer.echo(f"{plies}. {role} {move}")
            state = game.play(state, move, role)
    return state, plies


def _bench(game: Game[Any], solver: Solver, count: int, seed: int) -> None:
    """Time queries on ``count`` random reachable positions (the solver warmed up first)."""
    import random
    import statistics
    from collections import Counter

    from ggpkit.agents.solvers.generic import SolverError

    rng = random.Random(seed)
    with status_line(f"solving {game.name} from the start (warm-up)"):
        solver.solve(game, game.initial_state(), _mover(game, game.initial_state()))
    times: list[tuple[float, int]] = []
    with status_line("random positions") as say:
        for i in range(count):
            say(f"random position {i + 1} of {count}")
            drawn = _draw(game, rng)
            if drawn is None:
                continue
            role = _mover(game, drawn)
            started = time.perf_counter()
            solution = solver.solve(game, drawn, role)
            times.append((time.perf_counter() - started, solution.goals[role]))
    if not times:
        raise SolverError("no non-terminal position was drawn; try more positions")
    secs = [t for t, _ in times]
    worst = max(times)
    typer.echo(f"{plural(len(times), 'random reachable position')} (seed {seed})")
    typer.echo(
        f"query time: median {statistics.median(secs) * 1000:.3f} ms, "
        f"mean {statistics.mean(secs) * 1000:.3f} ms, worst {worst[0] * 1000:.3f} ms "
        f"(a position whose value is {worst[1]})"
    )
    histogram = Counter(v for _, v in times)
    typer.echo("values: " + ", ".join(f"{v}: {n}" for v, n in sorted(histogram.items())))


def _draw(game: Game[Any], rng: random.Random) -> Hashable | None:
    """A random reachable position (random moves from the start), None when it is terminal."""
    state = game.initial_state()
    for _ in range(rng.randint(0, game.info.max_length or 40)):
        if game.is_terminal(state):
            break
        state = game.next_state(state, [rng.choice(m) for m in game.all_legal_moves(state)])
    return None if game.is_terminal(state) else state


def _build_table(game: Game[Any]) -> None:
    from rich.progress import Progress

    from ggpkit.agents.solvers.generic import SolverError

    build = game.info.capabilities.solver_table
    if build is None:
        raise SolverError(f"{game.name} has no solver table to build")
    with stderr_progress(*Progress.get_default_columns(), transient=False) as progress:
        task = progress.add_task("table", total=None)

        def step(phase: str, done: int, total: int) -> None:
            progress.update(task, completed=done, total=total, description=f"table: {phase}")

        path = build(step)
    typer.echo(f"table stored in {path}")


@app.command("solve")
def solve_command(
    game: Annotated[str, typer.Argument(help="A registered or library game name, or a .kif path.")],
    engine: Annotated[
        str, typer.Option(help="Engine of a registered game: native or gdl.")
    ] = "native",
    position: Annotated[
        str | None,
        typer.Option(
            help="Solve this position: a move list from the start, e.g. '(jump b c4 d c4)', "
            "or the position's facts (as match records store them)."
        ),
    ] = None,
    build_table: Annotated[
        bool,
        typer.Option(
            "--build-table",
            help="First build the solver's table of all reachable positions (games whose "
            "solver has one, such as peg).",
        ),
    ] = False,
    bench: Annotated[
        int,
        typer.Option(help="Time the solver on this many random reachable positions."),
    ] = 0,
    seed: Annotated[int, typer.Option(help="Seed of --bench.")] = 1,
    node_limit: Annotated[
        int, typer.Option(help="Generic solver: most states to expand.")
    ] = 2_000_000,
) -> None:
    """Solve GAME exactly; the last line is `value: ROLE=GOAL ...` under perfect play.

    A game's own solver is used when it has one (peg, breakthrough-holes); any other
    game goes to the generic solver (small turn-taking games; it stops with a clear
    error otherwise). The perfect-play line is replayed through the rules as a check.
    While the solver works, a status line on stderr shows the seconds spent.
    """
    from ggpkit.agents.solvers.agent import solver_for
    from ggpkit.games.registry import load

    loaded = load(game, engine=engine)
    if build_table:
        _build_table(loaded)
    solver = solver_for(loaded, node_limit)
    if bench:
        _bench(loaded, solver, bench, seed)
        return
    _solve(loaded, _position(loaded, position), solver)
