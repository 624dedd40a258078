"""Imitation before PPO (training.pretrain): demonstrations are the learner's own input and
the teacher's legal choices, the clone learns them, and a run with a teacher counts it in its
time and seats its clone in the league."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from test_training import tiny  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.learned import load_agent  # noqa: E402
from commerce_env import observation as obs  # noqa: E402
from commerce_env.engine import new_game  # noqa: E402
from commerce_env.engine.actions import ACTION_KINDS, EXCHANGE  # noqa: E402
from commerce_env.features import feature_builders  # noqa: E402
from commerce_env.rules import make_rules  # noqa: E402
from commerce_env.view import seat_view  # noqa: E402
from training.config import validate  # noqa: E402
from training.pretrain import (  # noqa: E402
    Demonstrations,
    ImitationAnchor,
    anchor_rows,
    collect,
    collect_parallel,
    imitate,
)
from training.run_folder import RunFolder  # noqa: E402
from training.train import CLONE, build_model, make_vec_env, train, with_clone  # noqa: E402


def test_demonstrations_are_the_teachers_legal_choices_and_the_learners_input():
    # R11: the input is the seat's own observation (obs.encode) and features of it.
    demos = collect("greedy", "old_game", 4, {}, ["hand_strength"], 300, seed=5)
    assert len(demos) >= 300
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    rules = make_rules("old_game")
    size = obs.observation_size(4) + sum(f.size for f in feature_builders(["hand_strength"], rules, 4))
    assert demos.observations.shape == (len(demos), size)
    again = collect("greedy", "old_game", 4, {}, ["hand_strength"], 300, seed=5)
    assert np.array_equal(demos.observations, again.observations)
    assert np.array_equal(demos.actions, again.actions)


def test_the_first_decisions_of_a_deal_replay_as_the_teacher_plays_them():
    # R5: the same seed deals the same cards; the teacher's first action is the recorded one.
    demos = collect("greedy", "trade_barter", 3, {"preset": "foster"}, [], 1, seed=11)
    rng = random.Random(11)
    rules = make_rules("trade_barter", preset="foster")
    game = new_game(rules, 3, dealer=rng.randrange(3), rng=random.Random(rng.getrandbits(64)))
    seat = game.current_player
    assert np.array_equal(demos.observations[0], obs.encode(game, seat))
    teacher = make_agent("greedy", variant="trade_barter", num_players=3)
    assert demos.actions[0] == teacher.act(seat_view(game, seat))


def test_returns_are_each_seats_reward_from_the_decision_to_the_end_of_the_match():
    # R9.5: a pool match of several deals; a decision's return is what its seat gets after it.
    demos = collect("greedy", "pool", 3, {}, [], 1, seed=2)
    rng = random.Random(2)
    game = new_game(make_rules("pool"), 3, dealer=rng.randrange(3), rng=random.Random(rng.getrandbits(64)))
    teacher = make_agent("greedy", variant="pool", num_players=3)
    earned = np.asarray(game.take_rewards(), dtype=float)
    seats, before = [], []
    while not game.over:
        seats.append(game.current_player)
        before.append(earned[game.current_player])
        game.apply(teacher.act(seat_view(game, game.current_player)))
        earned += game.take_rewards()
    expected = [earned[s] - b for s, b in zip(seats, before, strict=True)]
    assert len(demos) == len(expected)
    assert demos.returns == pytest.approx(expected, abs=1e-4)
    assert len(set(np.round(demos.returns, 4))) > 1  # not one number for every decision


def test_explore_plays_other_moves_but_labels_the_teachers_choice():
    plain = collect("greedy", "old_game", 4, {}, [], 400, seed=1)
    explored = collect("greedy", "old_game", 4, {}, [], 400, seed=1, explore=0.5)
    assert not np.array_equal(plain.observations[:len(explored)][:50], explored.observations[:50])
    assert explored.masks[np.arange(len(explored)), explored.actions].all()


@pytest.mark.parametrize("bad, message", [({"decisions": 0}, "decisions"), ({"explore": 1.5}, "explore")])
def test_bad_collection_arguments_are_refused_naming_them(bad, message):
    arguments = {"decisions": 10, "explore": 0.0, **bad}
    with pytest.raises(ValueError, match=message):
        collect("greedy", "old_game", 4, {}, [], arguments["decisions"], 0, arguments["explore"])


def test_parallel_collection_is_the_workers_seeds_in_order():
    parallel = collect_parallel("greedy", "trade_barter", 3, {}, [], 40, seed=4, workers=2)
    parts = [collect("greedy", "trade_barter", 3, {}, [], 20, seed=s) for s in (4, 5)]
    assert np.array_equal(parallel.actions, Demonstrations.concatenate(parts).actions)


def test_imitation_learns_the_teacher(tmp_path):
    config = validate(tiny(tmp_path, env={"variant": "old_game", "num_players": 4, "rules": {}},
                           policy={"net_arch": [64, 64]}))
    demos = collect("greedy", "old_game", 4, {}, [], 3000, seed=0)
    vec_env = make_vec_env(config.env, config.opponents, config.selfplay, config.training, 0)
    model = build_model(config.policy, config.ppo, vec_env, tmp_path, config.seed)
    before = imitate(model.policy, demos, epochs=1, batch_size=256, learning_rate=1e-9)
    after = imitate(model.policy, demos, epochs=15, batch_size=256, learning_rate=3e-3)
    assert after["agreement"] > before["agreement"] + 0.3
    assert after["policy_loss"] < before["policy_loss"]
    assert after["value_loss"] < before["value_loss"]


def test_a_run_with_a_teacher_imitates_it_counts_the_time_and_seats_the_clone(tmp_path):
    config = validate(tiny(tmp_path, pretrain={"teacher": "greedy", "decisions": 200, "epochs": 2},
                           selfplay={"enabled": True, "every_steps": 10**6}))
    train(config, quiet=True)
    out = tmp_path / "run"
    record = json.loads((out / "pretrain.json").read_text())
    assert record["teacher"] == "greedy" and record["decisions"] >= 200
    state = json.loads((out / "checkpoints" / "state.json").read_text())
    assert state["snapshots"] == [str(out / "clone")]
    assert state["elapsed_seconds"] >= record["seconds"]
    assert load_agent(out / "clone").meta["trained_steps"] == 0


def test_the_clone_joins_the_opponent_pool_at_its_weight_and_stays_there_on_resume(tmp_path):
    config = validate(tiny(tmp_path, opponents={"pool": ["random", "greedy"], "weights": [3, 1]},
                           pretrain={"teacher": "greedy", "decisions": 100, "epochs": 1, "opponent_weight": 2.0},
                           training={"vec_env": "batch", "n_envs": 4, "total_timesteps": 512}))
    run = RunFolder(tmp_path / "run")
    league = with_clone(config.opponents, config.pretrain, run)
    assert league == {"pool": ["random", "greedy", f"model:{run.path / CLONE}"], "weights": [3, 1, 2.0]}
    assert config["opponents"]["pool"] == ["random", "greedy"]  # the config itself is left as it was
    train(config, quiet=True)
    assert (run.path / CLONE / "model.json").is_file()
    resumed = validate({**tiny(tmp_path), **{k: v for k, v in config.items() if k != "backend"},
                        "training": {**config["training"], "total_timesteps": 1024}})
    train(resumed, resume=True, quiet=True)
    (run.path / CLONE).rename(tmp_path / "moved")  # the resumed league reads the clone again: gone, it says so
    more = validate({**resumed, "training": {**resumed["training"], "total_timesteps": 2048}})
    with pytest.raises(ValueError, match=CLONE):
        train(more, resume=True, quiet=True)
    uniform = validate(tiny(tmp_path, pretrain={"teacher": "greedy", "opponent_weight": 0.5}))
    assert with_clone(uniform.opponents, uniform.pretrain, run)["weights"] == [1.0, 0.5]
    plain = validate(tiny(tmp_path))
    assert with_clone(plain.opponents, plain.pretrain, run)["pool"] == ["random"]  # no teacher, no clone


@pytest.mark.parametrize("change, message", [
    ({"teacher": "oracle"}, "pretrain.teacher"),
    ({"decisions": 0}, "pretrain.decisions"),
    ({"explore": 2}, "pretrain.explore"),
    ({"workers": 0}, "pretrain.workers"),
    ({"snapshot": "yes"}, "pretrain.snapshot"),
    ({"opponent_weight": -1}, "pretrain.opponent_weight"),
    ({"anchor_batches": -1, "teacher": "greedy"}, "pretrain.anchor_batches"),
    ({"anchor_batches": 2}, "pretrain.anchor_batches"),  # no teacher: nothing to anchor to
    ({"anchor_kind": "peek", "teacher": "greedy"}, "pretrain.anchor_kind"),
    ({"anchor_learning_rate": 0, "teacher": "greedy"}, "pretrain.anchor_learning_rate"),
])
def test_a_bad_pretrain_section_is_refused_naming_the_key(tmp_path, change, message):
    with pytest.raises(ValueError, match=message):
        validate(tiny(tmp_path, pretrain=change))


def test_a_teacher_that_samples_gives_the_same_demonstrations_for_the_same_seed():
    # search samples worlds (its own generator): the collection seeds it, so a run can be repeated.
    first = collect({"agent": "search", "worlds": 2}, "widow", 3, {}, [], 40, seed=8)
    again = collect({"agent": "search", "worlds": 2}, "widow", 3, {}, [], 40, seed=8)
    assert np.array_equal(first.actions, again.actions)
    assert np.array_equal(first.observations, again.observations)


def test_an_exchange_anchor_keeps_the_teachers_exchanges_masked_to_the_exchanges():
    # R8.2: only decisions where the teacher exchanged with two or more exchanges open.
    demos = collect("greedy", "old_game", 4, {}, [], 400, seed=1)
    rows = anchor_rows(demos, "exchange")
    assert 0 < len(rows) < len(demos)
    assert (rows.actions >= EXCHANGE).all()
    assert rows.masks[np.arange(len(rows)), rows.actions].all()
    assert not rows.masks[:, :EXCHANGE].any() and (rows.masks.sum(axis=1) >= 2).all()
    assert anchor_rows(demos, None) is demos
    assert {ACTION_KINDS[a] for a in demos.actions} - {"exchange"}  # the others were there, and dropped


def test_the_anchor_pulls_a_policy_back_to_the_teacher(tmp_path):
    config = validate(tiny(tmp_path, env={"variant": "old_game", "num_players": 4, "rules": {}},
                           policy={"net_arch": [32, 32]}))
    demos = collect("greedy", "old_game", 4, {}, [], 2000, seed=0)
    vec_env = make_vec_env(config.env, config.opponents, config.selfplay, config.training, 0)
    model = build_model(config.policy, config.ppo, vec_env, tmp_path, config.seed)
    before = imitate(model.policy, demos, epochs=1, batch_size=256, learning_rate=1e-9)["agreement"]
    anchor = ImitationAnchor(model.policy, demos, None, batches=200, batch_size=256, learning_rate=3e-3)
    first = anchor.step()
    after = imitate(model.policy, demos, epochs=1, batch_size=256, learning_rate=1e-9)["agreement"]
    assert after > before + 0.3 and anchor.step() < first
    with pytest.raises(ValueError, match="anchor_kind 'knock'"):  # the old game has no knock (R8.2)
        ImitationAnchor(model.policy, demos, "knock", batches=1, batch_size=8, learning_rate=1e-3)


def test_a_run_with_an_anchor_logs_its_loss_and_resumes(tmp_path):
    config = validate(tiny(tmp_path, env={"variant": "old_game", "num_players": 4, "rules": {}},
                           pretrain={"teacher": "greedy", "decisions": 200, "epochs": 1, "anchor_batches": 2,
                                     "anchor_kind": "exchange"},
                           training={"vec_env": "batch", "n_envs": 4, "total_timesteps": 1024}))
    train(config, quiet=True)
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(tmp_path / "run" / "tb" / "ppo_1"))
    events.Reload()
    assert "pretrain/anchor_loss" in events.Tags()["scalars"]
    more = validate({**config, "training": {**config["training"], "total_timesteps": 2048}})
    assert train(more, resume=True, quiet=True)["steps"] >= 2048
