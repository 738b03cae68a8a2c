"""What the env tests share: where the public games are, and quiet runs of third-party checkers."""

from __future__ import annotations

import contextlib
import io
import os
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


def games_dir() -> Path:
    """``$GGPKIT_GAMES_DIR``, else ``../shared/ggp-games`` beside the repository."""
    env = os.environ.get("GGPKIT_GAMES_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"


def corpus_file(name: str) -> Path:
    """A public game's file; the test is skipped when the folder is absent."""
    path = games_dir() / f"{name}.kif"
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


@contextlib.contextmanager
def quietly() -> Iterator[None]:
    """Silence the checkers' progress prints and style warnings (agent naming, render)."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def run_quietly(check: Callable[[], T]) -> T:
    """``check()`` inside :func:`quietly`."""
    with quietly():
        return check()
