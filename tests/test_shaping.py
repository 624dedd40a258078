"""Potential-based reward shaping (training.shaping): pool commerce's pool share."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.heuristics import life_shares
from commerce_env import observation as obs
from commerce_env.engine import new_game
from commerce_env.rules import make_rules

pytest.importorskip("stable_baselines3")
from training.config import load_config  # noqa: E402
from training.shaping import PoolShare, PotentialShaping, check_potential  # noqa: E402


def _observation(num_players: int, pool: int, lives: list[int]) -> np.ndarray:
    """An observation vector holding only a pool and the seats' lives (seat 0 is the observer)."""
    sections = {name: start for name, start, _ in obs.layout(num_players)}
    vector = np.zeros(obs.observation_size(num_players), dtype=np.float32)
    vector[sections["flags"] + 3] = pool * obs.SCALE
    for k, n in enumerate(lives):
        vector[sections["players"] + k * obs.PLAYER_FEATURES] = n * obs.SCALE
    return vector


def test_pool_share_at_the_start_of_a_match_is_an_equal_part_of_the_pool():
    # R9.2: four players pay the entry of 12 into the pool and hold three lives each.
    game = new_game(make_rules("pool"), 4, seed=3)
    vector = obs.encode(game, game.current_player)
    assert PoolShare(4)(vector[None])[0] == pytest.approx(48 / 4)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.tuples(st.integers(0, 80), st.lists(st.integers(0, 4), min_size=n,
                                                                                  max_size=n))))
def test_pool_share_is_the_pool_times_the_chance_to_outlast(case):
    # R9.5: the last player with lives takes the pool.
    pool, lives = case
    phi = PoolShare(len(lives))(_observation(len(lives), pool, lives)[None])[0]
    assert phi == pytest.approx(pool * life_shares(tuple(lives))[0], rel=1e-5, abs=1e-4)
    # The seats' potentials share the pool out (when someone still holds lives).
    if any(lives):
        rotations = [lives[k:] + lives[:k] for k in range(len(lives))]
        total = sum(PoolShare(len(lives))(_observation(len(lives), pool, r)[None])[0] for r in rotations)
        assert total == pytest.approx(pool, rel=1e-5, abs=1e-3)


def test_shaping_telescopes_so_an_episode_keeps_its_return_up_to_the_first_potential():
    # With gamma = 1 the shaped rewards of a whole match add up to the game's return minus
    # phi(first state): no action changes that term, so the best policy is unchanged (Ng et al. 1999).
    pytest.importorskip("numba")
    from training.vec_env import make_vec_env

    env = PotentialShaping(make_vec_env("pool", 4, 3, opponents=["random"], seed=5), PoolShare(4))
    observations = env.reset()
    first = PoolShare(4)(observations)
    shaped, game = np.zeros(3), np.zeros(3)
    finished: list[tuple[float, float, float]] = []
    rng = np.random.default_rng(0)
    while len(finished) < 6:
        masks = env.env_method("action_masks")
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        observations, rewards, dones, infos = env.step(actions)
        shaped += rewards
        game += [info["unshaped_reward"] for info in infos]
        for i in np.flatnonzero(dones):
            finished.append((shaped[i], game[i], first[i]))
            shaped[i] = game[i] = 0.0
        first = np.where(dones, PoolShare(4)(observations), first)
    env.close()
    for total_shaped, total_game, phi0 in finished:
        assert total_shaped == pytest.approx(total_game - phi0, abs=1e-3)
    assert any(abs(g) > 1 for _, g, _ in finished)  # real matches, with the pool paid out


def test_shaping_is_checked_against_the_variant_and_the_reward(tmp_path):
    assert check_potential("pool_share", "pool", "counters") is None
    assert "not 'widow'" in check_potential("pool_share", "widow", "counters")
    assert "reward 'outcome'" in check_potential("pool_share", "pool", "outcome")
    config = tmp_path / "pool.yaml"
    config.write_text("env: {variant: pool}\ntraining: {shaping: pool_share}\n")
    assert load_config(config)["training"]["shaping"] == "pool_share"  # the refusals: tests/test_training.py
