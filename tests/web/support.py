"""``ggpkit web`` as a real process on a free port, for end-to-end tests."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from match.support import free_port


@contextmanager
def web_server(
    db: Path, *extra: str, env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """Start ``ggpkit web`` on ``db`` (``env`` added to its environment); the process and
    its URL once it answers.

    The process is killed on the way out if the test has not ended it.
    """
    port = free_port()
    cmd = [sys.executable, "-m", "ggpkit", "web", "--port", str(port), "--db", str(db), *extra]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(url + "/api/agents", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            pytest.fail("ggpkit web did not start")
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
