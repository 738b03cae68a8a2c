"""Ray as the tournament's executor: each match one Ray task, anywhere in the cluster.

Embedded by default (``ray.init()`` starts a one-machine cluster with every core), or
joining a running cluster with ``address``. A task asks for the cores of its hungriest
player. A worker that dies (killed, out of memory, its machine gone) has its task
retried by Ray, :data:`TASK_RETRIES` times; a match that fails by itself (a game error)
is not retried but reported, and its slot stays open for ``resume``.

Ray is an optional dependency (``pip install ggpkit[ray]``): it is imported here only.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections import Counter
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from typing import Any

from ggpkit.errors import GgpkitError
from ggpkit.match.records import MatchRecord
from ggpkit.tournament.play import MatchFailed, MatchTask, play_task

TASK_RETRIES = 3
"""Times Ray runs a match again after its worker died."""


class RayMissingError(GgpkitError):
    """Ray is not installed: tournaments need the ``ray`` extra."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayMissingError(
            "tournaments run on Ray, which is not installed: pip install 'ggpkit[ray]'"
        ) from None
    return ray


def _remote_play(task: MatchTask) -> tuple[str, MatchRecord]:
    """Play in a Ray worker; the record comes back with the id of the node that played it."""
    return node_of_task(), play_task(task)


class RayExecutor:
    """Submits match tasks to Ray and hands back each finished one once."""

    def __init__(
        self, address: str | None = None, num_cpus: int | None = None, **init: Any
    ) -> None:
        ray = self.ray = _ray()
        self.owns_cluster = False
        if not ray.is_initialized():
            options: dict[str, Any] = {
                "include_dashboard": False,
                "log_to_driver": False,
                "logging_level": logging.WARNING,
                **init,
            }
            if address is None:  # "local": a new cluster, never one that happens to run here
                options["num_cpus"] = num_cpus
            with _signal_handlers_kept():
                ray.init(address=address or "local", **options)
            self.owns_cluster = True
        self._play = ray.remote(max_retries=TASK_RETRIES, retry_exceptions=False)(_remote_play)
        self._cores = int(ray.cluster_resources().get("CPU", 1))
        self._running: dict[Any, Hashable] = {}
        self.nodes: Counter[str] = Counter()
        """Matches played per Ray node id (to see that a cluster used every node)."""

    def capacity(self) -> int:
        """Matches to keep submitted at once: twice the cluster's cores when it was joined
        (so none sits idle while the driver stores a result)."""
        return max(2, 2 * self._cores)

    def submit(self, task: MatchTask, handle: Hashable) -> None:
        ref = self._play.options(num_cpus=task.cpus).remote(task)
        self._running[ref] = handle

    def wait(self, timeout: float) -> list[tuple[Hashable, MatchRecord | str]]:
        """Finished tasks (waiting up to ``timeout`` s for the first): a record or an error line."""
        if not self._running:
            return []
        refs = list(self._running)
        done, _ = self.ray.wait(refs, num_returns=1, timeout=timeout)
        if done:
            done, _ = self.ray.wait(refs, num_returns=len(refs), timeout=0)
        out: list[tuple[Hashable, MatchRecord | str]] = []
        for ref in done:
            handle = self._running.pop(ref)
            try:
                node, record = self.ray.get(ref)
            except Exception as e:  # a failed task: RayTaskError, WorkerCrashedError, ...
                out.append((handle, _one_line(e)))
                continue
            self.nodes[node] += 1
            out.append((handle, record))
        return out

    def close(self) -> None:
        for ref in self._running:
            self.ray.cancel(ref, force=True)
        self._running.clear()
        if self.owns_cluster:
            self.ray.shutdown()


@contextmanager
def _signal_handlers_kept() -> Iterator[None]:
    """Put back this process's SIGTERM and SIGINT handlers after ``ray.init`` replaced them.

    Ray installs its own (a SIGTERM then prints a native stack trace and kills the
    driver); ggpkit's make a signal end the command as Ctrl-C does, with its clean-up.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in kept.items():
            if handler is not None:
                signal.signal(sig, handler)


def _one_line(error: BaseException) -> str:
    """A failed task as one line: a match's own failure as it said it, else Ray's error."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, MatchFailed):
        return str(cause)[:300]
    shown = cause if isinstance(cause, BaseException) else error
    lines = [line for line in str(shown).splitlines() if line.strip()]
    return f"{type(shown).__name__}: {lines[-1] if lines else ''}"[:300]


def node_of_task() -> str:
    """The Ray node id this code runs on (for checking that a cluster used every node)."""
    return str(_ray().get_runtime_context().get_node_id())
