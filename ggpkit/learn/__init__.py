"""Training players that learn (``ggpkit train``): AlphaZero-style self-play for any game.

* :mod:`~ggpkit.learn.settings`: the run's settings;
* :mod:`~ggpkit.learn.selfplay`: matches in lockstep, their training rows;
* :mod:`~ggpkit.learn.buffer`: the replay buffer;
* :mod:`~ggpkit.learn.optimize`: the loss and the training step;
* :mod:`~ggpkit.learn.gating`: the arenas of a generation;
* :mod:`~ggpkit.learn.checkpoint`: the model and the run, written atomically;
* :mod:`~ggpkit.learn.trainer`: the loop; :mod:`~ggpkit.learn.ray_selfplay`: self-play on
  Ray workers.

The network, the search and the player live in :mod:`ggpkit.agents.learned`. Needs the
``learn`` extra.
"""
