"""What the web app refuses before any route runs: foreign hosts, non-JSON bodies, big bodies.

The app listens on the user's machine and holds the user's matches, so any web page
the user visits is a potential attacker:

- **Host check.** A page on another site can point its own host name at 127.0.0.1
  (DNS rebinding) and then read the API as if it were same-origin; requests whose
  ``Host`` is not one of the allowed names (127.0.0.1, localhost, ::1, plus what
  ``ggpkit web --allow-host`` adds) are refused with 400.
- **JSON only.** A cross-site form can post ``text/plain`` without asking; it cannot
  post ``application/json`` without a CORS preflight, which this app never grants.
  A request with a body must say ``Content-Type: application/json`` (415 otherwise).
- **Size before parsing.** A body is read up to its route's limit and refused with
  413 the moment it is longer (a declared ``Content-Length`` over the limit is
  refused before anything is read), so no route ever parses an oversized body.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[Message], Any]
App = Callable[[Scope, Receive, Send], Any]

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
"""Host names the app answers by default: this machine only."""

MAX_BODY_BYTES = 2_000_000
"""Largest request body of any route not listed in the app's own limits."""

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class _TooLarge(Exception):
    pass


def host_name(header: str) -> str:
    """The host of a ``Host`` header without its port: ``[::1]:8000`` -> ``::1``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class RequestGuard:
    """ASGI middleware applying the module's three checks to every HTTP request."""

    def __init__(
        self,
        app: App,
        allowed_hosts: Iterable[str] = LOCAL_HOSTS,
        body_limit: Callable[[str], int] = lambda path: MAX_BODY_BYTES,
    ) -> None:
        self.app = app
        self.allowed_hosts = frozenset(h.lower() for h in allowed_hosts)
        self.body_limit = body_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await _reply(send, *refusal)
            return
        if scope["method"] not in _BODY_METHODS:
            await self.app(scope, receive, send)
            return
        try:
            body = await _read_body(receive, self.body_limit(scope["path"]))
        except _TooLarge:
            limit = self.body_limit(scope["path"])
            await _reply(send, 413, f"request body larger than {limit:,} bytes")
            return
        if body and _media_type(headers) != "application/json":
            await _reply(send, 415, "request bodies must be JSON (Content-Type: application/json)")
            return
        await self.app(scope, _replay(body, receive), send)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        if host_name(headers.get("host", "")) not in self.allowed_hosts:
            return 400, "this server does not answer for that host name (see --allow-host)"
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.body_limit(scope["path"]):
            return 413, f"request body larger than {self.body_limit(scope['path']):,} bytes"
        return None


def _media_type(headers: dict[str, str]) -> str:
    return headers.get("content-type", "").split(";", 1)[0].strip().lower()


async def _read_body(receive: Receive, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app the body already read, then the client's own events."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        message: Message = await receive()
        return message

    return replay


async def _reply(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
