"""The ggp-base strength benchmark runs end to end (never a speed or a strength asserted)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GGP_BASE = Path(os.environ.get("GGPKIT_GGP_BASE", ROOT.parent / "shared" / "ggp-base"))
GAMES = ROOT.parent / "shared" / "ggp-games"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.mark.skipif(
    shutil.which("java") is None or not GGP_BASE.is_dir() or not GAMES.is_dir(),
    reason="needs java, a ggp-base build ($GGPKIT_GGP_BASE or ../shared/ggp-base) and "
    "../shared/ggp-games",
)
def test_both_role_orders_are_played_and_scored() -> None:
    ports = f"{free_port()},{free_port()}"
    cmd = [sys.executable, str(ROOT / "benchmarks" / "vs_ggp_base.py"), "--games", "ticTacToe",
           "--startclock", "5", "--playclock", "1", "--opponent", "RandomGamer", "--json",
           "--ports", ports, "--ggp-base", str(GGP_BASE)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    tally = json.loads(done.stdout[done.stdout.index("{") :])["ticTacToe"]
    assert len(tally["points"]) == 2  # one match in each role
    assert tally["wins"] + tally["draws"] + tally["losses"] == 2
    assert all(p in (0, 50, 100) for p in tally["points"])


def test_a_game_missing_from_the_corpus_stops_the_run_before_any_match(tmp_path: Path) -> None:
    """A checkout without the corpus beside it (a worktree elsewhere) must not write a
    failed match for every game into the results file."""
    results = tmp_path / "sweep.jsonl"
    cmd = [sys.executable, str(ROOT / "benchmarks" / "vs_ggp_base.py"), "--games",
           "noSuchGame", "--results", str(results), "--ggp-base", str(tmp_path)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "noSuchGame" in done.stderr
    assert not results.exists()


def test_the_opponent_never_imports_this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """An opponent that is another install of ggpkit must run its own code: with our
    PYTHONPATH (or a cwd in this repository) its ``python -m ggpkit`` imports ours, and
    the run is self-play (stops 22-25's runs against the old mcts were)."""
    import importlib.util
    import os
    import tempfile

    spec = importlib.util.spec_from_file_location(
        "vs_ggp_base", ROOT / "benchmarks" / "vs_ggp_base.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "vs_ggp_base", module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    started: list[dict[str, object]] = []

    class Recorder:
        def __init__(self, command: list[str], **options: object) -> None:
            started.append({"command": command, **options})

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setattr(module.subprocess, "Popen", Recorder)
    monkeypatch.setattr(module, "wait_for_port", lambda port, seconds: None)
    module.start_players(1, 2, "mcts", "x", "/old/venv/bin/python -m ggpkit player --port {port}")
    opponent = started[0]
    assert opponent["command"][-1] == "2"
    env = opponent["env"]
    assert isinstance(env, dict) and "PYTHONPATH" not in env and env["PATH"] == os.environ["PATH"]
    cwd = Path(str(opponent["cwd"])).resolve()
    assert cwd == Path(tempfile.gettempdir()).resolve() and ROOT not in cwd.parents


def test_a_stopped_sweep_resumes_from_its_results_file(tmp_path: Path) -> None:
    """Matches already in the results file are not played again, and the table counts
    them; a line cut short by a kill is a match still to play (here it cannot be: no
    ggp-base build at the path given)."""
    results = tmp_path / "sweep.jsonl"
    played = [
        {"game": "ticTacToe", "round": 0, "seat": 0, "goals": [100, 0], "errors": [0, 1]},
        {"game": "ticTacToe", "round": 0, "seat": 1, "goals": [50, 50], "errors": [0, 0]},
    ]
    results.write_text("".join(json.dumps(e) + "\n" for e in played))
    cmd = [sys.executable, str(ROOT / "benchmarks" / "vs_ggp_base.py"), "--games", "ticTacToe",
           "--results", str(results), "--ggp-base", str(tmp_path / "none")]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "2 matches, 2 already played" in done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("ticTacToe"))
    assert row.split()[1:4] == ["75.0", "±", "49"]  # 1.96 x 35.4 / sqrt(2)
    assert row.split()[4:9] == ["1", "1", "0", "0", "1"]
    counted = next(line for line in done.stdout.splitlines() if line.startswith("counted"))
    assert "1 matches, 0-1-0, 50.0% of both sides' points" in counted  # the clean draw
    assert "an error on either side): 1 matches, 1-0-0" in counted  # their error
    with results.open("a") as f:
        f.write('{"game": "ticTacToe", "round": 1, "se')  # killed while writing
    again = subprocess.run([*cmd, "--rounds", "2"], capture_output=True, text=True, timeout=60)
    assert again.returncode != 0 and "4 matches, 2 already played" in again.stderr
    assert "needs java and a ggp-base build" in again.stderr
