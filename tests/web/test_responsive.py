"""The web app answers other requests while an agent thinks (it never blocks its event loop).

Run against a real ``ggpkit web`` process: an agent is given a few seconds for a move,
and requests from "another tab" must all be answered while that move is still being
thought about.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx

from .support import web_server

THINK_SECONDS = 4.0


def test_other_requests_are_answered_while_an_agent_thinks(tmp_path: Path) -> None:
    with web_server(tmp_path / "m.sqlite3") as (_, url):
        body = {"game": "pawn-checkers", "seats": {"black": "mcts"}, "agent_time": THINK_SECONDS}
        session = httpx.post(url + "/api/sessions", json=body, timeout=30).json()
        assert session["to_move"] == ["black"]
        thinking = threading.Thread(
            target=httpx.post, args=(f"{url}/api/sessions/{session['id']}/agent",),
            kwargs={"timeout": 60, "headers": {"X-Session-Token": session["token"]}},
        )  # fmt: skip
        thinking.start()
        time.sleep(0.5)
        slowest = 0.0
        with httpx.Client(base_url=url, timeout=30) as tab:
            for _ in range(10):
                start = time.monotonic()
                assert tab.get("/api/games").status_code == 200
                assert tab.get(f"/api/sessions/{session['id']}").status_code == 200
                slowest = max(slowest, time.monotonic() - start)
        assert thinking.is_alive(), "the agent's move ended before the other requests did"
        thinking.join()
        # Far more than the few milliseconds they take, far less than the agent's move.
        assert slowest < THINK_SECONDS / 4
