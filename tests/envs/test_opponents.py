"""The opponent pool: the training envs' choice of opponents, pool entries and self-play snapshots."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from commerce_env.opponents import OpponentPool
from commerce_env.policies import RandomPolicy
from commerce_env.single_agent import CommerceEnv


@pytest.mark.parametrize(("kwargs", "named"), [
    (dict(entries=[]), "opponents"), (dict(entries="greedy"), "opponents"),
    (dict(entries=["a", "b"], weights=[1.0]), "opponent_weights"),
    (dict(entries=["a"], weights=[-1.0]), "opponent_weights"), (dict(entries=["a"], weights=[0.0]), "opponent_weights"),
    (dict(entries=["a"], snapshot_share=1.5), "snapshot_share"), (dict(entries=["a"], snapshot_share=True), "True"),
    (dict(entries=["a"], max_snapshots=0), "max_snapshots"), (dict(entries=["a"], max_snapshots=2.0), "2.0"),
])
def test_bad_arguments_are_named(kwargs, named):
    with pytest.raises(ValueError, match=named):
        OpponentPool(**kwargs)


@given(st.integers(1, 4), st.lists(st.integers(0, 99), max_size=12))
def test_the_latest_snapshots_are_kept(max_snapshots, added):
    pool = OpponentPool(["random"], max_snapshots=max_snapshots)
    for k in added:
        assert pool.add_snapshot(f"policy {k}", f"step_{k}") == min(len(pool.snapshots), max_snapshots)
    assert pool.snapshots == [f"policy {k}" for k in added][-max_snapshots:]
    assert pool.snapshot_paths == [f"step_{k}" for k in added][-max_snapshots:]
    assert pool.choices() == ["random", *pool.snapshots]


@given(st.floats(0.0, 1.0), st.integers(0, 3), st.integers(0, 2**32))
def test_draws_name_entries_by_weight_or_snapshots_by_share(share, snapshots, seed):
    pool = OpponentPool(["a", "b", "c"], weights=[1.0, 0.0, 2.0], snapshot_share=share)
    for k in range(snapshots):
        pool.add_snapshot(f"snap {k}")
    drawn = [pool.draw(random.Random(seed + i)) for i in range(40)]
    many = pool.draw_many(np.random.default_rng(seed), (20, 4)).ravel().tolist()
    for index in drawn + many:
        assert index != 1  # a zero weight is never drawn
        assert 0 <= index < 3 + snapshots
    if snapshots == 0 or share == 0.0:
        assert all(i < 3 for i in drawn + many)
    if snapshots and share == 1.0:
        assert all(i >= 3 for i in drawn + many)


def test_the_env_asks_its_pool_for_each_seat_at_reset():
    loaded = []

    class Snapshot(RandomPolicy):
        pass

    def resolver(spec, variant, num_players):
        assert spec.startswith("model:")
        loaded.append(spec)
        return Snapshot()

    pool = OpponentPool([RandomPolicy()], snapshot_share=1.0, max_snapshots=2)
    env = CommerceEnv(variant="trade_barter", num_players=3, opponents=pool, resolver=resolver)
    assert env.opponent_pool is pool
    env.reset(seed=0)
    assert all(type(a) is RandomPolicy for s, a in enumerate(env.seat_agents) if s != env.seat)
    assert [env.add_snapshot(f"runs/step_{k}") for k in range(3)] == [1, 2, 2]  # the two latest kept
    assert loaded == [f"model:runs/step_{k}" for k in range(3)]
    assert pool.snapshot_paths == ["runs/step_1", "runs/step_2"]
    env.reset(seed=1)
    opponents = [a for s, a in enumerate(env.seat_agents) if s != env.seat]
    assert opponents and all(any(a is snap for snap in pool.snapshots) for a in opponents)  # share 1: all snapshots


def test_the_batched_env_shares_the_pool_object():
    pytest.importorskip("numba")
    pytest.importorskip("stable_baselines3")
    from training.vec_env import make_vec_env

    env = make_vec_env("trade_barter", 3, 4, opponents=["random", "greedy"], opponent_weights=[0.0, 1.0], seed=3)
    assert isinstance(env.opponent_pool, OpponentPool) and env.opponent_pool.weights == [0.0, 1.0]
    env.reset()
    assert (env._assigned == 1).all()  # zero weight: the random entry is never drawn
    env.close()
