"""A two-node Ray cluster on one machine (``ray.cluster_utils.Cluster``) runs an arena across both nodes.

Marked ``ray``; its own module so that it starts after the single-node tests' Ray is shut down.
"""

from __future__ import annotations

import pytest

from agents.arena import _init_worker, _play_group, run_arena
from agents.ray_connect import PROJECT_ROOT
from commerce_env.rules import make_rules

ray = pytest.importorskip("ray", reason="the Ray tests need the 'distributed' extra (pip install -e '.[distributed]')")

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def two_nodes():
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(PROJECT_ROOT)}})
    cluster.wait_for_nodes()
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def test_arena_runs_across_both_nodes_with_the_local_result(two_nodes):
    from agents import arena_ray

    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    rules = make_rules("trade_barter")
    nodes: set[str] = set()
    lineup = ["greedy", "random"]
    games = dict(arena_ray.play_groups(lineup, rules, 4, 9, 16, True, nodes=nodes, worker=(_init_worker, _play_group)))
    assert len(nodes) == 2  # tasks ran on both nodes
    _init_worker(lineup, rules, 4, 9, True)
    assert games == dict(_play_group(g) for g in range(16))
    kwargs = dict(num_players=4, deals=96, seed=9, progress=False)
    local, distributed = run_arena(lineup, **kwargs), run_arena(lineup, backend="ray", **kwargs)
    for key in ("seconds", "deals_per_second", "games_per_second"):
        local.pop(key), distributed.pop(key)
    assert distributed == local
