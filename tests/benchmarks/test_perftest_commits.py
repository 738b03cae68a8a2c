"""The two-checkout perftest benchmark runs end to end (no speed is asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT.parent / "shared" / "ggp-games"


@pytest.mark.skipif(not GAMES.is_dir(), reason="needs ../shared/ggp-games")
def test_both_sides_are_measured_in_one_table(tmp_path: Path) -> None:
    cmd = [sys.executable, str(ROOT / "benchmarks" / "perftest_commits.py"), "--base", str(ROOT),
           "--head", str(ROOT), "--runs", "1", "--seconds", "0.3", "ticTacToe:scalar",
           "ticTacToe:batch"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = re.findall(r"^\| ticTacToe \| (\w+) \| ([\d,]+) \| ([\d,]+) \| ([\d.]+) \|$",
                      done.stdout, re.MULTILINE)  # fmt: skip
    assert [mode for mode, *_ in rows] == ["scalar", "batch"], done.stdout
    for _, base, head, ratio in rows:
        rates = [float(x.replace(",", "")) for x in (base, head)]
        assert min(rates) > 0
        assert float(ratio) == pytest.approx(rates[1] / rates[0], rel=0.01, abs=0.01)
