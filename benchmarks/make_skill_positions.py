"""Make ``ggpkit/tools/skill_positions.json``: positions of public games with their good moves.

Positions come from seeded random playouts of small public games (read from ``--games-dir``,
else from the game library: ``ggpkit games fetch ticTacToe toetictac nim1 nim2 sum15``),
stopped at a random depth where exactly one role has a choice. An exact solver (the
game's own, else the generic one) values every move there; the position is kept only
when some moves are good (keep the role's exact value) and some are not, so a random
mover does not score by luck alone. Each position keeps the :func:`rules_digest` of its
game's rules, so that a changed game is noticed rather than scored.

    python benchmarks/make_skill_positions.py            # writes the package's data file
    python benchmarks/make_skill_positions.py --check    # solves every stored position again
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.library import find_game
from ggpkit.games.registry import load_kif
from ggpkit.tools.skilltest import (
    POSITIONS_FILE,
    check_position,
    good_moves,
    load_positions,
    open_game,
    rules_digest,
)

GAMES = {"ticTacToe.kif": 16, "toetictac.kif": 12, "nim1.kif": 10, "nim2.kif": 10, "sum15.kif": 12}
"""Public games and how many positions each gives (all solved from their start in seconds)."""

OUT = Path(__file__).resolve().parents[1] / "ggpkit" / "tools" / POSITIONS_FILE


def candidates(game: Game[Any], rng: random.Random) -> tuple[list[list[str]], Hashable, str] | None:
    """A random position where one role chooses: (moves from the start, state, role)."""
    state: Hashable = game.initial_state()
    moves: list[list[str]] = []
    stop = rng.randrange(0, 12)
    while not game.is_terminal(state):
        choosers = [r for r in game.roles if len(game.legal_moves(state, r)) > 1]
        if len(moves) >= stop and len(choosers) == 1:
            return moves, state, choosers[0]
        joint = [rng.choice(game.legal_moves(state, r)) for r in game.roles]
        moves.append([str(m) for m in joint])
        state = game.next_state(state, joint)
    return None


def rules_file(file: str, folder: Path | None) -> Path:
    """``file`` of ``folder``, else the library's game of that name (exits when missing)."""
    if folder is not None:
        path: Path | None = folder / file
    else:
        found = find_game(Path(file).stem)
        path = found.path if found is not None else None
    if path is None or not path.is_file():
        sys.exit(f"{file}: not found; ggpkit games fetch {Path(file).stem} (or give --games-dir)")
    return path


def positions_of(file: str, count: int, folder: Path | None, seed: int) -> list[dict[str, Any]]:
    data = rules_file(file, folder).read_bytes()
    game = load_kif(data.decode("utf-8"), Path(file).stem)
    rng = random.Random(f"{seed}:{file}")
    seen: set[frozenset[Any]] = set()
    out: list[dict[str, Any]] = []
    for _ in range(count * 40):
        if len(out) == count:
            break
        found = candidates(game, rng)
        if found is None or game.facts(found[1]) in seen:
            continue
        moves, state, role = found
        good, value = good_moves(game, state, role)
        if len(good) == len(game.legal_moves(state, role)):
            continue  # every move is good: no test of skill
        seen.add(game.facts(state))
        out.append(
            {
                "id": f"{Path(file).stem}-{len(out) + 1:02d}",
                "game": file,
                "sha256": rules_digest(data),
                "moves": moves,
                "role": role,
                "good": sorted(good),
                "value": value,
            }
        )
        print(
            out[-1]["id"],
            role,
            len(good),
            "good of",
            len(game.legal_moves(state, role)),
            flush=True,
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--games-dir",
        type=Path,
        default=None,
        help="folder of the public games' .kif files (default: the game library)",
    )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--check", action="store_true", help="solve every stored position again")
    args = parser.parse_args()
    if args.check:
        for position in load_positions():
            game = open_game(position, args.games_dir)
            if game is None:
                sys.exit(f"{position.id}: {position.game} is missing or changed")
            check_position(position, game)
        print("every stored position solves to its good moves again")
        return
    positions = []
    for file, count in GAMES.items():
        positions += positions_of(file, count, args.games_dir, args.seed)
    doc = {
        "made_by": "benchmarks/make_skill_positions.py",
        "seed": args.seed,
        "positions": positions,
    }
    OUT.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"{len(positions)} positions written to {OUT}")


if __name__ == "__main__":
    main()
