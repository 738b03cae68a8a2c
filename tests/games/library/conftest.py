"""Every library test gets its own empty data folder and no ``$GGPKIT_GAMES_DIR``, and a
repository folder with a server for it when it asks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .repository import RepositoryServer, build, serving


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("GGPKIT_DATA_DIR", str(folder))
    monkeypatch.delenv("GGPKIT_GAMES_DIR", raising=False)
    return folder


@pytest.fixture
def repo_folder(tmp_path: Path) -> Path:
    return build(tmp_path / "repo")


@pytest.fixture
def server(repo_folder: Path) -> Iterator[RepositoryServer]:
    with serving(repo_folder) as running:
        yield running
