"""The PGX comparison command runs end to end (ggpkit's column; PGX is no test dependency)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT.parent / "shared" / "ggp-games"


@pytest.mark.skipif(not GAMES.is_dir(), reason="needs the public games (../shared/ggp-games)")
def test_the_benchmark_prints_a_row_per_game() -> None:
    cmd = [sys.executable, str(ROOT / "benchmarks" / "vector_vs_pgx.py"), "--envs", "64",
           "--seconds", "0.05", "--repeat", "1", "--no-pgx"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()}
    for game in ("tic_tac_toe", "connect_four"):
        assert int(rows[game][2].replace(",", "")) > 0 and rows[game][3] == "-"
    assert "PGX not measured: --no-pgx" in done.stdout
