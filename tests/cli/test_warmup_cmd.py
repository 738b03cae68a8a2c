"""``ggpkit warmup``: every registered game's engines are run once, through their kernels."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ggpkit.cli import _load_commands, app
from ggpkit.games.registry import games
from ggpkit.tools import warmup

_load_commands()
runner = CliRunner()


def test_warmup_runs_the_native_engine_and_the_gdl_twin_of_every_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    batches: list[tuple[str, int]] = []
    original = warmup.warm_up

    def counting(game: object, *args: object, **kwargs: object) -> None:
        original(game, *args, **kwargs)  # type: ignore[arg-type]
        batches.append((type(game).__name__, 0))

    monkeypatch.setattr(warmup, "warm_up", counting)
    result = runner.invoke(app, ["warmup"])
    assert result.exit_code == 0, result.output
    assert len(batches) == 2 * len(games())
    assert sum(name == "GdlGame" for name, _ in batches) == len(games())
    assert f"warmed up {2 * len(games())} game engines" in result.stdout
