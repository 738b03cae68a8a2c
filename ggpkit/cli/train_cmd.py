"""``ggpkit train GAME --out MODEL``: a player that learns the game by self-play.

AlphaZero's recipe (:mod:`ggpkit.learn`): self-play with PUCT guided by a policy-and-value
network, a replay buffer, training steps, and generations gated by an arena against the
current best. ``MODEL`` is then a player: ``az:model=MODEL`` in any agent spec.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import fail, status_line

if TYPE_CHECKING:
    from ggpkit.learn.ray_selfplay import RayTrainer
    from ggpkit.learn.trainer import Progress

HELP = (  # "\\[": rich would read a bare [learn] as markup and drop it
    "Train a player by self-play (AlphaZero-style); needs the learn extra "
    "(pip install 'ggpkit\\[learn]').\n\n"
    "Rounds of self-play games (PUCT with the best network, leaves evaluated in batches), "
    "then training steps on a replay buffer; every --generation-games games the trained "
    "candidate plays the best (20 matches, roles alternated) and replaces it when it "
    "scores 55% or more.\n\n"
    "MODEL is the best network, playable at once as az:model=MODEL (arena, match, player, "
    "web app, tournaments); MODEL.train beside it is the run's checkpoint. Both are "
    "rewritten atomically after every round, so the run can be killed at any moment "
    "(kill -9 included) and goes on with --resume (with the run's own settings), losing "
    "only the round in flight.\n\n"
    "A line on stderr (a terminal only) shows games/s, positions/s and the losses; a line a "
    "generation on stdout shows the candidate's score against the best and, with "
    "--mcts-matches, the new best's against plain MCTS at the same simulations. "
    "--address trains on a Ray cluster: self-play on worker actors, one a CPU of the "
    "cluster, and the learner an actor on this machine's node, where it writes MODEL "
    "(local: a Ray started here)."
)


@app.command("train", help=HELP)
def train_command(
    game: Annotated[str, typer.Argument(help="A registered or library game name, or a .kif path.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The model file to write.")],
    time: Annotated[
        float, typer.Option("--time", min=1.0, help="Seconds of training (the round then ends).")
    ] = 600.0,
    resume: Annotated[
        bool, typer.Option("--resume", help="Go on from OUT's checkpoint (OUT.train).")
    ] = False,
    simulations: Annotated[int, typer.Option(min=1, help="PUCT simulations a move.")] = 64,
    games_in_flight: Annotated[
        int, typer.Option(min=1, help="Self-play games searched together (one network batch).")
    ] = 16,
    generation_games: Annotated[
        int, typer.Option(min=1, help="Self-play games between gating arenas.")
    ] = 64,
    mcts_matches: Annotated[
        int, typer.Option(min=0, help="Matches of each new best against plain MCTS (0: none).")
    ] = 0,
    address: Annotated[
        str | None,
        typer.Option(help="Ray cluster to play self-play on (auto, or HOST:PORT); else here."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of a new run.")] = 0,
) -> None:
    """Train until ``--time`` has passed; print each generation's arena line."""
    from ggpkit.games.registry import load

    loaded = load(game)  # before JAX starts its threads: the grounder forks
    try:
        from ggpkit.learn.settings import TrainSettings
        from ggpkit.learn.trainer import Trainer, TrainError
    except ImportError as e:
        raise fail(
            f"ggpkit train needs the learn extra (pip install 'ggpkit[learn]'): {e}"
        ) from None
    settings = TrainSettings(
        simulations=simulations,
        games_in_flight=games_in_flight,
        generation_games=generation_games,
        mcts_matches=mcts_matches,
        seed=seed,
    )
    try:
        trainer: Trainer | RayTrainer
        if address is not None:
            from ggpkit.learn.ray_selfplay import RayTrainer

            trainer = RayTrainer(game, out, settings, resume, address)
        else:
            trainer = Trainer(loaded, out, settings, resume)
    except TrainError as e:
        raise fail(str(e)) from None
    try:
        with status_line(f"training {loaded.name}") as show:
            trainer.run(seconds=time, progress=lambda p: _report(p, show))
        c = trainer.counters
    finally:
        trainer.close()
    typer.echo(
        f"{out}: generation {c.generation}, {c.games} games, {c.positions} positions, "
        f"{c.steps} training steps, {c.seconds:.0f} s in all"
    )


def _report(progress: Progress, show: Callable[[str], None]) -> None:
    c = progress.counters
    losses = " ".join(f"{k} {v:.3f}" for k, v in progress.losses.items())
    show(
        f"generation {c.generation}: {c.games} games, {progress.games_per_second:.1f} games/s, "
        f"{progress.positions_per_second:.0f} positions/s, loss {losses or '-'}"
    )
    if progress.gated:
        entry = c.history[-1]
        verdict = "promoted" if entry["promoted"] else "kept the best"
        mcts = f", against mcts {entry['vs_mcts']:.0%}" if "vs_mcts" in entry else ""
        typer.echo(
            f"games {entry['games']}: candidate scored {entry['score']:.0%} against the best "
            f"({verdict}); generation {entry['generation']}{mcts}",
            err=False,
        )
