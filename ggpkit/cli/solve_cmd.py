"""``ggpkit solve GAME``: the exact value of a game (or a position) by the solvers.

Peg solitaire prints a best line of jumps, one GDL move per line, replayed through
the game API as a check; breakthrough-holes prints who wins, in how many plies, the
time and the positions searched, and the perfect-play line; any other game goes to
the generic solver. The last line is always ``value: ROLE=GOAL ...``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from typing import Annotated, Any

import typer
from rich.progress import Progress

from ggpkit.agents.solvers.agent import BREAKTHROUGH, PEG, dedicated_solver, peg_solver
from ggpkit.agents.solvers.breakthrough_solver import (
    BreakthroughSolver,
    position_of_facts,
)
from ggpkit.agents.solvers.generic import GenericSolver, SolverError
from ggpkit.agents.solvers.peg_solver import PegSolver, board_of_facts
from ggpkit.agents.solvers.peg_table import PegTable, build, table_path
from ggpkit.cli.app import app
from ggpkit.games.api import Game, GameError
from ggpkit.games.registry import load
from ggpkit.gdl.kif import parse_terms
from ggpkit.gdl.terms import Func, Term


def _value_line(game: Game[Any], goals: dict[str, int]) -> str:
    return "value: " + " ".join(f"{r}={goals[r]}" for r in game.roles)


def _position(game: Game[Any], text: str | None) -> Any:
    """The state named by ``--position``: a move list from the start, or facts (peg, breakthrough).

    A move list is replayed through the game API, so any game takes one; facts need an
    engine that can build a state from them, which the two native engines can.
    """
    state = game.initial_state()
    if text is None:
        return state
    stripped = text.strip()
    if stripped.startswith("(") and stripped[1:].lstrip().startswith("("):
        # a fact list in the match-record form "( (hole a c3 peg) ... )"
        stripped = stripped[1:].rstrip().removesuffix(")")
    terms = parse_terms(stripped)
    facts = [t for t in terms if isinstance(t, Func) and t.name in ("hole", "cell", "control")]
    if not facts:
        for move in terms:
            state = game.play(state, move)
        return state
    return _state_from_facts(game, frozenset(terms))


def _state_from_facts(game: Game[Any], facts: frozenset[Term]) -> Any:
    kind = dedicated_solver(game)
    if kind == PEG:
        from ggpkit.games.peg import PegState

        state: Any = PegState(board_of_facts(facts))
    elif kind == BREAKTHROUGH:
        from ggpkit.games.breakthrough import BtState

        pos = position_of_facts(facts)
        state = BtState(pos.white, pos.black, pos.side)
    else:
        raise GameError(f"a position of {game.name!r} must be given as a move list from the start")
    try:
        made = game.facts(state)
    except (AttributeError, TypeError, KeyError):
        made = frozenset()
    if not {f for f in facts if not (isinstance(f, Func) and f.name == "pegs")} <= made:
        raise GameError(
            f"the {game.name!r} engine cannot take a position as facts; give a move list"
        )
    return state


def _solve_peg(game: Game[Any], state: Any) -> None:
    solver = peg_solver()
    started = time.perf_counter()
    answer = solver.solve(game, state)
    line = solver.solution(game, state)
    elapsed = time.perf_counter() - started
    for move in line:
        typer.echo(str(move))
    # the check: replay the line through the game API (it refuses an illegal move)
    end = state
    for move in line:
        end = game.next_state(end, {"jumper": move})
    goals = game.goals(end)
    if not game.is_terminal(end) or goals["jumper"] != answer.value:
        raise SolverError(
            f"the solver's line ends with goal {goals['jumper']}, not its value {answer.value}"
        )
    typer.echo(
        f"check: {len(line)} jumps, each legal by the rules; the game ends with goal "
        f"{goals['jumper']} ({time.perf_counter() - started:.3f} s, solved in {elapsed:.3f} s)"
    )
    typer.echo(_value_line(game, {"jumper": answer.value}))


def _bench_peg(game: Game[Any], count: int, seed: int, use_table: bool) -> None:
    """Time single queries on ``count`` random reachable positions (random depth 0..31).

    Without the table every query starts from an empty memo, so the times are those of
    a first query, not of a warmed-up solver.
    """
    table = PegTable() if use_table else None
    solver = PegSolver(lookup=table.lookup if table is not None else None)
    rng = random.Random(seed)
    solver.solve(game, game.initial_state())  # compile the kernels outside the timings
    times: list[tuple[float, int]] = []
    for _ in range(count):
        state = game.initial_state()
        for _ in range(rng.randint(0, 31)):
            moves = game.legal_moves(state, "jumper")
            if not moves:
                break
            state = game.next_state(state, {"jumper": rng.choice(moves)})
        solver.clear()
        started = time.perf_counter()
        answer = solver.solve(game, state)
        times.append((time.perf_counter() - started, answer.value))
    secs = [t for t, _ in times]
    worst = max(times)
    typer.echo(
        f"{count} random reachable positions (seed {seed}), "
        f"{'table' if table is not None else 'search, empty memo per query'}"
    )
    typer.echo(
        f"query time: median {statistics.median(secs) * 1000:.3f} ms, "
        f"mean {statistics.mean(secs) * 1000:.3f} ms, worst {worst[0] * 1000:.3f} ms "
        f"(a position whose best is {worst[1]})"
    )
    histogram = Counter(v for _, v in times)
    typer.echo("best values: " + ", ".join(f"{v}: {n}" for v, n in sorted(histogram.items())))


def _solve_breakthrough(game: Game[Any], state: Any) -> None:
    solver = BreakthroughSolver(table_bits=24)
    pos = position_of_facts(game.facts(state))
    started = time.perf_counter()
    outcome, nodes = solver.outcome(pos)
    elapsed = time.perf_counter() - started
    typer.echo(f"winner with perfect play: {outcome.winner}")
    typer.echo(
        f"plies: {outcome.plies} (the winner wins as fast as it can, "
        "the loser holds out as long as it can)"
    )
    typer.echo(f"solve time: {elapsed:.1f} s")
    typer.echo(f"positions searched: {nodes}")
    # the perfect-play line, played through the game API as a check
    end = state
    plies = 0
    while not game.is_terminal(end):
        role = game.to_move(end)
        move = solver.best_move(game, end)
        typer.echo(f"{plies + 1}. {role} {move}")
        end = game.play(end, move, role)
        plies += 1
    goals = game.goals(end)
    if plies != outcome.plies or goals[outcome.winner] != 100:
        raise SolverError(
            f"the perfect-play line ends after {plies} plies with {goals}, "
            f"not as solved ({outcome.winner} in {outcome.plies})"
        )
    typer.echo(_value_line(game, outcome.goals()))


def _solve_generic(game: Game[Any], state: Any, node_limit: int) -> None:
    solver = GenericSolver(game, node_limit)
    started = time.perf_counter()
    goals = solver.value(state)
    elapsed = time.perf_counter() - started
    typer.echo(f"generic solver: {solver.nodes} states expanded in {elapsed:.2f} s")
    typer.echo(_value_line(game, goals))


@app.command("solve")
def solve_command(
    game: Annotated[str, typer.Argument(help="A registered game name or a .kif path.")],
    engine: Annotated[
        str, typer.Option(help="Engine of a registered game: native or gdl.")
    ] = "native",
    position: Annotated[
        str | None,
        typer.Option(
            help="Solve this position: a move list from the start, e.g. '(jump b c4 d c4)', "
            "or (peg, breakthrough-holes) the position's facts."
        ),
    ] = None,
    build_table: Annotated[
        bool,
        typer.Option(
            "--build-table", help="peg: build the table of all reachable positions first."
        ),
    ] = False,
    bench: Annotated[
        int,
        typer.Option(help="peg: time the solver on this many random reachable positions."),
    ] = 0,
    seed: Annotated[int, typer.Option(help="Seed of --bench.")] = 1,
    no_table: Annotated[
        bool, typer.Option("--no-table", help="peg --bench: search only, ignore the table.")
    ] = False,
    node_limit: Annotated[
        int, typer.Option(help="Generic solver: most states to expand.")
    ] = 2_000_000,
) -> None:
    """Solve GAME exactly; the last line is `value: ROLE=GOAL ...` under perfect play.

    peg and breakthrough-holes have dedicated solvers; any other game goes to the
    generic solver (small turn-taking games; it stops with a clear error otherwise).
    """
    loaded = load(game, engine=engine)
    kind = dedicated_solver(loaded)
    if (build_table or bench) and kind != PEG:
        raise SolverError("--build-table and --bench are for peg only")
    if build_table:
        with Progress() as progress:
            task = progress.add_task("peg table", total=63)

            def step(phase: str, done: int, total: int) -> None:
                offset = 0 if phase == "forward" else 31
                progress.update(task, completed=offset + done, description=f"peg table: {phase}")

            path = build(table_path(), step)
        typer.echo(f"peg table stored in {path}")
    if bench:
        _bench_peg(loaded, bench, seed, use_table=not no_table and PegTable.available())
        return
    state = _position(loaded, position)
    if kind == PEG:
        _solve_peg(loaded, state)
    elif kind == BREAKTHROUGH:
        _solve_breakthrough(loaded, state)
    else:
        _solve_generic(loaded, state, node_limit)
