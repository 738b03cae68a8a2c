"""``ggpkit perft`` and ``ggpkit bench`` on the command line (short runs; no timing asserts)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from typer.testing import CliRunner

from ggpkit.cli import _load_commands, app
from ggpkit.games.perft import perft
from ggpkit.games.registry import load
from ggpkit.tools import bench as bench_module
from ggpkit.tools.bench import bench

_load_commands()
runner = CliRunner()


def test_perft_prints_one_line_per_depth() -> None:
    result = runner.invoke(app, ["perft", "breakthrough-holes", "3"])
    assert result.exit_code == 0, result.output
    game = load("breakthrough-holes")
    expected = [f"{d} {perft(game, game.initial_state(), d, compiled=False)}" for d in (1, 2, 3)]
    assert result.stdout.splitlines() == expected
    assert expected[:2] == ["1 10", "2 100"]


def test_perft_generic_flag_gives_the_same_counts() -> None:
    fast = runner.invoke(app, ["perft", "breakthrough-holes-capture", "3"])
    slow = runner.invoke(app, ["perft", "breakthrough-holes-capture", "3", "--generic"])
    assert fast.exit_code == slow.exit_code == 0
    assert fast.stdout == slow.stdout


def test_bench_json_shape() -> None:
    result = runner.invoke(
        app,
        ["bench", "--games", "breakthrough-holes", "--engine", "native", "--seconds", "0.01",
         "--repeat", "2", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["repeat"] == 2 and data["seconds"] == 0.01
    (row,) = data["results"]
    assert row["game"] == "breakthrough-holes" and row["engine"] == "native"
    assert row["note"] == ""
    assert row["playouts_per_s"] > 0 and row["moves_per_s"] > row["playouts_per_s"]
    assert row["wall_playouts_per_s"] > 0 and row["wall_moves_per_s"] > 0
    assert row["batch"] >= 1 and row["runs"] == 2


def test_bench_table_lists_every_engine_row() -> None:
    result = runner.invoke(
        app, ["bench", "--games", "breakthrough-holes", "--seconds", "0.01", "--repeat", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "playouts/s" in result.stdout
    assert "native" in result.stdout and "gdl" in result.stdout


def test_bench_turns_a_failing_game_into_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_load(name: str, engine: str = "native") -> Any:
        raise RuntimeError("kernel exploded\nsecond line")

    monkeypatch.setattr(bench_module, "load", broken_load)
    rows = bench(["breakthrough-holes"], ["native"], seconds=0.01, repeat=1)
    assert len(rows) == 1
    assert rows[0].playouts_per_s is None
    assert rows[0].note == "not loaded: RuntimeError: kernel exploded"


def test_bench_unknown_game_is_one_line_error() -> None:
    result = runner.invoke(app, ["bench", "--games", "no-such-game", "--json"])
    assert result.exit_code != 0
    assert "unknown game 'no-such-game'" in str(result.exception)


def test_user_errors_are_one_line_without_traceback() -> None:
    for args in (["perft", "no-such-game", "2"], ["bench", "--games", "no-such-game"]):
        done = subprocess.run(
            [sys.executable, "-m", "ggpkit", *args], capture_output=True, text=True, check=False
        )
        assert done.returncode == 2
        assert done.stderr.startswith("ggpkit: error: unknown game 'no-such-game'")
        assert len(done.stderr.strip().splitlines()) == 1


def test_bench_mcts_measures_simulations_inside_the_search() -> None:
    args = ["bench", "--mcts", "--json", "--seconds", "0.05", "--repeat", "1"]
    result = runner.invoke(app, [*args, "--games", "breakthrough-holes", "--engine", "native"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)["results"]
    assert row["search_per_s"] is not None and row["search_per_s"] > 0
    plain = runner.invoke(app, ["bench", *args[2:], "--games", "peg", "--engine", "native"])
    assert json.loads(plain.stdout)["results"][0]["search_per_s"] is None  # only when asked


def test_bench_measures_a_rule_file_and_its_compiled_tree() -> None:
    """A .kif path runs on the GDL engine only; MCTS there walks the compiled tree."""
    from ggpkit.games.registry import rules_path

    path = str(rules_path("breakthrough-holes"))
    args = ["bench", "--mcts", "--json", "--seconds", "0.05", "--repeat", "1", "--games", path]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)["results"]
    assert row["engine"] == "gdl" and row["playouts_per_s"] > 0
    # a compiled tree's path gets one playout or more, unless it ends on a proven node
    # (a few: see test_batch_split), so simulations are counted apart from iterations
    assert row["search_iterations_per_s"] > 0
    assert row["search_per_s"] >= 0.9 * row["search_iterations_per_s"]
