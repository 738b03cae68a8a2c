"""Environment steps per second: ggpkit's VectorEnv on GDL rules against PGX, on CPU, in one run.

Each pair plays uniformly random legal moves in ``--envs`` matches at once, with
auto-reset, for ``--seconds`` per run; the figure is the median of ``--repeat`` runs
(warm-up and compilation excluded). One env step is one joint move in one match (one
ply in these turn-taking games), the random move choice included on both sides:
ggpkit draws it with numpy from the masks, PGX with ``jax.random.categorical`` inside
its jitted step. PGX and jax are not ggpkit dependencies: without them only ggpkit's
column is measured and a line says so.

    .venv/bin/python benchmarks/vector_vs_pgx.py --envs 1024 --seconds 2 --repeat 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ggpkit.envs.vector import VectorEnv, random_actions

PAIRS = [("tic_tac_toe", "ticTacToe.kif"), ("connect_four", "connectFour.kif")]
"""(PGX environment id, public GDL file) of the same game."""


def games_dir() -> Path:
    """``$GGPKIT_GAMES_DIR``, else ``../shared/ggp-games`` beside the repository."""
    env = os.environ.get("GGPKIT_GAMES_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[1] / ".." / "shared" / "ggp-games"


def median_rate(run: Callable[[float], float], seconds: float, repeat: int) -> float:
    """Median of ``repeat`` runs of ``run(seconds)`` (each returns steps per second)."""
    return statistics.median(run(seconds) for _ in range(repeat))


def ggpkit_runner(path: Path, envs: int) -> Callable[[float], float]:
    """Random play in a VectorEnv of ``envs`` matches; compiled and warmed up first."""
    env = VectorEnv(path, envs)
    _, masks = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        masks = env.step(random_actions(masks, rng)).masks

    def run(seconds: float) -> float:
        nonlocal masks
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            masks = env.step(random_actions(masks, rng)).masks
            steps += envs
        return steps / (time.perf_counter() - start)

    return run


def pgx_runner(env_id: str, envs: int) -> Callable[[float], float] | None:
    """The same with PGX (jit, vmap, auto_reset), or None when pgx/jax are absent."""
    try:
        import jax
        import jax.numpy as jnp
        import pgx  # type: ignore[import-untyped]
        from pgx.experimental import auto_reset  # type: ignore[import-untyped]
    except ImportError:
        return None
    env = pgx.make(env_id)
    step = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def one(state: Any, key: Any) -> Any:
        pick, reset = jax.random.split(key)
        logits = jnp.log(state.legal_action_mask.astype(jnp.float32))
        action = jax.random.categorical(pick, logits, axis=-1)
        return step(state, action, jax.random.split(reset, envs))

    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), envs))
    key = jax.random.PRNGKey(1)
    for _ in range(10):
        key, sub = jax.random.split(key)
        state = one(state, sub)
    state.current_player.block_until_ready()

    def run(seconds: float) -> float:
        nonlocal state, key
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            key, sub = jax.random.split(key)
            state = one(state, sub)
            steps += envs
        state.current_player.block_until_ready()
        return steps / (time.perf_counter() - start)

    return run


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=1024, help="matches stepped at once")
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--no-pgx", action="store_true", help="measure ggpkit only")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f}; {args.envs} envs, "
          f"median of {args.repeat} runs of {args.seconds} s")  # fmt: skip
    # Every GDL game is loaded before jax starts its threads (the grounder forks).
    ours = [ggpkit_runner(games_dir() / kif, args.envs) for _, kif in PAIRS]
    theirs = [None if args.no_pgx else pgx_runner(env_id, args.envs) for env_id, _ in PAIRS]
    print(
        f"{'game':<14} {'ggpkit rules':<16} {'ggpkit steps/s':>15} {'PGX steps/s':>13} {'ratio':>7}"
    )
    for (env_id, kif), our_run, their_run in zip(PAIRS, ours, theirs, strict=True):
        rate = median_rate(our_run, args.seconds, args.repeat)
        if their_run is None:
            print(f"{env_id:<14} {kif:<16} {rate:>15,.0f} {'-':>13} {'-':>7}")
            continue
        pgx_rate = median_rate(their_run, args.seconds, args.repeat)
        print(f"{env_id:<14} {kif:<16} {rate:>15,.0f} {pgx_rate:>13,.0f} {rate / pgx_rate:>6.2f}x")
    if None in theirs:
        why = "--no-pgx" if args.no_pgx else "pgx and jax are not installed (pip install pgx jax)"
        print(f"PGX not measured: {why}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
