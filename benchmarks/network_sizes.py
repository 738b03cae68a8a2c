"""Every corpus game's propnet: its size, its build time, and whether it plays as the
join code says. The check for any change to grounding (``rule_parts``) or the build.

Usage:
    python benchmarks/network_sizes.py --out sizes.json [--games quarto,hex] [--steps 200]
    python benchmarks/network_sizes.py --compare before.json after.json

For each game, in a child process with a time limit: the network is built
(``PropnetReasoner.from_rules``), its nodes, edges and build seconds kept, then
``--steps`` random steps (seeded, restarting at terminal states) are walked by the
propnet and the join-code prover in lockstep: facts, every role's legal moves,
terminal and goals must agree. ``--compare`` prints the games whose networks
changed, the change in nodes and build time, and any game that disagrees.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ggpkit.gdl.kif import parse_rules, read_kif_file  # noqa: E402
from ggpkit.reasoning.propnet.reasoner import PropnetReasoner  # noqa: E402
from ggpkit.reasoning.prover.reasoner import Prover  # noqa: E402

GAMES = ROOT.parent / "shared" / "ggp-games"


def measure(path: Path, steps: int, timeout: float) -> dict[str, Any]:
    """One game's network and lockstep check (in the calling process)."""
    rules = parse_rules(read_kif_file(path))
    began = time.perf_counter()
    net = PropnetReasoner.from_rules(rules, timeout=timeout)
    built = time.perf_counter() - began
    out: dict[str, Any] = {
        "nodes": net.net.size,
        "edges": int(net.net.inputs.shape[0]),
        "seconds": round(built, 2),
    }
    out["disagreement"] = lockstep(net, Prover(rules, compiled=True), steps)
    return out


def lockstep(fast: Any, slow: Any, steps: int) -> str:
    """The first difference between the two reasoners on a seeded random walk, or ""."""
    rng = random.Random(1)
    a, b = fast.initial(), slow.initial()
    roles = range(len(fast.roles))
    for step in range(steps):
        if fast.facts(a) != slow.facts(b):
            return f"step {step}: facts differ"
        if fast.terminal(a) != slow.terminal(b):
            return f"step {step}: terminal differs"
        if fast.terminal(a):
            if [fast.goal(a, r) for r in roles] != [slow.goal(b, r) for r in roles]:
                return f"step {step}: goals differ"
            a, b = fast.initial(), slow.initial()
            continue
        joint = []
        for r in roles:
            legal = fast.legal(a, r)
            if sorted(map(str, legal)) != sorted(map(str, slow.legal(b, r))):
                return f"step {step}: legal moves of role {r} differ"
            joint.append(rng.choice(legal))
        a, b = fast.next(a, joint), slow.next(b, joint)
    return ""


def _child(path: Path, steps: int, timeout: float, conn: Any) -> None:
    try:
        conn.send(measure(path, steps, timeout))
    except Exception as e:  # a game that does not ground is a result too
        conn.send({"error": f"{type(e).__name__}: {e}"[:200]})


def run(paths: list[Path], steps: int, timeout: float) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    ctx = multiprocessing.get_context("fork")
    for i, path in enumerate(paths):
        mine, theirs = ctx.Pipe()
        proc = ctx.Process(target=_child, args=(path, steps, timeout, theirs), daemon=True)
        proc.start()
        result = {"error": "timed out"}
        if mine.poll(timeout * 2 + 60):
            result = mine.recv()
        proc.kill()
        proc.join()
        results[path.stem] = result
        print(f"[{i + 1}/{len(paths)}] {path.stem}: {result}", file=sys.stderr, flush=True)
    return results


def compare(before: dict[str, Any], after: dict[str, Any]) -> None:
    rows = []
    for game in sorted(set(before) & set(after)):
        a, b = before[game], after[game]
        if "nodes" in a and "nodes" in b and a["nodes"] != b["nodes"]:
            rows.append((game, a["nodes"], b["nodes"], a["seconds"], b["seconds"]))
    print("| game | nodes before | nodes after | ratio | build s before | after |")
    print("|---|---|---|---|---|---|")
    for game, n0, n1, s0, s1 in sorted(rows, key=lambda r: r[2] / r[1]):
        print(f"| {game} | {n0:,} | {n1:,} | {n1 / n0:.2f} | {s0} | {s1} |")
    print(f"\n{len(rows)} of {len(set(before) & set(after))} networks changed")
    for game in sorted(after):
        b = after[game]
        if b.get("disagreement") or ("error" in b and "error" not in before.get(game, {})):
            print(f"{game}: {b.get('disagreement') or b.get('error')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", help="comma-separated names (default: the whole corpus)")
    parser.add_argument("--dir", type=Path, default=GAMES, help="folder of .kif files")
    parser.add_argument("--steps", type=int, default=200, help="lockstep steps per game")
    parser.add_argument("--timeout", type=float, default=120.0, help="build seconds a game")
    parser.add_argument("--out", type=Path, help="write the results here (JSON)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        before, after = (json.loads(p.read_text()) for p in args.compare)
        compare(before, after)
        return
    names = args.games.split(",") if args.games else None
    paths = sorted(args.dir.glob("*.kif"))
    if names is not None:
        paths = [p for p in paths if p.stem in names]
    results = run(paths, args.steps, args.timeout)
    text = json.dumps(results, indent=1, sort_keys=True)
    if args.out:
        args.out.write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
