"""The native-vs-C command runs end to end, and each C baseline plays the native engine's game.

Only the command's working is tested here, never a speed: the timings are the
command's (``benchmarks/native_vs_c.py``), and tiny counts make them meaningless.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("peg", "pawn-checkers", "breakthrough-holes", "breakthrough-holes-capture")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc to build the C engines")
def test_the_benchmark_prints_a_row_per_game_and_the_engines_agree() -> None:
    cmd = [sys.executable, str(ROOT / "benchmarks" / "native_vs_c.py"), "--repeat", "1",
           "--seconds", "0.001", "--check", "5000"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    check, speed = {}, {}
    table = check
    for line in done.stdout.splitlines():
        if line.startswith("speed:"):
            table = speed
        words = line.split()
        if words and words[0] in GAMES:
            table[words[0]] = words
    assert set(check) == set(speed) == set(GAMES), done.stdout
    for game in GAMES:
        native_length, c_length = float(check[game][1]), float(check[game][2])
        assert abs(native_length - c_length) < 0.1 * c_length, check[game]
        assert check[game][-1] == "same", check[game]
        assert speed[game][-1].endswith("x"), speed[game]
