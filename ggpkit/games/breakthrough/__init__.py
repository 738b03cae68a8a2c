"""The native breakthrough game: its rules, kernels and extras (declared in its GameInfo)."""
