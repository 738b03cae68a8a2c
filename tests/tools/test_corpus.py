"""The corpus runner: every game ends played or rejected with a reason; isolation works."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from ggpkit.tools import corpus
from ggpkit.tools.corpus import (
    PLAYED,
    REASONS,
    REJECTED,
    GameResult,
    game_files,
    play_game,
    run_corpus,
    run_isolated,
    summary,
)

GOOD = """
(role a)
(init (n 0))
(succ 0 1) (succ 1 2)
(<= (legal a inc) (true (n ?x)))
(<= (next (n ?y)) (true (n ?x)) (succ ?x ?y))
(<= terminal (true (n 2)))
(goal a 100)
"""

CASES = {
    "good": (GOOD, PLAYED, ""),
    "syntax": ("(role a)\n(init (n 0)", REJECTED, "syntax error"),
    "gdl2": (GOOD + "(<= (sees a x) (true (n 1)))", PLAYED, ""),
    "unsafe": (GOOD + "(<= (p ?x) (succ 1 2))", REJECTED, "check error"),
    "noterminal": (GOOD.replace("(true (n 2))", "(true (n 3))"), REJECTED, "no legal move"),
    "forever": (
        GOOD.replace("(<= (next (n ?y)) (true (n ?x)) (succ ?x ?y))", "(<= (next (n 0)) (role a))"),
        REJECTED,
        "no terminal",
    ),
    "twogoals": (GOOD + "(<= (goal a 0) (true (n 2)))", REJECTED, "goal error"),
}


def games_dir() -> Path:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_outcome_has_its_reason(tmp_path: Path, name: str) -> None:
    text, status, reason = CASES[name]
    path = tmp_path / f"{name}.kif"
    path.write_text(text)
    result = play_game(path, matches=2, seed=1, max_steps=50)
    assert (result.status, result.reason) == (status, reason), result.detail
    if status == PLAYED:
        assert result.matches == 2 and result.moves == 4
        assert result.detail == "a=100 x2"
    else:
        assert result.detail


def test_load_time_is_told_apart_from_play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ggpkit.games.gdl import game as gdl_game

    real_load = gdl_game.load_kif_file

    def slow_load(*args: object, **kwargs: object) -> object:
        time.sleep(0.3)
        return real_load(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gdl_game, "load_kif_file", slow_load)
    good = tmp_path / "good.kif"
    good.write_text(GOOD)
    played = play_game(good, matches=2, seed=1)
    assert played.status == PLAYED
    assert 0.3 <= played.load_seconds < played.seconds
    assert played.play_seconds == pytest.approx(played.seconds - played.load_seconds)
    assert played.play_seconds < 0.3
    broken = tmp_path / "broken.kif"
    broken.write_text("(role a")
    rejected = play_game(broken, matches=1, seed=1)
    assert rejected.reason == "syntax error"
    assert rejected.load_seconds == rejected.seconds >= 0.3


def test_messages_of_rejections_are_precise(tmp_path: Path) -> None:
    path = tmp_path / "unsafe.kif"
    path.write_text(CASES["unsafe"][0])
    result = play_game(path, 1, 0)
    assert f"{path}:9:8: error: unsafe rule" in result.detail
    path.write_text(CASES["twogoals"][0])
    assert "role a has 2 goal values" in play_game(path, 1, 0).detail


needs_fork = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs the fork start method"
)


def _sleepy(path: Path, matches: int, seed: int, reasoner: str) -> GameResult:
    time.sleep(30)
    raise AssertionError("not reached")


def _broken(path: Path, matches: int, seed: int, reasoner: str) -> GameResult:
    raise RuntimeError("engine bug")


def _dying(path: Path, matches: int, seed: int, reasoner: str) -> GameResult:
    os._exit(3)


@needs_fork
def test_a_hanging_game_is_killed_and_reported_as_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(corpus, "play_game", _sleepy)
    result = run_isolated(tmp_path / "x.kif", 1, 0, timeout=0.5)
    assert (result.status, result.reason) == (REJECTED, "timeout")


@needs_fork
@pytest.mark.parametrize(("fake", "words"), [(_broken, "RuntimeError: engine bug"),
                                              (_dying, "exit code 3")])  # fmt: skip
def test_a_crashing_game_is_reported_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: object, words: str
) -> None:
    monkeypatch.setattr(corpus, "play_game", fake)
    result = run_isolated(tmp_path / "x.kif", 1, 0, timeout=30)
    assert (result.status, result.reason) == (REJECTED, "crash")
    assert words in result.detail


def test_summary_counts_in_fixed_order(tmp_path: Path) -> None:
    for name, (text, _, _) in CASES.items():
        (tmp_path / f"{name}.kif").write_text(text)
    results = run_corpus(game_files(tmp_path), matches=1, timeout=60)
    assert [r.name for r in results] == sorted(CASES)
    assert summary(results) == {
        "played": 2, "syntax error": 1, "check error": 1, "no legal move": 1,
        "goal error": 1, "no terminal": 1,
    }  # fmt: skip


def test_a_sample_of_public_games_each_ends_played_or_rejected_with_reason() -> None:
    folder = games_dir()
    if not folder.is_dir():
        pytest.skip(f"public games not available at {folder}")
    sample = sorted(game_files(folder), key=lambda p: p.stat().st_size)[:20]
    sample += [p for p in (folder / "ticTacToe.kif", folder / "beatMania.kif") if p.exists()]
    results = run_corpus(sample, matches=1, timeout=60, seed=3)
    assert len(results) == len(sample)
    for r in results:
        assert r.status in (PLAYED, REJECTED)
        if r.status == PLAYED:
            assert r.matches == 1 and r.reason == ""
        else:
            assert r.reason in REASONS and r.detail, r
    by_name = {r.name: r for r in results}
    if "ticTacToe" in by_name:
        assert by_name["ticTacToe"].status == PLAYED
    if "beatMania" in by_name:  # its role 'random' is an ordinary GDL role
        assert by_name["beatMania"].status == PLAYED


def test_a_game_can_be_named_other_than_its_file(tmp_path: Path) -> None:
    path = tmp_path / "rules.kif"  # a library game whose rulesheet is not named after it
    path.write_text(GOOD)
    slow = tmp_path / "slow.kif"
    slow.write_text(GOOD)
    (result,) = run_corpus([path], matches=1, timeout=60, names={path: "counter5"})
    assert (result.name, result.status, result.path) == ("counter5", PLAYED, str(path))
    timed_out = run_isolated(slow, 1, 0, timeout=0.0, name="slow5")
    assert (timed_out.name, timed_out.reason) == ("slow5", "timeout")
