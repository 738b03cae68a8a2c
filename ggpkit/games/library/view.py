"""The library as one list of games by name, each with where it came from.

Its sources, first ones first when two have a game of the same name:

1. the folder named by ``$GGPKIT_GAMES_DIR`` (set for one shell or one run, so it is the
   most deliberate choice);
2. the folders added with ``ggpkit games add DIR``, in the order they were added;
3. the games fetched from repositories (the cache).

Registered games (``ggpkit.games.registry``) come before all of them: ``load(name)``
looks there first, and listings say so. Nothing is remembered between calls: every
call reads the folders again, so a game fetched or copied in is seen at once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ggpkit.games.library.cache import CachedGame, GameCache
from ggpkit.games.library.folders import FolderGame, added_folders, find, scan

ENV_FOLDER = "GGPKIT_GAMES_DIR"
REPOSITORY = "repository"
FOLDER = "folder"
ENVIRONMENT = "environment"
REGISTERED = "registered"
MAX_DESCRIPTION_CHARS = 2000


@dataclass(frozen=True, slots=True)
class LibraryGame:
    """A GDL game of the library."""

    name: str
    path: Path
    """The rules file."""
    source: str
    """:data:`REPOSITORY`, :data:`FOLDER` or :data:`ENVIRONMENT`."""
    where: str
    """The repository URL, or the folder."""
    version: int | None = None
    """The repository's version of the game, where it has versions."""
    title: str | None = None
    description_path: Path | None = None

    @property
    def origin(self) -> str:
        """Where it came from, in a few words: ``URL v3``, ``folder DIR``,
        ``$GGPKIT_GAMES_DIR DIR``."""
        version = f" v{self.version}" if self.version is not None else ""
        if self.source == REPOSITORY:
            return f"{self.where}{version}"
        label = f"${ENV_FOLDER}" if self.source == ENVIRONMENT else "folder"
        return f"{label} {self.where}{version}"

    def description(self) -> str:
        """The game's description on one line (its title when it has no description)."""
        text = ""
        if self.description_path is not None:
            try:
                with open(self.description_path, encoding="utf-8", errors="replace") as f:
                    text = f.read(MAX_DESCRIPTION_CHARS)
            except OSError:
                text = ""
        return " ".join(text.split()) or self.title or ""


@dataclass(frozen=True, slots=True)
class Listing:
    """Every library game by name (the first source wins), the games that a source earlier
    in the order hides, and a line for each thing that could not be read."""

    games: list[LibraryGame]
    hidden: list[LibraryGame]
    problems: list[str]


def _sources() -> list[tuple[str, Path]]:
    sources: list[tuple[str, Path]] = []
    env = os.environ.get(ENV_FOLDER)
    if env:
        sources.append((ENVIRONMENT, Path(env).expanduser()))
    sources += [(FOLDER, folder) for folder in added_folders()]
    return sources


def _from_folder(game: FolderGame, source: str, folder: Path) -> LibraryGame:
    return LibraryGame(
        game.key,
        game.rules_path,
        source,
        str(folder),
        game.version,
        game.title,
        game.description_path,
    )


def _from_cache(game: CachedGame) -> LibraryGame:
    return LibraryGame(
        game.key,
        game.rules_path,
        REPOSITORY,
        game.repository,
        game.version,
        game.title,
        game.description_path,
    )


def library_games(cache: GameCache | None = None) -> Listing:
    """Every game of the library (see the module's words for the order of the sources)."""
    found: list[LibraryGame] = []
    problems: list[str] = []
    for source, folder in _sources():
        if not folder.is_dir():
            problems.append(f"{folder}: no such folder ({_named(source)})")
            continue
        games, troubles = scan(folder)
        found += [_from_folder(g, source, folder) for g in games]
        problems += troubles
    cached, troubles = (cache or GameCache()).games()
    found += [_from_cache(g) for g in cached]
    problems += troubles
    first: dict[str, LibraryGame] = {}
    hidden: list[LibraryGame] = []
    for game in found:
        if game.name in first:
            hidden.append(game)
        else:
            first[game.name] = game
    return Listing([first[n] for n in sorted(first)], hidden, problems)


def find_game(name: str, cache: GameCache | None = None) -> LibraryGame | None:
    """The library's game ``name`` (the first source that has it), reading only what could
    hold it; None when no source has it."""
    for source, folder in _sources():
        game = find(folder, name) if folder.is_dir() else None
        if game is not None:
            return _from_folder(game, source, folder)
    cached = (cache or GameCache()).get(name)
    return _from_cache(cached) if cached is not None else None


def game_files(cache: GameCache | None = None) -> dict[str, Path]:
    """The rules file of every library game by name: what ``ggpkit corpus`` runs."""
    return {g.name: g.path for g in library_games(cache).games}


def _named(source: str) -> str:
    return f"${ENV_FOLDER}" if source == ENVIRONMENT else "added with ggpkit games add"
