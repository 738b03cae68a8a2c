"""Long commands show a live line on a terminal's stderr, and leave stdout as it was."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import threading
from pathlib import Path

from match.support import TINY_GDL

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def run_on_a_terminal(*args: str) -> tuple[int, str, str]:
    """Run ``ggpkit ARGS`` with stderr on a pseudo-terminal and stdout on a pipe.

    Returns the exit status, stdout, and what the terminal showed (escapes removed).
    """
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "160"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ggpkit", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    chunks: list[bytes] = []

    def read() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        out, _ = proc.communicate(timeout=300)
    finally:
        proc.kill()
        reader.join(10)
        os.close(master)
    terminal = ANSI.sub("", b"".join(chunks).decode("utf-8", "replace"))
    return proc.returncode, out.decode(), terminal


def test_arena_shows_matches_done_and_time_left() -> None:
    args = ["arena", "pawn-checkers", "random", "random", "-n", "3", "-j", "1", "--no-store"]
    code, out, terminal = run_on_a_terminal(*args)
    assert code == 0, terminal
    assert re.search(r"pawn-checkers: random vs random .* 0/3 matches", terminal)
    assert "left" in terminal  # the estimate of the time left
    assert "pawn-checkers: 3 matches, seed" in out
    assert "matches 0:" not in out and "\x1b" not in out


def test_bench_says_which_game_and_engine_it_measures() -> None:
    args = ["bench", "--games", "peg", "--engine", "native", "--seconds", "0.01", "--repeat", "1"]
    code, out, terminal = run_on_a_terminal(*args)
    assert code == 0, terminal
    assert "peg (native)" in terminal and "0/1 measured" in terminal
    assert "playouts/s" in out and "measured" not in out and "\x1b" not in out


def test_solve_shows_a_status_line_and_leaves_stdout_whole(tmp_path: Path) -> None:
    game = tmp_path / "tiny.kif"
    game.write_text(TINY_GDL, encoding="utf-8")
    code, out, terminal = run_on_a_terminal("solve", str(game))
    assert code == 0, terminal
    assert "solving tiny for white" in terminal and "0:00:0" in terminal
    lines = out.splitlines()
    assert lines[-1].startswith("value: white=") and "\x1b" not in out
    assert any(re.fullmatch(r"1\. white \(add [12]\)", line) for line in lines)
    assert "solving" not in out
