"""The native checkers game: its rules, kernels and extras (declared in its GameInfo)."""
