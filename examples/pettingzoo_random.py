"""A PettingZoo random loop on a GDL game: every agent picks a random legal action.

.venv/bin/python examples/pettingzoo_random.py ../shared/ggp-games/connectFour.kif --games 3
"""

from __future__ import annotations

import argparse

import numpy as np

from ggpkit.envs import pettingzoo


def play(game: str, games: int, seed: int) -> list[dict[str, float]]:
    """Play ``games`` random matches in the AEC environment; each match's final rewards."""
    env = pettingzoo.env(game)
    rng = np.random.default_rng(seed)
    results = []
    for _ in range(games):
        env.reset(seed=seed)
        totals = dict.fromkeys(env.agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            totals[agent] += reward
            if terminated or truncated:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(action)
        results.append(totals)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="a .kif path or a registered game name")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for number, totals in enumerate(play(args.game, args.games, args.seed), 1):
        scores = " ".join(f"{agent}={reward:+.2f}" for agent, reward in totals.items())
        print(f"game {number}: {scores}")


if __name__ == "__main__":
    main()
