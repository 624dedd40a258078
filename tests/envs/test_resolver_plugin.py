"""Opponent specs resolve without ``import agents``: the entry point commerce-rl declares
(``commerce_rl.resolvers``) is found by :func:`commerce_env.policies.default_resolver`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_gymnasium_make_with_named_opponents_needs_no_import_of_agents():
    code = ("import sys, gymnasium, commerce_env\n"
            "assert 'agents' not in sys.modules\n"
            "env = gymnasium.make('commerce/Commerce-v0', variant='widow', opponents=['greedy', 'random'])\n"
            "obs, info = env.reset(seed=0)\n"
            "print(obs.shape[0], type(env.unwrapped.seat_pools[0][0]).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    size, name = out.stdout.split()
    assert int(size) == 407 and name == "GreedyAgent"
