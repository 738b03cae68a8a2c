"""Fetching games from a repository into the cache: named ones, or every game it lists.

A game already cached from the same repository is not asked for again unless
``refresh`` is set: a version never changes, so the cache is good offline, and
``refresh`` only asks whether a newer version exists (ggp-base's ``CloudGameRepository``
refreshes on every start; here the user decides when the network is used). A game
cached from another repository is fetched again from the one asked for.

Failures of one game (not in the repository, a malformed document, an answer too
large) are reported for that game and the others go on; a repository that cannot be
reached or is too slow stops the whole fetch, since every other request would wait
for the same limits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from ggpkit.games.library.cache import GameCache
from ggpkit.games.library.client import (
    DEFAULT_REPOSITORY,
    Limits,
    RepositoryClient,
    repository_url,
)
from ggpkit.games.library.errors import (
    AnswerTooSlowError,
    LibraryError,
    RepositoryUnreachableError,
)

FETCHED = "fetched"
UP_TO_DATE = "up to date"
CACHED = "cached"
FAILED = "failed"
WORKERS = 4
"""Games fetched at once: enough to hide a distant server's latency, few enough to be a
polite client."""

_STOPS = (RepositoryUnreachableError, AnswerTooSlowError)


@dataclass(frozen=True, slots=True)
class FetchOutcome:
    """What happened to one game: :data:`FETCHED` (a new version is in the cache),
    :data:`UP_TO_DATE` (the repository has no newer one), :data:`CACHED` (not asked
    for: already cached) or :data:`FAILED` (``error`` says why)."""

    key: str
    status: str
    version: int | None = None
    error: LibraryError | None = None


@dataclass(frozen=True, slots=True)
class FetchReport:
    """Every game's outcome in the order they ended, and the error that stopped the fetch
    (the games it left are not in ``outcomes``)."""

    repository: str
    outcomes: list[FetchOutcome]
    stopped: LibraryError | None = None

    @property
    def failed(self) -> bool:
        """Whether any game failed or the fetch stopped."""
        return self.stopped is not None or any(o.status == FAILED for o in self.outcomes)


@dataclass(frozen=True, slots=True)
class FetchRequest:
    """What to fetch: ``keys``, or every game of the repository when ``keys`` is None."""

    keys: Sequence[str] | None
    repository: str = DEFAULT_REPOSITORY
    refresh: bool = False
    limits: Limits | None = None


def fetch_games(
    request: FetchRequest,
    cache: GameCache | None = None,
    on_total: Callable[[int], None] | None = None,
    on_outcome: Callable[[FetchOutcome], None] | None = None,
) -> FetchReport:
    """Fetch the games of ``request`` into the cache; ``on_total`` hears how many games
    there are to do once that is known, ``on_outcome`` each game's outcome as it ends
    (both in the calling thread)."""
    cache = cache or GameCache()
    url = repository_url(request.repository)
    outcomes: list[FetchOutcome] = []

    def done(outcome: FetchOutcome) -> None:
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)

    pending = list(dict.fromkeys(request.keys)) if request.keys is not None else []
    if request.keys is not None and on_total is not None:
        on_total(len(pending))
    with RepositoryClient(url, request.limits) as client:
        if request.keys is None:
            try:
                every = client.keys()
            except LibraryError as e:
                return FetchReport(url, outcomes, e)
            if on_total is not None:
                on_total(len(every))
            pending = every
        stopped = _fetch_each(client, cache, pending, request.refresh, done)
    return FetchReport(url, outcomes, stopped)


def _fetch_each(
    client: RepositoryClient,
    cache: GameCache,
    keys: list[str],
    refresh: bool,
    done: Callable[[FetchOutcome], None],
) -> LibraryError | None:
    """Fetch ``keys`` a few at a time; the first error that stops a fetch, if any."""
    stopped: LibraryError | None = None
    queue = list(reversed(keys))
    running: set[Future[FetchOutcome]] = set()
    pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="ggpkit-fetch")
    try:
        while queue or running:
            while queue and stopped is None and len(running) < WORKERS:
                running.add(pool.submit(_fetch_one, client, cache, queue.pop(), refresh))
            if not running:
                break
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                outcome = future.result()
                if isinstance(outcome.error, _STOPS):
                    stopped = stopped or outcome.error
                else:
                    done(outcome)
    finally:
        # interrupted (Ctrl-C) or failed: the requests under way end by their own limits,
        # and none waiting starts
        pool.shutdown(wait=not running, cancel_futures=True)
    return stopped


def _fetch_one(client: RepositoryClient, cache: GameCache, key: str, refresh: bool) -> FetchOutcome:
    cached = cache.get(key)
    if not refresh and cached is not None and cached.repository == client.url:
        return FetchOutcome(key, CACHED, cached.version)  # no request: the cache is good
    try:
        metadata = client.metadata(key)
        if cached is not None and (cached.repository, cached.version) == (
            client.url,
            metadata.version,
        ):
            return FetchOutcome(key, UP_TO_DATE, metadata.version)
        rules = client.rules(metadata)
        description = client.description(metadata)
    except LibraryError as e:
        return FetchOutcome(key, FAILED, error=e)
    cache.store(client.url, metadata, rules, description)
    return FetchOutcome(key, FETCHED, metadata.version)
