"""A tournament joins a two-node Ray cluster by its address and plays on both nodes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggpkit.store.sqlite import MatchStore
from ggpkit.store.tournaments import TournamentStore
from ggpkit.tournament.config import config_from_options
from ggpkit.tournament.games import resolve_games
from ggpkit.tournament.runner import create_tournament, run_tournament

pytest.importorskip("ray")


def test_matches_run_on_both_nodes_of_a_cluster(tmp_path: Path) -> None:
    from ray.cluster_utils import Cluster

    from ggpkit.tournament.ray_backend import RayExecutor

    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
    )
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        config = config_from_options(
            {
                "games": ["breakthrough-holes"],
                "players": {"a": "random", "b": "mcts:playouts=40"},
                "matches_per_pairing": 8,
                "playclock": 1,
            }
        )
        tstore = TournamentStore(MatchStore(tmp_path / "m.sqlite3"))
        tid = create_tournament(tstore, config, resolve_games(config))
        executor = RayExecutor(address=cluster.address)
        try:
            assert executor.ray.cluster_resources()["CPU"] == 2
            state = run_tournament(tstore, tid, executor)
        finally:
            executor.close()
        assert state.done == 8 and not state.failed
        assert len(executor.nodes) == 2, executor.nodes
        assert sum(executor.nodes.values()) == 8
    finally:
        cluster.shutdown()
