"""Loads of uploaded rules that run in the background while a page shows their progress.

A big game (chess on the prover, hex's propnet) takes longer to load, grounding and
compiling its rules, than a request should wait. ``POST /api/kif/loads`` starts a
:class:`LoadJob` and answers at once; the page polls it and shows the stage it is in (parse, check,
compile, try, probe) with the seconds spent, until it is loaded or rejected. A job's
error keeps every problem of the rules, so the page can list them by line.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game, GameError
from ggpkit.web.kif_upload import KifRejected, load_checked_kif

MAX_JOBS = 64
"""Finished jobs kept for their pages to read (the oldest are forgotten first)."""

PARALLEL_LOADS = 2
"""Loads that run at once; more wait their turn (compiling takes a core each)."""

MAX_UNFINISHED = 8
"""Loads running or waiting at once; another is refused until one ends."""


class TooManyLoads(GgpkitError):
    """Every load slot is taken: the request is refused rather than queued without end."""


Loaded = Callable[[str, str, Game[Any]], dict[str, Any]]
"""Told (name, text, game) of loaded rules; returns what the page needs to play them."""


@dataclass
class LoadJob:
    """One load: where it is, and how it ended."""

    id: str
    name: str
    stage: str = "waiting"
    started: float = field(default_factory=time.monotonic)
    stage_started: float = field(default_factory=time.monotonic)
    done: list[dict[str, Any]] = field(default_factory=list)
    """Finished stages with their seconds."""
    result: dict[str, Any] | None = None
    error: str | None = None
    problems: list[dict[str, Any]] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.result is not None or self.error is not None

    def enter(self, stage: str) -> None:
        now = time.monotonic()
        if self.stage != "waiting":
            self.done.append({"stage": self.stage, "seconds": round(now - self.stage_started, 2)})
        self.stage, self.stage_started = stage, now

    def view(self) -> dict[str, Any]:
        now = time.monotonic()
        return {
            "id": self.id,
            "name": self.name,
            "stage": self.stage,
            "stage_seconds": round(now - self.stage_started, 1),
            "seconds": round(now - self.started, 1),
            "done": self.done,
            "finished": self.finished,
            "result": self.result,
            "error": self.error,
            "problems": self.problems,
        }


class LoadJobs:
    """The running and recently finished loads of a server."""

    def __init__(self, loaded: Loaded) -> None:
        self._loaded = loaded
        self._jobs: dict[str, LoadJob] = {}
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(PARALLEL_LOADS)

    def start(self, text: str, name: str) -> LoadJob:
        """A new load of ``text``, running in its own thread; TooManyLoads when all are taken."""
        job = LoadJob(f"load-{secrets.token_hex(6)}", name)
        with self._lock:
            unfinished = sum(1 for j in self._jobs.values() if not j.finished)
            if unfinished >= MAX_UNFINISHED:
                raise TooManyLoads(
                    f"{unfinished} games are loading already; try again when one is ready"
                )
            self._jobs[job.id] = job
            while len(self._jobs) > MAX_JOBS:
                self._jobs.pop(next(iter(self._jobs)))
        threading.Thread(target=self._run, args=(job, text), daemon=True, name=job.id).start()
        return job

    def finished(self, name: str, result: dict[str, Any]) -> LoadJob:
        """A job that is over before it starts: rules loaded before, whose game is kept."""
        job = LoadJob(f"load-{secrets.token_hex(6)}", name, stage="ready", result=result)
        with self._lock:
            self._jobs[job.id] = job
            while len(self._jobs) > MAX_JOBS:
                self._jobs.pop(next(iter(self._jobs)))
        return job

    def get(self, job_id: str) -> LoadJob | None:
        with self._lock:
            return self._jobs.get(job_id)

    def _run(self, job: LoadJob, text: str) -> None:
        with self._slots:
            try:
                game = load_checked_kif(text, job.name, job.enter)
                job.enter("ready")
                job.result = self._loaded(job.name, text, game)
            except KifRejected as e:
                job.problems = e.problems
                job.error = str(e)
            except GameError as e:
                job.error = str(e)
            except Exception as e:  # a thread's failure is shown, never lost
                job.error = f"{job.name}: {type(e).__name__}: {e}"
