"""Fixtures of the match tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ggpkit.match.player_server import PlayerService
from match.support import FirstAgent, ServerThread, stub_loader


@pytest.fixture
def tiny_server() -> Iterator[ServerThread]:
    """A player server playing FirstAgent, loading rules with the stub loader."""
    service = PlayerService(FirstAgent, name="tester", loader=stub_loader)
    with ServerThread(service) as server:
        yield server
