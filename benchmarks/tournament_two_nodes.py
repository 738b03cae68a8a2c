"""A tournament on a two-node Ray cluster started on this machine, joined with ``--address``.

``ray.cluster_utils.Cluster`` starts a head node and a second node (each its own raylet
and object store, ``--cpus-per-node`` cores each), then ``ggpkit tournament run CONFIG
--address ADDR`` joins it as any client would; its last stderr line counts the matches
each node played.

    python benchmarks/tournament_two_nodes.py [--cpus-per-node 1] [--matches 10]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIG = """\
games = ["breakthrough-holes", "pawn-checkers"]
matches_per_pairing = {matches}
startclock = 2
playclock = 1
[players]
rand = "random"
mcts = "mcts:playouts=50"
ab = "alphabeta:depth=2"
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cpus-per-node", type=int, default=1)
    parser.add_argument("--matches", type=int, default=10, help="matches per pairing")
    args = parser.parse_args()
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": args.cpus_per_node, "include_dashboard": False},
    )
    cluster.add_node(num_cpus=args.cpus_per_node)
    cluster.wait_for_nodes()
    try:
        with tempfile.TemporaryDirectory() as folder:
            config = Path(folder) / "t.toml"
            config.write_text(CONFIG.format(matches=args.matches))
            command = [
                sys.executable, "-m", "ggpkit", "tournament", "run", str(config),
                "--db", str(Path(folder) / "m.sqlite3"), "--address", cluster.address,
            ]  # fmt: skip
            started = time.perf_counter()
            run = subprocess.run(command, capture_output=True, text=True)
            seconds = time.perf_counter() - started
        print(f"cluster {cluster.address}: 2 nodes x {args.cpus_per_node} cores")
        print(run.stdout)
        print("\n".join(line for line in run.stderr.splitlines() if "Ray node" in line))
        print(f"exit {run.returncode}, {seconds:.1f} s")
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    main()
