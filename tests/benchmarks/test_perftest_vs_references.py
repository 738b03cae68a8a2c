"""The perftest-against-references benchmark runs end to end (no speed is asserted).

The RBG side is checked with a stand-in executable that prints what rbg2cpp's flat
Monte Carlo harness prints (its figures chosen here), so the parsing, the ratios and the
same-game flag are tested without a build of RBG; the ggp-base and Sancho sides run
where the classpath of a local build is in ``$GGPKIT_GGP_BASE_CLASSPATH`` or
``$GGPKIT_SANCHO_CLASSPATH``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT.parent / "shared" / "ggp-games"
BENCHMARK = ROOT / "benchmarks" / "perftest_vs_references.py"

needs_games = pytest.mark.skipif(not GAMES.is_dir(), reason="needs ../shared/ggp-games")


def _run(*args: str) -> tuple[str, list[dict[str, object]]]:
    cmd = [sys.executable, str(BENCHMARK), *args, "--seconds", "0.3", "--repeat", "1", "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout, json.loads(done.stdout[done.stdout.index("\n[") :])


def _stand_in(folder: Path, name: str, rate: float, depth: float) -> None:
    """An executable printing rbg2cpp's harness output with these figures."""
    script = folder / name
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "ms = int(sys.argv[1])\n"
        f"print('time:', ms, 'ms')\n"
        f"print('number of playouts: {int(rate)} ({rate:.6f} playouts/sec)')\n"
        f"print('depth: avg {depth}')\n"
    )
    script.chmod(0o755)


@needs_games
def test_the_rbg_side_is_read_compared_and_held_to_the_same_game(tmp_path: Path) -> None:
    _stand_in(tmp_path, "ticTacToe", 1234.5, 50.0)
    out, rows = _run("--games", "ticTacToe,connectFour", "--rbg", str(tmp_path))
    tictactoe, connect_four = rows
    assert tictactoe["rbg"] == pytest.approx(1234.5) and tictactoe["rbg_game"] == "ticTacToe"
    assert tictactoe["batch_per_rbg"] == pytest.approx(tictactoe["batch"] / 1234.5)  # type: ignore[operator]
    assert tictactoe["scalar_per_rbg"] == pytest.approx(tictactoe["scalar"] / 1234.5)  # type: ignore[operator]
    length = tictactoe["batch_length"]
    assert isinstance(length, float) and 5 <= length <= 9  # a random tic-tac-toe's moves
    assert tictactoe["rbg_length"] == 50.0 and "**lengths differ**" in out
    assert connect_four["rbg"] is None and "no executable" in str(connect_four["rbg_error"])
    assert connect_four["batch"] and not connect_four["batch_error"]


@needs_games
def test_a_twin_of_the_same_length_is_the_same_game_and_a_reference_left_out_is_not_shown(
    tmp_path: Path,
) -> None:
    _stand_in(tmp_path, "ticTacToe", 1000.0, 7.6)
    out, (tictactoe,) = _run("--games", "ticTacToe", "--rbg", str(tmp_path))
    assert "| same |" in out and "lengths differ" not in out
    assert "ggp-base" not in tictactoe and "sancho" not in tictactoe
    assert "| game | ggp-base r/s" not in out and "| game | rbg r/s" in out


@pytest.mark.parametrize(
    ("ref", "option", "variable"),
    [
        ("ggp-base", "--ggp-base-classpath", "GGPKIT_GGP_BASE_CLASSPATH"),
        ("sancho", "--sancho", "GGPKIT_SANCHO_CLASSPATH"),
    ],
)
def test_a_java_reference_is_measured_and_compared(ref: str, option: str, variable: str) -> None:
    classpath = os.environ.get(variable)
    if shutil.which("javac") is None or not classpath or not GAMES.is_dir():
        pytest.skip(f"needs javac, a local build's classpath in ${variable} and the games")
    out, (row,) = _run("--games", "ticTacToe", option, classpath)
    assert "| ticTacToe | ggpkit-propnet-batch |" in out and f"| game | {ref} r/s" in out
    assert not any(row[f"{side}_error"] for side in ("batch", "scalar", ref)), row
    for side in ("batch", "scalar", ref):
        assert row[side] > 0 and row[f"{side}_setup"] >= 0  # type: ignore[operator]
    assert row[f"batch_per_{ref}"] == pytest.approx(row["batch"] / row[ref])  # type: ignore[operator]
    assert row[f"scalar_per_{ref}"] == pytest.approx(row["scalar"] / row[ref])  # type: ignore[operator]
