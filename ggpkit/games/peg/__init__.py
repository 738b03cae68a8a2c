"""The native peg game: its rules, kernels and extras (declared in its GameInfo)."""
