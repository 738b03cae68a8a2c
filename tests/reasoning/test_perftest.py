"""The gdl-perf contract: ``ggpkit perftest GDL_FILE RESULTS_FILE SECONDS`` and its results file."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ggpkit.cli import _load_commands
from ggpkit.cli.app import app
from ggpkit.reasoning.perftest import PerfResult, perftest

COUNTDOWN = """
(role p)
(init (c 3))
(succ 0 1) (succ 1 2) (succ 2 3)
(<= (legal p (dec ?y)) (true (c ?x)) (succ ?y ?x))
(<= (legal p skip) (true (c ?x)) (succ ?y ?x))
(<= (next (c ?y)) (does p (dec ?y)))
(<= (next (c ?y)) (does p skip) (true (c ?x)) (succ ?y ?x))
(<= terminal (true (c 0)))
(<= (goal p 100) (true (c 0)))
"""


def _parse(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines())


def test_results_file_has_the_gdl_perf_keys(tmp_path: Path) -> None:
    game = tmp_path / "countdown.kif"
    game.write_text(COUNTDOWN)
    out = tmp_path / "results.txt"
    _load_commands()
    res = CliRunner().invoke(app, ["perftest", str(game), str(out), "0.2"])
    assert res.exit_code == 0, res.output
    kv = _parse(out.read_text())
    assert list(kv) == ["version", "millisecondsTaken", "numStateChanges", "numRollouts"]
    rollouts = int(kv["numRollouts"])
    assert rollouts > 0
    # Every rollout of the countdown takes exactly three state changes.
    assert int(kv["numStateChanges"]) == 3 * rollouts
    assert int(kv["millisecondsTaken"]) >= 200


def test_bad_game_gives_an_error_message(tmp_path: Path) -> None:
    game = tmp_path / "broken.kif"
    game.write_text("(role p) (<= (legal p go)")
    out = tmp_path / "results.txt"
    _load_commands()
    res = CliRunner().invoke(app, ["perftest", str(game), str(out), "1"])
    assert res.exit_code == 1
    kv = _parse(out.read_text())
    assert list(kv) == ["version", "errorMessage"]
    assert "never closed" in kv["errorMessage"]


def test_improper_game_is_reported_not_raised(tmp_path: Path) -> None:
    game = tmp_path / "nogoal.kif"
    game.write_text(COUNTDOWN.replace("(<= (goal p 100) (true (c 0)))", ""))
    result = perftest(game, 0.1)
    assert result.error is not None and "goal" in result.error
    assert "errorMessage=" in result.lines()


def test_error_message_is_one_line() -> None:
    lines = PerfResult(error="first\nsecond").lines().splitlines()
    assert len(lines) == 2 and lines[0].startswith("version=")
    assert lines[1] == "errorMessage=first second"
