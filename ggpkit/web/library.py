"""The game library in the web app: what the Play and GDL pages offer of it, and its rules.

The library (:mod:`ggpkit.games.library`: games fetched from repositories, folders added
with ``ggpkit games add``, ``$GGPKIT_GAMES_DIR``) is read again at every request, so a
game fetched while the server runs is offered at once. The Play page offers the library
games that no registered game shadows and that ggpkit can play as written; their roles
come from the library's outlines (reader and checker, cached by content), so listing
them compiles nothing. A library game is played through the same staged, time-limited
load as uploaded rules (:mod:`ggpkit.web.kif_jobs`): its rules come from a repository
nobody here controls, and a big game must not hold a request while it compiles.

A web server started with ``--games-dir DIR`` lists that folder's ``.kif`` files on the
GDL page instead of the library (an explicit override, as before the library existed).
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from pathlib import Path
from typing import Any

from ggpkit.games.library import LibraryError, LibraryGame, find_game, library_games, outlines
from ggpkit.games.library.outline import GDL, GDL2, Outline
from ggpkit.web.kif_upload import MAX_KIF_CHARS, RulesTooLarge
from ggpkit.web.sessions import NotFoundError

log = logging.getLogger("ggpkit.web")

MAX_RULES_BYTES = MAX_KIF_CHARS * 4
"""The largest rules file read for a page (UTF-8 spends at most four bytes a character)."""

SUFFIX = ".kif"


def _listed() -> list[LibraryGame]:
    """The library's games; none (and a warning in the log) when it cannot be read, so a
    damaged list of folders never takes the pages down with it."""
    try:
        listing = library_games()
    except LibraryError as e:
        log.warning("the game library cannot be read: %s", e)
        return []
    for problem in listing.problems:
        log.debug("game library: %s", problem)
    return listing.games


def playable_games(registered: Collection[str]) -> list[dict[str, Any]]:
    """The Play page's library entries: every library game that no registered game of the
    same name shadows and whose rules ggpkit can play, with its roles and where it is from."""
    offered = [g for g in _listed() if g.name not in registered]
    try:
        found = outlines([g.path for g in offered])
    except LibraryError as e:
        log.warning("the game library's outlines cannot be read: %s", e)
        return []
    return [
        {
            "name": game.name,
            "description": game.description(),
            "roles": seats(outline),
            "library": True,
            "source": game.source,
            "origin": game.origin,
        }
        for game, outline in zip(offered, found, strict=True)
        if outline.kind in (GDL, GDL2) and outline.roles
    ]


def seats(outline: Outline) -> list[str]:
    """The roles people and agents take: in GDL-II all but nature (``random``)."""
    return [r for r in outline.roles if not (outline.kind == GDL2 and r == "random")]


def warm_outlines() -> None:
    """Compute the outlines of the whole library once, so that the first Play page does not
    wait for them (checking a few hundred games takes seconds; then they are cached)."""
    try:
        playable_games(())
    except Exception as e:  # a background thread's failure is logged, never raised
        log.warning("the game library's outlines were not computed: %s: %s", type(e).__name__, e)


def public_names(games_dir: Path | None) -> list[str]:
    """The GDL page's list, as file names: the ``.kif`` files of ``games_dir`` when the
    server was given one, else every game of the library."""
    if games_dir is not None:
        if not games_dir.is_dir():
            return []
        return sorted(p.name for p in games_dir.glob("*" + SUFFIX))
    return [g.name + SUFFIX for g in _listed()]


def _public_path(name: str, games_dir: Path | None) -> Path | None:
    if games_dir is not None:
        if "/" in name or "\\" in name or not name.endswith(SUFFIX):
            return None
        path = (games_dir / name).resolve()
        return path if path.parent == games_dir.resolve() and path.is_file() else None
    found = _find(name.removesuffix(SUFFIX))  # a key never holds a path (is_key)
    return found.path if found is not None else None


def public_text(name: str, games_dir: Path | None) -> dict[str, str]:
    """The rules of a game of the GDL page's list: ``{"name": FILE, "text": RULES}``;
    NotFoundError for a name the list does not hold, RulesTooLarge for rules too large."""
    path = _public_path(name, games_dir)
    if path is None:
        raise NotFoundError(f"no public game {name!r}")
    shown = name if name.endswith(SUFFIX) else name + SUFFIX
    return {"name": shown, "text": _read(path, shown)}


def library_rules(name: str) -> str:
    """The rules text of the library game ``name`` (the first source that has it);
    NotFoundError when the library has none, RulesTooLarge when they are too large."""
    found = _find(name)
    if found is None:
        raise NotFoundError(
            f"no game {name!r} in the game library; ggpkit games fetch {name} fetches it"
        )
    return _read(found.path, name)


def _find(name: str) -> LibraryGame | None:
    """The library's game ``name``; NotFoundError, saying why, when the library cannot be
    read (its list of added folders is damaged): no game of it can be found then."""
    try:
        return find_game(name)
    except LibraryError as e:
        raise NotFoundError(f"{name}: the game library cannot be read ({e})") from None


def _read(path: Path, name: str) -> str:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_RULES_BYTES + 1)
    except OSError as e:
        raise NotFoundError(f"{name}: the rules cannot be read ({e.strerror or e})") from None
    if len(data) > MAX_RULES_BYTES:
        raise RulesTooLarge(f"{name} is larger than uploaded rules may be")
    return data.decode("utf-8", errors="replace")
