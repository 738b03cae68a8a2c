"""Uploaded GDL rules: checked and loaded under a size and time limit.

A hostile or broken ``.kif`` must not hang the server. Rules are first read,
checked and tried (initial state, legal moves, one step) in a separate process
that is killed after :data:`LOAD_SECONDS`; only rules that pass are loaded into
the server process.
"""

from __future__ import annotations

import multiprocessing as mp
from typing import Any

from ggpkit.games.api import Game, GameError
from ggpkit.gdl.checker import check_rules
from ggpkit.gdl.kif import GdlSyntaxError, parse_rules

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
    try:
        rules = parse_rules(text, name)
    except GdlSyntaxError as e:
        return [_problem(e.pos.line, e.pos.col, "error", e.message)]
    return [_problem(p.pos.line, p.pos.col, p.severity, p.message) for p in check_rules(rules)]


def _problem(line: int, col: int, severity: str, message: str) -> dict[str, Any]:
    return {"line": line, "col": col, "severity": severity, "message": message}


def _trial(text: str, name: str, out: Any) -> None:
    """In a child process: load the game and take one step; report an error text or ''."""
    try:
        from ggpkit.games.registry import load_kif

        game = load_kif(text, name)
        state = game.initial_state()
        if not game.is_terminal(state):
            joint = [game.legal_moves(state, r)[0] for r in game.roles]
            game.next_state(state, joint)
        out.put("")
    except Exception as e:  # report whatever failed, in one line
        out.put(f"{type(e).__name__}: {e}")


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
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_trial, args=(text, name, queue), daemon=True)
    proc.start()
    proc.join(seconds)
    if proc.is_alive():
        proc.kill()
        proc.join()
        raise KifRejected(f"{name}: the rules took longer than {seconds:.0f} s to load and play")
    result = queue.get() if not queue.empty() else "the trial process died"
    if result:
        raise KifRejected(f"{name}: {result}")
    from ggpkit.games.registry import load_kif

    return load_kif(text, name)
