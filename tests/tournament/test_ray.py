"""Tournaments on Ray (one small embedded cluster for the module): real matches, stored whole,
and a match whose worker is killed is played again on another worker.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from match.support import TINY_GDL

from ggpkit.match.replay import open_replay
from ggpkit.store.sqlite import MatchStore
from ggpkit.store.tournaments import TournamentStore
from ggpkit.tournament.config import load_config
from ggpkit.tournament.games import resolve_games
from ggpkit.tournament.ray_backend import RayExecutor  # imports Ray only when used
from ggpkit.tournament.runner import create_tournament, run_tournament

pytest.importorskip("ray")


@pytest.fixture(scope="module")
def executor() -> Iterator[RayExecutor]:
    ray_executor = RayExecutor(num_cpus=2, object_store_memory=100 * 1024 * 1024)
    yield ray_executor
    ray_executor.close()


def start(tmp_path: Path, players: str, games: str = '["tiny.kif"]', matches: int = 2):
    (tmp_path / "tiny.kif").write_text(TINY_GDL)
    path = tmp_path / "t.toml"
    path.write_text(
        f"games = {games}\nmatches_per_pairing = {matches}\nstartclock = 5\nplayclock = 1\n"
        f"seed = 4\n[players]\n{players}"
    )
    config = load_config(path)
    tstore = TournamentStore(MatchStore(tmp_path / "m.sqlite3"))
    return tstore, create_tournament(tstore, config, resolve_games(config))


def test_a_tournament_on_ray_stores_every_match_whole(
    tmp_path: Path, executor: RayExecutor
) -> None:
    players = 'a = "random"\nb = "random"\nc = "mcts:playouts=30"\n'
    tstore, tid = start(tmp_path, players, '["tiny.kif", "breakthrough-holes"]')
    state = run_tournament(tstore, tid, executor)
    slots = tstore.slots(tid)
    assert len(slots) == 2 * 3 * 2 and state.done == len(slots) and not state.failed
    for slot in slots:
        assert slot.match_id is not None
        record = tstore.store.load(slot.match_id)
        assert record.is_completed and record.source == "tournament"
        assert record.player_names == list(slot.players)
        assert (record.start_clock, record.play_clock) == (5, 1)
        assert len(record.states) == record.steps + 1 > 1
        open_replay(record)  # the moves lead to the recorded states in the game's rules
    tiny = [s for s in slots if s.game == "tiny"]
    assert {tuple(tstore.store.load(s.match_id or "").roles) for s in tiny} == {("white", "black")}


def test_a_match_whose_worker_dies_is_played_again(tmp_path: Path, executor: RayExecutor) -> None:
    # The first time it starts, this player kills the Ray worker running its match
    # (its parent); the task is retried on a new worker, where it plays.
    mark = tmp_path / "killed-once"
    player = f"{sys.executable} -m ggpkit player --port {{port}} --agent random --no-db"
    script = f"if [ ! -e {mark} ]; then touch {mark}; kill -9 $PPID; sleep 30; fi; exec {player}"
    players = f'a = "random"\nbomb = """sh -c \'{script}\'"""\n'
    tstore, tid = start(tmp_path, players, matches=1)
    state = run_tournament(tstore, tid, executor)
    assert mark.exists()  # the worker was killed once
    assert not state.failed and state.done == 1
    (slot,) = tstore.slots(tid)
    record = tstore.store.load(slot.match_id or "")
    assert record.is_completed and "bomb" in record.player_names
    assert len(tstore.store.matches()) == 1


GGP_BASE = Path(__file__).resolve().parents[3] / "shared" / "ggp-base"


@pytest.mark.skipif(
    shutil.which("java") is None or not (GGP_BASE / "run.sh").is_file(),
    reason="needs java and ../shared/ggp-base",
)
def test_a_ggp_base_player_started_by_command_plays_its_matches(
    tmp_path: Path, executor: RayExecutor
) -> None:
    command = f"{GGP_BASE / 'run.sh'} PlayerRunner {{port}} SampleMonteCarloGamer"
    tstore, tid = start(tmp_path, f'a = "random"\njava = "{command}"\n', matches=2)
    state = run_tournament(tstore, tid, executor)
    assert not state.failed and state.done == 2
    for slot in tstore.slots(tid):
        record = tstore.store.load(slot.match_id or "")
        java = record.player_names.index("java")
        assert record.is_completed
        assert all(errors[java] == "" for errors in record.errors)  # legal, in time


def test_a_match_that_fails_is_reported_and_left_for_resume(
    tmp_path: Path, executor: RayExecutor
) -> None:
    players = 'a = "random"\nbroken = "sh -c \'exit 3\' {port}"\n'
    tstore, tid = start(tmp_path, players, matches=2)
    state = run_tournament(tstore, tid, executor)
    assert state.done == 0 and len(state.failed) == 2
    for _, error in state.failed:
        assert error == "PlayerFault: CE: the player command ended (status 3)"
    assert all(s.match_id is None and s.error for s in tstore.slots(tid))
    assert tstore.store.matches() == []
