"""The web app answers other requests while an agent thinks (it never blocks its event loop).

Run against a real ``ggpkit web`` process: an agent is given a few seconds for a move,
and requests from "another tab" must all be answered while that move is still being
thought about.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from match.support import free_port

from ggpkit.agents.base import Agent, Limit
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term
from ggpkit.web import app as web_app

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


class _PatientAgent(Agent):
    """Thinks (sleeps) for all the time it is given; costs no CPU."""

    name = "patient"

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        time.sleep(limit.time or 0)
        return game.legal_moves(state, role)[0]


def test_many_thinking_agents_do_not_starve_other_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # More agents thinking at once than the server has worker threads (40).
    monkeypatch.setattr(web_app, "make_agent", lambda spec, seed=None: _PatientAgent())
    app = web_app.create_app(tmp_path / "m.sqlite3")
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    try:
        while not server.started:
            time.sleep(0.05)
        body = {"game": "peg", "seats": {"jumper": "patient"}, "agent_time": THINK_SECONDS}
        sessions = [httpx.post(url + "/api/sessions", json=body).json() for _ in range(50)]
        thinking = [
            threading.Thread(
                target=httpx.post, args=(f"{url}/api/sessions/{s['id']}/agent",),
                kwargs={"timeout": 60, "headers": {"X-Session-Token": s["token"]}},
            )
            for s in sessions
        ]  # fmt: skip
        for t in thinking:
            t.start()
        time.sleep(1.0)
        start = time.monotonic()
        assert httpx.get(url + "/api/games", timeout=30).status_code == 200
        answered = time.monotonic() - start
        assert answered < THINK_SECONDS / 4, f"/api/games took {answered:.1f} s"
        assert sum(t.is_alive() for t in thinking) > 40, "the agents ended before the check"
        for t in thinking:
            t.join()
    finally:
        server.should_exit = True
        thread.join(10)
