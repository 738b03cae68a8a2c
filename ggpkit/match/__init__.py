"""Matches: the referee, clocks, the GGP HTTP protocol (player and manager), records."""
