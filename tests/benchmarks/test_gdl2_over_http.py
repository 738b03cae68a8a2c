"""A short run of the GDL-II over HTTP sweep: two games, random players, one match cut
short, resumed once.

The whole sweep (``benchmarks/gdl2_over_http.py GAMES_DIR``, the default player on every
game) is a command; this proves that it plays, counts faults, resumes and prints its
table.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT.parent / "shared" / "gdl2-games"
PICKED = ["MontyHall.kif", "rockpaperscissors.kif"]


def _free_port_pair() -> int:
    """A port with the next one free too (the sweep's two player servers)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        with socket.socket() as second:
            if port < 65535 and second.connect_ex(("127.0.0.1", port + 1)) != 0:
                return port
    raise RuntimeError("no two free ports in a row")


@pytest.mark.skipif(not GAMES.is_dir(), reason="needs the GDL-II games (../shared/gdl2-games)")
def test_the_sweep_plays_each_game_over_http_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "sweep.jsonl"
    cmd = [sys.executable, str(ROOT / "benchmarks" / "gdl2_over_http.py"), str(GAMES),
           "--agent", "random", "--startclock", "5", "--playclock", "1", "--out", str(out),
           "--no-warmup", "--port", str(_free_port_pair())]  # fmt: skip
    first = subprocess.run([*cmd, "--games", PICKED[0], "--max-steps", "2"],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert first.returncode == 0, first.stdout + first.stderr
    lines = [json.loads(t) for t in out.read_text().splitlines()]
    assert [line["game"] for line in lines] == [PICKED[0]]
    assert (lines[0]["steps"], lines[0]["aborted"], lines[0]["seats"]) == (2, True, 1)
    assert lines[0]["replays"] and "| 2 (aborted) |" in first.stdout
    second = subprocess.run([*cmd, "--games", *PICKED], capture_output=True, text=True,
                            timeout=300)  # fmt: skip
    assert second.returncode == 0, second.stdout + second.stderr
    played = [json.loads(t) for t in out.read_text().splitlines()]
    assert [line["game"] for line in played] == PICKED  # the first not played again
    assert played[1]["seats"] == 2 and played[1]["faults"] == {"TO": 0, "CE": 0, "IL": 0}
    assert not played[1]["aborted"] and played[1]["replays"]
    for name in PICKED:
        assert f"| {name} |" in second.stdout
