"""``ggpkit tournament`` mistakes are one line and exit 2, before any Ray starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ggpkit.cli import _load_commands, app

_load_commands()
runner = CliRunner()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run"], "give a tournament file (CONFIG) or --game and --player options"),
        (["run", "--game", "peg", "--player", "x"], "--player 'x': give NAME=SPEC"),
        (
            ["run", "--game", "peg", "--player", "x=random"],
            "--player: a tournament needs at least 2",
        ),
        (
            ["run", "--game", "nope", "--player", "a=random", "--player", "b=random"],
            "--game: 'nope': unknown game 'nope'",
        ),
        (["standings", "nosuch"], "no tournament 'nosuch'"),
        (["resume", "nosuch"], "no tournament 'nosuch'"),
    ],
)
def test_mistakes_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["tournament", *args, "--db", str(tmp_path / "m.sqlite3")])
    assert result.exit_code == 2, result.output
    assert f"ggpkit: error: {message}" in result.output


def test_help_explains_the_config() -> None:
    result = runner.invoke(app, ["tournament", "run", "--help"])
    assert result.exit_code == 0
    for word in ("CONFIG", "--address", "--player", "--schedule", "--db"):
        assert word in result.output


def test_without_ray_the_error_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from ggpkit.tournament.ray_backend import RayExecutor, RayMissingError

    monkeypatch.setitem(sys.modules, "ray", None)  # as if it were not installed
    with pytest.raises(RayMissingError, match=r"pip install 'ggpkit\[ray\]'"):
        RayExecutor()


def test_standings_print_the_table_and_the_cross_table(tmp_path: Path) -> None:
    from ggpkit.tournament.runner import run_tournament
    from tournament.test_runner import FakeExecutor, setup

    tstore, tid = setup(tmp_path, names="abc")  # a beats b beats c, every match
    run_tournament(tstore, tid, FakeExecutor(per_wait=2))
    result = runner.invoke(app, ["tournament", "standings", tid, "--db", str(tstore.store.path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    table = [line for line in lines if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in table[:3]] == ["a", "b", "c"]
    cross = next(i for i, line in enumerate(lines) if "cross-table" in line)
    row_a = next(line for line in lines[cross:] if line.startswith("│ a "))
    assert [cell.strip() for cell in row_a.split("│")[2:5]] == [
        "-",
        "2 (2)",
        "2 (2)",
    ]  # two matches per pairing, both won
