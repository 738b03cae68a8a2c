"""The manager's side of the HTTP transport: sending messages to one remote player.

One connection per message, as ggp-base's GameServer does, with its headers
(``Content-Type: text/acl``, ``Accept: text/delim``, ``Sender: GAMESERVER``,
``Receiver``). The HTTP client is made once per player and match (:meth:`open`,
before any clock runs) and reused: building one costs tens of milliseconds (its
TLS context), which would come out of the player's clock on every message.

A reply is read as a stream and never beyond :data:`REPLY_LIMIT` bytes: a hostile
or broken player cannot make the referee hold, parse or store megabytes. Every way
a player can fail (refused connection, reset, hang, error status, garbage, an
endless reply) becomes a :class:`PlayerFault` with the ggp.org error code, so the
referee records it and plays on.
"""

from __future__ import annotations

import asyncio
from types import TracebackType

import httpx

from ggpkit.errors import GgpkitError

REPLY_LIMIT = 64 * 1024
"""Bytes of a reply read at most; a longer reply is a fault (``IL`` with its start)."""

FAULT_TEXT = 200
"""Characters of an over-long reply kept in the fault (the record's ``IL <text>``)."""


class PlayerFault(GgpkitError):
    """A player did not give a usable reply.

    ``code`` is ``TO`` (late), ``CE`` (connection) or ``IL`` (an unreadable reply,
    ``detail`` being its text, cut).
    """

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail

    def __reduce__(self) -> tuple[type[PlayerFault], tuple[str, str]]:
        """Pickled by its two fields, so it crosses process boundaries (pools, Ray) intact."""
        return (PlayerFault, (self.code, self.detail))


class RemotePlayer:
    """A player reached at ``url``; ``name`` goes into the ``Receiver`` header.

    Use it as ``async with RemotePlayer(url) as remote: await remote.send(...)``,
    or call :meth:`open` and :meth:`close` around the match.
    """

    def __init__(
        self,
        url: str,
        name: str | None = None,
        grace: float = 1.0,
        reply_limit: int = REPLY_LIMIT,
    ) -> None:
        self.url = url
        self.name = name or url
        self.grace = grace
        """Seconds added to each clock for the network, as real managers allow."""
        self.reply_limit = reply_limit
        self._client: httpx.AsyncClient | None = None

    @property
    def is_open(self) -> bool:
        """Whether the HTTP client is made (between :meth:`open` and :meth:`close`)."""
        return self._client is not None

    async def open(self) -> None:
        """Make the HTTP client (once): call it before the clocks start."""
        if self._client is None:
            self._client = httpx.AsyncClient()

    async def close(self) -> None:
        """Close the HTTP client; the player can be opened again."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def __aenter__(self) -> RemotePlayer:
        await self.open()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.close()

    def _headers(self) -> dict[str, str]:
        return {
            "Content-Type": "text/acl",
            "Accept": "text/delim",
            "Accept-Encoding": "identity",  # the limit counts the bytes that arrive
            "Sender": "GAMESERVER",
            "Receiver": self.name,
            "Connection": "close",
        }

    async def send(self, message: str, clock: float, grace: float | None = None) -> str:
        """Send ``message``; the reply text within ``clock`` + grace seconds, or PlayerFault."""
        client = self._client
        assert client is not None, "open() the remote player before sending"
        timeout = clock + (self.grace if grace is None else grace)
        try:
            async with asyncio.timeout(timeout):
                body = await self._exchange(client, message, timeout)
        except (httpx.TimeoutException, TimeoutError):
            raise PlayerFault("TO", f"no reply within {timeout:g} s") from None
        except (httpx.HTTPError, OSError) as e:
            raise PlayerFault("CE", f"{type(e).__name__}: {e}") from None
        return body.decode("utf-8", errors="replace").strip()

    async def _exchange(self, client: httpx.AsyncClient, message: str, timeout: float) -> bytes:
        """POST ``message`` and read the reply's body, never past the reply limit."""
        request = client.stream(
            "POST",
            self.url,
            content=message.encode(),
            headers=self._headers(),
            timeout=httpx.Timeout(timeout),
        )
        async with request as response:
            if response.status_code != 200:
                raise PlayerFault("CE", f"HTTP status {response.status_code}")
            body = bytearray()
            async for chunk in response.aiter_raw():
                body += chunk
                if len(body) > self.reply_limit:
                    raise _over_long(bytes(body[: self.reply_limit]), self.reply_limit)
        return bytes(body)


def _over_long(start: bytes, limit: int) -> PlayerFault:
    """The fault of a reply longer than ``limit`` bytes: ``IL`` with its first characters."""
    text = " ".join(start.decode("utf-8", errors="replace").split()[:FAULT_TEXT])
    return PlayerFault("IL", text[:FAULT_TEXT] or f"a reply longer than {limit} bytes")
