"""Agents for games of imperfect information (GDL-II), where a player sees only its view.

An agent written for perfect information chooses from a state; here it is given its
role's :class:`~ggpkit.games.views.RoleView` instead. The searches of this package play
from views: :mod:`~ggpkit.agents.hidden.ismcts` (Information Set MCTS),
:mod:`~ggpkit.agents.hidden.hyperplay` (HyperPlay), both over a bag of sampled histories
(:mod:`~ggpkit.agents.hidden.bag`); :mod:`~ggpkit.agents.hidden.exact` (expectimax over
information sets, for one seat against nature); :mod:`~ggpkit.agents.hidden.blind` (a
baseline that ignores its percepts). :func:`for_imperfect_information` turns any agent
into one that plays from views, so that ``mcts`` on a GDL-II game needs nothing named.
"""

from __future__ import annotations

from ggpkit.agents.base import Agent
from ggpkit.agents.hidden.determinized import Determinized


def for_imperfect_information(agent: Agent) -> Agent:
    """``agent`` made to play from views.

    * itself where it already does;
    * the MCTS agent: the exact solver over information sets where the game is one seat
      against nature and small enough (decided at the match's start), else Information
      Set MCTS with the MCTS agent's limit and random stream (the stronger of the two
      searches from views in the arena: see the package's notes);
    * the solver agent: the exact solver, else its choices on a sampled state;
    * any other: its choices on a state sampled from the information set
      (:class:`Determinized`).
    """
    if agent.plays_from_views:
        return agent
    from ggpkit.agents.hidden.exact import InfosetSolverAgent
    from ggpkit.agents.hidden.ismcts import ISMCTSAgent
    from ggpkit.agents.mcts.agent import MCTSAgent
    from ggpkit.agents.solvers.agent import SolverAgent

    made: Agent
    if isinstance(agent, MCTSAgent):
        seed = agent.rng.randrange(2**63)
        search = ISMCTSAgent(limit=agent.limit, seed=seed)
        made = InfosetSolverAgent(seed=seed, fallback=search)
    elif isinstance(agent, SolverAgent):
        made = InfosetSolverAgent(fallback=Determinized(agent))
    else:
        return Determinized(agent)
    made.name = agent.name
    return made


__all__ = ["Determinized", "for_imperfect_information"]
