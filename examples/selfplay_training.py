"""Self-play training on a seed game with scikit-learn: a learned policy that beats random.

Generation 0 plays thousands of random matches at once in the batched simulator
(:class:`~ggpkit.envs.vector.VectorEnv`); each later generation plays matches of the
policy learned so far against itself (greedy, with some random moves to keep
exploring). Every position is labelled with the first role's final result, and
scikit-learn's ``LogisticRegression`` is fitted on the positions' base-fact vectors
(the observation of :mod:`ggpkit.games.encoding`) to predict whether the first role
wins. The policy picks the move whose next position is best for its role by that
value. At the end the greedy policy plays a uniformly random player from both seats.

    .venv/bin/python examples/selfplay_training.py --game breakthrough-holes \\
        --random-matches 2000 --generations 2 --matches 100 --evaluation 100
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Hashable
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

import ggpkit
from ggpkit.envs.vector import VectorEnv, random_actions
from ggpkit.games.encoding import Encoding


class ValuePolicy:
    """Greedy one-ply lookahead on a learned chance that the first role wins."""

    def __init__(self, game: Any, model: LogisticRegression | None, explore: float) -> None:
        self.game = game
        self.encoding = Encoding(game)
        self.model = model
        self.explore = explore

    def move(self, state: Hashable, role: str, rng: random.Random) -> Any:
        moves = self.game.legal_moves(state, role)
        if self.model is None or len(moves) == 1 or rng.random() < self.explore:
            return rng.choice(moves)
        afters = [self.game.play(state, m, role) for m in moves]
        first_wins = self.model.predict_proba(self.features(afters))[:, 1]
        mine = first_wins if role == self.game.roles[0] else 1 - first_wins
        return moves[int(np.argmax(mine))]

    def features(self, states: list[Hashable]) -> npt.NDArray[np.int8]:
        return np.stack([self.encoding.base_bits(s) for s in states])


def play(game: Any, players: dict[str, ValuePolicy], rng: random.Random) -> tuple[list[Any], float]:
    """One match of a two-role turn-taking game: its positions and the first role's reward."""
    state = game.initial_state()
    seen = [state]
    while not game.is_terminal(state):
        role = game.to_move(state)
        state = game.play(state, players[role].move(state, role, rng), role)
        seen.append(state)
    first = game.roles[0]
    return seen, Encoding(game).final_rewards(state)[first]


def random_selfplay(game: Any, matches: int, seed: int) -> tuple[npt.NDArray[Any], list[int]]:
    """Positions of ``matches`` random matches, played 256 at a time in compiled code, each
    labelled 1 where the first role went on to win."""
    env = VectorEnv(game, min(matches, 256))
    obs, masks = env.reset()
    rng = np.random.default_rng(seed)
    rows: list[npt.NDArray[np.int8]] = []
    labels: list[int] = []
    pending: list[list[int]] = [[] for _ in range(env.num_envs)]
    finished = 0
    while finished < matches:
        for i in range(env.num_envs):
            pending[i].append(len(rows) + i)
        rows.extend(obs)
        labels.extend([0] * env.num_envs)
        out = env.step(random_actions(masks, rng))
        for ended in np.flatnonzero(out.terminated | out.truncated):
            i = int(ended)
            pending[i].append(len(rows))
            rows.append(out.final_observations[i])
            labels.append(0)
            for row in pending[i]:
                labels[row] = int(out.rewards[i, 0] > 0)
            pending[i] = []
            finished += 1
        obs, masks = out.observations, out.masks
    done = [row for rows_of in pending for row in rows_of]  # unfinished matches are dropped
    keep = np.setdiff1d(np.arange(len(rows)), done)
    return np.stack(rows)[keep], [labels[k] for k in keep]


def train(game: Any, random_matches: int, generations: int, matches: int, seed: int) -> ValuePolicy:
    """Random matches, then self-play generations; returns the last greedy policy."""
    rng = random.Random(seed)
    features, labels = random_selfplay(game, random_matches, seed)
    policy = ValuePolicy(game, _fit(features, labels), explore=0.2)
    for _ in range(generations):
        for _ in range(matches):
            seen, reward = play(game, dict.fromkeys(game.roles, policy), rng)
            features = np.concatenate([features, policy.features(seen)])
            labels += [int(reward > 0)] * len(seen)
        policy = ValuePolicy(game, _fit(features, labels), explore=0.2)
    return ValuePolicy(game, policy.model, explore=0.0)


def _fit(features: npt.NDArray[Any], labels: list[int]) -> LogisticRegression:
    return LogisticRegression(C=0.1, max_iter=1000).fit(features, labels)


def evaluate(game: Any, policy: ValuePolicy, matches: int, seed: int) -> float:
    """The learned policy's mean reward against uniform random, half the matches per seat."""
    rng = random.Random(seed + 1)
    randomly = ValuePolicy(game, None, 1.0)
    total = 0.0
    for number in range(matches):
        seat = game.roles[number % 2]
        players = {r: policy if r == seat else randomly for r in game.roles}
        _, first_reward = play(game, players, rng)
        total += first_reward if seat == game.roles[0] else -first_reward
    return total / matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="breakthrough-holes", help="a two-role zero-sum game")
    parser.add_argument("--random-matches", type=int, default=2000, help="generation 0's")
    parser.add_argument("--generations", type=int, default=2, help="self-play generations")
    parser.add_argument("--matches", type=int, default=100, help="matches per generation")
    parser.add_argument("--evaluation", type=int, default=100, help="matches against random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = ggpkit.load(args.game)
    if len(game.roles) != 2 or not game.info.zero_sum or not game.info.turn_taking:
        raise SystemExit(f"{args.game}: this example needs a two-role zero-sum turn-taking game")
    policy = train(game, args.random_matches, args.generations, args.matches, args.seed)
    score = evaluate(game, policy, args.evaluation, args.seed)
    print(f"learned policy against random: mean reward {score:+.2f} over {args.evaluation} matches")


if __name__ == "__main__":
    main()
