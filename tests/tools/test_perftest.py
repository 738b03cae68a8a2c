"""The gdl-perf contract: ``ggpkit perftest GDL_FILE RESULTS_FILE SECONDS`` and its results file."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ggpkit.cli import _load_commands
from ggpkit.cli.app import app
from ggpkit.gdl.kif import parse_rules
from ggpkit.reasoning.base import ReasonerError
from ggpkit.reasoning.propnet.reasoner import PropnetReasoner
from ggpkit.reasoning.prover.reasoner import Prover
from ggpkit.tools.perftest import PerfResult, perftest, run_api, run_propnet

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


def test_scalar_mode_runs_one_rollout_at_a_time_on_the_propnet(tmp_path: Path) -> None:
    game = tmp_path / "countdown.kif"
    game.write_text(COUNTDOWN)
    out = tmp_path / "results.txt"
    _load_commands()
    res = CliRunner().invoke(app, ["perftest", str(game), str(out), "0.2", "--scalar"])
    assert res.exit_code == 0, res.output
    kv = _parse(out.read_text())
    assert kv["version"].startswith("ggpkit-propnet-scalar-")
    assert int(kv["numStateChanges"]) == 3 * int(kv["numRollouts"]) > 0


def test_the_api_loop_counts_whole_rollouts_only() -> None:
    """The join code's loop: every rollout of the countdown is three state changes."""
    reasoner = Prover(parse_rules(COUNTDOWN), compiled=True)
    result = run_api(reasoner, 0.05, name="ggpkit-joincode")
    assert result.rollouts > 1
    assert result.state_changes == 3 * result.rollouts
    assert result.lines().startswith("version=ggpkit-joincode-")


def test_the_api_loop_and_the_kernels_agree_on_mean_length() -> None:
    """A game of random length (2 to 4 moves): both loops see its mean length."""
    rules = parse_rules(RANDOM_LENGTH)
    by_api = run_api(Prover(rules, compiled=True), 0.3)
    by_kernel = run_propnet(PropnetReasoner.from_rules(rules), 0.1, "scalar")
    # Lengths 2, 3 and 4 with probabilities 1/2, 1/4, 1/4: mean 2.75, spread 0.83.
    for result in (by_api, by_kernel):
        mean = result.state_changes / result.rollouts
        assert abs(mean - 2.75) < 4 * 0.83 / result.rollouts**0.5, (result, mean)


def test_a_role_without_moves_is_an_error_of_the_api_loop() -> None:
    rules = parse_rules(COUNTDOWN.replace("(<= (legal p skip) (true (c ?x)) (succ ?y ?x))", ""))
    stuck = parse_rules(
        COUNTDOWN.replace("(<= (legal p (dec ?y)) (true (c ?x)) (succ ?y ?x))", "").replace(
            "(<= (legal p skip) (true (c ?x)) (succ ?y ?x))", ""
        )
    )
    assert run_api(Prover(rules, compiled=True), 0.01).rollouts >= 1
    with pytest.raises(ReasonerError, match="no legal move"):
        run_api(Prover(stuck, compiled=True), 0.01)


RANDOM_LENGTH = """
(role p)
(init (c 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (legal p a) (true (c ?x)))
(<= (legal p b) (true (c ?x)))
(<= (next (c ?y)) (true (c ?x)) (succ ?x ?y))
(<= (next stop) (does p a) (true (c 1)))
(<= (next stop) (does p a) (true (c 2)))
(<= terminal (true stop))
(<= terminal (true (c 4)))
(<= (goal p 100) terminal)
"""
