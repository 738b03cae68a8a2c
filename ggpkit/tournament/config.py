"""A tournament's settings, read from a TOML file (or given as options), checked up front.

Every mistake is one :class:`ConfigError` naming the file, the line and the key, so a
long tournament never starts on a typo. Players are agent specs (``mcts:time=0.5``),
GGP player URLs (``http://127.0.0.1:9147``, a player already listening: it plays one
match at a time) or commands that start a player on a port (``... {port} ...``: each
match starts its own). A player given as a table may ask for cores:
``fast = { spec = "mcts:time=0.5", cpus = 2 }``.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ggpkit.agents.specs import SpecError, parse_spec
from ggpkit.errors import GgpkitError
from ggpkit.match.players import NATURE

SCHEDULES = ("round-robin", "gauntlet", "swiss")
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
KNOWN_KEYS = frozenset(
    {
        "name",
        "games",
        "schedule",
        "matches_per_pairing",
        "startclock",
        "playclock",
        "seed",
        "champion",
        "rounds",
        "max_steps",
        "players",
    }
)


class ConfigError(GgpkitError, ValueError):
    """A tournament configuration that cannot be played: says where (file:line) and which key."""


@dataclass(frozen=True, slots=True)
class PlayerEntry:
    """One entrant: its name in tables, how it plays, and the cores a match of it needs."""

    name: str
    kind: str  # "agent", "url" or "command"
    target: str  # the agent spec, the URL, or the command with {port}
    cpus: int = 1

    @property
    def exclusive(self) -> bool:
        """A player already listening at a URL plays one match at a time."""
        return self.kind == "url"


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """Everything a tournament needs; stored with it so that ``resume`` needs no file."""

    games: tuple[str, ...]
    players: tuple[PlayerEntry, ...]
    schedule: str = "round-robin"
    matches_per_pairing: int = 2
    startclock: int = 10
    playclock: int = 2
    seed: int = 0
    champion: str | None = None
    rounds: int | None = None
    max_steps: int | None = None
    """Steps after which a match is aborted, kept and scored for nobody (None: no limit)."""
    name: str = ""
    base_dir: str = field(default=".", compare=False)
    """Folder relative game paths are read from (the config file's)."""
    origin: str = field(default="<options>", compare=False)
    """The file the config was read from, for errors found later (a game that fails to load)."""

    def player(self, name: str) -> PlayerEntry:
        return next(p for p in self.players if p.name == name)

    def to_json(self) -> dict[str, Any]:
        """Plain data, kept in the store with the tournament."""
        return {
            "name": self.name,
            "games": list(self.games),
            "players": [
                {"name": p.name, "kind": p.kind, "target": p.target, "cpus": p.cpus}
                for p in self.players
            ],
            "schedule": self.schedule,
            "matches_per_pairing": self.matches_per_pairing,
            "startclock": self.startclock,
            "playclock": self.playclock,
            "seed": self.seed,
            "champion": self.champion,
            "rounds": self.rounds,
            "max_steps": self.max_steps,
            "base_dir": self.base_dir,
            "origin": self.origin,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> TournamentConfig:
        players = tuple(PlayerEntry(**p) for p in doc["players"])
        return cls(**{**doc, "games": tuple(doc["games"]), "players": players})


_OPTIONS = {"players": "--player", "games": "--game"}
"""The command-line option of a key whose option is not ``--key``."""


class _Where:
    """Finds the line of a key in the TOML text, for error messages."""

    def __init__(self, path: str, text: str, options: frozenset[str] = frozenset()) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.options = options
        """Keys given as command-line options: errors name the option, not a line."""

    def line(self, key: str, table: str | None = None) -> int:
        section: str | None = None
        pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
        for number, raw in enumerate(self.lines, 1):
            header = re.match(r"^\s*\[([^\]]+)\]", raw)
            if header:
                section = header.group(1).strip()
                if table is None and section == key:
                    return number
                continue
            if section == table and pattern.match(raw):
                return number
        return 1

    def error(self, key: str, message: str, table: str | None = None) -> ConfigError:
        if (table or key) in self.options:
            option = _OPTIONS.get(table or key, f"--{key.replace('_', '-')}")
            return ConfigError(f"{option}: {table + '.' + key + ': ' if table else ''}{message}")
        shown = f"{table}.{key}" if table else key
        return ConfigError(f"{self.path}:{self.line(key, table)}: {shown}: {message}")


def load_config(path: Path, overrides: dict[str, Any] | None = None) -> TournamentConfig:
    """Read and check a TOML tournament file; ConfigError (file, line, key) on any mistake.

    ``overrides`` (command-line options, by TOML key) replace the file's values.
    """
    text = path.read_text(encoding="utf-8")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    doc.update(overrides or {})
    where = _Where(str(path), text, frozenset(overrides or {}))
    return config_from_dict(doc, where, str(path.parent.resolve()), str(path))


def config_from_options(doc: dict[str, Any]) -> TournamentConfig:
    """A config from command-line options given as the TOML keys would be."""
    return config_from_dict(
        doc, _Where("<options>", "", frozenset(doc)), str(Path.cwd()), "<options>"
    )


def config_error(config: TournamentConfig, key: str, message: str) -> ConfigError:
    """An error about ``key`` found after reading (a game that does not load), with its line."""
    if config.origin == "<options>":
        return _Where(config.origin, "", frozenset({key})).error(key, message)
    try:
        text = Path(config.origin).read_text(encoding="utf-8")
    except OSError:
        text = ""
    return _Where(config.origin, text).error(key, message)


def config_from_dict(
    doc: dict[str, Any], where: _Where, base_dir: str, origin: str
) -> TournamentConfig:
    unknown = sorted(set(doc) - KNOWN_KEYS)
    if unknown:
        known = ", ".join(sorted(KNOWN_KEYS))
        raise where.error(unknown[0], f"unknown key; the keys are {known}")
    games = _games(doc, where)
    players = _players(doc, where)
    schedule = _choice(doc, where, "schedule", "round-robin")
    config = TournamentConfig(
        games=games,
        players=players,
        schedule=schedule,
        matches_per_pairing=_whole(doc, where, "matches_per_pairing", 2),
        startclock=_whole(doc, where, "startclock", 10),
        playclock=_whole(doc, where, "playclock", 2),
        seed=_whole(doc, where, "seed", 0, minimum=0),
        champion=_optional_text(doc, where, "champion"),
        rounds=_whole(doc, where, "rounds", None),
        max_steps=_whole(doc, where, "max_steps", None),
        name=_optional_text(doc, where, "name") or "",
        base_dir=base_dir,
        origin=origin,
    )
    _check_schedule(config, where)
    return config


def _games(doc: dict[str, Any], where: _Where) -> tuple[str, ...]:
    games = doc.get("games")
    if not isinstance(games, list) or not games:
        raise where.error("games", "give a list of game names or .kif paths, e.g. ['peg']")
    if not all(isinstance(g, str) and g.strip() for g in games):
        raise where.error("games", "every game must be a non-empty string")
    if len(set(games)) != len(games):
        raise where.error("games", "a game is listed twice")
    return tuple(games)


def _players(doc: dict[str, Any], where: _Where) -> tuple[PlayerEntry, ...]:
    table = doc.get("players")
    if not isinstance(table, dict) or not table:
        raise where.error("players", 'give a [players] table: name = "agent spec, URL or command"')
    return tuple(_player(name, value, where) for name, value in table.items())


def _player(name: str, value: Any, where: _Where) -> PlayerEntry:
    if not NAME_PATTERN.match(name):
        raise where.error(name, "a player name is 1-40 letters, digits, '_', '.' or '-'", "players")
    if name == NATURE:
        raise where.error(
            name, f"{NATURE!r} names the chance role's seat; choose another", "players"
        )
    cpus = 1
    if isinstance(value, dict):
        extra = sorted(set(value) - {"spec", "cpus"})
        if extra:
            raise where.error(
                name, f"unknown key {extra[0]!r}; a player has spec and cpus", "players"
            )
        cpus = value.get("cpus", 1)
        if isinstance(cpus, bool) or not isinstance(cpus, int) or cpus < 1:
            raise where.error(name, "cpus must be a whole number >= 1", "players")
        value = value.get("spec")
    if not isinstance(value, str) or not value.strip():
        raise where.error(name, "give an agent spec, a player URL or a command", "players")
    value = value.strip()
    if "{port}" in value:
        return PlayerEntry(name, "command", value, cpus)
    if value.startswith(("http://", "https://")):
        return PlayerEntry(name, "url", value, cpus)
    try:
        spec = parse_spec(value)
    except SpecError as e:
        raise where.error(name, e.reason, "players") from None
    if spec.name == "human":
        raise where.error(name, "a tournament has no person at the terminal", "players")
    return PlayerEntry(name, "agent", value, cpus)


def _choice(doc: dict[str, Any], where: _Where, key: str, default: str) -> str:
    value = doc.get(key, default)
    if value not in SCHEDULES:
        raise where.error(key, f"{value!r} is no schedule; use one of {', '.join(SCHEDULES)}")
    return str(value)


def _whole(
    doc: dict[str, Any], where: _Where, key: str, default: int | None, minimum: int = 1
) -> Any:
    value = doc.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise where.error(key, f"must be a whole number >= {minimum} (got {value!r})")
    return value


def _optional_text(doc: dict[str, Any], where: _Where, key: str) -> str | None:
    value = doc.get(key)
    if value is not None and not isinstance(value, str):
        raise where.error(key, "must be a string")
    return value


def _check_schedule(config: TournamentConfig, where: _Where) -> None:
    names = [p.name for p in config.players]
    if config.schedule == "gauntlet":
        if config.champion is None:
            raise where.error("schedule", 'a gauntlet needs champion = "PLAYER"')
        if config.champion not in names:
            raise where.error("champion", f"{config.champion!r} is not in [players]")
    elif config.champion is not None:
        raise where.error("champion", "only a gauntlet has a champion")
    if config.rounds is not None and config.schedule != "swiss":
        raise where.error("rounds", "only a swiss tournament has rounds")
    if len(names) < 2:
        raise where.error("players", "a tournament needs at least 2 players")
