"""Uploaded GDL rules: checked and loaded under a size and time limit.

A hostile or broken ``.kif`` must not hang the server. Rules are first read,
checked and tried (initial state, legal moves, one step) in a separate process
that is killed after :data:`LOAD_SECONDS`; only rules that pass are loaded into
the server process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from ggpkit.games.api import Game, GameError
from ggpkit.gdl.checker import check_text

MAX_KIF_CHARS = 200_000
LOAD_SECONDS = 20.0


class KifRejected(GameError):
    """Uploaded rules that cannot be played; ``problems`` are JSON-ready problem lines."""

    def __init__(self, message: str, problems: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


def check_kif_text(text: str, name: str) -> list[dict[str, Any]]:
    """Syntax and static-check problems of ``text`` as dicts (line, col, severity, message)."""
    if len(text) > MAX_KIF_CHARS:
        return [_problem(1, 1, "error", f"the rules are larger than {MAX_KIF_CHARS} characters")]
    return [_problem(p.pos.line, p.pos.col, p.severity, p.message) for p in check_text(text, name)]


def _problem(line: int, col: int, severity: str, message: str) -> dict[str, Any]:
    return {"line": line, "col": col, "severity": severity, "message": message}


_TRIAL = """
import sys
from ggpkit.processes import die_with_parent
die_with_parent(int(sys.argv[2]))
from ggpkit.games.registry import load_kif
text = sys.stdin.read()
try:
    game = load_kif(text, sys.argv[1])
    state = game.initial_state()
    if not game.is_terminal(state):
        joint = [game.legal_moves(state, r)[0] for r in game.roles]
        game.next_state(state, joint)
except Exception as e:
    print(f"{type(e).__name__}: {e}".splitlines()[0])
    sys.exit(3)
"""


def _trial(text: str, name: str, seconds: float) -> str:
    """Load the game and take one step in a fresh interpreter; '' or what went wrong.

    A separate interpreter (not a forked worker) so that a runaway grounding can be
    killed without touching the server, whatever started the server.
    """
    try:
        done = subprocess.run(
            [sys.executable, "-c", _TRIAL, name, str(os.getpid())],
            input=text,
            capture_output=True,
            text=True,
            timeout=seconds,
        )
    except subprocess.TimeoutExpired:
        return f"the rules took longer than {seconds:.0f} s to load and play"
    if done.returncode == 0:
        return ""
    lines = (done.stdout.strip() or done.stderr.strip() or "the trial process died").splitlines()
    return lines[-1]


def load_checked_kif(text: str, name: str, seconds: float = LOAD_SECONDS) -> Game[Any]:
    """Load uploaded rules after they passed the checks and a time-limited trial run."""
    problems = check_kif_text(text, name)
    errors = [p for p in problems if p["severity"] == "error"]
    if errors:
        first = errors[0]
        raise KifRejected(
            f"{name}:{first['line']}:{first['col']}: {first['message']}"
            + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""),
            problems,
        )
    result = _trial(text, name, seconds)
    if result:
        raise KifRejected(f"{name}: {result}")
    from ggpkit.games.registry import load_kif

    return load_kif(text, name)
