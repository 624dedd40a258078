"""The arena on Ray: the same result as the local arena, one machine or a two-node cluster.

Marked ``ray`` (deselected by default; CI runs ``python -m pytest -q -m ray``);
skipped when the 'distributed' extra is not installed.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from agents.arena import run_arena
from agents.ray_connect import PROJECT_ROOT

ray = pytest.importorskip("ray", reason="the Ray tests need the 'distributed' extra (pip install -e '.[distributed]')")

pytestmark = pytest.mark.ray
TIMINGS = ("seconds", "deals_per_second", "games_per_second")
RUNTIME_ENV = {"env_vars": {"PYTHONPATH": str(PROJECT_ROOT)}}  # the workers run this checkout


def _without_timings(result: dict, *others: str) -> dict:
    return {k: v for k, v in result.items() if k not in TIMINGS + others}


@pytest.fixture(scope="module")
def local_ray():
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=RUNTIME_ENV)
    yield
    ray.shutdown()


@pytest.mark.parametrize("variant, lineup, options", [
    ("trade_barter", ["greedy", "random", "expected_value"], {}),
    ("widow", ["greedy", "random"], {"deals": 3}),  # matches: several packs per group
])
def test_ray_arena_equals_local_arena(local_ray, variant, lineup, options):
    kwargs = dict(variant=variant, num_players=4, options=options, deals=120, seed=11, progress=False)
    local = run_arena(lineup, **kwargs)
    distributed = run_arena(lineup, backend="ray", **kwargs)
    assert _without_timings(distributed) == _without_timings(local)
    assert distributed["games"] >= 120


def test_ray_arena_sends_models_as_files(local_ray, tmp_path):
    import numpy as np

    from agents.learned import expected_shapes, make_meta, save_model
    from commerce_env import observation as obs
    from commerce_env.rules import make_rules

    rules = make_rules("trade_barter")
    rng = np.random.default_rng(0)
    weights = {k: rng.normal(size=s).astype(np.float32)
               for k, s in expected_shapes(obs.observation_size(4), [8]).items()}
    folder = save_model(tmp_path / "m", weights, make_meta(rules, 4, {"hidden": [8], "activation": "tanh"}))
    lineup = [f"model:{folder}", "greedy"]
    kwargs = dict(num_players=4, deals=48, seed=2, progress=False)
    assert _without_timings(run_arena(lineup, backend="ray", **kwargs)) == _without_timings(run_arena(lineup, **kwargs))


def test_ray_arena_refuses_live_agents(local_ray):
    from agents.base import RandomAgent

    with pytest.raises(ValueError, match="specs"):
        run_arena([RandomAgent(), "greedy"], backend="ray", deals=4, progress=False)


def test_bad_backend_is_an_error_naming_it():
    with pytest.raises(ValueError, match="'spark'"):
        run_arena(["greedy"], backend="spark", deals=4, progress=False)


def test_arena_cli_with_ray_backend_prints_the_same_report(local_ray, tmp_path, capsys):
    import json

    from training.cli import main

    args = ["arena", "--agents", "greedy,random", "--games", "48", "--seed", "4", "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "local")]) == 0
    assert main([*args, "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    local, distributed = (json.loads((tmp_path / d / "result.json").read_text()) for d in ("local", "ray"))
    # the same games; the workers are the ones each used: one process here, every CPU of the cluster there
    assert local["workers"] == 1 and distributed["workers"] == int(ray.cluster_resources()["CPU"]) == 2
    assert _without_timings(local, "workers") == _without_timings(distributed, "workers")
    assert "with 2 worker(s)" in (tmp_path / "ray" / "report.md").read_text()


def test_a_ray_arena_that_succeeds_prints_nothing_of_ray(tmp_path):
    """A fresh local Ray in a process of its own: its known benign lines are filtered, nothing else is said."""
    import json
    import os

    done = subprocess.run([sys.executable, "-m", "training.cli", "arena", "--agents", "greedy,random", "--games",
                           "180", "--backend", "ray", "--no-progress", "--out", str(tmp_path / "ray")],
                          capture_output=True, text=True, cwd=PROJECT_ROOT, check=False, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert json.loads((tmp_path / "ray" / "result.json").read_text())["workers"] == os.cpu_count()


def test_importing_the_library_and_the_arena_does_not_import_ray():
    code = "import commerce_env, agents.arena, agents.cli, sys; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PROJECT_ROOT)
    assert out.stdout.strip() == "False"
