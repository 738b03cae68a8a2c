"""Process lifetime: children end with their parent, and a signal ends a command in time.

ggpkit starts child processes (clingo grounding in a fork, trial loads of uploaded
rules, arena workers, the corpus's per-game children). Two promises hold for all of
them, whatever the exit path of the parent (return, exception, Ctrl-C, SIGTERM,
``kill -9``):

- **A child never outlives its parent.** Every child calls :func:`die_with_parent`
  first: on Linux the kernel kills it when the parent dies (``PR_SET_PDEATHSIG``),
  elsewhere a thread watches the parent's pid. Children also ignore Ctrl-C (the
  terminal sends it to the whole process group; the parent decides what ends).
- **SIGTERM or Ctrl-C ends a command within a couple of seconds.**
  :func:`exit_on_signals` (called by the CLI) makes SIGTERM behave as Ctrl-C, so
  ``finally`` blocks and pool shutdowns run; and because a Python signal handler
  cannot run while the main thread is inside a long compiled call (a solve, a
  perft, a clingo grounding), a watcher thread reads the interpreter's signal
  wake-up pipe and ends the process :data:`EXIT_GRACE_SECONDS` after the signal if
  it is still alive by then.

This module sits below every layer (it imports nothing of ggpkit).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType

EXIT_GRACE_SECONDS = 1.5
"""How long a signalled command may take to end by itself before it is ended."""

PARENT_POLL_SECONDS = 0.25
"""How often a child without ``PR_SET_PDEATHSIG`` checks that its parent lives."""

_PR_SET_PDEATHSIG = 1
_ENDING_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})

received_signal: int | None = None
"""The signal that asked this process to end (None while none did); for the exit code."""


# ---- children ------------------------------------------------------------------------


def usable_cpus() -> int:
    """The cores this process may run on: its affinity mask (``taskset``, a container's
    cpuset), not the machine's count, so that a player pinned to one core does not
    start a search per core of the machine and share that one core among them."""
    with contextlib.suppress(AttributeError, OSError):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def die_with_parent(parent_pid: int) -> None:
    """Bind this (child) process's life to ``parent_pid``'s; call it first in a child.

    ``parent_pid`` is the parent's pid as the parent saw it before starting the
    child, so a parent that died during the child's start-up is noticed too. A
    forked child does not keep its parent's signal set-up: it ignores Ctrl-C and
    dies of SIGTERM, and the parent's wake-up pipe is dropped (a signal to the child
    must not look like a signal to the parent).
    """
    with contextlib.suppress(ValueError):  # only possible in the main thread
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not _kernel_kills_on_parent_death():
        threading.Thread(
            target=_watch_parent, args=(parent_pid,), name="ggpkit-parent-watch", daemon=True
        ).start()
    if os.getppid() != parent_pid:
        os._exit(1)


def _kernel_kills_on_parent_death() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where that is not offered.

    The kernel means the parent *thread* that started the child: ggpkit starts
    children only from threads that wait for them (or that outlive them, as a
    process pool's own threads do).
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def cpu_seconds(pid: int, *, user_only: bool = False) -> float | None:
    """CPU time (user + system) ``pid`` has used so far; None where /proc cannot tell.

    Why CPU and not wall time: a budget in CPU seconds gives the same verdict on a
    quiet machine and on one where other work takes the cores. ``user_only`` leaves
    out the system time, which a forked child spends copying the pages it shares with
    its parent and reclaiming memory: work that depends on the machine's state (how
    large the parent is, how full memory is), not on the child's own task.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # the name may hold spaces
    ticks = int(fields[11]) + (0 if user_only else int(fields[12]))  # utime, stime (14, 15)
    return ticks / os.sysconf("SC_CLK_TCK")


def limit_memory(extra_bytes: int) -> None:
    """Let this process allocate at most ``extra_bytes`` more data memory (RLIMIT_DATA).

    Counted from what the process holds now: a forked child inherits its parent's
    memory, and a limit below that would fail every allocation at once. Silently
    nothing where the platform has no such limit.
    """
    try:
        import resource

        held = _data_bytes()
        if held is None:
            return
        limit = held + extra_bytes
        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ImportError, AttributeError, ValueError, OSError):
        pass


def _data_bytes() -> int | None:
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmData:"):
            return int(line.split()[1]) * 1024
    return None


# ---- the command's own process --------------------------------------------------------


def exit_on_signals(grace: float = EXIT_GRACE_SECONDS) -> None:
    """SIGTERM acts as Ctrl-C; after either, the process ends within ``grace`` seconds.

    Call once, from the main thread, before starting any child or thread. The
    normal path is Python's: ``KeyboardInterrupt`` unwinds the main thread and its
    ``finally`` blocks run (pools terminate their workers, grounding kills its
    child). If the process is still alive ``grace`` seconds after the signal (the
    main thread was inside compiled code, or waited on a thread that does not
    end), the watcher ends it with status ``128 + signal``; its children then die
    with it (:func:`die_with_parent`).
    """
    signal.signal(signal.SIGTERM, _interrupt)
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    threading.Thread(
        target=_end_after_signal, args=(read_end, grace), name="ggpkit-signal-watch", daemon=True
    ).start()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM's handler: what Python's own SIGINT handler does, remembering the signal."""
    global received_signal
    received_signal = signum
    raise KeyboardInterrupt


def exit_status() -> int:
    """The conventional exit status of a command ended by a signal (130 for Ctrl-C)."""
    return 128 + (received_signal or signal.SIGINT)


def _end_after_signal(read_end: int, grace: float) -> None:
    while True:
        data = os.read(read_end, 64)
        if not data:
            return
        ending = [s for s in data if s in _ENDING_SIGNALS]
        if ending:
            break
    time.sleep(grace)
    os.write(2, b"ggpkit: stopped (did not end by itself after the signal)\n")
    os._exit(128 + ending[0])


__all__ = [
    "EXIT_GRACE_SECONDS",
    "cpu_seconds",
    "die_with_parent",
    "exit_on_signals",
    "exit_status",
    "limit_memory",
    "received_signal",
]
