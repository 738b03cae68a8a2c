"""The root of every error ggpkit raises on purpose: catch :class:`GgpkitError` to catch them all.

Each layer defines its own subclasses next to the code that raises them
(``GdlSyntaxError`` in ``gdl``, ``ReasonerError`` in ``reasoning``, ``GameError``
in ``games``, ``ProtocolError`` in ``match``, ``StoreError`` in ``store``, ...);
this module imports nothing so that every layer, the lowest included, may use it.
Callers decide by the class of an error, never by the words of its message.
"""

from __future__ import annotations


class GgpkitError(Exception):
    """Base class of every error ggpkit raises on purpose (bad input, bad rules, faults)."""
