"""The cache of games fetched from repositories: one folder per game key, one version each.

Layout, under the library's folder (``storage.library_dir()``)::

    cache/KEY/entry.json                 what was fetched: repository, version, SHA-256, ...
    cache/KEY/vN-HHHHHHHHHHHHHHHH/KEY.kif  the rulesheet of version N, as the repository sent it
    cache/KEY/vN-HHHHHHHHHHHHHHHH/description.txt   (when the game has one)

A fetch writes the new version's files into a folder of their own (named by version and
the rulesheet's hash, so it never overwrites the files the current entry names), then
replaces ``entry.json`` atomically, which is the moment the new version becomes the
game's, then removes the other version folders. A fetch killed at any point therefore
leaves the previous complete version or the new one. Nothing is trusted blindly: an
entry is read field by field, and the rulesheet it names must exist and have the
recorded hash, or the game is reported as damaged rather than loaded.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ggpkit.games.library.client import FILE_NAME, MAX_TITLE_CHARS, GameMetadata
from ggpkit.games.library.errors import MalformedAnswerError
from ggpkit.games.library.storage import (
    is_key,
    library_dir,
    read_json,
    remove_temporaries,
    write_atomic,
    write_json,
)
from ggpkit.gdl.kif import MAX_TEXT_CHARS

ENTRY = "entry.json"
DESCRIPTION = "description.txt"
FORMAT = 1
_VERSION_FOLDER = re.compile(r"v\d+-[0-9a-f]{16}")
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class CachedGame:
    """A cached game whose entry and rulesheet were read and found whole."""

    key: str
    repository: str
    """The repository URL it was fetched from."""
    version: int
    sha256: str
    """Of the rulesheet's bytes."""
    rulesheet: str
    """The rulesheet's file name in the repository."""
    title: str | None
    stylesheet: str | None
    fetched: str
    """When, as ``YYYY-MM-DDTHH:MM:SSZ``."""
    folder: Path

    @property
    def version_folder(self) -> Path:
        """The folder holding this version's files."""
        return self.folder / f"v{self.version}-{self.sha256[:16]}"

    @property
    def rules_path(self) -> Path:
        """The rulesheet, named after the key."""
        return self.version_folder / f"{self.key}.kif"

    @property
    def description_path(self) -> Path | None:
        """The description's file, if the game has one."""
        path = self.version_folder / DESCRIPTION
        return path if path.is_file() else None


class GameCache:
    """The cache under ``root`` (default: ``cache/`` in the library's folder)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else library_dir() / "cache"

    def get(self, key: str) -> CachedGame | None:
        """The cached game of ``key``; None when there is none or it is damaged."""
        if not is_key(key):
            return None
        try:
            return self._read(self.root / key)
        except (MalformedAnswerError, OSError):
            return None

    def games(self) -> tuple[list[CachedGame], list[str]]:
        """Every whole cached game by key, and a line for each damaged one."""
        found: list[CachedGame] = []
        problems: list[str] = []
        if not self.root.is_dir():
            return found, problems
        for folder in sorted(self.root.iterdir()):
            if not folder.is_dir() or not is_key(folder.name):
                continue
            if not (folder / ENTRY).exists():
                continue  # a first fetch that did not finish: nothing of it is the game's yet
            try:
                found.append(self._read(folder))
            except (MalformedAnswerError, OSError) as e:
                problems.append(
                    f"{e}; ggpkit games fetch {folder.name} --refresh fetches it again"
                    if isinstance(e, MalformedAnswerError)
                    else f"{folder}: cannot be read ({e.strerror or e})"
                )
        return found, problems

    def store(
        self, repository: str, metadata: GameMetadata, rules: bytes, description: str | None
    ) -> CachedGame:
        """Make ``metadata``'s version the cached one of its game (see the module's words
        on why a killed store leaves the old version or the new one, whole)."""
        folder = self.root / metadata.key
        game = CachedGame(
            metadata.key,
            repository,
            metadata.version,
            hashlib.sha256(rules).hexdigest(),
            metadata.rulesheet,
            metadata.title,
            metadata.stylesheet,
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            folder,
        )
        write_atomic(game.rules_path, rules)
        if description is not None:
            write_atomic(game.version_folder / DESCRIPTION, description.encode("utf-8"))
        else:
            (game.version_folder / DESCRIPTION).unlink(missing_ok=True)
        write_json(folder / ENTRY, _entry_document(game))
        self._drop_others(game)
        return game

    def remove(self, key: str) -> bool:
        """Delete a game from the cache; whether there was one."""
        folder = self.root / key
        if not is_key(key) or not folder.is_dir():
            return False
        (folder / ENTRY).unlink(missing_ok=True)  # first, so no reader sees a half-deleted game
        shutil.rmtree(folder, ignore_errors=True)
        return True

    def _drop_others(self, game: CachedGame) -> None:
        remove_temporaries(game.folder)
        keep = game.version_folder.name
        for child in game.folder.iterdir():
            if child.is_dir() and child.name != keep and _VERSION_FOLDER.fullmatch(child.name):
                shutil.rmtree(child, ignore_errors=True)

    def _read(self, folder: Path) -> CachedGame:
        entry = folder / ENTRY
        game = _entry_from_document(read_json(entry), folder, entry)
        with open(game.rules_path, "rb") as f:
            data = f.read(4 * MAX_TEXT_CHARS + 1)
        if hashlib.sha256(data).hexdigest() != game.sha256:
            raise MalformedAnswerError(f"{game.rules_path}: not the rulesheet its entry records")
        return game


def _entry_document(game: CachedGame) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "key": game.key,
        "repository": game.repository,
        "version": game.version,
        "sha256": game.sha256,
        "rulesheet": game.rulesheet,
        "title": game.title,
        "stylesheet": game.stylesheet,
        "fetched": game.fetched,
    }


def _entry_from_document(document: Any, folder: Path, where: Path) -> CachedGame:
    """A cache entry, field by field: it names files to open, so it is checked as strictly
    as a repository's answer."""

    def bad(field: str) -> MalformedAnswerError:
        return MalformedAnswerError(f"{where}: damaged entry ({field!r})")

    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise bad("format")
    if document.get("key") != folder.name:
        raise bad("key")
    version = document.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise bad("version")
    sha = document.get("sha256")
    if not isinstance(sha, str) or _SHA256.fullmatch(sha) is None:
        raise bad("sha256")
    texts: dict[str, str | None] = {}
    for field in ("repository", "rulesheet", "title", "stylesheet", "fetched"):
        value = document.get(field)
        if value is not None and (not isinstance(value, str) or len(value) > 2000):
            raise bad(field)
        texts[field] = value
    for field in ("rulesheet", "stylesheet"):
        name = texts[field]
        if name is not None and FILE_NAME.fullmatch(name) is None:
            raise bad(field)
    title = texts["title"]
    if title is not None and len(title) > MAX_TITLE_CHARS:
        raise bad("title")
    repository, rulesheet = texts["repository"], texts["rulesheet"]
    if repository is None or rulesheet is None:
        raise bad("repository" if repository is None else "rulesheet")
    return CachedGame(
        folder.name,
        repository,
        version,
        sha,
        rulesheet,
        title,
        texts["stylesheet"],
        texts["fetched"] or "",
        folder,
    )
