"""The learning benchmarks run briefly, to prove the commands work (their figures come
from long runs on a quiet machine, not from tests)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .support import need_learn_extra, public_path, tictactoe, tiny_settings

need_learn_extra()
tictactoe()  # loaded before JAX runs (see support.public_game)

ROOT = Path(__file__).resolve().parents[2]


def test_the_curve_of_a_trained_run_and_its_finals(tmp_path: Path) -> None:
    from ggpkit.learn.trainer import Trainer

    model = tmp_path / "ttt.model"
    Trainer(tictactoe(), model, tiny_settings(generation_games=16)).run(rounds=2)
    kept = sorted(p.stem for p in (tmp_path / "ttt.model.generations").iterdir())
    cmd = [sys.executable, str(ROOT / "benchmarks" / "az_vs_mcts.py"),
           str(public_path("ticTacToe")), "--trained", str(model), "--out", str(tmp_path / "r"),
           "--curve-matches", "2", "--matches", "2", "--move-time", "0.05",
           "--final-simulations", "8"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = (tmp_path / "r" / "results.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    curve = [r for r in rows if r["kind"] == "curve"]
    assert [r["generation"] for r in curve] == [int(k) for k in kept]
    finals = [r["kind"] for r in rows if r["kind"] != "curve"]
    assert finals == ["equal-time", "equal-simulations", "hybrid-equal-time"]
    assert all(r["matches"] == 2 and r["wins"] + r["draws"] + r["losses"] == 2 for r in rows)


def test_the_throughput_table_has_one_core_two_cores_and_two_nodes() -> None:
    pytest.importorskip("ray")
    cmd = [sys.executable, str(ROOT / "benchmarks" / "selfplay_throughput.py"),
           str(public_path("ticTacToe")), "--seconds", "1", "--repeats", "1",
           "--games-in-flight", "4"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split("|") for line in done.stdout.splitlines() if line.startswith("| ")]
    named = {r[1].strip(): float(r[2]) for r in rows[1:]}
    assert set(named) == {"one core", "two cores (Ray)", "two Ray nodes"}
    assert all(rate > 0 for rate in named.values())
