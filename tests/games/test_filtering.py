"""The particle filter over information sets: its compiled step against the rules read
joint move by joint move, its exact passes against the exact posterior, its resampling,
and a frontier that dies, recovers and mends.

The compiled step (:meth:`~ggpkit.reasoning.propnet.reasoner.PropnetReasoner.seen_successors`)
is checked against the generic loop of the game contract, which asks ``_percepts`` and
``_next`` of each joint move, on random states of GDL-II games; the frontier's exact
passes against :func:`~ggpkit.games.information.weighted_states`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable
from typing import Any

import pytest

from games.gdl2_support import MONTY_HALL, gdl2_dir
from ggpkit.games.api import Game
from ggpkit.games.filtering import Frontier, FrontierDied, advance_sample, resample
from ggpkit.games.gdl.game import GdlGame, load_kif_file, load_kif_text
from ggpkit.games.information import views_agree, weighted_states
from ggpkit.games.views import RoleView
from ggpkit.gdl.kif import parse_term

SECRET = """\
; Nature picks one of sixteen numbers unseen; the guesser waits a turn, then is told it.
(role random) (role guesser)
(n 1) (n 2) (n 3) (n 4) (n 5) (n 6) (n 7) (n 8)
(n 9) (n 10) (n 11) (n 12) (n 13) (n 14) (n 15) (n 16)
(init (phase 0))
(<= (legal random (pick ?x)) (true (phase 0)) (n ?x))
(<= (legal random noop) (not (true (phase 0))))
(<= (legal guesser wait) (not (true (phase 3))))
(<= (sees guesser (told ?x)) (true (phase 1)) (true (secret ?x)))
(<= (next (secret ?x)) (does random (pick ?x)))
(<= (next (secret ?x)) (true (secret ?x)))
(<= (next (phase 1)) (true (phase 0)))
(<= (next (phase 2)) (true (phase 1)))
(<= (next (phase 3)) (true (phase 2)))
(<= terminal (true (phase 3)))
(<= (goal guesser 100) (true (phase 3)))
(<= (goal random 0) (true (phase 3)))
"""


def _numbers(count: int) -> str:
    """:data:`SECRET` with ``count`` numbers (nature's first step: ``count`` joint moves)."""
    facts = " ".join(f"(n {k})" for k in range(1, count + 1))
    return "\n".join(
        facts if line.startswith("(n 1)") else line
        for line in SECRET.splitlines()
        if not line.startswith("(n 9)")
    )


@pytest.fixture(scope="module")
def monty() -> GdlGame:
    return load_kif_text(MONTY_HALL, "monty", reasoner="propnet")


@pytest.fixture(scope="module")
def secret() -> GdlGame:
    return load_kif_text(SECRET, "secret", reasoner="propnet")


def _compare_steps(game: Game[Any], matches: int, seed: int) -> int:
    """Checks the game's own ``_seen_successors`` against the contract's loop on every
    state and role of ``matches`` random matches; the number of checks."""
    rng = random.Random(seed)
    checked = 0
    for _ in range(matches):
        state = game.initial_state()
        while not game.is_terminal(state):
            joint = [rng.choice(game.legal_moves(state, r)) for r in game.roles]
            for index, role in enumerate(game.roles):
                seen = game._percepts(state, joint)[role]
                for wanted in (seen, None, frozenset()):
                    ours = game._seen_successors([state], role, joint[index], wanted, 10**6)
                    loop = Game._seen_successors_of(game, state, role, joint[index], wanted, 10**6)
                    assert ours[0][0] == loop[0]
                    assert Counter(ours[0][1]) == Counter(loop[1])
                    checked += 1
            state = game._next(state, joint)
    return checked


def test_the_compiled_step_agrees_with_the_rules_on_monty_hall(monty: GdlGame) -> None:
    assert _compare_steps(monty, 20, 1) > 0


def test_the_compiled_step_agrees_past_64_joint_moves() -> None:
    """Joint moves are evaluated 64 at a time: a step of 150 takes three passes."""
    game = load_kif_text(_numbers(150), "numbers", reasoner="propnet")
    assert game.reasoner_name == "propnet"
    start = game.initial_state()
    assert game._seen_successors([start], "guesser", parse_term("wait"), None, 999)[0][0] == 150
    assert _compare_steps(game, 4, 3) > 0


@pytest.mark.parametrize(
    "name", ["BlindBreakthrough.kif", "KriegTictactoe.kif", "MontyHall-20door.kif",
             "numberguessing.kif", "minesweeper.kif", "HiddenConnect.kif"]
)  # fmt: skip
def test_the_compiled_step_agrees_with_the_rules_on_public_games(name: str) -> None:
    game = load_kif_file(gdl2_dir() / name)
    if game.reasoner_name != "propnet":
        pytest.skip(f"{name} does not run on the propnet here")
    assert _compare_steps(game, 3, 2) > 0


def test_a_move_not_legal_and_a_terminal_state_have_no_joint_moves(secret: GdlGame) -> None:
    start = secret.initial_state()
    assert secret._seen_successors([start], "guesser", parse_term("wait"), None, 99)[0][0] == 16
    end = start
    for joint in (["(pick 3)", "wait"], ["noop", "wait"], ["noop", "wait"]):
        end = secret._next(end, [parse_term(m) for m in joint])
    assert secret.is_terminal(end)
    both = secret._seen_successors([end, start], "guesser", parse_term("wait"), None, 99)
    assert both[0] == (0, []) and both[1][0] == 16
    wide = secret._seen_successors([start], "guesser", parse_term("wait"), None, 15)
    assert wide == [(16, [])]  # counted, not expanded


def test_the_frontier_is_the_exact_posterior_while_it_fits(monty: GdlGame) -> None:
    view = RoleView("contestant").then(parse_term("(pick d1)"), frozenset())
    view = view.then(parse_term("wait"), frozenset({parse_term("(opened d3)")}))
    frontier = Frontier.start(monty, 100)
    frontier.advance(monty, view, random.Random(1), 1e18, 1e18)
    assert frontier.exact and frontier.turn == 2
    assert frontier.states == pytest.approx(weighted_states(monty, view))
    assert all(views_agree(monty, frontier.lines[s], view) for s in frontier.states)


def test_a_step_past_its_time_still_finds_some_successors(secret: GdlGame) -> None:
    view = RoleView("guesser").then(parse_term("wait"), frozenset())
    after, exact = advance_sample(
        secret, {secret.initial_state(): 1.0}, view, 0, 100, random.Random(2), 0.0
    )
    assert len(after) == 16 and exact  # one state: expanded whole however late


def test_resampling_draws_each_state_by_its_weight() -> None:
    rng = random.Random(3)
    for _ in range(50):
        weights = {k: rng.random() for k in range(rng.randint(5, 40))}
        keep = rng.randint(1, 30)
        drawn = resample(weights, keep, rng)
        assert sum(drawn.values()) == pytest.approx(keep, abs=1)
        total = sum(weights.values())
        for state, count in drawn.items():  # systematic: within one of its expectation
            assert abs(count - keep * weights[state] / total) < 1 + 1e-9


def _told(game: GdlGame, number: int) -> RoleView:
    view = RoleView("guesser").then(parse_term("wait"), frozenset())
    return view.then(parse_term("wait"), frozenset({parse_term(f"(told {number})")}))


def test_a_frontier_that_died_is_filtered_again_from_the_start(secret: GdlGame) -> None:
    """A sample of two of the sixteen numbers, then told one it does not hold: filtered
    again from the start with eight times the states, every number, the told one kept."""
    frontier = Frontier.start(secret, 2)
    rng = random.Random(4)
    first = RoleView("guesser").then(parse_term("wait"), frozenset())
    frontier.advance(secret, first, rng, 1e18, 1e18)
    held = {str(f) for s in frontier.states for f in secret.facts(s) if "secret" in str(f)}
    assert len(frontier.states) == 2 and not frontier.exact
    number = next(n for n in range(1, 17) if f"(secret {n})" not in held)
    view = _told(secret, number)
    frontier.advance(secret, view, rng, 1e18, 1e18)
    assert frontier.broken_at is None and len(frontier.states) == 1
    (state,) = frontier.states
    assert parse_term(f"(secret {number})") in secret.facts(state)
    assert views_agree(secret, frontier.lines[state], view)


def test_a_frontier_out_of_time_mends_the_step_no_sample_gives(secret: GdlGame) -> None:
    """No time to filter again: the step is mended (the closest percepts kept), marked
    broken, and the role still has a state to move from."""
    frontier = Frontier.start(secret, 2)
    rng = random.Random(4)
    frontier.advance(secret, RoleView("guesser").then(parse_term("wait"), frozenset()),
                     rng, 1e18, 1e18)  # fmt: skip
    held = {str(f) for s in frontier.states for f in secret.facts(s) if "secret" in str(f)}
    number = next(n for n in range(1, 17) if f"(secret {n})" not in held)
    frontier.advance(secret, _told(secret, number), rng, 0.0, 0.0)
    assert frontier.broken_at == 1 and frontier.states and frontier.turn == 2
    for state in frontier.states:  # a state of the wrong number: near the view, not in it
        assert parse_term(f"(secret {number})") not in secret.facts(state)


def test_a_view_no_line_gives_with_no_move_to_play_is_a_death(secret: GdlGame) -> None:
    view = RoleView("guesser").then(parse_term("noop"), frozenset())  # not its move
    with pytest.raises(FrontierDied):
        Frontier.start(secret, 8).advance(secret, view, random.Random(5), 1e18, 1e18)


def _random_views(game: GdlGame, seed: int) -> list[RoleView]:
    """Each role's views, turn by turn, of one random match."""
    rng = random.Random(seed)
    state: Hashable = game.initial_state()
    views = {r: RoleView(r) for r in game.roles if r != game.info.chance_role}
    turns: list[RoleView] = []
    while not game.is_terminal(state):
        turns += views.values()
        joint = [rng.choice(game.legal_moves(state, r)) for r in game.roles]
        seen = game._percepts(state, joint)
        for index, role in enumerate(game.roles):
            if role in views:
                views[role] = views[role].then(joint[index], seen[role])
        state = game._next(state, joint)
    return turns


def test_blind_breakthrough_is_followed_through_whole_matches() -> None:
    """The game the walks lost a history in one step in three: with time to spare, the
    frontier lives through whole random matches for both roles, and its lines give the
    views."""
    game = load_kif_file(gdl2_dir() / "BlindBreakthrough.kif")
    for seed in (1, 2):
        frontiers: dict[str, Frontier] = {}
        last: dict[str, RoleView] = {}
        rng = random.Random(seed)
        for view in _random_views(game, seed):
            frontier = frontiers.setdefault(view.role, Frontier.start(game, 4_000))
            frontier.advance(game, view, rng, 1e18, 1e18)
            assert frontier.broken_at is None and frontier.states
            last[view.role] = view
        for role, frontier in frontiers.items():
            lines = list(frontier.lines.values())
            assert all(views_agree(game, line, last[role]) for line in rng.sample(lines, 3))
