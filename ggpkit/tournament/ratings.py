"""Ratings with 95% intervals, fitted by well-kept libraries (never by hand here).

Two-player games: a Bradley-Terry model fitted by maximum likelihood with ``choix``
(I-LSR on the matrix of results), on the Elo scale (400 points = 10:1 odds; the field's
mean at 1500). A draw counts as half a win each way. The 95% interval comes from a
bootstrap: the matches are resampled with replacement and the model refitted; the
interval is the 2.5 and 97.5 percentiles.
A small regularisation keeps a player who won (or lost) everything finite.

More than two players: ``openskill``'s Plackett-Luce model (a Weng-Lin Bayesian rating,
TrueSkill-like), which reads each match as a ranking by goals; the interval is
mu +- 1.96 sigma, on openskill's own scale (mu starts at 25).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy

ELO_SCALE = 400 / math.log(10)
"""Elo points per unit of Bradley-Terry log-strength."""
ELO_CENTRE = 1500.0
BOOTSTRAP_SAMPLES = 200
REGULARISATION = 0.01


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating and its 95% interval; ``method`` names the model."""

    rating: float
    low: float
    high: float
    method: str


Duel = tuple[int, int, float]
"""Players ``a`` and ``b`` (indices) and ``a``'s score: 1 win, 0.5 draw, 0 loss."""

Ranking = Sequence[tuple[int, float]]
"""One match of several players: (player index, goal) for every role."""


def bradley_terry_point(duels: Sequence[Duel], n: int) -> list[float]:
    """The Bradley-Terry fit of the duels on the Elo scale, mean 1500 (no interval)."""
    return _fit(_comparisons(Counter(duels), n), n)


def bradley_terry(
    duels: Sequence[Duel], n: int, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0
) -> list[Rating]:
    """Bradley-Terry ratings with bootstrap 95% intervals (resampling the duels).

    A resample draws as many duels as there are, with replacement: the count of each
    distinct result is multinomial, so a fit costs the same for 10 or 100,000 duels.
    """
    counts = Counter(duels)
    point = _fit(_comparisons(counts, n), n)
    if samples == 0:  # no interval asked for (a quick look)
        return [Rating(p, p, p, "bradley-terry") for p in point]
    if not duels:  # nothing is known yet
        return [Rating(p, -math.inf, math.inf, "bradley-terry") for p in point]
    kinds = list(counts)
    shares = numpy.array([counts[k] for k in kinds], dtype=float) / len(duels)
    rng = numpy.random.default_rng(seed)
    fits = []
    for _ in range(samples):
        drawn = rng.multinomial(len(duels), shares)
        fits.append(_fit(_comparisons(dict(zip(kinds, drawn, strict=True)), n), n))
    low, high = numpy.percentile(numpy.array(fits), [2.5, 97.5], axis=0)
    return [
        Rating(p, float(lo), float(hi), "bradley-terry")
        for p, lo, hi in zip(point, low, high, strict=True)
    ]


def _comparisons(counts: Mapping[Duel, int], n: int) -> numpy.ndarray[Any, Any]:
    """``m[i, j]``: times ``i`` beat ``j``, a win counted twice and a draw once each way."""
    m = numpy.zeros((n, n))
    for (a, b, score), count in counts.items():
        m[a, b] += 2 * score * count
        m[b, a] += 2 * (1 - score) * count
    return m


def _fit(comparisons: numpy.ndarray[Any, Any], n: int) -> list[float]:
    import choix

    if not comparisons.any():
        return [ELO_CENTRE] * n
    params = choix.ilsr_pairwise_dense(comparisons, alpha=REGULARISATION)
    mean = float(params.mean())
    return [ELO_CENTRE + ELO_SCALE * (float(p) - mean) for p in params]


def plackett_luce(rankings: Sequence[Ranking], n: int) -> list[Rating]:
    """openskill Plackett-Luce ratings from matches in order; interval mu +- 1.96 sigma."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating() for _ in range(n)]
    for match in rankings:
        teams = [[ratings[i]] for i, _ in match]
        rated = model.rate(teams, scores=[float(goal) for _, goal in match])
        for (i, _), team in zip(match, rated, strict=True):
            ratings[i] = team[0]
    return [
        Rating(r.mu, r.mu - 1.96 * r.sigma, r.mu + 1.96 * r.sigma, "plackett-luce") for r in ratings
    ]
