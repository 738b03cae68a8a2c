"""What agents say they concluded (``Agent.thoughts``), checked against positions whose value
follows from the rules (rules.md): a win in one move, peg solitaire's perfect score."""

from __future__ import annotations

from ggpkit.agents.base import Limit
from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.agents.random_agent import RandomAgent
from ggpkit.agents.solvers.agent import SolverAgent
from ggpkit.games.registry import load
from ggpkit.gdl.kif import parse_terms

HOLES = "(cell 2 3 hole) (cell 3 4 hole) (cell 4 3 hole) (cell 5 4 hole)"


def test_mcts_finds_the_win_in_one_and_says_so() -> None:
    game = load("breakthrough-holes")
    # white to move with a piece on y=5: stepping to y=6 wins (rules.md 3)
    facts = f"(cell 1 5 white) (cell 3 1 white) (cell 6 6 black) (cell 6 5 black) {HOLES}"
    state = game.state_from_facts(parse_terms(facts + " (control white)"))
    agent = MCTSAgent(seed=1)
    agent.start(game, "white")
    move = agent.select(game, state, "white", Limit(playouts=2000))
    said = agent.thoughts("white")
    assert said is not None
    winning = {"(move 1 5 1 6)", "(move 1 5 2 6)"}
    assert str(move) in winning
    assert said.value == 100 and said.verdict == "proved: white gets 100"
    assert str(said.moves[0][0]) in winning


def test_mcts_shares_are_parts_of_its_search() -> None:
    game = load("pawn-checkers")
    agent = MCTSAgent(seed=2)
    agent.start(game, "black")
    agent.select(game, game.initial_state(), "black", Limit(playouts=600))
    said = agent.thoughts("black")
    assert said is not None and said.value is not None and 0 <= said.value <= 100
    shares = [share for _, share in said.moves]
    assert shares == sorted(shares, reverse=True) and 0 < sum(shares) <= 1
    legal = game.legal_moves(game.initial_state(), "black")
    assert {m for m, _ in said.moves} <= set(legal) and len(said.moves) == 3
    assert agent.thoughts("red") is None  # red only plays noop here: nothing searched for it
    assert said.verdict is None


def test_solver_gives_the_exact_value_and_its_move() -> None:
    game = load("peg")
    agent = SolverAgent()
    agent.start(game, "jumper")
    move = agent.select(game, game.initial_state(), "jumper", Limit(time=5))
    said = agent.thoughts("jumper")
    assert said is not None
    assert said.value == 100  # rules.md 1: a perfect game scores 100
    assert said.moves == ((move, 1.0),)
    assert said.verdict is not None and said.verdict.startswith("with perfect play jumper gets 100")


def test_agents_that_do_not_search_say_nothing() -> None:
    game = load("peg")
    agent = RandomAgent(seed=3)
    agent.select(game, game.initial_state(), "jumper", Limit())
    assert agent.thoughts("jumper") is None
