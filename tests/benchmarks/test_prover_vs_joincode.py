"""A short run of the prover-vs-joincode benchmark: the command works and prints its table."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from ggpkit.games.registry import rules_path

ROOT = Path(__file__).resolve().parents[2]


def test_the_benchmark_prints_a_row_per_game() -> None:
    path = rules_path("breakthrough-holes")
    cmd = [sys.executable, str(ROOT / "benchmarks" / "prover_vs_joincode.py"),
           "--games", f"{path},absent-game", "--states", "6", "--repeats", "1"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    row = re.search(rf"\| {path.stem} \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)x \|", done.stdout)
    assert row is not None, done.stdout
    assert float(row.group(1)) > 0 and float(row.group(2)) > 0
    assert "| absent-game | absent |" in done.stdout
