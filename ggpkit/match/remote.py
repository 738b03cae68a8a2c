"""The manager's side of the HTTP transport: sending one message to a remote player.

One connection per message, as ggp-base's GameServer does, with its headers
(``Content-Type: text/acl``, ``Accept: text/delim``, ``Sender: GAMESERVER``,
``Receiver``). Every way a player can fail (refused connection, reset, hang,
error status, garbage) becomes a :class:`PlayerFault` with the ggp.org error
code, so the referee records it and plays on.
"""

from __future__ import annotations

import asyncio

import httpx

from ggpkit.errors import GgpkitError


class PlayerFault(GgpkitError):
    """A player did not give a usable reply: ``code`` is ``TO`` (late) or ``CE`` (connection)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


class RemotePlayer:
    """A player reached at ``url``; ``name`` goes into the ``Receiver`` header."""

    def __init__(self, url: str, name: str | None = None, grace: float = 1.0) -> None:
        self.url = url
        self.name = name or url
        self.grace = grace
        """Seconds added to each clock for the network, as real managers allow."""

    async def send(self, message: str, clock: float, grace: float | None = None) -> str:
        """Send ``message``; the reply text within ``clock`` + grace seconds, or PlayerFault."""
        timeout = clock + (self.grace if grace is None else grace)
        headers = {
            "Content-Type": "text/acl",
            "Accept": "text/delim",
            "Sender": "GAMESERVER",
            "Receiver": self.name,
            "Connection": "close",
        }
        try:
            async with asyncio.timeout(timeout):
                async with httpx.AsyncClient(timeout=httpx.Timeout(timeout)) as client:
                    response = await client.post(
                        self.url, content=message.encode(), headers=headers
                    )
        except (httpx.TimeoutException, TimeoutError):
            raise PlayerFault("TO", f"no reply within {timeout:g} s") from None
        except (httpx.HTTPError, OSError) as e:
            raise PlayerFault("CE", f"{type(e).__name__}: {e}") from None
        if response.status_code != 200:
            raise PlayerFault("CE", f"HTTP status {response.status_code}")
        return response.content.decode("utf-8", errors="replace").strip()
