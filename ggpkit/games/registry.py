"""The registry of games by name, and ``load`` for names and ``.kif`` files.

Native games are registered lazily by module path so that importing ggpkit does
not compile any kernel, nor import numba: an entry also says what its game declares
in a :class:`GameSummary` (roles, dynamics, utility, capabilities), which is what
``ggpkit games`` lists, so listing the games imports no engine; the tests check each
summary against the loaded game's ``info``. ``load("peg")`` gives the native engine,
``load("peg", engine="gdl")`` its GDL twin shipped in ``games/rules/``, and
``load("path/to/game.kif")`` any GDL game.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from ggpkit.games.api import Dynamics, Game, GameError, GameInfo, Utility


@dataclass(frozen=True, slots=True)
class GameSummary:
    """What a game declares, as listings show it: its roles, ``info.dynamics``,
    ``info.utility`` and ``info.capabilities.names()``."""

    roles: tuple[str, ...]
    dynamics: Dynamics
    utility: Utility
    capabilities: tuple[str, ...]

    @classmethod
    def of(cls, game: Game[Any]) -> GameSummary:
        """The summary of a loaded game, read from its declarations."""
        info = game.info
        return cls(tuple(game.roles), info.dynamics, info.utility, info.capabilities.names())


@dataclass(frozen=True, slots=True)
class GameEntry:
    """A registered game: its name, a one-line description, and where it lives.

    ``summary`` restates what the native engine declares, so that listing the games
    needs no engine (and no numba); an entry without one is loaded to be listed.
    """

    name: str
    description: str
    native: str | None  # "module:Class" of the native engine, if any
    rules: str | None  # file name of the GDL twin under games/rules, if any
    summary: GameSummary | None = None


class UnknownGameError(GameError):
    """A game name that is not registered (and not a path)."""


_REGISTRY: dict[str, GameEntry] = {}


def register(entry: GameEntry) -> None:
    """Add a game to the registry (later entries replace earlier ones of the same name)."""
    _REGISTRY[entry.name] = entry


_TWO = ("white", "black")
_CHECKERS = ("black", "red")
_TURNS = Dynamics.TURN_TAKING
_COMPILED = ("compiled_playouts", "compiled_perft")

for _entry in (
    GameEntry("peg", "Peg solitaire on the English 33-hole cross; one role, jumper.",
              "ggpkit.games.peg.game:PegGame", "peg.kif",
              GameSummary(("jumper",), _TURNS, Utility.GENERAL_SUM,
                          (*_COMPILED, "notation", "board", "solver", "hint", "solver_table",
                           "end_reason"))),
    GameEntry("pawn-checkers", "Checkers with pawns only, compulsory single jumps, 100-step limit.",
              "ggpkit.games.checkers.game:PawnCheckers", "pawn-checkers.kif",
              GameSummary(_CHECKERS, _TURNS, Utility.GENERAL_SUM,
                          (*_COMPILED, "notation", "board", "evaluation", "search",
                           "tree_search", "end_reason"))),
    GameEntry("pawn-checkers-barrel", "Pawn checkers on a board that wraps vertically.",
              "ggpkit.games.checkers.game:PawnCheckersBarrel", "pawn-checkers-barrel.kif",
              GameSummary(_CHECKERS, _TURNS, Utility.GENERAL_SUM,
                          (*_COMPILED, "notation", "board", "evaluation", "search",
                           "tree_search", "end_reason"))),
    GameEntry("breakthrough-holes", "Breakthrough on 6x6 with four holes; no captures.",
              "ggpkit.games.breakthrough.game:BreakthroughHoles", "breakthrough-holes.kif",
              GameSummary(_TWO, _TURNS, Utility.ZERO_SUM, (*_COMPILED, "notation", "board",
                                                          "evaluation", "solver", "tree_search",
                                                          "end_reason"))),
    GameEntry("breakthrough-holes-capture",
              "Breakthrough on 6x6 with four holes; diagonal moves may capture.",
              "ggpkit.games.breakthrough.game:BreakthroughHolesCapture",
              "breakthrough-holes-capture.kif",
              GameSummary(_TWO, _TURNS, Utility.ZERO_SUM, (*_COMPILED, "notation", "board",
                                                          "evaluation", "tree_search",
                                                          "end_reason"))),
):  # fmt: skip
    register(_entry)


def games() -> dict[str, str]:
    """Registered game names with their one-line descriptions."""
    return {name: e.description for name, e in sorted(_REGISTRY.items())}


def summary(name: str) -> GameSummary:
    """What a registered game declares (roles, dynamics, utility, capabilities), from its
    registry entry when it has a summary (no engine imported), else from the loaded game."""
    entry = _entry_for(name)
    if entry.summary is not None:
        return entry.summary
    return GameSummary.of(load(name))


def rules_path(name: str) -> Path:
    """Path of the shipped GDL twin of a registered game."""
    entry = _entry_for(name)
    if entry.rules is None:
        raise GameError(f"game {name!r} has no GDL rules file")
    return Path(str(resources.files("ggpkit.games") / "rules" / entry.rules))


def _entry_for(name: str) -> GameEntry:
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise UnknownGameError(
            f"unknown game {name!r}; known games: {known} (or give a .kif path)"
        ) from None


@cache
def _native(name: str) -> Game[Any]:
    entry = _entry_for(name)
    if entry.native is None:
        raise GameError(f"game {name!r} has no native engine; use engine='gdl'")
    module_name, class_name = entry.native.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    game: Game[Any] = cls()
    return game


def _twin_info(native: GameInfo, probed: GameInfo) -> GameInfo:
    """What the GDL twin of a native game declares: the native game's declarations, less
    the extras that work only on the native engine's states, on the twin's reasoner."""
    capabilities = replace(
        native.capabilities,
        compiled_playouts=probed.capabilities.compiled_playouts,
        compiled_perft=False,
        search=None,
        tree_search=probed.capabilities.tree_search,
    )
    return replace(native, capabilities=capabilities, reasoner=probed.reasoner, notes=probed.notes)


def _gdl_module() -> Any:
    """The GDL-backed game module, imported on first use (it pulls in the reasoners)."""
    return importlib.import_module("ggpkit.games.gdl.game")


def load(name_or_path: str, engine: str = "native") -> Game[Any]:
    """A game by registered name, by the name of a game of the library, or by ``.kif`` path.

    ``engine`` is ``"native"`` (the default, where a native engine exists) or
    ``"gdl"`` (the GDL engine, always used for ``.kif`` files and library games). A
    registered name wins over a library game of the same name.
    """
    if name_or_path.endswith(".kif") or name_or_path.endswith(".gdl") or "/" in name_or_path:
        loaded: Game[Any] = _gdl_module().load_kif_file(Path(name_or_path))
        return loaded
    if name_or_path not in _REGISTRY and engine in ("native", "gdl"):
        return _library_game(name_or_path)
    if engine == "native":
        return _native(name_or_path)
    if engine == "gdl":
        game: Game[Any] = _gdl_module().load_kif_file(rules_path(name_or_path))
        game.name = name_or_path
        game.description = _entry_for(name_or_path).description
        game.info = _twin_info(_native(name_or_path).info, game.info)
        return game
    raise GameError(f"unknown engine {engine!r}; use 'native' or 'gdl'")


def _library_game(name: str) -> Game[Any]:
    """A game of the library (``games/library``: fetched from a repository, or in a folder
    of games) on the GDL engine; UnknownGameError, saying how to fetch it, when the
    library has none of that name."""
    from ggpkit.games.library import find_game

    found = find_game(name)
    if found is None:
        known = ", ".join(sorted(_REGISTRY))
        raise UnknownGameError(
            f"unknown game {name!r}: neither registered ({known}) nor in the game library; "
            f"ggpkit games fetch {name} fetches it from the ggp.org repository "
            "(or give a .kif path)"
        )
    game: Game[Any] = _gdl_module().load_kif_file(found.path)
    game.name = name
    game.description = found.description()
    return game


def load_kif(
    text: str, name: str = "<string>", timeout: float | None = None, keep_compiling: float = 0.0
) -> Game[Any]:
    """A game from GDL text; ``timeout`` bounds the propnet's compilation (then the join code).

    ``keep_compiling``: see :func:`ggpkit.games.gdl.game.load_kif_text`.
    """
    gdl = _gdl_module()
    game: Game[Any] = gdl.load_kif_text(
        text, name, timeout=timeout or gdl.COMPILE_TIMEOUT, keep_compiling=keep_compiling
    )
    return game
