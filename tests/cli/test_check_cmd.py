"""``ggpkit check`` and ``ggpkit corpus`` through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ggpkit.cli import _load_commands, app

_load_commands()
RUNNER = CliRunner()

GOOD = """(role a)
(init (n 0))
(succ 0 1)
(<= (legal a inc) (true (n ?x)))
(<= (next (n ?y)) (true (n ?x)) (succ ?x ?y))
(<= terminal (true (n 1)))
(goal a 100)
"""


def test_check_a_good_file_exits_zero(tmp_path: Path) -> None:
    path = tmp_path / "good.kif"
    path.write_text(GOOD)
    result = RUNNER.invoke(app, ["check", str(path)])
    assert result.exit_code == 0, result.output
    assert "0 error(s), 0 warning(s)" in result.output


def test_check_prints_one_line_per_problem_and_fails(tmp_path: Path) -> None:
    path = tmp_path / "bad.kif"
    path.write_text(GOOD + "(<= (p ?x) (succ 0 1))\n(<= (q 1) (nothing 2))\n")
    result = RUNNER.invoke(app, ["check", str(path)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert (
        f"{path}:8:8: error: unsafe rule: the head variable ?x does not occur in a "
        "positive literal of the body" in lines
    )
    assert f"{path}:9:11: warning: relation 'nothing' is never defined (always false)" in lines
    quiet = RUNNER.invoke(app, ["check", "--no-warnings", str(path)])
    assert ": warning:" not in quiet.output
    assert ": error: unsafe rule" in quiet.output


# b may only move while n is 0: after one joint move it has no legal move, and n = 1
# is not terminal. Legal GDL that no match can go on from.
STUCK = """(role a)
(role b)
(init (n 0))
(succ 0 1)
(succ 1 2)
(<= (legal a inc) (true (n ?x)))
(<= (legal b noop) (true (n 0)))
(<= (next (n ?y)) (true (n ?x)) (succ ?x ?y))
(<= terminal (true (n 2)))
(goal a 100)
(goal b 0)
"""


def test_check_warns_when_random_play_leaves_a_role_without_a_legal_move(
    tmp_path: Path,
) -> None:
    path = tmp_path / "stuck.kif"
    path.write_text(STUCK)
    result = RUNNER.invoke(app, ["check", str(path)])
    assert result.exit_code == 0, result.output
    assert (
        f"{path}: warning: role 'b' has no legal move in a non-terminal state reached after "
        "1 joint move(s) of random play (playout 0, seed 0)" in result.output.splitlines()
    )
    assert "0 error(s), 1 warning(s)" in result.output
    for quiet in (["--no-warnings"], ["--playouts", "0"]):
        assert "no legal move" not in RUNNER.invoke(app, ["check", *quiet, str(path)]).output
    good = tmp_path / "good.kif"
    good.write_text(GOOD)
    assert "no legal move" not in RUNNER.invoke(app, ["check", str(good)]).output


def test_corpus_command_counts_played_and_rejected(tmp_path: Path) -> None:
    (tmp_path / "good.kif").write_text(GOOD)
    (tmp_path / "broken.kif").write_text("(role a")
    result = RUNNER.invoke(app, ["corpus", str(tmp_path), "--matches", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["counts"] == {"played": 1, "syntax error": 1}
    by_name = {r["name"]: r for r in data["results"]}
    assert by_name["good"]["matches"] == 2 and by_name["good"]["moves"] == 2
    assert by_name["broken"]["detail"].startswith(f"{tmp_path / 'broken.kif'}:1:1: error:")


def test_corpus_command_lists_the_slowest_games_with_load_and_play_apart(
    tmp_path: Path,
) -> None:
    (tmp_path / "good.kif").write_text(GOOD)
    (tmp_path / "broken.kif").write_text("(role a")
    (tmp_path / "other.kif").write_text(GOOD)
    result = RUNNER.invoke(app, ["corpus", str(tmp_path), "--slowest", "2"])
    assert result.exit_code == 0, result.output
    assert "slowest 2 games" in result.output
    header = next(line for line in result.output.splitlines() if "load s" in line)
    assert "play s" in header and "total s" in header
    listed = [n for n in ("good", "broken", "other") if f" {n} " in result.output]
    assert len(listed) == 3  # the two slowest in the table, the broken one as rejected
    quiet = RUNNER.invoke(app, ["corpus", str(tmp_path), "--slowest", "0"])
    assert "slowest" not in quiet.output


def test_corpus_command_on_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    result = RUNNER.invoke(app, ["corpus", str(tmp_path / "nowhere")])
    assert result.exit_code != 0


def test_check_says_which_reasoner_runs_a_good_file(tmp_path: Path) -> None:
    path = tmp_path / "good.kif"
    path.write_text(GOOD)
    result = RUNNER.invoke(app, ["check", str(path)])
    assert result.exit_code == 0, result.output
    assert f"{path}: 1 role(s) (a), turn-taking, zero-sum; reasoner: propnet" in result.output
    skipped = RUNNER.invoke(app, ["check", "--no-load", str(path)])
    assert "reasoner:" not in skipped.output


def test_check_shows_why_the_propnet_was_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ggpkit.reasoning.grounding.grounder import GroundingError
    from ggpkit.reasoning.propnet import reasoner as fast

    def too_big(*args: object, **kwargs: object) -> None:
        raise GroundingError("more than 5 possible ground atoms")

    monkeypatch.setattr(fast.PropnetReasoner, "from_rules", too_big)
    path = tmp_path / "good.kif"
    path.write_text(GOOD)
    result = RUNNER.invoke(app, ["check", str(path)])
    assert result.exit_code == 0, result.output
    assert "reasoner: joincode" in result.output
    assert (
        f"{path}: note: runs on the join code: the propnet could not be built "
        "(more than 5 possible ground atoms)" in result.output
    )


def test_games_lists_each_game_with_its_kind_and_capabilities() -> None:
    result = RUNNER.invoke(app, ["games"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): line for line in result.output.splitlines() if "│" in line}
    assert "2 role(s), turn-taking, zero-sum" in rows["breakthrough-holes"]
    assert "1 role(s), turn-taking, general-sum" in rows["peg"]
    assert "search" in rows["pawn-checkers"] and "search" not in rows["peg"]
    assert "hint" in rows["peg"] and "hint" not in rows["pawn-checkers"]


def test_check_stats_gives_each_phase_and_the_sizes_of_the_grounding(tmp_path: Path) -> None:
    from ggpkit.gdl.kif import parse_rules
    from ggpkit.reasoning.grounding.grounder import ground

    path = tmp_path / "good.kif"
    path.write_text(GOOD)
    result = RUNNER.invoke(app, ["check", "--stats", "--playouts", "0", str(path)])
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.output.splitlines() if ": stats: " in x]
    program = ground(parse_rules(GOOD), timeout=None)
    for phase in ("parse", "check", "propnet", "estimate", "ground", "build", "total"):
        assert f"{phase} " in line
    assert f"({len(program.true_domain)} possible facts, {len(program.does_domain)} moves)" in line
    assert f"({len(program.rules)} rules)" in line
