"""Training on a two-node Ray cluster: self-play on a worker of each node, the learner an
actor on the node of the process that started the run, and a run stopped there goes on
with ``resume`` as a run without Ray does."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggpkit.learn.checkpoint import load_checkpoint

from .support import need_learn_extra, public_path, tictactoe, tiny_settings

need_learn_extra()
pytest.importorskip("ray")
tictactoe()  # loaded before JAX runs (see support.public_game)


def test_a_run_trains_on_both_nodes_and_resumes(tmp_path: Path) -> None:
    import ray
    from ray.cluster_utils import Cluster

    from ggpkit.learn.ray_selfplay import RayTrainer
    from ggpkit.learn.trainer import TrainError

    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        source = str(public_path("ticTacToe"))
        out = tmp_path / "ttt.model"
        first = RayTrainer(source, out, tiny_settings(), False, cluster.address)
        assert first.run(rounds=2).games == 32
        nodes = first.nodes()
        assert len(set(nodes["workers"])) == 2  # one worker on each node
        assert nodes["learner"] == [ray.get_runtime_context().get_node_id()]
        assert load_checkpoint(out).counters.games == 32  # written here, by the learner
        first.close()  # its workers hold both CPUs
        with pytest.raises(TrainError, match="--resume"):
            RayTrainer(source, out, tiny_settings(), False, cluster.address)
        again = RayTrainer(source, out, tiny_settings(), True, cluster.address)
        assert again.counters.games == 32
        assert again.run(rounds=1).games == 48
        assert load_checkpoint(out).counters.games == 48
        again.close()
    finally:
        ray.shutdown()
        cluster.shutdown()
