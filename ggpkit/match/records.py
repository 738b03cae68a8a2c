"""The match record, and its ggp.org match JSON form with the rules embedded.

A record is what a referee (or a player server) saw of one match: the states as
canonical fact texts, the joint moves, the errors per step and role (``""``,
``"TO"``, ``"CE"``, ``"IL <move>"``), the times and the goals. The JSON keys are
the ggp.org ones (``matchId``, ``states``, ``moves``...) so records can be read by
the tools of the GGP community; ggp-base records name the game only by a URL
whose server is gone, so ggpkit also embeds the rules as ``gameRulesheet`` and
the role names as ``gameRoleNames``, which makes a record self-contained. A
ggp-base record can still be read when its rules are given separately.

``previewClock`` is ``-1`` when the match had no preview, as ggp-base writes it.

A game of imperfect information (GDL-II) adds two keys of ggpkit's own, both left out
of other records so that every older record still reads: ``ggpkitPercepts``, per
joint move and role, what the role perceived of it (the texts of its percepts,
sorted), and ``ggpkitChanceRole``, the role whose moves nature drew (its moves stand
in ``moves`` like any other role's). A referee's ``states`` hold the true states.

A player server's record of a GDL-II match (``ggpkitSource`` ``player``) holds only what
the player knew: the initial state, and per joint move its own move and percepts; the
other roles' moves are ``""``, their percepts empty, every later state is
:data:`UNKNOWN_STATE`, and a completed match has no goal values.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from ggpkit.errors import GgpkitError


class RecordError(GgpkitError, ValueError):
    """A match JSON document that cannot be read as a match record; says which key."""


class MissingRulesError(RecordError):
    """A record without ``gameRulesheet`` (every ggp-base record) and no rules given for it."""


UNKNOWN_STATE = ""
"""The state text of a step whose state the record's writer does not know (a player's
record of a GDL-II match): not a fact list, so it is never read as the empty state."""

NO_PREVIEW = -1.0
"""The preview clock of a match without a preview, as ggp-base records it."""


def now_ms() -> int:
    """Wall-clock time in epoch milliseconds, the unit of ggp.org records."""
    return int(time.time() * 1000)


def new_match_id(game_name: str) -> str:
    """A fresh match id: the game name (safe characters only) and a random suffix."""
    base = "".join(c if c.isalnum() or c in "-_." else "_" for c in game_name) or "match"
    return f"{base}.{now_ms()}.{secrets.token_hex(3)}"


@dataclass
class MatchRecord:
    """One match, step by step. ``states`` has one more entry than ``moves``."""

    match_id: str
    game_name: str
    rules: str
    roles: list[str]
    start_clock: float
    play_clock: float
    preview_clock: float = NO_PREVIEW
    random_token: str = field(default_factory=lambda: secrets.token_hex(8))
    start_time: int = field(default_factory=now_ms)
    game_meta_url: str = ""
    player_names: list[str] = field(default_factory=list)
    is_human: list[bool] = field(default_factory=list)
    states: list[str] = field(default_factory=list)
    state_times: list[int] = field(default_factory=list)
    moves: list[list[str]] = field(default_factory=list)
    errors: list[list[str]] = field(default_factory=list)
    goal_values: list[int] | None = None
    is_completed: bool = False
    is_aborted: bool = False
    source: str = "referee"
    """Who wrote the record: ``referee``, ``arena`` or ``player`` (a player server's view)."""
    percepts: list[list[list[str]]] = field(default_factory=list)
    """Per joint move and role (role order), the texts of what the role perceived of it,
    sorted; empty for a game of perfect information."""
    chance_role: str | None = None
    """The role whose moves nature drew (GDL-II's ``random``), or None."""

    @property
    def steps(self) -> int:
        """Number of joint moves played."""
        return len(self.moves)

    def add_state(self, state_text: str, at_ms: int | None = None) -> None:
        """Append a state (the initial one, or the one after the last joint move)."""
        self.states.append(state_text)
        self.state_times.append(now_ms() if at_ms is None else at_ms)

    def add_step(
        self,
        moves: list[str],
        errors: list[str],
        state_text: str,
        at_ms: int | None = None,
        percepts: list[list[str]] | None = None,
    ) -> None:
        """Append one joint move, its errors per role and the state it led to, and what
        each role perceived of it in a game of imperfect information (``percepts``).

        RecordError for percepts given for some joint moves only: a record has them for
        every joint move or for none.
        """
        if self.moves and (percepts is not None) != bool(self.percepts):
            raise RecordError("percepts must be given for every joint move of a record or none")
        self.moves.append(list(moves))
        self.errors.append(list(errors))
        if percepts is not None:
            self.percepts.append([sorted(p) for p in percepts])
        self.add_state(state_text, at_ms)

    def finish(self, goals: list[int]) -> None:
        """Mark the match completed with its goal values in role order."""
        self.goal_values = list(goals)
        self.is_completed = True

    # ---- ggp.org match JSON ---------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The record as a ggp.org match JSON object (plus ggpkit's self-contained extras)."""
        doc: dict[str, Any] = {
            "matchId": self.match_id,
            "randomToken": self.random_token,
            "startTime": self.start_time,
            "gameMetaURL": self.game_meta_url,
            "isCompleted": self.is_completed,
            "isAborted": self.is_aborted,
            "states": list(self.states),
            "moves": [list(m) for m in self.moves],
            "stateTimes": list(self.state_times),
            "errors": [list(e) for e in self.errors],
            "previewClock": _clock_json(self.preview_clock),
            "startClock": _clock_json(self.start_clock),
            "playClock": _clock_json(self.play_clock),
            "playerNamesFromHost": list(self.player_names),
            "isPlayerHuman": list(self.is_human),
            "gameName": self.game_name,
            "gameRoleNames": list(self.roles),
            "gameRulesheet": self.rules,
            "ggpkitSource": self.source,
        }
        if self.goal_values is not None:
            doc["goalValues"] = list(self.goal_values)
        if self.percepts:
            doc["ggpkitPercepts"] = [[list(p) for p in step] for step in self.percepts]
        if self.chance_role is not None:
            doc["ggpkitChanceRole"] = self.chance_role
        return doc

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)

    @classmethod
    def from_json(cls, doc: Any, rules: str | None = None) -> MatchRecord:
        """Read a ggp.org match JSON object; raise RecordError naming the bad key.

        ``rules`` is the GDL text for a record that embeds none (ggp-base records
        name their game only by a URL whose server is gone); a record's own
        ``gameRulesheet`` wins. Without either, MissingRulesError: ggpkit could
        neither replay nor show the match.
        """
        if not isinstance(doc, dict):
            raise RecordError("a match record must be a JSON object")
        embedded = _get(doc, "gameRulesheet", str, None)
        rules = rules if embedded is None else embedded
        if rules is None:
            raise MissingRulesError(
                "the record has no embedded rules ('gameRulesheet'); ggpkit cannot replay it"
            )
        states = _get(doc, "states", list, [])
        moves = _get(doc, "moves", list, [])
        if states and len(states) != len(moves) + 1:
            raise RecordError(
                f"'states' must have one more entry than 'moves' ({len(states)} vs {len(moves)})"
            )
        errors = _get(doc, "errors", list, [])
        roles = _get(doc, "gameRoleNames", list, [])
        percepts = _percepts(_get(doc, "ggpkitPercepts", list, []), len(moves))
        goals = _get(doc, "goalValues", list, None)
        preview = _get(doc, "previewClock", (int, float), None)
        return cls(
            match_id=_get(doc, "matchId", str, None) or _missing("matchId"),
            game_name=_get(doc, "gameName", str, "") or "",
            rules=rules,
            roles=[str(r) for r in roles],
            start_clock=float(_get(doc, "startClock", (int, float), 0)),
            play_clock=float(_get(doc, "playClock", (int, float), 0)),
            preview_clock=NO_PREVIEW if preview is None else float(preview),
            random_token=str(_get(doc, "randomToken", str, "")),
            start_time=int(_get(doc, "startTime", int, 0)),
            game_meta_url=str(_get(doc, "gameMetaURL", str, "")),
            player_names=[str(p) for p in _get(doc, "playerNamesFromHost", list, [])],
            is_human=[bool(h) for h in _get(doc, "isPlayerHuman", list, [])],
            states=[str(s) for s in states],
            state_times=[int(t) for t in _get(doc, "stateTimes", list, [])],
            moves=[[str(m) for m in _list(j, "moves")] for j in moves],
            errors=[[str(e) for e in _list(j, "errors")] for j in errors],
            goal_values=None if goals is None else [int(g) for g in goals],
            is_completed=bool(_get(doc, "isCompleted", bool, False)),
            is_aborted=bool(_get(doc, "isAborted", bool, False)),
            source=str(_get(doc, "ggpkitSource", str, "import")),
            percepts=percepts,
            chance_role=_get(doc, "ggpkitChanceRole", str, None),
        )

    @classmethod
    def loads(cls, text: str, rules: str | None = None) -> MatchRecord:
        """Read match JSON text; ``rules`` as in :meth:`from_json`."""
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise RecordError(f"not JSON: {e}") from None
        except RecursionError:  # untrusted text: nesting deep enough to exhaust the stack
            raise RecordError("not a match record: JSON nested too deep") from None
        return cls.from_json(doc, rules)


def _clock_json(seconds: float) -> int | float:
    return int(seconds) if float(seconds).is_integer() else seconds


def _missing(key: str) -> str:
    raise RecordError(f"the record has no {key!r}")


def _get(doc: dict[str, Any], key: str, kind: Any, default: Any) -> Any:
    value = doc.get(key, default)
    if value is None or value is default:
        return value
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) and kind is not bool:
        raise RecordError(f"{key!r} must not be a boolean")
    if not isinstance(value, kind):
        raise RecordError(f"{key!r} has the wrong type ({type(value).__name__})")
    return value


def _percepts(value: list[Any], steps: int) -> list[list[list[str]]]:
    """``ggpkitPercepts`` read: none, or per joint move a list per role of percept texts."""
    if value and len(value) != steps:
        raise RecordError(
            f"'ggpkitPercepts' must have one entry per joint move ({len(value)} vs {steps})"
        )
    out = []
    for step in value:
        roles = _list(step, "ggpkitPercepts")
        out.append([[str(p) for p in _list(seen, "ggpkitPercepts")] for seen in roles])
    return out


def _list(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise RecordError(f"every entry of {key!r} must be a list")
    return value
