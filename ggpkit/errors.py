"""The root of every error ggpkit raises on purpose: catch :class:`GgpkitError` to catch them all.

Each layer defines its own subclasses next to the code that raises them
(``GdlSyntaxError`` in ``gdl``, ``ReasonerError`` in ``reasoning``,
``CannotSearchError`` in ``search``, ``GameError`` in ``games``, ``AgentError`` in
``agents``, ``ProtocolError`` and ``ArenaError`` in ``match``, ``StoreError`` in
``store``, ``SessionError`` in ``web``, ...); this module imports nothing so that every
layer, the lowest included, may use it. Callers decide by the class of an error,
never by the words of its message, and catch the classes they mean: ``GameError`` is
a problem of a game or a move only, not of whatever plays, solves or serves it.
"""

from __future__ import annotations


class GgpkitError(Exception):
    """Base class of every error ggpkit raises on purpose (bad input, bad rules, faults)."""
