"""The single-file PPO (training/ppo.py): its flags, its checkpoints and snapshots, and a model
that plays as model:FOLDER."""

from __future__ import annotations

import json

import numpy as np
import pytest

from training.ppo import Args, parse_args, train

TINY = dict(num_envs=8, num_steps=16, batch_size=32, update_epochs=1, hidden=[16], eval_deals=0)


def test_every_field_is_a_flag_of_its_type():
    args = parse_args(["--variant", "widow", "--num-players", "3", "--opponents", "greedy,random",
                       "--hidden", "64,32", "--anneal-lr", "--learning-rate", "0.001"])
    assert args == Args(variant="widow", num_players=3, opponents=["greedy", "random"], hidden=[64, 32],
                        anneal_lr=True, learning_rate=0.001)
    with pytest.raises(SystemExit):
        parse_args(["--num-players", "three"])


def test_a_run_saves_checkpoints_snapshots_and_a_model_that_plays(tmp_path):
    from agents import make_agent
    from commerce_env.engine import new_game
    from commerce_env.rules import make_rules
    from commerce_env.view import seat_view

    seen = []
    args = Args(**TINY, total_timesteps=8 * 16 * 5, checkpoint_every=8 * 16 * 2, selfplay_every=8 * 16,
                output=str(tmp_path))
    model = train(args, on_checkpoint=lambda steps, folder: seen.append((steps, folder.name)), quiet=True)
    assert seen == [(256, "step_256"), (512, "step_512"), (640, "step_640")]  # every 256 steps, and the last
    assert sorted(p.name for p in (tmp_path / "snapshots").iterdir()) == ["step_128", "step_256", "step_384",
                                                                          "step_512", "step_640"]
    assert json.loads((tmp_path / "run.json").read_text())["steps"] == 640
    agent = make_agent(f"model:{model}")
    game = new_game(make_rules("trade_barter"), 4, seed=1)
    while not game.over:  # R11: it plays from seat views, a legal action each time
        view = seat_view(game, game.current_player)
        action = agent.act(view)
        assert action in view.legal_actions
        game.apply(action)
    assert np.isfinite(game.returns()).all()
