"""The tournament driver with a stand-in executor: what is played, stored, retried, withheld.

The executor here plays nothing: it answers each task with a record whose goals follow
from the players' names, so these tests see only the driver's own decisions.
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

from ggpkit.match.records import MatchRecord
from ggpkit.store.sqlite import MatchStore
from ggpkit.store.tournaments import TournamentStore
from ggpkit.tournament.config import PlayerEntry, TournamentConfig
from ggpkit.tournament.games import GameRef
from ggpkit.tournament.play import MatchTask
from ggpkit.tournament.runner import create_tournament, has_work, run_tournament

GAME = GameRef("g", "", ("white", "black"), True)
STRENGTH = {"a": 3, "b": 2, "c": 1, "d": 0, "url": 1}


class FakeExecutor:
    """Answers tasks in submission order, ``per_wait`` at a time; can repeat or fail some."""

    def __init__(
        self, per_wait: int = 1, rival: TournamentStore | None = None, fail: set[str] | None = None
    ):
        self.queue: list[tuple[Hashable, MatchTask]] = []
        self.per_wait, self.rival, self.fail = per_wait, rival, fail or set()
        self.played: list[MatchTask] = []
        self.max_url_in_flight = 0

    def capacity(self) -> int:
        return 4

    def submit(self, task: MatchTask, handle: Hashable) -> None:
        if self.rival is not None:  # another driver of the same tournament stores it first
            rival = _record(task)
            rival.match_id += ".rival"
            self.rival.record_result(task.match_id.split(".")[0], task.slot_key, rival)
        self.queue.append((handle, task))
        urls = sum(any(p.kind == "url" for p in t.players) for _, t in self.queue)
        self.max_url_in_flight = max(self.max_url_in_flight, urls)

    def wait(self, timeout: float) -> list[tuple[Hashable, MatchRecord | str]]:
        done, self.queue = self.queue[: self.per_wait], self.queue[self.per_wait :]
        out: list[tuple[Hashable, MatchRecord | str]] = []
        for handle, task in done:
            self.played.append(task)
            if task.slot_key in self.fail:
                out.append((handle, "GameError: broken"))
                continue
            out.append((handle, _record(task)))
        return out


def _record(task: MatchTask) -> MatchRecord:
    names = [p.name for p in task.players]
    strong = max(names, key=STRENGTH.__getitem__)
    rec = MatchRecord(task.match_id, "g", "", ["white", "black"], 1, 1, source="tournament")
    rec.add_state("( (s 0) )")
    rec.add_step(["m", "noop"], ["", ""], "( (s 1) )")
    rec.finish([100 if n == strong else 0 for n in names])
    return rec


def setup(tmp_path: Path, schedule: str = "round-robin", names: str = "abcd", **more: object):
    players = tuple(PlayerEntry(n, "agent", "random") for n in names)
    config = TournamentConfig(("g",), players, schedule, 2, 1, 1, **more)  # type: ignore[arg-type]
    tstore = TournamentStore(MatchStore(tmp_path / "m.sqlite3"))
    return tstore, create_tournament(tstore, config, [GAME])


def test_every_slot_is_played_once_and_stored_with_its_match(tmp_path: Path) -> None:
    tstore, tid = setup(tmp_path)
    executor = FakeExecutor(per_wait=3)
    state = run_tournament(tstore, tid, executor)
    slots = tstore.slots(tid)
    assert len(slots) == 6 * 2 and state.done == len(slots) and not state.failed
    assert len(executor.played) == len(slots)
    assert {s.match_id for s in slots} == {m.match_id for m in tstore.store.matches()}
    assert all(s.match_id and s.match_id.startswith(tid) for s in slots)


def test_a_slot_another_driver_filled_meanwhile_is_not_stored_again(tmp_path: Path) -> None:
    tstore, tid = setup(tmp_path)
    rival = TournamentStore(MatchStore(tmp_path / "m.sqlite3"))  # a second process's view
    state = run_tournament(tstore, tid, FakeExecutor(rival=rival))
    assert state.duplicates == 12 and state.done == 0
    matches = tstore.store.matches()
    assert len(matches) == 12 and all(m.match_id.endswith(".rival") for m in matches)


def test_failed_matches_stay_open_and_resume_plays_only_them(tmp_path: Path) -> None:
    tstore, tid = setup(tmp_path)
    broken = {s.key for s in tstore.slots(tid)[:3]}
    state = run_tournament(tstore, tid, FakeExecutor(fail=broken))
    assert {k for k, _ in state.failed} == broken
    assert {s.key for s in tstore.slots(tid) if s.match_id is None} == broken
    assert all(s.error == "GameError: broken" for s in tstore.slots(tid) if s.key in broken)
    again = FakeExecutor()
    state = run_tournament(tstore, tid, again)
    assert {t.slot_key for t in again.played} == broken
    assert not state.failed and all(s.match_id for s in tstore.slots(tid))


def test_a_listening_player_plays_one_match_at_a_time(tmp_path: Path) -> None:
    players = (
        PlayerEntry("url", "url", "http://127.0.0.1:9"),
        *(PlayerEntry(n, "agent", "random") for n in "abc"),
    )
    config = TournamentConfig(("g",), players, "round-robin", 4, 1, 1)
    tstore = TournamentStore(MatchStore(tmp_path / "m.sqlite3"))
    tid = create_tournament(tstore, config, [GAME])
    executor = FakeExecutor(per_wait=1)
    run_tournament(tstore, tid, executor)
    assert executor.max_url_in_flight == 1
    assert len(executor.played) == 6 * 4


def test_swiss_rounds_are_made_from_the_results_before_them(tmp_path: Path) -> None:
    tstore, tid = setup(tmp_path, "swiss", rounds=3)
    run_tournament(tstore, tid, FakeExecutor(per_wait=2))
    slots = tstore.slots(tid)
    assert len(slots) == 3 * 2 * 2  # rounds x pairs x matches
    pairs = {r: {frozenset(s.players) for s in slots if s.round == r} for r in (1, 2, 3)}
    assert pairs[1] == {frozenset("ab"), frozenset("cd")}  # configured order
    assert pairs[2] == {frozenset("ac"), frozenset("bd")}  # winners meet
    assert pairs[3] == {frozenset("ad"), frozenset("bc")}  # nobody meets twice


def test_work_is_left_until_every_slot_and_swiss_round_is_played(tmp_path: Path) -> None:
    tstore, tid = setup(tmp_path, "swiss", rounds=2)
    assert has_work(tstore, tid)
    state = run_tournament(tstore, tid, FakeExecutor(per_wait=4))
    assert state.done == 2 * 2 * 2 and not has_work(tstore, tid)
    again = FakeExecutor()
    run_tournament(tstore, tid, again)
    assert again.played == []  # nothing is played twice


def test_a_match_asks_for_the_cores_of_its_hungriest_player(tmp_path: Path) -> None:
    players = (PlayerEntry("a", "agent", "mcts", cpus=3), PlayerEntry("b", "agent", "random"))
    config = TournamentConfig(("g",), players, "round-robin", 2, 1, 1)
    tstore = TournamentStore(MatchStore(tmp_path / "m.sqlite3"))
    tid = create_tournament(tstore, config, [GAME])
    executor = FakeExecutor(per_wait=2)
    run_tournament(tstore, tid, executor)
    assert [t.cpus for t in executor.played] == [3, 3]
    assert {tuple(p.name for p in t.players) for t in executor.played} == {("a", "b"), ("b", "a")}
