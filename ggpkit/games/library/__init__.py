"""The game library: GDL games by name, from game repositories and folders on this machine.

ggp-base users get games from a game repository (``games.ggp.org/base``); this package
does the same for ggpkit. :mod:`.client` reads a ggp.org-style repository under limits
of time and size, :mod:`.cache` keeps the fetched versions in the user's data folder
(written so that a killed fetch never leaves half a game), :mod:`.folders` reads plain
folders of ``.kif`` files and checkouts of the ggp-org/ggp-repository repository, and
:mod:`.view` puts them together as one list of games by name, each with where it came
from. ``ggpkit.load(name)`` finds a library game by name after the registered ones;
``ggpkit games`` lists and fetches them.

Importing this package is cheap (no HTTP client, no engine): listing and finding games
reads files only; the HTTP client is imported when a repository is first asked.
"""

from __future__ import annotations

from ggpkit.games.library.cache import CachedGame, GameCache
from ggpkit.games.library.client import DEFAULT_REPOSITORY, GameMetadata, Limits, repository_url
from ggpkit.games.library.errors import (
    AnswerTooLargeError,
    AnswerTooSlowError,
    GameNotFoundError,
    LibraryError,
    LibraryFolderError,
    MalformedAnswerError,
    RepositoryUnreachableError,
)
from ggpkit.games.library.fetch import FetchOutcome, FetchReport, FetchRequest, fetch_games
from ggpkit.games.library.folders import add_folder, added_folders, remove_folder
from ggpkit.games.library.outline import Outline, outlines
from ggpkit.games.library.storage import data_dir, library_dir
from ggpkit.games.library.view import (
    ENV_FOLDER,
    LibraryGame,
    Listing,
    find_game,
    game_files,
    library_games,
)

__all__ = [
    "DEFAULT_REPOSITORY",
    "ENV_FOLDER",
    "AnswerTooLargeError",
    "AnswerTooSlowError",
    "CachedGame",
    "FetchOutcome",
    "FetchReport",
    "FetchRequest",
    "GameCache",
    "GameMetadata",
    "GameNotFoundError",
    "LibraryError",
    "LibraryFolderError",
    "LibraryGame",
    "Limits",
    "Listing",
    "MalformedAnswerError",
    "Outline",
    "RepositoryUnreachableError",
    "add_folder",
    "added_folders",
    "data_dir",
    "fetch_games",
    "find_game",
    "game_files",
    "library_dir",
    "library_games",
    "outlines",
    "remove_folder",
    "repository_url",
]
