"""Suite-wide settings: no test writes to the user's real match database or data folder."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

# No per-example deadline: a deadline is a timing assertion, and CI's two cores are shared.
settings.register_profile("ggpkit", deadline=None)
settings.load_profile("ggpkit")


def pytest_configure(config: pytest.Config) -> None:
    os.environ["GGPKIT_DB"] = os.path.join(tempfile.mkdtemp(prefix="ggpkit-tests-"), "m.sqlite3")
    os.environ["GGPKIT_DATA_DIR"] = tempfile.mkdtemp(prefix="ggpkit-tests-data-")


def _live_children() -> set[int]:
    """Pids of this process's live children (Linux /proc)."""
    me = str(os.getpid())
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        if text[text.rindex(")") + 2 :].split()[1] == me:
            found.add(int(stat.parent.name))
    return found


@pytest.fixture
def live_children() -> Callable[[], set[int]]:
    """A function listing this process's live child pids; skips where /proc is missing."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("lists child processes through Linux's /proc")
    return _live_children
