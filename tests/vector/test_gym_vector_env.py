"""The Gymnasium vector env over the batched engine: gymnasium.make_vec's answer for commerce/Commerce-v0."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

import gymnasium  # noqa: E402
from gymnasium.vector import AutoresetMode, VectorEnv  # noqa: E402

import commerce_env  # noqa: E402
from commerce_env.rules import VARIANTS  # noqa: E402
from commerce_env.vector import CommerceVectorEnv  # noqa: E402


def masked_random(obs: dict, rng: np.random.Generator) -> np.ndarray:
    mask = obs["action_mask"]
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def test_make_vec_returns_the_batched_vector_env():
    env = gymnasium.make_vec(commerce_env.GYM_ENV_ID, num_envs=6, variant="widow", num_players=3,
                             opponents=["greedy"])
    assert isinstance(env, CommerceVectorEnv) and isinstance(env, VectorEnv)
    assert env.num_envs == 6 and env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_action_space == gymnasium.spaces.Discrete(27)
    obs, infos = env.reset(seed=1)
    assert obs in env.observation_space
    assert obs["observation"].shape == (6, *env.single_observation_space["observation"].shape)
    assert (obs["action_mask"].sum(axis=1) > 0).all()  # the learner is to act in every game
    step = env.step(masked_random(obs, np.random.default_rng(0)))
    assert len(step) == 5 and step[0] in env.observation_space
    assert [np.shape(x) for x in step[1:4]] == [(6,)] * 3


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_seed_makes_the_run_exact(variant):
    def run(seed: int) -> list:
        env = CommerceVectorEnv(4, variant, 4, opponents=["greedy", "random"])
        obs, _ = env.reset(seed=seed)
        rng, out = np.random.default_rng(0), []
        for _ in range(40):
            obs, rewards, terminations, _, _ = env.step(masked_random(obs, rng))
            out.append((obs["observation"].copy(), rewards.copy(), terminations.copy()))
        return out

    first, again, other = run(3), run(3), run(4)
    assert all(np.array_equal(a, b) for x, y in zip(first, again, strict=True) for a, b in zip(x, y, strict=True))
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(first, other, strict=True))


@pytest.mark.parametrize("variant", VARIANTS)
def test_same_step_autoreset_keeps_every_reward_and_the_final_observation(variant):
    # R4.3: what the learner is paid over an episode is what the match's end says it won.
    env = CommerceVectorEnv(8, variant, 4, opponents=["greedy"], seed=2)
    obs, _ = env.reset()
    rng = np.random.default_rng(1)
    episode = np.zeros(8)
    ended = 0
    for _ in range(300):
        obs, rewards, terminations, truncations, infos = env.step(masked_random(obs, rng))
        assert not truncations.any()
        episode += rewards
        for g in np.flatnonzero(terminations):
            assert infos["_final_obs"][g] and infos["final_info"]["_returns"][g]
            assert infos["final_info"]["returns"][g] == pytest.approx(episode[g])
            final = infos["final_obs"][g]
            assert final["observation"].shape == obs["observation"][g].shape
            assert obs["action_mask"][g].any()  # the next episode's first decision
            episode[g] = 0.0
            ended += 1
    assert ended > 0


def test_bad_actions_and_reset_arguments_are_named():
    env = CommerceVectorEnv(3, "trade_barter", 3, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(3, dtype=int))
    obs, _ = env.reset()
    illegal = np.array([int(np.flatnonzero(m == 0)[0]) for m in obs["action_mask"]])
    with pytest.raises(ValueError, match="game 0: illegal action"):
        env.step(illegal)
    with pytest.raises(ValueError, match=r"actions\[1\] = 0.5"):
        env.step(np.array([0.0, 0.5, 1.0]))
    with pytest.raises(TypeError, match="'3'"):
        env.reset(seed="3")
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"deck": "AS"})


@pytest.mark.parametrize("seed", [-1, -2**40, np.int64(-7)])
def test_a_negative_seed_is_refused_naming_seed(seed):
    # numpy's generators take no negative seed; its own "expected non-negative integer" named nothing.
    with pytest.raises(ValueError, match=r"seed must .*got -"):
        gymnasium.make_vec(commerce_env.GYM_ENV_ID, num_envs=2, seed=seed)
    env = gymnasium.make_vec(commerce_env.GYM_ENV_ID, num_envs=2, seed=0)
    first, _ = env.reset(seed=3)
    with pytest.raises(ValueError, match=r"seed must .*got -"):
        env.reset(seed=seed)
    again, _ = env.reset(seed=3)  # the refused reset changed nothing
    assert np.array_equal(first["observation"], again["observation"])


@pytest.mark.parametrize("num_envs", [0, -3, 10**12, 2**20 + 1, 2.5, "8", True, None])
def test_a_bad_number_of_games_is_refused_naming_num_envs(num_envs):
    # 10**12 asked numpy for 7.28 TiB before: a bound, named, instead of a MemoryError.
    with pytest.raises(ValueError, match=r"for num_envs; expected a whole number from 1 to 1048576"):
        gymnasium.make_vec(commerce_env.GYM_ENV_ID, num_envs=num_envs)
    with pytest.raises(ValueError, match="num_envs"):
        CommerceVectorEnv(num_envs, "trade_barter", 3)


def test_it_needs_neither_stable_baselines3_nor_torch(tmp_path):
    script = textwrap.dedent("""
        import sys
        for name in ("stable_baselines3", "sb3_contrib", "torch"):
            sys.modules[name] = None  # importing any of them now fails
        import gymnasium, numpy as np
        import commerce_env
        env = gymnasium.make_vec("commerce/Commerce-v0", num_envs=4, opponents=["greedy"])
        obs, _ = env.reset(seed=0)
        for _ in range(20):
            mask = obs["action_mask"]
            obs, *_ = env.step((np.random.default_rng(0).random(mask.shape) * mask).argmax(axis=1))
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_a_cleanrl_style_ppo_loop_trains_on_it_without_stable_baselines3():
    """Three updates of a plain-torch masked PPO (tests/cleanrl_loop.py) in a process without SB3."""
    pytest.importorskip("torch")
    loop = Path(__file__).resolve().parents[1] / "cleanrl_loop.py"
    done = subprocess.run([sys.executable, str(loop), "stable_baselines3", "sb3_contrib"], capture_output=True,
                          text=True, timeout=600, cwd=loop.parent.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["moved=True", done.stdout.split()[1], "finite=True"]
    assert int(done.stdout.split()[1].split("=")[1]) > 0  # it saw matches end


@pytest.mark.parametrize("variant", VARIANTS)
def test_next_step_autoreset_returns_the_last_observation_then_restarts(variant):
    # Gymnasium's default mode: the final observation itself, then a step that restarts the game.
    env = CommerceVectorEnv(6, variant, 3, opponents=["greedy"], seed=4, autoreset_mode="next_step")
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, _ = env.reset()
    rng = np.random.default_rng(2)
    episode, restarting, ended = np.zeros(6), np.zeros(6, bool), 0
    for _ in range(200):
        obs, rewards, terminations, _, infos = env.step(masked_random(obs, rng))
        assert (rewards[restarting] == 0).all() and not terminations[restarting].any()  # R4.3: nothing lost
        assert (obs["action_mask"][restarting].sum(axis=1) > 0).all()  # the new episode's first decision
        episode += rewards
        for g in np.flatnonzero(terminations):
            assert infos["_returns"][g] and infos["returns"][g] == pytest.approx(episode[g])
            assert not obs["action_mask"][g].any()  # its last observation: nobody acts
            episode[g] = 0.0
            ended += 1
        restarting = terminations.copy()
    assert ended > 0


def test_gymnasiums_vector_observation_wrappers_take_the_next_step_mode():
    from gymnasium.wrappers.vector import FlattenObservation

    env = FlattenObservation(gymnasium.make_vec(commerce_env.GYM_ENV_ID, num_envs=4, opponents=["greedy"],
                                                autoreset_mode="next_step"))
    obs, _ = env.reset(seed=0)
    assert obs.shape == (4, 27 + env.env.single_observation_space["observation"].shape[0])
    mask = obs[:, :27]  # the dict's keys in order: action_mask, then observation
    env.step((np.random.default_rng(0).random(mask.shape) * mask).argmax(axis=1))


@pytest.mark.parametrize("mode", ["same_step", "next_step"])
def test_the_masks_can_travel_in_infos_instead(mode):
    # The same games either way: only where the mask is put differs.
    in_obs = CommerceVectorEnv(5, "widow", 4, opponents=["greedy"], seed=6, autoreset_mode=mode)
    in_info = CommerceVectorEnv(5, "widow", 4, opponents=["greedy"], seed=6, autoreset_mode=mode,
                                action_mask="info")
    assert in_info.single_observation_space == in_obs.single_observation_space["observation"]
    obs, _ = in_obs.reset()
    vectors, infos = in_info.reset()
    rng, ended = np.random.default_rng(3), 0
    for _ in range(150):
        assert vectors in in_info.observation_space
        assert np.array_equal(vectors, obs["observation"])
        assert infos["action_mask"].dtype == bool and np.array_equal(infos["action_mask"], obs["action_mask"] == 1)
        actions = masked_random(obs, rng)
        obs, rewards, terminations, _, seen = in_obs.step(actions)
        vectors, rewards_too, terminations_too, _, infos = in_info.step(actions)
        assert np.array_equal(rewards, rewards_too) and np.array_equal(terminations, terminations_too)
        for g in np.flatnonzero(terminations):
            if mode == "same_step":
                assert np.array_equal(infos["final_obs"][g], seen["final_obs"][g]["observation"])
            ended += 1
    assert ended > 0
    with pytest.raises(ValueError, match="'mask'"):
        CommerceVectorEnv(3, action_mask="mask")
    with pytest.raises(ValueError, match="bad action_mask array"):
        CommerceVectorEnv(3, action_mask=np.array([1]))


@pytest.mark.parametrize("mode", ["same_step", "next_step"])
def test_an_illegal_action_can_end_the_episode_instead_of_raising(mode):
    # The single-agent env's convention (PettingZoo's): the episode ends, reward -1; other games play on.
    env = CommerceVectorEnv(3, "trade_barter", 3, seed=0, illegal_action="terminate", autoreset_mode=mode)
    obs, _ = env.reset()
    actions = masked_random(obs, np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    obs, rewards, terminations, _, infos = env.step(actions)
    assert terminations[1] and rewards[1] == -1.0
    returns = infos["final_info"]["returns"] if mode == "same_step" else infos["returns"]
    assert returns[1] == -1.0
    with pytest.raises(ValueError, match="illegal_action"):
        CommerceVectorEnv(3, illegal_action="ignore")
    with pytest.raises(ValueError, match="autoreset_mode"):
        CommerceVectorEnv(3, autoreset_mode="sometimes")


@pytest.mark.parametrize("variant", VARIANTS)
def test_one_random_policy_plays_one_game_and_many(variant):
    """``RandomPolicy`` is the vector env's default opponent too: ``act_batch`` picks only legal
    actions, each of a game's legal actions about equally often, and a seed repeats its picks."""
    from commerce_env.policies import RandomPolicy
    from commerce_env.vector import BatchEngine, UniformRandom

    assert UniformRandom is RandomPolicy
    engine = BatchEngine(variant, 4, 64, seed=3)
    engine.reset()
    games = np.arange(64)
    seats = engine.current_player[games]
    picks = RandomPolicy(seed=1).act_batch(engine, games, seats)
    assert engine.action_mask[games, picks].all()
    assert np.array_equal(picks, RandomPolicy(seed=1).act_batch(engine, games, seats))
    probabilities = RandomPolicy().action_probabilities_batch(engine, games, seats)
    assert np.allclose(probabilities.sum(axis=1), 1.0) and not probabilities[engine.action_mask[games] == 0].any()
    counts = np.zeros_like(probabilities)
    policy = RandomPolicy(seed=2)
    for _ in range(400):
        counts[games, policy.act_batch(engine, games, seats)] += 1
    assert np.abs(counts / 400 - probabilities).max() < 0.15
