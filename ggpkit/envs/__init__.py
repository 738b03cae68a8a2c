"""Bridges to the research tools: every ggpkit game in PettingZoo, Gymnasium and OpenSpiel,
and a batched simulator. Needs the ``rl`` extra (``pip install ggpkit[rl]``).

Entry points (``GAME`` is anything :func:`ggpkit.load` accepts)::

    from ggpkit.envs import pettingzoo, gymnasium, openspiel
    pettingzoo.env(GAME)            # AEC environment
    pettingzoo.parallel_env(GAME)   # Parallel environment
    gymnasium.make(GAME)            # one-role games
    openspiel.load_game(GAME)       # a pyspiel.Game

The observation, action and reward layout is documented in :mod:`ggpkit.games.encoding`.
Nothing else in ggpkit imports this package (it sits in the top layer).
"""
