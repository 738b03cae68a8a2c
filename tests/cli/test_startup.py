"""``ggpkit --help`` and ``ggpkit games`` start fast: they import no engine, numba or web stack.

Timing is not asserted (the suite runs on loaded machines); what makes the start slow
is: importing numba and the compiled games, the agents, the web and HTTP stacks.
Each check runs in a fresh interpreter, where ``sys.modules`` shows what was imported.
"""

from __future__ import annotations

import json
import subprocess
import sys

from typer.main import get_command
from typer.testing import CliRunner

from ggpkit.cli import _load_commands, app
from ggpkit.games.registry import GameSummary, games, load, summary

_load_commands()

HEAVY = (
    "numba",
    "numpy",
    "llvmlite",
    "clingo",
    "uvicorn",
    "fastapi",
    "starlette",
    "httpx",
    "ggpkit.games.gdl.game",
    "ggpkit.games.breakthrough.game",
    "ggpkit.games.checkers.game",
    "ggpkit.games.peg.game",
    "ggpkit.match.player_server",
    "ggpkit.web.app",
)

# Runs each argument list through the CLI in one fresh interpreter, then prints which
# heavy modules got imported.
_PROBE = """
import contextlib, io, json, sys
from ggpkit.cli import _load_commands, app
_load_commands()
for args in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()):
        code = app(args, standalone_mode=False, prog_name="ggpkit")
    assert code in (0, None), (args, code)
print(json.dumps(sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)))
"""


def heavy_imports(*arg_lists: list[str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(arg_lists), json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    imported: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return imported


def every_command() -> list[list[str]]:
    """Every command and subcommand path, e.g. ``["matches", "export"]``."""
    paths: list[list[str]] = []

    def walk(command: object, prefix: list[str]) -> None:
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            paths.append([*prefix, name])
            walk(sub, [*prefix, name])

    walk(get_command(app), [])
    return paths


def test_every_help_imports_no_engine_numba_or_web_stack() -> None:
    commands = every_command()
    assert {"arena", "bench", "games", "solve", "web", "player", "replay"} <= {
        c[0] for c in commands
    }
    assert ["matches", "export"] in commands
    assert heavy_imports(["--help"], *[[*c, "--help"] for c in commands]) == []


def test_games_lists_without_importing_an_engine() -> None:
    assert heavy_imports(["games"]) == []


def test_games_listing_is_what_each_game_declares() -> None:
    """The registry's summaries (what ``ggpkit games`` shows) against the loaded games."""
    for name in games():
        assert summary(name) == GameSummary.of(load(name)), name
    result = CliRunner().invoke(app, ["games"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    for name in games():
        (row,) = [line for line in result.output.splitlines() if f"│ {name} " in line]
        assert ", ".join(load(name).info.capabilities.names()) in row
