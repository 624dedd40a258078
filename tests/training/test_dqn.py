"""The single-file masked DQN (training/dqn.py): it never chooses or bootstraps from an illegal
action, its replay buffer is a ring, and its Q-network plays as model:FOLDER."""

from __future__ import annotations

import json

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from training.dqn import Args, ReplayBuffer, legal_argmax, linear_schedule, q_network, random_legal, train

MASKS = arrays(bool, st.tuples(st.integers(1, 6), st.just(27))).filter(lambda m: m.any(axis=1).all())


@settings(max_examples=60, deadline=None)
@given(MASKS, st.integers(0, 2**31))
def test_greedy_and_random_choices_are_legal(mask, seed):
    rng = np.random.default_rng(seed)
    q = torch.as_tensor(rng.normal(size=mask.shape) * 100, dtype=torch.float32)
    greedy = legal_argmax(q, torch.as_tensor(mask)).numpy()
    assert mask[np.arange(len(mask)), greedy].all()
    assert (q.numpy()[np.arange(len(mask)), greedy] == np.where(mask, q.numpy(), -np.inf).max(1)).all()
    assert mask[np.arange(len(mask)), random_legal(mask, rng)].all()


def test_random_legal_draws_every_legal_action():
    mask = np.zeros((4000, 27), bool)
    mask[:, [2, 5, 26]] = True
    drawn = np.bincount(random_legal(mask, np.random.default_rng(0)), minlength=27)
    assert set(np.flatnonzero(drawn)) == {2, 5, 26} and drawn.min(initial=4000, where=drawn > 0) > 1000


def test_exploration_decays_linearly_then_stays():
    assert linear_schedule(1.0, 0.05, 100, 0) == 1.0
    assert abs(linear_schedule(1.0, 0.05, 100, 50) - 0.525) < 1e-9
    assert abs(linear_schedule(1.0, 0.05, 100, 100) - 0.05) < 1e-9
    assert linear_schedule(1.0, 0.05, 100, 10**6) == 0.05


def test_the_replay_buffer_is_a_ring_that_keeps_the_newest():
    buffer = ReplayBuffer(capacity=5, size=2)
    for k in range(3):  # 3 adds of 3 rows: 9 rows into 5 places
        rows = np.arange(3 * k, 3 * k + 3)
        buffer.add(np.stack([rows, rows], 1), np.zeros((3, 2)), np.ones((3, 27), bool), rows, rows, rows % 2)
    assert buffer.count == 5
    assert sorted(buffer.actions.tolist()) == [4, 5, 6, 7, 8]
    sampled = buffer.sample(50, np.random.default_rng(0))
    assert set(sampled[3].tolist()) <= {4, 5, 6, 7, 8}
    assert (sampled[0][:, 0] == sampled[3]).all()  # a transition's parts stay together


def test_a_run_saves_checkpoints_and_a_q_network_that_plays_its_best_legal_value(tmp_path):
    from agents import make_agent
    from agents.model_files import read_model
    from commerce_env.engine import new_game
    from commerce_env.observation import encode
    from commerce_env.rules import make_rules
    from commerce_env.view import seat_view

    seen = []
    args = Args(num_envs=8, hidden=[16], batch_size=16, learning_starts=64, train_frequency=8,
                target_network_frequency=64, total_timesteps=8 * 40, checkpoint_every=128, eval_deals=0,
                features=[], output=str(tmp_path))
    model = train(args, on_checkpoint=lambda steps, folder: seen.append(steps), quiet=True)
    assert seen == [128, 256, 320]  # every 128 steps, and the last
    assert json.loads((tmp_path / "run.json").read_text())["steps"] == 320
    weights, meta = read_model(model)
    assert meta["network"]["hidden"] == [16] and meta["network"]["activation"] == "relu"
    q = q_network(len(encode(new_game(make_rules("trade_barter"), 4, seed=0), 0)), [16])
    q.load_state_dict({"0.weight": torch.as_tensor(weights["hidden.0.weight"]),
                       "0.bias": torch.as_tensor(weights["hidden.0.bias"]),
                       "2.weight": torch.as_tensor(weights["logits.weight"]),
                       "2.bias": torch.as_tensor(weights["logits.bias"])})
    agent = make_agent(f"model:{model}")
    game = new_game(make_rules("trade_barter"), 4, seed=1)
    while not game.over:  # R11: it plays from seat views, its largest legal Q-value each time
        seat = game.current_player
        view = seat_view(game, seat)
        mask = torch.zeros(27, dtype=torch.bool)
        mask[list(view.legal_actions)] = True
        with torch.no_grad():
            expected = int(legal_argmax(q(torch.as_tensor(encode(game, seat), dtype=torch.float32)), mask))
        assert agent.act(view) == expected
        game.apply(expected)
