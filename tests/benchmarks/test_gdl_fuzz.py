"""A small sample of the GDL fuzz run: mutated public games end as clean errors or load.

The whole run (``benchmarks/gdl_fuzz.py --cases 2000``) is a command; this sample
proves the command works and catches a regression that lets a traceback, a hang or a
crash through on the first few dozen cases.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT.parent / "shared" / "ggp-games"


@pytest.mark.skipif(not GAMES.is_dir(), reason="needs the public games (../shared/ggp-games)")
def test_a_sample_of_mutated_games_gives_no_traceback_hang_or_crash() -> None:
    cmd = [sys.executable, str(ROOT / "benchmarks" / "gdl_fuzz.py"), "--cases", "30",
           "--timeout", "30", "--seed", "11", "--games-dir", str(GAMES)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert "| traceback | 0 |" in done.stdout, done.stdout + done.stderr
    assert "| hang | 0 |" in done.stdout and "| crash | 0 |" in done.stdout
    assert done.returncode == 0
