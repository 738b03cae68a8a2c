"""Fuzz the GDL front door: mutated public games through ``ggpkit.load``, each in a child.

Each case is a public .kif file mutated a few times at random (a token deleted,
duplicated or replaced by another token of the file, a parenthesis added or
removed, a sentence nested deeper, a line swapped with another, a number or a
variable put where a name stands). Every case is loaded, and when it loads, one
random joint move is played, in a forked child process with a time limit. A case
ends as exactly one of:

- ``error``: a clean ggpkit error (``GgpkitError``: syntax, check, grounding, game);
- ``accepted``: it loaded and played a step;
- ``traceback``: any other exception (a bug: the user sees a traceback);
- ``hang``: not done within ``--timeout`` seconds;
- ``crash``: the child died without a result (segfault, out of memory).

    python benchmarks/gdl_fuzz.py --cases 2000 --timeout 20
    python benchmarks/gdl_fuzz.py --cases 50 --games-dir ../shared/ggp-games --seed 3

The target is no traceback, hang or crash. Prints the counts and one example of each
bad outcome (its mutation seed, so it can be replayed with ``--replay SEED``).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import re
import sys
import time
import traceback
from collections import Counter
from multiprocessing.connection import Connection
from pathlib import Path

OUTCOMES = ("error", "accepted", "traceback", "hang", "crash")
TOKEN = re.compile(r"\(|\)|[^\s()]+")


def mutate(text: str, rng: random.Random, times: int) -> str:
    """``text`` with ``times`` random token-level mutations."""
    tokens = TOKEN.findall(re.sub(r";[^\n]*", "", text))
    for _ in range(times):
        if not tokens:
            break
        i = rng.randrange(len(tokens))
        kind = rng.randrange(8)
        if kind == 0:
            del tokens[i]
        elif kind == 1:
            tokens.insert(i, tokens[i])
        elif kind == 2:
            tokens[i] = rng.choice(tokens)
        elif kind == 3:
            tokens.insert(i, rng.choice("()"))
        elif kind == 4:
            depth = rng.choice((2, 50, 3000))
            tokens[i:i] = ["("] * depth + ["f"]
            tokens[i + depth + 1 : i + depth + 1] = [")"] * depth
        elif kind == 5:
            j = rng.randrange(len(tokens))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif kind == 6:
            tokens[i] = rng.choice(("1", "?x", "<=", "not", "or", "distinct", "role", "true"))
        else:
            tokens[i] = tokens[i] * rng.randrange(2, 50)
    return " ".join(tokens)


def _child(conn: Connection, text: str, name: str, parent: int) -> None:
    from ggpkit.errors import GgpkitError
    from ggpkit.processes import die_with_parent

    die_with_parent(parent)
    try:
        from ggpkit.games.registry import load_kif

        game = load_kif(text, name)
        state = game.initial_state()
        if not game.is_terminal(state):
            rng = random.Random(0)
            game.next_state(state, [rng.choice(game.legal_moves(state, r)) for r in game.roles])
        conn.send(("accepted", ""))
    except GgpkitError as e:
        conn.send(("error", f"{type(e).__name__}: {str(e)[:120]}"))
    except BaseException as e:  # the point: anything else is a bug to report
        where = traceback.extract_tb(e.__traceback__)[-1]
        conn.send(
            ("traceback", f"{type(e).__name__}: {str(e)[:120]} at {where.filename}:{where.lineno}")
        )
    conn.close()


def run_case(text: str, name: str, timeout: float) -> tuple[str, str]:
    """Load one text in a forked child; its outcome and a detail line."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, text, name, os.getpid()), daemon=True)
    proc.start()
    send.close()
    try:
        if not receive.poll(timeout):
            return "hang", f"not done in {timeout:g} s"
        return receive.recv()  # type: ignore[no-any-return]
    except EOFError:
        return "crash", f"the child died (exit code {proc.exitcode})"
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()


def cases(games: list[Path], count: int, seed: int) -> list[tuple[int, Path]]:
    rng = random.Random(seed)
    return [(rng.randrange(2**32), rng.choice(games)) for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games-dir", type=Path, default=Path("../shared/ggp-games"))
    parser.add_argument(
        "--max-bytes", type=int, default=60_000, help="skip public games larger than this"
    )
    parser.add_argument("--replay", type=int, help="print the mutated text of one case seed")
    args = parser.parse_args()
    games = sorted(p for p in args.games_dir.glob("*.kif") if p.stat().st_size <= args.max_bytes)
    if not games:
        sys.exit(f"no .kif games in {args.games_dir}")
    plan = cases(games, args.cases, args.seed)
    if args.replay is not None:
        game = dict((s, g) for s, g in plan).get(args.replay)
        if game is None:
            sys.exit("that seed is not a case of this run (same --cases and --seed?)")
        rng = random.Random(args.replay)
        print(mutate(game.read_text(errors="replace"), rng, rng.randint(1, 4)))
        return
    counts: Counter[str] = Counter()
    examples: dict[str, str] = {}
    durations: list[tuple[float, int, str, str]] = []
    began = time.monotonic()
    for n, (case_seed, game) in enumerate(plan, 1):
        rng = random.Random(case_seed)
        text = mutate(game.read_text(errors="replace"), rng, rng.randint(1, 4))
        started = time.monotonic()
        outcome, detail = run_case(text, game.name, args.timeout)
        durations.append((time.monotonic() - started, case_seed, game.name, outcome))
        counts[outcome] += 1
        examples.setdefault(outcome, f"seed {case_seed} ({game.name}): {detail}")
        if n % 50 == 0 or n == len(plan):
            done = ", ".join(f"{k} {counts[k]}" for k in OUTCOMES if counts[k])
            print(f"[{n}/{len(plan)}] {done} ({time.monotonic() - began:.0f} s)", file=sys.stderr)
    print("| outcome | cases |\n|---|---|")
    for outcome in OUTCOMES:
        print(f"| {outcome} | {counts[outcome]} |")
    for outcome in ("traceback", "hang", "crash"):
        if outcome in examples:
            print(f"example {outcome}: {examples[outcome]}")
    _print_slowest(durations)
    sys.exit(1 if any(counts[k] for k in ("traceback", "hang", "crash")) else 0)


def _print_slowest(durations: list[tuple[float, int, str, str]], shown: int = 5) -> None:
    """How long cases took: the median, the count past 10 and 20 s, the slowest few."""
    times = sorted(d[0] for d in durations)
    if not times:
        return
    over = ", ".join(f"{sum(t > s for t in times)} over {s} s" for s in (10, 20))
    print(f"case time: median {times[len(times) // 2]:.2f} s, max {times[-1]:.1f} s; {over}")
    for seconds, seed, name, outcome in sorted(durations, reverse=True)[:shown]:
        print(f"  {seconds:6.1f} s  seed {seed} ({name}): {outcome}")


if __name__ == "__main__":
    main()
