"""The tournament driver: hands unplayed slots to an executor and stores each result once.

This process is the store's one writer: workers only play and return records. Slots are
read back from the store at every pass, so a fresh run and a resumed one are the same
code: whatever has no result is played, nothing else. A player reached at a URL is one
listening program that plays one match at a time, so its slots are never in flight
together. A Swiss round is scheduled once the round before it is complete.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ggpkit.match.players import NATURE
from ggpkit.match.records import MatchRecord
from ggpkit.store.tournaments import SlotRow, TournamentStore
from ggpkit.tournament.config import TournamentConfig
from ggpkit.tournament.games import GameRef
from ggpkit.tournament.play import MatchTask
from ggpkit.tournament.schedule import first_slots, met_pairs, swiss_rounds, swiss_slots
from ggpkit.tournament.standings import points_by_player


class Executor(Protocol):
    """Where matches are played (Ray in ``ray_backend``)."""

    def capacity(self) -> int:
        """How many matches to keep submitted at once."""

    def submit(self, task: MatchTask, handle: Hashable) -> None:
        """Start playing ``task``; its outcome comes back from :meth:`wait` with ``handle``."""

    def wait(self, timeout: float) -> list[tuple[Hashable, MatchRecord | str]]:
        """Finished matches: the record, or a one-line error."""


@dataclass
class RunState:
    """What a live view shows: counts, the matches in flight, the failures so far."""

    tournament_id: str
    total: int = 0
    done: int = 0
    running: dict[str, SlotRow] = field(default_factory=dict)
    failed: list[tuple[str, str]] = field(default_factory=list)
    duplicates: int = 0
    """Results that arrived for a slot that had one already (not stored again)."""


Listener = Callable[[RunState], None]


def new_tournament_id() -> str:
    """A fresh id: the creation time and a random suffix (``t20261124-1305-3f2a``)."""
    return f"t{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


def create_tournament(
    tstore: TournamentStore, config: TournamentConfig, refs: Sequence[GameRef]
) -> str:
    """Store the config and the first slots; the new tournament's id."""
    tournament_id = new_tournament_id()
    tstore.create(tournament_id, {**config.to_json(), "game_refs": [_ref_json(r) for r in refs]})
    tstore.add_slots(tournament_id, first_slots(config, refs))
    return tournament_id


def stored_setup(
    tstore: TournamentStore, tournament_id: str
) -> tuple[TournamentConfig, tuple[GameRef, ...]]:
    """The config and games a tournament was created with (``resume`` needs no file)."""
    doc = dict(tstore.config(tournament_id))
    refs = tuple(
        GameRef(r["label"], r["rules"], tuple(r["roles"]), r["registered"], r.get("chance_role"))
        for r in doc.pop("game_refs")
    )
    return TournamentConfig.from_json(doc), refs


def match_id_for(tournament_id: str, slot: SlotRow) -> str:
    """The match id of a slot's result: readable, and fixed by the slot's key."""
    game = re.sub(r"[^A-Za-z0-9_.-]", "_", slot.game)[:40]
    digest = hashlib.sha1(slot.key.encode()).hexdigest()[:10]
    return f"{tournament_id}.r{slot.round}.{game}.{digest}"


def has_work(tstore: TournamentStore, tournament_id: str) -> bool:
    """Whether the tournament has a match left to play (or a Swiss round still to make)."""
    config, _ = stored_setup(tstore, tournament_id)
    slots = tstore.slots(tournament_id)
    if any(s.match_id is None for s in slots):
        return True
    last = max((s.round for s in slots), default=0)
    return config.schedule == "swiss" and last < swiss_rounds(config)


def run_tournament(
    tstore: TournamentStore,
    tournament_id: str,
    executor: Executor,
    listener: Listener | None = None,
) -> RunState:
    """Play every slot without a result (and Swiss rounds as they come); the final state.

    Stops after a pass in which some match failed (the failures are in the state and
    in the store; ``resume`` tries them again).
    """
    config, refs = stored_setup(tstore, tournament_id)
    state = RunState(tournament_id)
    while True:
        slots = tstore.slots(tournament_id)
        todo = [s for s in slots if s.match_id is None]
        if not todo and not _next_swiss_round(tstore, tournament_id, config, refs, slots):
            break
        if not todo:
            continue
        state.total, state.done = len(slots), len(slots) - len(todo)
        _play_all(tstore, tournament_id, config, refs, executor, todo, state, listener)
        if state.failed:
            break
    return state


def _next_swiss_round(
    tstore: TournamentStore,
    tournament_id: str,
    config: TournamentConfig,
    refs: Sequence[GameRef],
    slots: Sequence[SlotRow],
) -> bool:
    """Schedule the next Swiss round when one is due; whether one was."""
    last = max((s.round for s in slots), default=0)
    if config.schedule != "swiss" or last >= swiss_rounds(config):
        return False
    names = [p.name for p in config.players]
    new = swiss_slots(config, refs, last + 1, points_by_player(slots, names), met_pairs(slots))
    tstore.add_slots(tournament_id, new)
    return bool(new)


def _play_all(
    tstore: TournamentStore,
    tournament_id: str,
    config: TournamentConfig,
    refs: Sequence[GameRef],
    executor: Executor,
    todo: Sequence[SlotRow],
    state: RunState,
    listener: Listener | None,
) -> None:
    """Keep the executor busy with ``todo`` (a URL player in one match at a time) and store
    each outcome as it arrives; returns when nothing is queued or in flight."""
    games = {r.label: r for r in refs}
    queue = deque(todo)
    busy: set[str] = set()
    exclusive = {p.name for p in config.players if p.exclusive}
    while queue or state.running:
        while queue and len(state.running) < executor.capacity():
            slot = next((s for s in queue if not (set(s.players) & exclusive & busy)), None)
            if slot is None:
                break
            queue.remove(slot)
            busy |= set(slot.players) & exclusive
            executor.submit(_task(tournament_id, config, games[slot.game], slot), slot.key)
            state.running[slot.key] = slot
        _notify(listener, state)
        for handle, outcome in executor.wait(0.5):
            slot = state.running.pop(str(handle))
            busy -= set(slot.players)
            _store_outcome(tstore, tournament_id, slot, outcome, state)
    _notify(listener, state)


def _store_outcome(
    tstore: TournamentStore,
    tournament_id: str,
    slot: SlotRow,
    outcome: MatchRecord | str,
    state: RunState,
) -> None:
    if isinstance(outcome, str):
        tstore.record_error(tournament_id, slot.key, outcome)
        state.failed.append((slot.key, outcome))
    elif tstore.record_result(tournament_id, slot.key, outcome):
        state.done += 1
    else:
        state.duplicates += 1


def _notify(listener: Listener | None, state: RunState) -> None:
    if listener is not None:
        listener(state)


def _task(tournament_id: str, config: TournamentConfig, game: GameRef, slot: SlotRow) -> MatchTask:
    return MatchTask(
        slot_key=slot.key,
        match_id=match_id_for(tournament_id, slot),
        game=game,
        players=tuple(config.player(name) for name in slot.players if name != NATURE),
        startclock=config.startclock,
        playclock=config.playclock,
        seed=slot.seed,
        max_steps=config.max_steps,
    )


def _ref_json(ref: GameRef) -> dict[str, object]:
    return {
        "label": ref.label,
        "rules": ref.rules,
        "roles": list(ref.roles),
        "registered": ref.registered,
        "chance_role": ref.chance_role,
    }
