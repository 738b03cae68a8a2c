"""The perftest-against-ggp-base benchmark runs end to end (no speed is asserted)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GGP_BASE = ROOT.parent / "shared" / "ggp-base"
GAMES = ROOT.parent / "shared" / "ggp-games"


@pytest.mark.skipif(
    shutil.which("java") is None or not GGP_BASE.is_dir() or not GAMES.is_dir(),
    reason="needs java, ../shared/ggp-base and ../shared/ggp-games",
)
def test_every_side_is_measured_and_compared() -> None:
    cmd = [sys.executable, str(ROOT / "benchmarks" / "perftest_vs_ggp_base.py"), "--games",
           "ticTacToe", "--seconds", "0.3", "--repeat", "1", "--json"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| ticTacToe | ggpkit-propnet-batch |" in done.stdout
    (row,) = json.loads(done.stdout[done.stdout.index("[") :])
    assert not any(row[f"{side}_error"] for side in ("batch", "scalar", "ggp-base")), row
    for side in ("batch", "scalar", "ggp-base"):
        assert row[side] > 0 and row[f"{side}_setup"] >= 0
    assert row["batch_ratio"] == pytest.approx(row["batch"] / row["ggp-base"])
    assert row["scalar_ratio"] == pytest.approx(row["scalar"] / row["ggp-base"])
