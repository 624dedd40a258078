"""A centralised critic (``policy.critic: privileged``): the value network is given the
opponents' hands in training, the policy never is, so the model that plays still reads only
its seat's observation (R11)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

import torch  # noqa: E402

from agents.learned import load_agent, weights_from_policy  # noqa: E402
from commerce_env import observation as obs  # noqa: E402
from commerce_env.critic_state import PER_OPPONENT, CriticState, game_hands  # noqa: E402
from commerce_env.engine import new_game  # noqa: E402
from commerce_env.features import HandStrength, feature_builders  # noqa: E402
from commerce_env.rules import make_rules  # noqa: E402
from training.vec_env import make_vec_env as batch_vec_env  # noqa: E402
from tests.test_training import tiny  # noqa: E402
from training.config import validate  # noqa: E402
from training.pretrain import collect  # noqa: E402
from training.train import build_model, make_vec_env, train  # noqa: E402


def _decode(columns: np.ndarray, num_players: int) -> list[tuple[list[int], float]]:
    blocks = columns.reshape(num_players - 1, PER_OPPONENT)
    return [(sorted(np.flatnonzero(b[:52]).tolist()), float(b[52])) for b in blocks]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["old_game", "pool", "widow", "trade_barter", "my_ship_sails"]), st.integers(2, 6),
       st.integers(0, 2**32 - 1), st.data())
def test_each_opponents_hand_from_the_observers_left_and_nothing_for_a_seat_dealt_none(variant, n, seed, data):
    # R11: these are exactly the cards the observer may not see (training's critic only); R9.4: a seat
    # that is out holds no cards and shows all zeros.
    rules = make_rules(variant)
    rng = np.random.default_rng(seed)
    pack = rng.permutation(52)[:3 * n].reshape(n, 3)
    hands = np.sort(pack, axis=1)
    out = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    hands[np.array(out)] = -1
    seat = data.draw(st.integers(0, n - 1))
    state = CriticState(rules, n)
    columns = state(hands[None], np.array([seat]))[0]
    assert columns.shape == (state.size,) == ((n - 1) * PER_OPPONENT,)
    strength = HandStrength(rules, n)
    for k, (cards, percentile) in enumerate(_decode(columns, n), start=1):
        theirs = hands[(seat + k) % n]
        if out[(seat + k) % n]:
            assert cards == [] and percentile == 0.0
        else:
            assert cards == sorted(theirs.tolist())
            assert percentile == pytest.approx(strength.percentile[strength.keys(*theirs[:, None])][0])
    assert not set(hands[seat][hands[seat] >= 0].tolist()) & {c for cards, _ in _decode(columns, n) for c in cards}


def test_a_bad_batch_is_refused_naming_its_shape():
    state = CriticState(make_rules("old_game"), 4)
    with pytest.raises(ValueError, match=r"\(2, 3, 3\)"):
        state(np.zeros((2, 3, 3), dtype=int), np.zeros(2, dtype=int))


def test_the_batched_env_appends_the_hands_to_the_same_observations():
    # The first actor_size columns are the env's observation without the option, game for game.
    kwargs = dict(variant="pool", num_players=4, num_envs=6, opponents=["greedy"], seed=9, features=["hand_strength"])
    plain, privileged = batch_vec_env(**kwargs), batch_vec_env(critic_state=True, **kwargs)
    assert privileged.actor_size == plain.observation_space.shape[0]
    state = CriticState(make_rules("pool"), 4)
    assert privileged.observation_space.shape[0] == plain.actor_size + state.size
    seen, hidden = plain.reset(), privileged.reset()
    for _ in range(40):
        assert np.array_equal(seen, hidden[:, :privileged.actor_size])
        expected = state(privileged.engine.hands, privileged.seats)
        assert np.array_equal(hidden[:, privileged.actor_size:], expected)
        actions = [int(np.flatnonzero(m)[0]) for m in plain.action_masks()]
        seen, _, plain_done, _ = plain.step(np.array(actions))
        hidden, _, privileged_done, _ = privileged.step(np.array(actions))
        assert np.array_equal(plain_done, privileged_done)
    with pytest.raises(ValueError, match="critic_state"):
        batch_vec_env(critic_state="yes", **kwargs)


def _privileged(tmp_path, **sections):
    return validate(tiny(tmp_path, env={"variant": "old_game", "num_players": 4, "rules": {},
                                        "features": ["hand_strength"]},
                         opponents={"pool": ["greedy"]}, policy={"net_arch": [32, 32], "critic": "privileged"},
                         training={"vec_env": "batch", "n_envs": 4, "total_timesteps": 512}, **sections))


def test_the_policy_never_reads_the_hidden_columns_and_the_critic_does(tmp_path):
    config = _privileged(tmp_path)
    vec = make_vec_env(config, 0)
    model = build_model(config, vec, tmp_path)
    policy, actor = model.policy, vec.get_attr("actor_size")[0]
    observations = torch.as_tensor(vec.reset())
    other = observations.clone()
    other[:, actor:] = torch.as_tensor(np.random.default_rng(1).random(other[:, actor:].shape), dtype=torch.float32)
    masks = vec.action_masks()
    with torch.no_grad():
        before = policy.get_distribution(observations, action_masks=masks).distribution.probs
        after = policy.get_distribution(other, action_masks=masks).distribution.probs
        assert torch.equal(before, after)
        assert not torch.equal(policy.predict_values(observations), policy.predict_values(other))
    weights, network = weights_from_policy(policy)
    assert weights["hidden.0.weight"].shape[1] == actor == obs.observation_size(4) + 20


def test_a_run_with_a_privileged_critic_ships_a_model_of_the_seats_observation(tmp_path):
    config = _privileged(tmp_path, pretrain={"teacher": "greedy", "decisions": 200, "epochs": 1})
    train(config, quiet=True)
    agent = load_agent(tmp_path / "run" / "model")
    assert agent.meta["observation_size"] == obs.observation_size(4)
    assert agent.meta["features"] == ["hand_strength"]
    resumed = {**config, "training": {**config["training"], "total_timesteps": 1024}}
    report = train(resumed, resume=True, quiet=True)  # the checkpoint reloads with its policy class
    assert report["steps"] >= 1024


@pytest.mark.parametrize("change, message", [
    ({"policy": {"critic": "oracle"}}, "policy.critic"),
    ({"policy": {"critic": "privileged"}, "training": {"vec_env": "dummy"}}, "policy.critic"),
])
def test_a_bad_critic_is_refused_naming_the_key(tmp_path, change, message):
    with pytest.raises(ValueError, match=message):
        validate(tiny(tmp_path, **change))


def test_demonstrations_carry_the_hands_for_the_critic_and_the_teacher_sees_none_of_them():
    # R11: the teacher's actions are the same with and without the critic's columns.
    plain = collect("greedy", "old_game", 4, {}, ["hand_strength"], 200, seed=3)
    rich = collect("greedy", "old_game", 4, {}, ["hand_strength"], 200, seed=3, critic_state=True)
    rules = make_rules("old_game")
    actor = obs.observation_size(4) + sum(f.size for f in feature_builders(["hand_strength"], rules, 4))
    assert np.array_equal(plain.actions, rich.actions)
    assert np.array_equal(plain.observations, rich.observations[:, :actor])
    rng = random.Random(3)
    game = new_game(rules, 4, dealer=rng.randrange(4), rng=random.Random(rng.getrandbits(64)))
    first = CriticState(rules, 4)(game_hands(game, 4), np.array([game.current_player]))[0]
    assert np.array_equal(rich.observations[0, actor:], first)


def test_a_trusted_checkpoint_of_a_privileged_run_loads_as_the_seats_model(tmp_path):
    # The zip's observation space holds the critic's columns; the loaded agent reads the seat's alone.
    train(_privileged(tmp_path), quiet=True)
    agent = load_agent(tmp_path / "run" / "checkpoints" / "last.zip", trust_sb3_zip=True)
    exported = load_agent(tmp_path / "run" / "model")
    assert agent.meta["observation_size"] == exported.meta["observation_size"] == obs.observation_size(4)
    assert agent.meta["features"] == ["hand_strength"]
