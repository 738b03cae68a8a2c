"""OpenSpiel's MCTSBot plays breakthrough-holes (or any ggpkit game) against a random bot.

.venv/bin/python examples/openspiel_mcts.py --game breakthrough-holes --simulations 200 --games 4
"""

from __future__ import annotations

import argparse

import numpy as np
from open_spiel.python.algorithms import mcts

from ggpkit.envs import openspiel


def play(game_name: str, simulations: int, games: int, seed: int) -> list[float]:
    """MCTS's returns in ``games`` matches against uniform random, changing seats each match."""
    game = openspiel.load_game(game_name)
    rng = np.random.RandomState(seed)
    results = []
    for number in range(games):
        seat = number % game.num_players()
        rollouts = mcts.RandomRolloutEvaluator(1, rng)
        bot = mcts.MCTSBot(game, 2.0, simulations, rollouts, random_state=rng, solve=True)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == seat:
                action = bot.step(state)
            else:
                action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
        results.append(state.returns()[seat])
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="breakthrough-holes")
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    results = play(args.game, args.simulations, args.games, args.seed)
    for number, value in enumerate(results, 1):
        print(f"game {number}: MCTS return {value:+.2f}")
    print(f"MCTS mean return against random: {np.mean(results):+.2f}")


if __name__ == "__main__":
    main()
