"""The players for hidden information: the bag of histories, the exact solver over
information sets, and the searches from views against a random player.

Arenas here are seeded and limited by playouts, not time, so their results are fixed
(no flakes); their bounds are 95% intervals from the arena's own statistics.
"""

from __future__ import annotations

import math
import random
import time

import pytest
from games.gdl2_support import MONTY_HALL

from ggpkit.agents.base import Agent, Limit, start_clock
from ggpkit.agents.hidden import bag as bag_module
from ggpkit.agents.hidden import common, for_imperfect_information
from ggpkit.agents.hidden import hyperplay as hyperplay_module
from ggpkit.agents.hidden import ismcts as ismcts_module
from ggpkit.agents.hidden.bag import HistoryBag
from ggpkit.agents.hidden.common import playout_rewards
from ggpkit.agents.hidden.exact import (
    SOLVE_SECONDS,
    TRIAL_SHARE,
    InfosetExpectimax,
    InfosetSolverAgent,
    trial_seconds,
)
from ggpkit.agents.hidden.eyes import opponent_states, opponent_views
from ggpkit.agents.hidden.hyperplay import HyperPlayAgent
from ggpkit.agents.hidden.ismcts import ISMCTSAgent
from ggpkit.agents.specs import make_agent
from ggpkit.games.gdl.game import GdlGame, load_kif_text
from ggpkit.games.information import histories, views_agree, weighted_states
from ggpkit.games.views import RoleView
from ggpkit.gdl.kif import parse_term
from ggpkit.gdl.terms import Term
from ggpkit.match.arena import play_match, run_arena
from ggpkit.reasoning.base import QueryTimeLimitError, current_time_limit

ROLE = "contestant"


class RecordingStarts(Agent):
    """A fallback that records the roles it was started for (and plays nothing)."""

    def __init__(self) -> None:
        self.started: list[str] = []

    def start(self, game: object, role: str) -> None:
        self.started.append(role)

    def select(self, game: object, state: object, role: str, limit: Limit) -> Term:
        raise AssertionError("not asked to play here")


HALVES = """\
; Nature hides 1..4; alice is told whether it is low or high, bob whether odd or even;
; then both guess at once. Right alone: 100; both right or both wrong: 50; else 0.
(role random) (role alice) (role bob)
(num 1) (num 2) (num 3) (num 4)
(init (phase deal))
(<= (legal random (hide ?n)) (true (phase deal)) (num ?n))
(<= (legal alice noop) (true (phase deal)))
(<= (legal bob noop) (true (phase deal)))
(<= (legal random noop) (true (phase guess)))
(<= (legal alice (guess ?n)) (true (phase guess)) (num ?n))
(<= (legal bob (guess ?n)) (true (phase guess)) (num ?n))
(<= (sees alice low) (does random (hide 1)))
(<= (sees alice low) (does random (hide 2)))
(<= (sees alice high) (does random (hide 3)))
(<= (sees alice high) (does random (hide 4)))
(<= (sees bob odd) (does random (hide 1)))
(<= (sees bob odd) (does random (hide 3)))
(<= (sees bob even) (does random (hide 2)))
(<= (sees bob even) (does random (hide 4)))
(<= (next (secret ?n)) (does random (hide ?n)))
(<= (next (secret ?n)) (true (secret ?n)))
(<= (next (phase guess)) (true (phase deal)))
(<= (next (phase over)) (true (phase guess)))
(<= (next (said ?p ?n)) (does ?p (guess ?n)))
(<= terminal (true (phase over)))
(<= (right ?p) (true (said ?p ?n)) (true (secret ?n)))
(<= (goal alice 100) (right alice) (not (right bob)))
(<= (goal alice 50) (right alice) (right bob))
(<= (goal alice 50) (not (right alice)) (not (right bob)))
(<= (goal alice 0) (not (right alice)) (right bob))
(<= (goal bob 100) (right bob) (not (right alice)))
(<= (goal bob 50) (right bob) (right alice))
(<= (goal bob 50) (not (right bob)) (not (right alice)))
(<= (goal bob 0) (not (right bob)) (right alice))
"""


@pytest.fixture(scope="module")
def monty() -> GdlGame:
    return load_kif_text(MONTY_HALL, "monty", reasoner="propnet")


@pytest.fixture(scope="module")
def halves() -> GdlGame:
    return load_kif_text(HALVES, "halves", reasoner="propnet")


def _opened(pick: str, door: str) -> RoleView:
    picked = RoleView(ROLE).then(parse_term(f"(pick {pick})"), frozenset())
    return picked.then(parse_term("wait"), frozenset({parse_term(f"(opened {door})")}))


def test_the_bag_follows_the_view_and_replaces_what_died(
    monty: GdlGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bag_module, "FRONTIER_STATES", 0)  # samples, not the exact belief
    bag = HistoryBag(12, random.Random(1))
    picked = _opened("d1", "d3")
    first = RoleView(ROLE, picked.moves[:1], picked.percepts[:1])
    bag.update(monty, first, deadline=1e18)
    assert bag.frontier is None and len(bag.hypotheses) == 12 and bag.turn == 1
    earlier = [h.line for h in bag.hypotheses]
    bag.update(monty, picked, deadline=1e18)
    assert len(bag.hypotheses) == 12 and bag.turn == 2
    assert all(views_agree(monty, h.line, picked) for h in bag.hypotheses)
    kept = sum(h.line[:2] in earlier for h in bag.hypotheses)
    assert kept >= 6  # the car behind d1 or d2 survives the host's d3
    assert bag.resampled > 0 or len(earlier) == kept  # the car behind d3 died
    belief = bag.belief()
    assert sum(belief.values()) == pytest.approx(1.0) and 1 <= len(belief) <= 2


def test_the_bag_holds_the_exact_posterior_while_it_is_small(monty: GdlGame) -> None:
    bag = HistoryBag(4, random.Random(2))
    view = _opened("d2", "d1")
    bag.update(monty, view, deadline=1e18)
    assert bag.belief() == pytest.approx(weighted_states(monty, view))


def test_the_exact_solver_wins_two_thirds_in_expectation(monty: GdlGame) -> None:
    solver = InfosetExpectimax(monty, ROLE)
    assert solver.value(weighted_states(monty, RoleView(ROLE))) == pytest.approx(200 / 3)


@pytest.mark.parametrize("pick", ["d1", "d2", "d3"])
def test_the_exact_solver_switches_whatever_the_host_opens(monty: GdlGame, pick: str) -> None:
    agent = InfosetSolverAgent(seed=0)
    agent.start(monty, ROLE)
    assert agent.solver is not None, agent.refusal
    for door in ("d1", "d2", "d3"):
        if door == pick:
            continue
        assert str(agent.select(monty, _opened(pick, door), ROLE, Limit())) == "switch"
        values = {str(m): v for m, v in agent.thoughts(ROLE).moves} if agent.thoughts(ROLE) else {}
        assert values == {"switch": 1.0}


def test_the_exact_solver_hands_over_a_match_its_start_clock_leaves_no_time_to_solve(
    monty: GdlGame,
) -> None:
    fallback = RecordingStarts()
    agent = InfosetSolverAgent(seed=0, fallback=fallback)
    with start_clock(0.0):
        agent.start(monty, ROLE)
    assert agent.solver is None and agent.refusal and "time the start allows" in agent.refusal
    assert fallback.started == [ROLE]


def test_the_exact_solvers_trial_takes_a_share_of_the_start_clock() -> None:
    assert trial_seconds() == SOLVE_SECONDS
    with start_clock(SOLVE_SECONDS):
        assert trial_seconds() <= TRIAL_SHARE * SOLVE_SECONDS
        with start_clock(2 * SOLVE_SECONDS):  # an outer clock's earlier end holds
            assert trial_seconds() <= TRIAL_SHARE * SOLVE_SECONDS
    assert trial_seconds() == SOLVE_SECONDS


def test_the_exact_solver_refuses_two_seats(halves: GdlGame) -> None:
    agent = InfosetSolverAgent()
    agent.start(halves, "alice")
    assert agent.solver is None and agent.refusal and "2 seats" in agent.refusal


def test_mcts_on_monty_hall_switches(monty: GdlGame) -> None:
    """The default player needs nothing named: ``mcts`` plays from views by itself."""
    assert for_imperfect_information(make_agent("mcts")).plays_from_views
    switched = 0
    for index in range(30):
        record = play_match(monty, ["mcts:playouts=50"], index, 11, Limit())
        switched += record.moves[2][monty.role_index(ROLE)] == "switch"
    assert switched >= 29


@pytest.mark.parametrize("spec", ["ismcts:playouts=300", "hyperplay:playouts=300"])
def test_searches_from_views_beat_random(halves: GdlGame, spec: str) -> None:
    result = run_arena(halves, [spec, "random"], 60, seed=7, jobs=1)
    ours = result.stats[0]
    assert ours.spec == spec
    assert ours.mean_goal - ours.ci95 > 50


def test_ismcts_uses_its_percepts(halves: GdlGame) -> None:
    """Told low, alice guesses 1 or 2; told even, bob guesses 2 or 4."""
    low = RoleView("alice").then(parse_term("noop"), frozenset({parse_term("low")}))
    even = RoleView("bob").then(parse_term("noop"), frozenset({parse_term("even")}))
    for view, allowed in ((low, {"(guess 1)", "(guess 2)"}), (even, {"(guess 2)", "(guess 4)"})):
        agent = ISMCTSAgent(Limit(playouts=400), seed=3)
        agent.start(halves, view.role)
        assert str(agent.select(halves, view, view.role, Limit())) in allowed


SHORT_RACE = """\
; Two steps to the end; the second move decides: stay gives 70, leap 20 (so a random
; playout from the first state ends at 70 or 20, from the second at what was played).
(role p)
(init (at 0))
(<= (legal p walk) (true (at 0)))
(<= (legal p stay) (true (at 1)))
(<= (legal p leap) (true (at 1)))
(<= (next (at 1)) (does p walk))
(<= (next (end 70)) (does p stay))
(<= (next (end 20)) (does p leap))
(<= terminal (true (end ?g)))
(<= (goal p ?g) (true (end ?g)))
(<= (goal p 0) (not terminal))
"""


@pytest.mark.parametrize("reasoner", ["propnet", "joincode"])
def test_playout_rewards_are_the_goals_of_whole_playouts(reasoner: str) -> None:
    """Scaled to 0..1 and played to the end on either reasoner (on the propnet by its
    compiled playouts): from the first state each playout ends at 0.7 or 0.2, and both
    come up; a terminal state gives its own goals."""
    game = load_kif_text(SHORT_RACE, "short-race", reasoner=reasoner)
    rng = random.Random(1)
    start = game.initial_state()
    seen = {tuple(playout_rewards(game, start, rng)) for _ in range(40)}
    assert seen == {(0.7,), (0.2,)}
    end = game.next_state(game.next_state(start, {"p": parse_term("walk")}),
                          {"p": parse_term("leap")})  # fmt: skip
    assert playout_rewards(game, end, rng) == [0.2]


def test_a_bag_that_settled_for_own_moves_starts_again_from_a_true_history(
    monty: GdlGame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A percept no history gives (the host opens the door the contestant picked: a
    manager's mistake, or a sampler out of time in a bigger game) leaves the bag only
    histories that heed the contestant's own moves. They must not become the bag's
    anchors: a walk on from a line that broke a percept can only back up past it, so
    the next turns start again from the last histories of the whole view."""
    monkeypatch.setattr(bag_module, "FRONTIER_STATES", 0)
    bag = HistoryBag(4, random.Random(3))
    picked = RoleView(ROLE).then(parse_term("(pick d1)"), frozenset())
    bag.update(monty, picked, deadline=1e18)
    assert not bag.relaxed and all(views_agree(monty, h.line, picked) for h in bag.hypotheses)
    wrong = picked.then(parse_term("wait"), frozenset({parse_term("(opened d1)")}))
    bag.update(monty, wrong, deadline=1e18)
    assert bag.relaxed and bag.hypotheses  # a state to move from, heeding own moves only
    assert not any(views_agree(monty, h.line, wrong) for h in bag.hypotheses)
    assert bag.anchors and all(views_agree(monty, h.line, picked) for h in bag.anchors)


HIDE_AND_SEEK = """\
; Nature hides a coin in one of three boxes and the hider sees where; the hider then
; folds (30 to it, 70 to the seeker) or stays, and the seeker, who saw nothing, opens a
; box: found, the seeker has 100; missed, the hider has. Staying is worth 67 to the
; hider against a seeker that guesses, 0 against one that knows.
(role random) (role hider) (role seeker)
(box 1) (box 2) (box 3)
(init (phase 0))
(<= (legal random (hide ?b)) (true (phase 0)) (box ?b))
(<= (legal random noop) (not (true (phase 0))))
(<= (legal hider stay) (true (phase 1)))
(<= (legal hider fold) (true (phase 1)))
(<= (legal hider noop) (not (true (phase 1))))
(<= (legal seeker (open ?b)) (true (phase 2)) (box ?b))
(<= (legal seeker noop) (not (true (phase 2))))
(<= (sees hider (hidden ?b)) (does random (hide ?b)))
(<= (next (at ?b)) (does random (hide ?b)))
(<= (next (at ?b)) (true (at ?b)))
(<= (next (phase 1)) (true (phase 0)))
(<= (next (phase 2)) (does hider stay))
(<= (next folded) (does hider fold))
(<= (next (phase 3)) (true (phase 2)))
(<= (next found) (does seeker (open ?b)) (true (at ?b)))
(<= terminal (true folded))
(<= terminal (true (phase 3)))
(<= (goal hider 30) (true folded))
(<= (goal seeker 70) (true folded))
(<= (goal hider 0) (true found))
(<= (goal seeker 100) (true found))
(<= (goal hider 100) (true (phase 3)) (not (true found)))
(<= (goal seeker 0) (true (phase 3)) (not (true found)))
(<= (goal hider 50) (not terminal))
(<= (goal seeker 50) (not terminal))
(goal random 0)
"""


@pytest.fixture(scope="module")
def hide_and_seek() -> GdlGame:
    return load_kif_text(HIDE_AND_SEEK, "hide-and-seek", reasoner="propnet")


def _hidden_in(box: int) -> RoleView:
    return RoleView("hider").then(parse_term("noop"), frozenset({parse_term(f"(hidden {box})")}))


def test_an_opponent_is_modelled_from_what_it_can_see(hide_and_seek: GdlGame) -> None:
    """The seeker of the hider's search guesses (it saw nothing), so the hider stays.
    A seeker that learns in the hider's own states finds the coin, and the hider folds."""
    for box in (1, 2, 3):
        agent = ISMCTSAgent(Limit(playouts=1500), seed=box)
        agent.start(hide_and_seek, "hider")
        assert str(agent.select(hide_and_seek, _hidden_in(box), "hider", Limit())) == "stay"


def test_the_opponents_states_are_drawn_from_its_own_information_set(
    hide_and_seek: GdlGame,
) -> None:
    """The hider knows the box; the seeker's states have the coin in every box."""
    view = _hidden_in(2)
    lines = histories(hide_and_seek, view)
    assert len(lines) == 1
    views = opponent_views(hide_and_seek, lines, view, math.inf)
    drawn = opponent_states(hide_and_seek, views["seeker"], random.Random(4), math.inf)
    boxes = {fact for state in drawn for fact in map(str, hide_and_seek.facts(state))
             if fact.startswith("(at ")}  # fmt: skip
    assert boxes == {"(at 1)", "(at 2)", "(at 3)"}
    assert views["seeker"] == [RoleView("seeker").then(parse_term("noop"), frozenset())]


def test_ismcts_searches_where_no_opponent_is_modelled(monty: GdlGame) -> None:
    """One seat against nature: no opponent's states to draw, every iteration the
    searcher's own (and it switches)."""
    agent = ISMCTSAgent(Limit(playouts=400), seed=2)
    agent.start(monty, ROLE)
    assert str(agent.select(monty, _opened("d1", "d2"), ROLE, Limit())) == "switch"
    assert agent.last_playouts == 400


class _Clock:
    """A ``time.perf_counter`` that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_pace_stops_before_an_iteration_that_would_end_late(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = _Clock()
    monkeypatch.setattr(common.time, "perf_counter", clock)
    pace = common.Pace()
    assert pace.another(clock.now + 0.01)  # nothing learned yet: any time left will do
    pace.took(0.4)
    assert pace.another(clock.now + 0.5) and not pace.another(clock.now + 0.3)
    pace.begin()  # the next search expects half the slowest iteration of the last
    assert pace.another(clock.now + 0.3) and not pace.another(clock.now + 0.1)


@pytest.mark.parametrize("searcher", [ISMCTSAgent, HyperPlayAgent])
def test_a_search_without_time_for_one_iteration_answers_at_once(
    halves: GdlGame, searcher: type[ISMCTSAgent] | type[HyperPlayAgent]
) -> None:
    """A move whose time went on the bag answers with a move its view allows, not after
    a playout that ends past the deadline (a second on a slow reasoner)."""
    low = RoleView("alice").then(parse_term("noop"), frozenset({parse_term("low")}))
    agent = searcher(seed=4)
    agent.start(halves, "alice")
    moves = [parse_term(f"(guess {n})") for n in range(1, 5)]
    dealt = halves.next_state(halves.initial_state(), ["(hide 2)", "noop", "noop"])
    chosen = agent.search(halves, {dealt: 1.0}, "alice", moves, (0.0, math.inf))
    assert chosen in moves and agent.last_playouts == 0
    assert agent.select(halves, low, "alice", Limit(playouts=50)) in moves
    assert agent.last_playouts > 0


class _CountingGame:
    """States are numbers; state n allows moves a and b, and c where n is even."""

    def __init__(self) -> None:
        self.asked = 0

    def is_terminal(self, state: int) -> bool:
        return False

    def legal_moves(self, state: int, role: str) -> list[object]:
        self.asked += 1
        return ["a", "b", "c"] if state % 2 == 0 else ["a", "b"]


def test_candidate_moves_of_a_large_belief_list_a_drawn_few() -> None:
    """A particle filter's 4,000 states: the moves of a bounded draw, not of each."""
    game = _CountingGame()
    belief = {n: 1.0 for n in range(4_000)}
    moves = common.candidate_moves(game, belief, "me", random.Random(1))  # type: ignore[arg-type]
    assert game.asked <= common.CANDIDATE_STATES and moves == ["a", "b"]
    heavy = {n: (1.0 if n % 2 == 0 else 1e-6) for n in range(4_000)}
    game.asked = 0
    assert common.candidate_moves(game, heavy, "me") == ["a", "b", "c"]  # type: ignore[arg-type]
    assert game.asked == common.CANDIDATE_STATES
    small = {n: 1.0 for n in range(10)}
    game.asked = 0
    assert common.candidate_moves(game, small, "me") == ["a", "b"]  # type: ignore[arg-type]
    assert game.asked == 10


@pytest.mark.parametrize("searcher", [ISMCTSAgent, HyperPlayAgent])
def test_a_search_ends_where_its_deadline_stops_a_query(
    halves: GdlGame,
    searcher: type[ISMCTSAgent] | type[HyperPlayAgent],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its playouts run under a time limit at the search's deadline; a playout that the
    limit stops ends the search, which answers from the playouts it finished."""
    limits: list[tuple[float, float] | None] = []

    def playout(game: GdlGame, state: object, rng: random.Random) -> list[float]:
        limits.append(current_time_limit())
        if len(limits) > 5:
            raise QueryTimeLimitError("a query of the rules took longer than 1 s")
        return [0.5] * len(game.roles)

    monkeypatch.setattr(ismcts_module, "playout_rewards", playout)
    monkeypatch.setattr(hyperplay_module, "goal_of", lambda g, s, r, rng: playout(g, s, rng)[0])
    agent = searcher(seed=4)
    agent.start(halves, "alice")
    moves = [parse_term(f"(guess {n})") for n in range(1, 5)]
    dealt = halves.next_state(halves.initial_state(), ["(hide 2)", "noop", "noop"])
    seconds = 30.0
    began = time.monotonic()
    deadline = time.perf_counter() + seconds
    chosen = agent.search(halves, {dealt: 1.0}, "alice", moves, (deadline, math.inf))
    assert chosen in moves and agent.last_playouts == 5
    assert all(limit is not None for limit in limits)
    assert all(began + seconds - 1 < limit[0] < began + seconds + 1 for limit in limits if limit)
