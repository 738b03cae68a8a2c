"""The trainer's settings: one object, each field with its default and why.

Defaults suit a small board game on a laptop's CPU; nothing is per game except where the
game's declaration says it (its length bound, its goal range, its roles).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TrainSettings:
    """How ``ggpkit train`` plays, learns and gates."""

    simulations: int = 64
    """PUCT simulations a move in self-play and in the gating arena."""
    games_in_flight: int = 16
    """Self-play games played together, their leaves evaluated in one network call."""
    temperature_moves: int = 8
    """Joint moves at the start of a game chosen in proportion to visits (exploration);
    the most visited after."""
    noise: float = 0.25
    """Dirichlet noise share at the self-play roots."""
    max_moves: int = 400
    """A self-play game longer than this is dropped, where the game declares no bound."""
    buffer: int = 50_000
    """Positions the replay buffer keeps (the oldest go first)."""
    batch_size: int = 128
    train_steps: int = 32
    """Training steps after each round of games in flight."""
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    generation_games: int = 64
    """Self-play games between two gating arenas."""
    gate_matches: int = 20
    """Matches of the gating arena, candidate against best, roles alternated."""
    gate_score: float = 0.55
    """The candidate's mean share against the best it needs to become the best."""
    gate_temperature_moves: int = 2
    """Joint moves drawn by visits at the start of gating matches, so they differ."""
    mcts_matches: int = 0
    """Matches of each new best against plain MCTS at the same simulations (0: none)."""
    channels: int = 32
    blocks: int = 2
    hidden: int = 64
    seed: int = 0
