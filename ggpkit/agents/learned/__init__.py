"""Players that learn: a policy-and-value network trained by self-play, searched by PUCT.

* :mod:`~ggpkit.agents.learned.network`: the network over a game's planes and action
  space (JAX and Flax, the ``learn`` extra);
* :mod:`~ggpkit.agents.learned.model_file`: the model on disk, written atomically;
* :mod:`~ggpkit.agents.learned.puct`: the search, leaves evaluated in batches;
* :mod:`~ggpkit.agents.learned.agent`: the ``az`` agent.

The trainer that makes the models is :mod:`ggpkit.learn` (``ggpkit train``).
This package imports nothing heavy: JAX is loaded when a model is.
"""
