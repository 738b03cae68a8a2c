"""Process lifetime: children die with their parent; a signal ends any command in time.

Each test runs real processes and watches them through ``/proc`` (Linux only), since
what is tested is what the operating system sees: no child left running after its
parent is gone, and no command alive two seconds after SIGTERM or Ctrl-C (checked
here with slack for a loaded machine).
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import httpx
import pytest
from web.support import web_server

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="watches processes through Linux's /proc"
)

ENDED_WITHIN = 6.0
"""Seconds a signalled process gets here (it must end within 2 s; CI machines are loaded)."""


def _state(pid: int) -> str | None:
    """The process's state letter, None when it is gone (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state = stat.rsplit(")", 1)[1].split()[0]
    return None if state in ("Z", "X") else state


def _children(pid: int) -> list[int]:
    """Live direct children of ``pid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            out.append(int(entry.name))
    return out


def _wait_gone(pids: list[int], seconds: float) -> list[int]:
    """The pids still alive after up to ``seconds``."""
    deadline = time.monotonic() + seconds
    alive = pids
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [p for p in alive if _state(p) is not None]
    return alive


def _ggpkit(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ggpkit", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _ended_after(proc: subprocess.Popen[str], signum: int) -> float | None:
    """Send ``signum``; seconds until the process ended, None if it did not within the bound."""
    start = time.monotonic()
    proc.send_signal(signum)
    try:
        proc.wait(ENDED_WITHIN)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None
    return time.monotonic() - start


# ---- children ------------------------------------------------------------------------

_PARENT = """
import multiprocessing, os, sys, time
from ggpkit import processes

def child(parent):
    if sys.argv[1] == "watcher":  # as on a system without PR_SET_PDEATHSIG
        processes._kernel_kills_on_parent_death = lambda: False
    processes.die_with_parent(parent)
    time.sleep(120)

if __name__ == "__main__":
    ctx = multiprocessing.get_context("fork")
    proc = ctx.Process(target=child, args=(os.getpid(),))
    proc.start()
    print(proc.pid, flush=True)
    time.sleep(120)
"""


@pytest.mark.parametrize("how", ["kernel", "watcher"])
def test_a_child_dies_when_its_parent_is_killed(how: str) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, how], stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    time.sleep(0.5)  # the child is set up
    assert _state(child) is not None
    parent.kill()  # no cleanup can run: only the child's own binding can end it
    parent.wait()
    assert _wait_gone([child], ENDED_WITHIN) == []


# ---- signals -------------------------------------------------------------------------

_STUBBORN = """
import sys, time
from ggpkit.processes import exit_on_signals
exit_on_signals(grace=0.5)
try:
    print("ready", flush=True)
    time.sleep(120)
except KeyboardInterrupt:
    while True:  # a command whose clean-up never ends
        try:
            time.sleep(10)
        except KeyboardInterrupt:
            pass
"""


def test_a_command_that_does_not_end_after_sigterm_is_ended() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _STUBBORN], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().strip() == "ready"
    assert _ended_after(proc, signal.SIGTERM) is not None
    assert proc.returncode == 128 + signal.SIGTERM
    assert "stopped" in proc.stderr.read()


def test_sigterm_ends_a_solve_running_in_compiled_code() -> None:
    proc = _ggpkit("solve", "breakthrough-holes")  # a solve of a minute or more
    time.sleep(4)
    assert proc.poll() is None, "the solve ended before it could be interrupted"
    assert _ended_after(proc, signal.SIGTERM) is not None
    assert proc.returncode == 128 + signal.SIGTERM


def test_sigterm_ends_an_arena_and_its_workers() -> None:
    proc = _ggpkit(
        "arena", "pawn-checkers", "mcts:time=2", "mcts:time=2", "--matches", "6", "--jobs", "2",
        "--no-store",
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    workers = _children(proc.pid)
    assert len(workers) >= 2, "the arena did not start its workers"
    assert _ended_after(proc, signal.SIGTERM) is not None
    assert _wait_gone(workers, 2.0) == []


def test_sigterm_ends_the_web_app_while_an_agent_thinks(
    tmp_path: Path,
) -> None:
    with web_server(tmp_path / "m.sqlite3") as (proc, url):
        _agent_thinks_while_sigterm_arrives(proc, url)


def _agent_thinks_while_sigterm_arrives(proc: subprocess.Popen[bytes], url: str) -> None:
    seats = {"white": "mcts"}
    body = {"game": "breakthrough-holes", "seats": seats, "agent_time": 30}
    session = httpx.post(url + "/api/sessions", json=body, timeout=30).json()

    def think() -> None:
        # The server ends under this request; whatever happens to it is fine.
        with contextlib.suppress(httpx.HTTPError):
            token = {"X-Session-Token": session["token"]}
            httpx.post(f"{url}/api/sessions/{session['id']}/agent", headers=token, timeout=60)

    threading.Thread(target=think, daemon=True).start()
    time.sleep(1.5)
    assert proc.poll() is None
    assert _ended_after(proc, signal.SIGTERM) is not None


def test_the_signal_module_is_importable_by_every_layer() -> None:
    # ggpkit.processes must import nothing of ggpkit (it sits below every layer).
    source = Path(__file__).resolve().parents[1] / "ggpkit" / "processes.py"
    text = textwrap.dedent(source.read_text())
    assert "from ggpkit" not in text and "import ggpkit" not in text


def test_usable_cpus_follow_the_affinity_mask_not_the_machine() -> None:
    # Pinned to one core (as taskset does), a player must start one search, not one per
    # core of the machine sharing that core.
    script = "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))});"
    script += "from ggpkit.processes import usable_cpus; print(usable_cpus())"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1"
