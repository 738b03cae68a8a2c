"""Tournaments: many players, many games, many matches, played on Ray and rated.

``config`` reads a TOML tournament; ``schedule`` turns it into slots (one match each,
with a unique key); ``runner`` hands slots to an executor (``ray_backend``: each match a
Ray task, played by ``play`` through the one match driver) and writes each result once;
``ratings`` and ``standings`` read the store back into ratings with intervals.
"""
