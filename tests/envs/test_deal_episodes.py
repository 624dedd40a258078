"""Episodes of one deal (``training.episode: deal``, training.deal_episodes): the envs say where a
learner's next decision is in a later deal, and the wrapper ends the episode there without losing
any reward, while the monitor still logs whole matches."""

from __future__ import annotations

import numpy as np
import pytest

from commerce_env import observation as obs
from commerce_env.engine.base import DEAL
from commerce_env.single_agent import CommerceEnv

pytest.importorskip("stable_baselines3")
from stable_baselines3.common.vec_env import VecMonitor  # noqa: E402

from training.deal_episodes import DealEpisodes  # noqa: E402

MATCH_VARIANTS = ["widow", "my_ship_sails", "pool"]


def _deals_in_record(game) -> int:
    return sum(1 for entry in game.record if entry[1] == DEAL)


@pytest.mark.parametrize("variant", MATCH_VARIANTS)
def test_the_env_says_when_the_next_decision_is_in_a_later_deal(variant):
    # R4.5: a match is a run of deals; the flag is read against the deals the game's record shows.
    env = CommerceEnv(variant=variant, num_players=4, opponents=["random"])
    rng = np.random.default_rng(0)
    flags = []
    for episode in range(3):
        env.reset(seed=3 if episode == 0 else None)
        done = False
        while not done:
            before = _deals_in_record(env.game)
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, _, done, _, info = env.step(action)
            if done:
                assert "deal_ended" not in info
            else:
                assert info["deal_ended"] == (_deals_in_record(env.game) != before)
                flags.append(info["deal_ended"])
    assert any(flags) and not all(flags)


def _has_acted_in_this_deal(vectors: np.ndarray) -> np.ndarray:
    """The observer's own ``last_none`` field, cleared: he has taken an action in this deal (R11)."""
    at = dict((name, start) for name, start, _ in obs.layout(4))["players"] + obs.PLAYER_FIELDS.index("last_none")
    return vectors[:, at] == 0.0


@pytest.mark.parametrize("variant", MATCH_VARIANTS)
def test_the_batched_env_flags_exactly_the_decisions_where_the_seat_has_not_acted_in_the_deal(variant):
    # The learner acted at the step before; its next decision is in the same deal exactly when its
    # observation still shows that action (`last_none` cleared), and in a new deal when it does not.
    pytest.importorskip("numba")
    from training.vec_env import make_vec_env

    env = make_vec_env(variant, 4, 8, opponents=["random"], seed=5)
    env.reset()
    rng = np.random.default_rng(1)
    flagged = unflagged = 0
    for _ in range(400):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        observations, _, dones, infos = env.step(actions)
        assert all(("deal_ended" in info) != done for info, done in zip(infos, dones, strict=True))
        ended = np.array([info.get("deal_ended", False) for info in infos])
        going_on = ~dones
        assert (ended[going_on] == ~_has_acted_in_this_deal(observations)[going_on]).all()
        flagged += int(ended.sum())
        unflagged += int((going_on & ~ended).sum())
    assert flagged and unflagged  # both kinds of step occur
    env.close()


def _random_steps(env, rng):
    masks = env.env_method("action_masks")
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


@pytest.mark.parametrize("variant", ["widow", "my_ship_sails"])
def test_deal_episodes_split_a_match_and_keep_every_reward(variant):
    # R6, R7: counters change hands at each showdown; the deal episodes of a match add up to its return.
    pytest.importorskip("numba")
    from training.vec_env import make_vec_env

    env = DealEpisodes(VecMonitor(make_vec_env(variant, 4, 4, opponents=["random"], seed=7)))
    env.reset()
    rng = np.random.default_rng(2)
    episode_returns, match_sums, current = [], [], np.zeros(4)
    deal_episodes, matches = np.zeros(4, dtype=int), []
    while len(matches) < 8:
        observations, rewards, dones, infos = env.step(_random_steps(env, rng))
        current += rewards
        for i in np.flatnonzero(dones):
            deal_episodes[i] += 1
            if "episode" in infos[i]:  # the monitor's record: a whole match
                matches.append(deal_episodes[i])
                episode_returns.append(infos[i]["episode"]["r"])
                match_sums.append(current[i])
                current[i], deal_episodes[i] = 0.0, 0
            else:
                assert infos[i]["deal_ended"]
    env.close()
    assert match_sums == pytest.approx(episode_returns, abs=1e-4)
    assert max(matches) > 1  # matches of several deals were split
