"""The games of a tournament: resolved once in the driver, loaded again wherever a match runs.

A :class:`GameRef` carries the rules text, so a worker on another machine needs no
file of ours: a registered game loads by name (its native engine), any other from the
text it carries. Each worker process keeps the games it loaded.

In a game of chance (GDL-II's ``random``) nature is no entrant: only the seats
(``game.seats``) are given to players. A slot still lists a name for every role, in
role order, so that it lines up with its match's goals and player names: nature's is
:data:`~ggpkit.match.players.NATURE`, which :func:`entrants` leaves out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ggpkit.games.api import Game, GameError
from ggpkit.games.registry import games, load, load_kif, rules_path
from ggpkit.gdl.kif import GdlSyntaxError
from ggpkit.match.players import NATURE
from ggpkit.store.tournaments import SlotRow
from ggpkit.tournament.config import TournamentConfig, config_error


@dataclass(frozen=True, slots=True)
class GameRef:
    """One game of a tournament: its label in tables and keys, and how to load it anywhere."""

    label: str
    rules: str
    roles: tuple[str, ...]
    registered: bool
    chance_role: str | None = None
    """Nature's role (GDL-II's ``random``), which no player takes; None without chance."""

    @property
    def seats(self) -> tuple[str, ...]:
        """The roles players take: every role but nature's."""
        return tuple(r for r in self.roles if r != self.chance_role)

    def with_nature(self, seated: Sequence[str]) -> tuple[str, ...]:
        """A name per role: ``seated`` (one per seat, in order) and nature at its role."""
        given = iter(seated)
        return tuple(NATURE if r == self.chance_role else next(given) for r in self.roles)


def entrants(slot: SlotRow) -> list[tuple[str, int | None]]:
    """The slot's players (nature left out) with their goals (None before the result)."""
    goals: Sequence[int | None] = (
        slot.goals if slot.goals is not None else [None] * len(slot.players)
    )
    return [(p, g) for p, g in zip(slot.players, goals, strict=True) if p != NATURE]


def resolve_games(config: TournamentConfig) -> tuple[GameRef, ...]:
    """Load every game once (so a bad one fails before any match); ConfigError names it."""
    refs: list[GameRef] = []
    for entry in config.games:
        try:
            ref = _resolve(entry, Path(config.base_dir))
        except (GameError, GdlSyntaxError) as e:
            raise config_error(config, "games", f"{entry!r}: {e}") from None
        except OSError as e:
            reason = (e.strerror or str(e)).lower()
            raise config_error(config, "games", f"{entry!r}: {e.filename}: {reason}") from None
        if any(r.label == ref.label for r in refs):
            raise config_error(config, "games", f"two games are named {ref.label!r}")
        refs.append(ref)
    return tuple(refs)


def _resolve(entry: str, base: Path) -> GameRef:
    if entry in games():
        game = load(entry)
        try:
            rules = rules_path(entry).read_text(encoding="utf-8")
        except (GameError, OSError):
            rules = ""
        return GameRef(entry, rules, tuple(game.roles), True, game.info.chance_role)
    path = Path(entry).expanduser()
    path = path if path.is_absolute() else base / path
    if not path.exists() and "/" not in entry and not entry.endswith((".kif", ".gdl")):
        load(entry)  # no file and no path: an unknown name, said with the known names
    text = path.read_text(encoding="utf-8")
    label = path.stem
    game = load_kif(text, label)
    return GameRef(label, text, tuple(game.roles), False, game.info.chance_role)


def load_ref(ref: GameRef) -> Game[Any]:
    """The game of ``ref``, loaded once per process."""
    return _load(ref.label, ref.rules, ref.registered)


@cache
def _load(label: str, rules: str, registered: bool) -> Game[Any]:
    return load(label) if registered else load_kif(rules, label)
