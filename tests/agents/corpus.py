"""Public games for the agent tests, from ../shared/ggp-games (skipped when absent)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import ggpkit
from ggpkit.games.api import Game

GAMES_DIR = Path(__file__).resolve().parents[3] / "shared" / "ggp-games"


def public(name: str) -> Game[Any]:
    """The public game ``name`` on the reasoner ``load`` picks; skips where it is absent."""
    path = GAMES_DIR / f"{name}.kif"
    if not path.is_file():
        pytest.skip("../shared/ggp-games is absent")
    return ggpkit.load(str(path))
