"""The ``ggpkit`` command line: one module per group of commands, all on one Typer app.

Errors that users cause (unknown game, illegal move, bad GDL) end as one clear
line on stderr and exit status 2, never a traceback. Ctrl-C and SIGTERM end any
command within two seconds (``ggpkit.processes.exit_on_signals``), status 130 / 143.
"""

from __future__ import annotations

import importlib
import sys

from ggpkit.cli.app import app

# Command modules, imported for their side effect of registering commands on ``app``. Each
# is cheap to import (``ggpkit --help`` imports them all): what a command needs beyond
# typer and the standard library it imports inside its function.
_COMMAND_MODULES = [
    "ggpkit.cli.arena_cmd",
    "ggpkit.cli.games_cmd",
    "ggpkit.cli.perftest_cmd",
    "ggpkit.cli.perft_cmd",
    "ggpkit.cli.bench_cmd",
    "ggpkit.cli.play_cmd",
    "ggpkit.cli.web_cmd",
    "ggpkit.cli.match_cmd",
    "ggpkit.cli.matches_cmd",
    "ggpkit.cli.player_cmd",
    "ggpkit.cli.solve_cmd",
    "ggpkit.cli.check_cmd",
    "ggpkit.cli.corpus_cmd",
    "ggpkit.cli.tournament_cmd",
    "ggpkit.cli.skilltest_cmd",
    "ggpkit.cli.warmup_cmd",
    "ggpkit.cli.train_cmd",
]


def _load_commands() -> None:
    for name in _COMMAND_MODULES:
        importlib.import_module(name)


def _user_errors() -> tuple[type[Exception], ...]:
    """The errors a user causes, each ended as one line: a game, rules or move that do
    not fit, a game library that cannot be read, an agent or solver that cannot play the
    game asked for, a bad arena run or record, a person quitting. Imported when an error
    ends a command, not at start-up."""
    from ggpkit.agents.base import AgentError, QuitGame
    from ggpkit.games.api import GameError
    from ggpkit.games.library.errors import LibraryError
    from ggpkit.gdl.kif import GdlSyntaxError
    from ggpkit.match.arena import ArenaError
    from ggpkit.match.replay import ReplayError
    from ggpkit.search.contract import SimultaneousMovesError

    return (
        GameError,
        LibraryError,
        GdlSyntaxError,
        AgentError,
        SimultaneousMovesError,
        ArenaError,
        ReplayError,
        QuitGame,
    )


def main() -> None:
    """Entry point of the ``ggpkit`` console script."""
    from ggpkit import processes
    from ggpkit.cli.common import os_error_line
    from ggpkit.errors import GgpkitError

    processes.exit_on_signals()
    _load_commands()
    try:
        app()
    except (GgpkitError, OSError) as e:
        if not isinstance(e, (OSError, *_user_errors())):
            raise
        message = os_error_line(e) if isinstance(e, OSError) else str(e)
        print(f"ggpkit: error: {message}", file=sys.stderr)
        sys.exit(2)
    except (KeyboardInterrupt, SystemExit) as e:
        # Typer turns Ctrl-C into exit status 130 before it gets here; either way a
        # command ended by a signal says so and exits with 128 + that signal.
        if isinstance(e, SystemExit) and processes.received_signal is None:
            raise
        print("ggpkit: interrupted", file=sys.stderr)
        sys.exit(processes.exit_status())


__all__ = ["app", "main"]
