"""The game API, the native games and the GDL-backed game. Imports gdl and reasoning.

``ggpkit.games`` is both this package (``import ggpkit.games.api``) and the
documented function ``ggpkit.games()`` that lists the registered games: the
package's module object is callable and calls :func:`ggpkit.games.registry.games`.
"""

from __future__ import annotations

import sys
import types


class _CallablePackage(types.ModuleType):
    """The module type of this package: calling it lists the registered games."""

    def __call__(self) -> dict[str, str]:
        from ggpkit.games.registry import games

        return games()


sys.modules[__name__].__class__ = _CallablePackage
