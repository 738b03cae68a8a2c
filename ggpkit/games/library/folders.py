"""Folders of games on this machine: plain folders of ``.kif`` files, and repository folders.

A folder the library reads may hold, side by side:

* ``NAME.kif`` files: a game each, named after the file;
* ``KEY/`` folders in a game repository's layout (``KEY/METADATA`` naming the rulesheet,
  ``KEY/vN/`` holding what version ``N`` changed): read as the repository server reads
  them, the newest version of each file, down to the unversioned one;
* or it is a checkout of the ggp-org/ggp-repository git repository, whose games sit in
  ``war/root/games/``.

The folders added by ``ggpkit games add DIR`` are kept, as absolute paths, in
``folders.json`` in the library's folder (written atomically).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ggpkit.games.library.client import parse_metadata
from ggpkit.games.library.errors import LibraryFolderError, MalformedAnswerError
from ggpkit.games.library.storage import (
    is_key,
    library_dir,
    read_json,
    read_limited,
    write_json,
)

METADATA = "METADATA"
CHECKOUT_GAMES = Path("war") / "root" / "games"
"""Where a checkout of ggp-org/ggp-repository keeps the games it serves."""
MAX_METADATA_BYTES = 65_536
MAX_FOLDERS = 1000
_VERSION = re.compile(r"v(\d{1,7})")


@dataclass(frozen=True, slots=True)
class FolderGame:
    """A game found in a folder."""

    key: str
    rules_path: Path
    version: int | None
    """The newest version of a repository-layout game; None for a plain ``.kif`` file."""
    title: str | None = None
    description_path: Path | None = None


def games_root(folder: Path) -> Path:
    """Where the games of ``folder`` are: ``war/root/games`` in a repository checkout."""
    checkout = folder / CHECKOUT_GAMES
    return checkout if checkout.is_dir() else folder


def scan(folder: Path) -> tuple[list[FolderGame], list[str]]:
    """Every game of a folder, by name (repository-layout games first on a clash), and a
    line for each game folder that cannot be read."""
    root = games_root(folder)
    found: dict[str, FolderGame] = {}
    problems: list[str] = []
    try:
        children = sorted(root.iterdir())
    except OSError as e:
        return [], [f"{folder}: cannot be read ({e.strerror or e})"]
    for child in children:
        if child.is_dir() and is_key(child.name) and (child / METADATA).is_file():
            try:
                found[child.name] = layout_game(child)
            except MalformedAnswerError as e:
                problems.append(str(e))
            except OSError as e:
                problems.append(f"{child}: cannot be read ({e.strerror or e})")
    for child in children:
        plain = child.suffix == ".kif" and is_key(child.stem) and child.stem not in found
        if plain and child.is_file():
            found[child.stem] = FolderGame(child.stem, child, None)
    return [found[k] for k in sorted(found)], problems


def find(folder: Path, key: str) -> FolderGame | None:
    """The game ``key`` of a folder, looked up without reading the others; None when the
    folder has none (or only a damaged one)."""
    if not is_key(key):
        return None
    root = games_root(folder)
    if (root / key / METADATA).is_file():
        try:
            return layout_game(root / key)
        except (MalformedAnswerError, OSError):
            return None
    plain = root / f"{key}.kif"
    return FolderGame(key, plain, None) if plain.is_file() else None


def layout_game(folder: Path) -> FolderGame:
    """The newest version of a game folder in the repository layout.

    As the repository server does: the version is the highest ``vN`` folder (0 without
    one), and each file is taken from the highest version folder that has it, the game
    folder itself being version 0.
    """
    versions = sorted(
        (int(m.group(1)) for c in folder.iterdir() if (m := _VERSION.fullmatch(c.name))),
        reverse=True,
    )
    places = [folder / f"v{n}" for n in versions if n > 0] + [folder]
    meta_path = _newest(places, METADATA)
    if meta_path is None:
        raise MalformedAnswerError(f"{folder}: no {METADATA}")
    data = read_limited(meta_path, MAX_METADATA_BYTES)
    if data is None:
        raise MalformedAnswerError(
            f"{meta_path}: unreadable or longer than {MAX_METADATA_BYTES:,} bytes"
        )
    metadata = parse_metadata(data, folder.name, str(meta_path), max(versions, default=0))
    rules = _newest(places, metadata.rulesheet)
    if rules is None:
        raise MalformedAnswerError(
            f"{meta_path}: names the rulesheet {metadata.rulesheet}, which is missing"
        )
    description = _newest(places, metadata.description) if metadata.description else None
    return FolderGame(folder.name, rules, metadata.version, metadata.title, description)


def _newest(places: list[Path], name: str) -> Path | None:
    for place in places:
        path = place / name
        if path.is_file():
            return path
    return None


def _config() -> Path:
    return library_dir() / "folders.json"


def added_folders() -> list[Path]:
    """The folders added to the library, in the order they were added."""
    path = _config()
    if not path.exists():
        return []
    try:
        document = read_json(path)
    except (MalformedAnswerError, OSError) as e:
        raise LibraryFolderError(
            f"{path}: the list of added folders cannot be read ({e})"
        ) from None
    folders = document.get("folders") if isinstance(document, dict) else None
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        raise LibraryFolderError(f'{path}: expected {{"folders": [paths...]}}')
    return [Path(f) for f in folders[:MAX_FOLDERS]]


def add_folder(folder: Path) -> Path:
    """Add a folder to the library (as an absolute path); it is read at every look-up, so
    games added to it later are found too."""
    if not folder.is_dir():
        raise LibraryFolderError(f"{folder}: not a folder")
    resolved = folder.resolve()
    folders = added_folders()
    if resolved not in folders:
        if len(folders) >= MAX_FOLDERS:
            raise LibraryFolderError(f"the library already has {MAX_FOLDERS} folders")
        _save([*folders, resolved])
    return resolved


def remove_folder(folder: Path) -> bool:
    """Forget an added folder (its files stay); whether it was added."""
    folders = added_folders()
    target = folder.resolve() if folder.exists() else folder.absolute()
    kept = [f for f in folders if f != target]
    if len(kept) == len(folders):
        return False
    _save(kept)
    return True


def _save(folders: list[Path]) -> None:
    try:
        write_json(_config(), {"folders": [str(f) for f in folders]})
    except OSError as e:
        raise LibraryFolderError(f"{_config()}: cannot be written ({e.strerror or e})") from None
