"""Uploaded GDL rules: checked and loaded in stages, each under a limit, with progress.

A hostile or broken ``.kif`` must not hang the server, and a big one (chess, hex)
must not look hung. Loading goes through named stages that a page shows as they
happen: ``parse``, ``check``, ``compile`` (ground the rules and build the propnet
in the grounder's killable child under :data:`COMPILE_SECONDS`; a grounding
estimate refuses rule bombs before their grounding is built, and the game then runs
on the prover), ``try`` (the first state, legal moves and one step, under a time limit
on every prover query) and ``probe`` (what the game is: turn-taking, zero-sum).
The same loader serves uploads, public games and sessions restored after a restart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game, GameError
from ggpkit.games.gdl.game import load_kif_text
from ggpkit.gdl.checker import check_text
from ggpkit.gdl.kif import GdlSyntaxError, parse_rules
from ggpkit.reasoning.base import time_limit

MAX_KIF_CHARS = 200_000
COMPILE_SECONDS = 60.0
"""Longest the propnet's grounding and building may take before the prover plays."""
TRY_SECONDS = 20.0
"""Longest the first state, its legal moves and one step may take together."""

STAGES = ("parse", "check", "compile", "try", "probe")
"""The loading stages, in order, as a page names them."""

Progress = Callable[[str], None]
"""Told the name of each stage as it starts."""


class KifRejected(GgpkitError):
    """Uploaded rules that cannot be played; ``problems`` are JSON-ready problem lines."""

    def __init__(self, message: str, problems: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


class RulesTooLarge(KifRejected):
    """A rules file longer than uploaded rules may be (a public or library game's file)."""


def check_kif_text(text: str, name: str) -> list[dict[str, Any]]:
    """Syntax and static-check problems of ``text`` as dicts (line, col, severity, message)."""
    if len(text) > MAX_KIF_CHARS:
        return [_problem(1, 1, "error", f"the rules are larger than {MAX_KIF_CHARS} characters")]
    return [_problem(p.pos.line, p.pos.col, p.severity, p.message) for p in check_text(text, name)]


def _problem(line: int, col: int, severity: str, message: str) -> dict[str, Any]:
    return {"line": line, "col": col, "severity": severity, "message": message}


def _no_progress(stage: str) -> None:
    pass


def _parsed_and_checked(text: str, name: str, progress: Progress) -> None:
    """KifRejected, with every problem, unless the rules parse and pass the checks."""
    progress("parse")
    if len(text) > MAX_KIF_CHARS:
        raise KifRejected(f"{name}: the rules are larger than {MAX_KIF_CHARS} characters")
    try:
        parse_rules(text, name)
    except GdlSyntaxError as e:
        problems = check_kif_text(text, name)
        raise KifRejected(str(e), problems) from None
    progress("check")
    problems = check_kif_text(text, name)
    errors = [p for p in problems if p["severity"] == "error"]
    if errors:
        first = errors[0]
        raise KifRejected(
            f"{name}:{first['line']}:{first['col']}: {first['message']}"
            + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""),
            problems,
        )


def _tried(game: Game[Any], name: str) -> None:
    """The first state, every role's legal moves and one step, under :data:`TRY_SECONDS`."""
    try:
        with time_limit(TRY_SECONDS):
            state = game.initial_state()
            if not game.is_terminal(state):
                joint = [game.legal_moves(state, r) for r in game.roles]
                stuck = [r for r, ms in zip(game.roles, joint, strict=True) if not ms]
                if stuck:
                    raise KifRejected(f"{name}: {stuck[0]} has no legal move in the first state")
                game.next_state(state, [ms[0] for ms in joint])
    except KifRejected:
        raise
    except Exception as e:  # whatever the rules do wrong becomes one line
        first = f"{type(e).__name__}: {e}".splitlines()[0]
        raise KifRejected(f"{name}: {first}") from None


def load_checked_kif(text: str, name: str, progress: Progress = _no_progress) -> Game[Any]:
    """Load uploaded rules stage by stage (see the module docstring); KifRejected says why not."""
    _parsed_and_checked(text, name, progress)
    progress("compile")
    try:
        game = load_kif_text(text, name, check=False, timeout=COMPILE_SECONDS)
    except GameError as e:
        raise KifRejected(f"{name}: {str(e).splitlines()[0]}") from None
    progress("try")
    _tried(game, name)
    progress("probe")
    game.info  # noqa: B018 - probed now, while the page shows progress, not at the first move
    return game
