"""Suite-wide settings: no test writes to the user's real match database."""

from __future__ import annotations

import os
import tempfile

import pytest


def pytest_configure(config: pytest.Config) -> None:
    os.environ["GGPKIT_DB"] = os.path.join(tempfile.mkdtemp(prefix="ggpkit-tests-"), "m.sqlite3")
