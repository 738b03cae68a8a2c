"""A client for ggp.org-style game repositories, read as ggp-base's ``RemoteGameRepository`` does.

A repository at ``URL`` answers three kinds of request:

* ``URL/games/``: a JSON list of game keys;
* ``URL/games/KEY/``: the game's metadata, a JSON object naming its ``rulesheet`` (and
  optionally its ``description`` and ``stylesheet``) and its ``version``, the newest;
* ``URL/games/KEY/vN/FILE``: a file of version ``N`` of the game. A version's files
  never change, so a copy of version ``N`` stays good for as long as it is kept.

A repository is untrusted: every request has a connect and a read timeout and a total
deadline, every answer is read as a stream and cut at a byte cap for its kind of
document, and every document is validated field by field before anything is made of
it. Each failure is its own :class:`~ggpkit.games.library.errors.LibraryError` with a
one-line message naming the URL.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, replace
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ggpkit.games.library.errors import (
    AnswerTooLargeError,
    AnswerTooSlowError,
    GameNotFoundError,
    LibraryError,
    MalformedAnswerError,
    RepositoryUnreachableError,
)
from ggpkit.games.library.storage import is_key
from ggpkit.gdl.kif import MAX_TEXT_CHARS

if TYPE_CHECKING:
    import httpx

DEFAULT_REPOSITORY = "http://games.ggp.org/base"
"""The repository ggp-base reads by default (``GameRepository.getDefaultRepository``)."""

FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,199}")
"""A file name a metadata document may give: one name in the game's folder, nothing that
climbs out of it."""

MAX_VERSION = 1_000_000
MAX_TITLE_CHARS = 200


@dataclass(frozen=True, slots=True)
class Limits:
    """How long a repository may take and how much it may send (each request apart).

    A wait for one piece of an answer is bounded by ``read_seconds``, the whole answer by
    ``request_seconds`` (checked as the pieces arrive, so a request ends within
    ``request_seconds`` plus at most one read wait). The caps hold for every answer of
    their kind; the rulesheet's is the most the GDL reader accepts, since a longer one
    would be refused when loaded anyway.
    """

    connect_seconds: float = 10.0
    read_seconds: float = 20.0
    request_seconds: float = 60.0
    max_list_bytes: int = 1_000_000
    max_keys: int = 10_000
    max_metadata_bytes: int = 65_536
    max_rules_bytes: int = MAX_TEXT_CHARS
    max_description_bytes: int = 65_536

    def with_deadline(self, seconds: float) -> Limits:
        """These limits with a total of ``seconds`` per request (and no wait longer)."""
        return replace(
            self,
            request_seconds=seconds,
            connect_seconds=min(self.connect_seconds, seconds),
            read_seconds=min(self.read_seconds, seconds),
        )


@dataclass(frozen=True, slots=True)
class GameMetadata:
    """A game's metadata document, validated: what the cache keeps of it."""

    key: str
    version: int
    rulesheet: str
    """The rulesheet's file name in the version's folder."""
    title: str | None = None
    """``gameName``: the game's name for people."""
    description: str | None = None
    """The description's file name, if the game has one."""
    stylesheet: str | None = None
    """The stylesheet's file name (recorded, not fetched: ggpkit draws its own boards)."""


def repository_url(text: str) -> str:
    """A repository URL as requests are built on it: ``http://`` added to a bare host (as
    ggp-base does for ``games.ggp.org/base``), no trailing ``/``; LibraryError for
    anything but an http(s) URL with a host."""
    url = text.strip()
    if "://" not in url:
        url = "http://" + url
    scheme, _, rest = url.partition("://")
    host = rest.split("/", 1)[0]
    if scheme.lower() not in ("http", "https") or not host or any(c.isspace() for c in url):
        raise LibraryError(f"{text}: not an http(s) URL of a game repository")
    return url.rstrip("/")


def parse_keys(data: bytes, url: str, max_keys: int) -> list[str]:
    """The game keys of a ``games/`` answer, sorted; MalformedAnswerError for anything but a
    list of at most ``max_keys`` keys."""
    document = _json(data, url)
    if not isinstance(document, list):
        raise MalformedAnswerError(f"{url}: expected a JSON list of game keys")
    if len(document) > max_keys:
        raise MalformedAnswerError(f"{url}: more than {max_keys:,} game keys")
    for item in document:
        if not isinstance(item, str) or not is_key(item):
            raise MalformedAnswerError(f"{url}: {_short(item)} is not a game key")
    return sorted(set(document))


def parse_metadata(data: bytes, key: str, url: str, version: int | None = None) -> GameMetadata:
    """A game's metadata document, field by field; MalformedAnswerError naming the field.

    ``version``, where given, replaces the document's own: a repository folder's METADATA
    files say none, the version being the newest ``vN`` folder (as the repository server
    fills it in).
    """
    document = _json(data, url)
    if not isinstance(document, dict):
        raise MalformedAnswerError(f"{url}: expected a JSON object of game metadata")
    if version is not None:
        document["version"] = version
    number = document.get("version")
    if isinstance(number, bool) or not isinstance(number, int):
        raise MalformedAnswerError(f"{url}: 'version' must be a whole number, not {_short(number)}")
    if not 0 <= number <= MAX_VERSION:
        raise MalformedAnswerError(f"{url}: 'version' {number} is not in 0..{MAX_VERSION:,}")
    rulesheet = _file_name(document, "rulesheet", url)
    if rulesheet is None:
        raise MalformedAnswerError(f"{url}: the metadata names no 'rulesheet'")
    title = document.get("gameName")
    if title is not None and (not isinstance(title, str) or len(title) > MAX_TITLE_CHARS):
        raise MalformedAnswerError(
            f"{url}: 'gameName' must be a string of at most {MAX_TITLE_CHARS} characters"
        )
    return GameMetadata(
        key,
        number,
        rulesheet,
        _one_line(title) if isinstance(title, str) else None,
        _file_name(document, "description", url),
        _file_name(document, "stylesheet", url),
    )


class RepositoryClient:
    """Requests to one repository, under :class:`Limits`; a context manager (one HTTP
    connection pool, closed at the end). Safe to use from several threads at once."""

    def __init__(self, url: str = DEFAULT_REPOSITORY, limits: Limits | None = None) -> None:
        import httpx

        self.url = repository_url(url)
        self.limits = limits or Limits()
        lim = self.limits
        self._http = httpx.Client(
            timeout=httpx.Timeout(
                connect=lim.connect_seconds,
                read=min(lim.read_seconds, lim.request_seconds),
                write=lim.connect_seconds,
                pool=lim.request_seconds,
            ),
            follow_redirects=True,
            max_redirects=5,
            headers={"Accept-Encoding": "identity", "User-Agent": "ggpkit"},
        )

    def __enter__(self) -> RepositoryClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections."""
        self._http.close()

    def game_url(self, key: str) -> str:
        """The URL of a game's metadata."""
        return f"{self.url}/games/{key}/"

    def file_url(self, metadata: GameMetadata, name: str) -> str:
        """The URL of a file of the metadata's version of its game."""
        return f"{self.url}/games/{metadata.key}/v{metadata.version}/{name}"

    def keys(self) -> list[str]:
        """Every game key the repository lists."""
        url = f"{self.url}/games/"
        data = self.get(url, self.limits.max_list_bytes, "a list of games")
        if data is None:
            raise RepositoryUnreachableError(f"{url}: no list of games here (HTTP 404)")
        return parse_keys(data, url, self.limits.max_keys)

    def metadata(self, key: str) -> GameMetadata:
        """The newest version's metadata of a game; GameNotFoundError when there is none."""
        if not is_key(key):
            raise GameNotFoundError(f"{key!r} is not a game key (letters, digits, _ . + -)")
        url = self.game_url(key)
        data = self.get(url, self.limits.max_metadata_bytes, "game metadata")
        if data is None:
            raise GameNotFoundError(f"{url}: no game {key!r} in the repository (HTTP 404)")
        return parse_metadata(data, key, url)

    def rules(self, metadata: GameMetadata) -> bytes:
        """The rulesheet of the metadata's version, as sent."""
        url = self.file_url(metadata, metadata.rulesheet)
        data = self.get(url, self.limits.max_rules_bytes, "a rulesheet")
        if data is None:
            raise MalformedAnswerError(f"{url}: the rulesheet the metadata names is missing")
        return data

    def description(self, metadata: GameMetadata) -> str | None:
        """The description of the metadata's version; None when it names none or the
        repository does not have it (ggp-base too treats a description as optional)."""
        if metadata.description is None:
            return None
        url = self.file_url(metadata, metadata.description)
        data = self.get(url, self.limits.max_description_bytes, "a description")
        return None if data is None else data.decode("utf-8", errors="replace")

    def get(self, url: str, limit: int, what: str) -> bytes | None:
        """The body of a 200 answer to ``GET url`` (at most ``limit`` bytes of ``what``,
        within the time limits), or None for a 404; LibraryError for anything else."""
        import httpx

        try:
            with self._http.stream("GET", url) as response:
                return self._body(response, url, limit, what)
        except httpx.ConnectTimeout:
            raise RepositoryUnreachableError(
                f"{url}: no connection within {self.limits.connect_seconds:g} s"
            ) from None
        except httpx.TimeoutException:
            raise AnswerTooSlowError(
                f"{url}: no answer within {self.limits.read_seconds:g} s"
            ) from None
        except httpx.TooManyRedirects:
            raise RepositoryUnreachableError(f"{url}: too many redirects") from None
        except httpx.HTTPError as e:
            raise RepositoryUnreachableError(f"{url}: unreachable ({_reason(e)})") from None

    def _body(self, response: httpx.Response, url: str, limit: int, what: str) -> bytes | None:
        seconds = self.limits.request_seconds
        deadline = time.monotonic() + seconds
        if response.status_code == 404:
            return None
        if response.status_code != 200:
            raise RepositoryUnreachableError(
                f"{url}: the repository answered HTTP {response.status_code}"
            )
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            raise MalformedAnswerError(
                f"{url}: a {encoding}-encoded answer, though none was asked for"
            )
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise AnswerTooLargeError(
                f"{url}: {int(length):,} bytes, more than the {limit:,} read for {what}"
            )
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_raw():
            size += len(chunk)
            if size > limit:
                raise AnswerTooLargeError(f"{url}: more than the {limit:,} bytes read for {what}")
            if time.monotonic() > deadline:
                raise AnswerTooSlowError(f"{url}: the answer took longer than {seconds:g} s")
            chunks.append(chunk)
        return b"".join(chunks)


def _json(data: bytes, url: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        detail = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise MalformedAnswerError(f"{url}: not a JSON document ({detail})") from None


def _file_name(document: dict[str, Any], field: str, url: str) -> str | None:
    value = document.get(field)
    if value is None:
        return None
    if not isinstance(value, str) or FILE_NAME.fullmatch(value) is None:
        raise MalformedAnswerError(f"{url}: {field!r} must be a file name, not {_short(value)}")
    return value


def _one_line(text: str) -> str | None:
    return " ".join(text.split()) or None


def _short(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, bytes) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _reason(error: Exception) -> str:
    """An httpx error's cause in a few words (``connection refused``), not its errno noise."""
    text = str(error) or type(error).__name__
    text = re.sub(r"^\[Errno -?\d+\]\s*", "", text.splitlines()[0])
    return text.lower() if text else type(error).__name__
