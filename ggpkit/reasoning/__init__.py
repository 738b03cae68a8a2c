"""From GDL rules to a state machine: the reference prover, grounding, propnets, kernels.

Imports only ``ggpkit.gdl``.
"""
