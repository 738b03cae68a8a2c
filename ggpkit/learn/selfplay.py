"""Matches played in lockstep by PUCT players: self-play games and the gating arena.

Every match in flight keeps one search tree per network seated in it (self-play: one
network, one tree for every role); each move, :func:`~ggpkit.agents.learned.puct.search`
searches all the trees together, so the network sees one batch for all of them. Each role
plays the move its network's tree chose for it; every tree then follows the joint move,
keeping its subtree. Self-play records, per position, the search's visit shares and,
once the match ends, every role's goal share: the buffer's rows
(:mod:`~ggpkit.learn.buffer`).
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ggpkit.agents.learned.network import Network
from ggpkit.agents.learned.puct import PUCTOptions, Tree, search
from ggpkit.games.api import Game

BATCH = 64
"""Leaves sent to the network together, about: matches in flight times the leaves each
tree collects by virtual loss (at most 8, which keeps its descents apart)."""


@dataclass(frozen=True, slots=True)
class Play:
    """How the matches of one call are played."""

    simulations: int
    temperature_moves: int
    noise: float = 0.0
    record: bool = False
    max_moves: int = 400


@dataclass(slots=True)
class Outcome:
    """A finished match: each role's goal share (None when cut at ``max_moves``), the
    network of each seat, and the training rows where recorded."""

    seating: tuple[int, ...]
    shares: npt.NDArray[np.float32] | None
    moves: int
    rows: dict[str, npt.NDArray[Any]] | None = None


@dataclass(slots=True)
class _Match:
    seating: tuple[int, ...]
    trees: dict[int, Tree]
    state: Hashable
    moves: int = 0
    positions: list[dict[str, npt.NDArray[Any]]] = field(default_factory=list)


def play_matches(
    game: Game[Any],
    networks: Sequence[Network],
    seatings: Sequence[tuple[int, ...]],
    play: Play,
    rng: random.Random,
) -> list[Outcome]:
    """One match per seating (``seating[r]``: the index of role ``r``'s network), all in
    lockstep; the outcomes in the seatings' order."""
    per_tree = max(1, min(8, BATCH // max(1, len(seatings))))
    options = PUCTOptions(noise=play.noise, batch=per_tree)
    start = game.initial_state()
    matches = [
        _Match(s, {k: Tree(game, networks[k], start, options, rng) for k in set(s)}, start)
        for s in seatings
    ]
    outcomes: list[Outcome | None] = [None] * len(matches)
    while any(o is None for o in outcomes):
        live = [i for i, o in enumerate(outcomes) if o is None]
        search([t for i in live for t in matches[i].trees.values()], play.simulations)
        for i in live:
            outcomes[i] = _step(game, networks, matches[i], play)
    return [o for o in outcomes if o is not None]


def _step(
    game: Game[Any], networks: Sequence[Network], match: _Match, play: Play
) -> Outcome | None:
    """Play one joint move of a searched match; its outcome when it ends."""
    temperature = 1.0 if match.moves < play.temperature_moves else 0.0
    joint = tuple(match.trees[k].choose(r, temperature) for r, k in enumerate(match.seating))
    if play.record:
        match.positions.append(_position(networks[match.seating[0]], match.trees[match.seating[0]]))
    for tree in match.trees.values():
        tree.advance(joint)
    tree = match.trees[match.seating[0]]
    match.state = tree.root.state
    match.moves += 1
    if game.is_terminal(match.state):
        goals = game.goals(match.state)
        lo, hi = game.info.goal_range
        raw = np.asarray([goals[r] for r in game.roles], dtype=np.float32)
        shares = np.clip((raw - lo) / max(hi - lo, 1), 0.0, 1.0).astype(np.float32)
        return Outcome(match.seating, shares, match.moves, _rows(match.positions, shares))
    limit = game.info.max_length or play.max_moves
    if match.moves >= limit:
        return Outcome(match.seating, None, match.moves)
    return None


def _position(network: Network, tree: Tree) -> dict[str, npt.NDArray[Any]]:
    """The root's training row but its outcome: input, visit shares, legal moves."""
    encoding = network.encoding
    sizes = network.config.actions
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    policy = np.zeros(sum(sizes), dtype=np.float32)
    legal = np.zeros(sum(sizes), dtype=np.int8)
    chose = np.zeros(len(sizes), dtype=np.int8)
    for r, moves in enumerate(tree.root.moves):
        at = offsets[r] + np.fromiter((encoding.action(r, m) for m in moves), dtype=np.intp)
        legal[at] = 1
        if len(moves) > 1:
            visits = tree.root_visits(r)
            policy[at] = visits / max(visits.sum(), 1.0)
            chose[r] = 1
    return {
        "features": network.features(tree.root.state),
        "policy": policy,
        "legal": legal,
        "chose": chose,
    }


def _rows(
    positions: list[dict[str, npt.NDArray[Any]]], shares: npt.NDArray[np.float32]
) -> dict[str, npt.NDArray[Any]] | None:
    if not positions:
        return None
    rows = {k: np.stack([p[k] for p in positions]) for k in positions[0]}
    rows["shares"] = np.tile(shares, (len(positions), 1))
    return rows
