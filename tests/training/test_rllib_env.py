"""The RLlib turn-based adapter and modules, without a Ray cluster: protocol, rewards, masking, export.

Skipped when the 'distributed' extra (Ray/RLlib) is not installed.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("ray.rllib", reason="the RLlib tests need the distributed extra: pip install -e '.[distributed]'")

from agents.heuristics import GreedyAgent  # noqa: E402
from agents.learned import LearnedAgent, make_meta  # noqa: E402
from commerce_env.rules import make_rules  # noqa: E402
from commerce_env.view import seat_view  # noqa: E402
from training.rllib_env import TurnBasedCommerceEnv, agent_id, seat_of  # noqa: E402
from training.rllib_train import SHARED, choose_modules, league  # noqa: E402


def play(env: TurnBasedCommerceEnv, seed: int, rng: random.Random, check=None):
    """Random legal play through the adapter; per agent: the sum of rewards, what the engine had paid it
    before its first action, and who acted."""
    observations, _ = env.reset(seed=seed)
    totals: dict[str, float] = {}
    before: dict[str, float] = {}
    acted: list[str] = []
    while True:
        assert len(observations) == 1  # only the agent to act observes
        (agent, observation), = observations.items()
        assert agent == agent_id(env.game.current_player)
        assert env.observation_spaces[agent].contains(observation)
        if check is not None:
            check(env, agent, observation)
        legal = np.flatnonzero(observation["action_mask"])
        action = int(rng.choice(list(legal)))
        before.setdefault(agent, env.game.returns()[seat_of(agent)])
        acted.append(agent)
        observations, rewards, terminated, truncated, _ = env.step({agent: action})
        assert set(rewards) <= set(acted)  # nothing for an agent that has not acted yet
        for name, value in rewards.items():
            totals[name] = totals.get(name, 0.0) + value
        assert not truncated["__all__"]
        if terminated["__all__"]:
            assert set(observations) == set(acted) == {k for k in terminated if k != "__all__"}
            assert all(not o["action_mask"].any() for o in observations.values())
            return totals, before, set(acted)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([2, 3, 4, 5]))
def test_rewards_sum_to_the_engine_returns_for_every_agent_that_acted(seed, players):
    # R4.5: a single deal of trade and barter settles once, at its end
    env = TurnBasedCommerceEnv({"variant": "trade_barter", "num_players": players, "rules": {"preset": "foster"}})
    totals, before, acted = play(env, seed, random.Random(seed))
    returns = env.game.returns()
    for agent in acted:
        assert before[agent] == 0.0
        assert totals[agent] == pytest.approx(returns[seat_of(agent)])


def test_matches_pay_between_turns_from_each_agents_first_action_on():
    # R6: a widow match of several deals; counters are paid at each deal's settlement (R4.5).
    # What a seat won before it first acted (the deal ended first) has no action to credit.
    env = TurnBasedCommerceEnv({"variant": "widow", "num_players": 4, "rules": {"deals": 3}})
    for seed in range(10):
        totals, before, acted = play(env, seed, random.Random(seed))
        returns = env.game.returns()
        for agent in acted:
            assert totals.get(agent, 0.0) == pytest.approx(returns[seat_of(agent)] - before[agent])


def test_heuristic_actions_are_what_the_agents_would_play():
    env = TurnBasedCommerceEnv({"variant": "trade_barter", "num_players": 4, "heuristics": ["greedy", "random"]})
    greedy = GreedyAgent()

    def check(env, agent, observation):
        seat = seat_of(agent)
        actions = observation["heuristic_actions"].astype(int)
        assert actions[0] == greedy.act(seat_view(env.game, seat))
        assert observation["action_mask"][actions].all()  # both legal

    for seed in range(10):
        play(env, seed, random.Random(seed), check)


def test_reset_with_a_seed_is_reproducible():
    env = TurnBasedCommerceEnv({"variant": "trade_barter", "num_players": 4, "features": ["hand_strength"]})
    first, _ = env.reset(seed=7)
    again, _ = env.reset(seed=7)
    assert first.keys() == again.keys()
    for agent in first:
        assert np.array_equal(first[agent]["observations"], again[agent]["observations"])


def test_an_illegal_action_raises_and_a_bad_config_names_the_value():
    from commerce_env.engine import IllegalActionError

    env = TurnBasedCommerceEnv({"variant": "trade_barter", "num_players": 4})
    observations, _ = env.reset(seed=1)
    (agent, observation), = observations.items()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step({agent: illegal})
    with pytest.raises(ValueError, match="poker"):
        TurnBasedCommerceEnv({"variant": "poker"})


def test_every_episode_has_a_learning_seat_and_the_draw_is_per_episode():
    from training.rllib_config import validate

    config = validate({"league": {"shared": 0.1, "snapshots": 0.5, "heuristics": {"greedy": 0.4}},
                       "selfplay": {"enabled": True, "max_snapshots": 2}})
    modules, weights, heuristics = league(config)
    assert modules == [SHARED, "snapshot_0", "snapshot_1", "greedy"] and heuristics == ["greedy"]
    assert weights == [0.1, 0.25, 0.25, 0.4]
    draws = [choose_modules(f"episode-{k}", modules, weights, 4) for k in range(300)]
    assert all(SHARED in d for d in draws)
    assert {m for d in draws for m in d} == set(modules)
    assert choose_modules("episode-3", modules, weights, 4) == draws[3]


def test_the_exported_network_plays_what_the_module_plays():
    """The numpy policy of agents.learned gives the module's own masked logits (same layout and net_arch)."""
    import torch
    from ray.rllib.core.columns import Columns

    from training.rllib_config import validate
    from training.rllib_modules import policy_weights
    from training.rllib_train import env_config, module_spec

    config = validate({"backend": "rllib", "env": {"features": ["hand_strength"], "rules": {"preset": "foster"}},
                       "league": {"heuristics": {"greedy": 0.2}}, "policy": {"net_arch": [24, 16]}})
    env = TurnBasedCommerceEnv(env_config(config))
    module = module_spec(config, env.observation_spaces["player_0"], env.action_spaces["player_0"]).build()
    weights, network = policy_weights(module)
    assert network == {"hidden": [24, 16], "activation": "tanh"}
    rules = make_rules("trade_barter", preset="foster")
    agent = LearnedAgent(weights, make_meta(rules, 4, network, features=["hand_strength"]))
    rng = random.Random(0)
    for seed in range(20):
        observations, _ = env.reset(seed=seed)
        (name, observation), = observations.items()
        batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in observation.items()}}
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()
        legal = observation["action_mask"] > 0
        seat_observation = seat_view(env.game, seat_of(name))
        ours = agent.logits(observation["observations"])
        assert np.allclose(ours[legal], logits[legal], atol=1e-5)
        assert agent.act(seat_observation) == int(np.argmax(logits))
        assert logits[~legal].max(initial=-np.inf) < -1e30  # masked
        env.step({name: int(rng.choice(list(np.flatnonzero(legal))))})


@pytest.mark.parametrize("change, message", [
    ({"lerning": 1}, "unknown key 'lerning'"),
    ({"ppo": {"lerning_rate": 0.1}}, "ppo.lerning_rate"),
    ({"league": {"shared": 0}}, "league.shared"),
    ({"league": {"heuristics": {"poker_bot": 0.5}}}, "poker_bot"),
    ({"league": {"snapshots": 0.3}}, "league.snapshots"),  # snapshots need selfplay.enabled
    ({"ray": {"num_cpus": 2, "num_env_runners": 3}}, "ray.num_env_runners"),
    ({"ray": {"address": ""}}, "ray.address"),
    ({"env": {"variant": "poker"}}, "poker"),
    ({"backend": "spark"}, "spark"),
    ({"policy": {"net_arch": [100000]}}, "policy.net_arch"),
])
def test_a_bad_rllib_config_is_an_error_naming_the_value(change, message):
    from training.config import validate

    with pytest.raises(ValueError, match=message):
        validate({"backend": "rllib", **change} if "backend" not in change else change)


class _FakeAlgorithm:
    """Writes a checkpoint folder as RLlib's ``save_to_path`` does (files in subfolders)."""

    def __init__(self):
        self.saves = 0

    def save_to_path(self, path: str) -> None:
        self.saves += 1
        folder = Path(path)
        (folder / "learner_group").mkdir(parents=True)
        (folder / "rllib_checkpoint.json").write_text(str(self.saves))
        (folder / "learner_group" / "state.pkl").write_bytes(b"x" * self.saves)


def test_checkpoints_replace_each_other_whole_in_a_relative_run_folder(tmp_path, monkeypatch):
    from training.rllib_train import CHECKPOINT, OLD_CHECKPOINT, _recover, save_checkpoint
    from training.run_folder import RunFolder

    monkeypatch.chdir(tmp_path)  # a relative output, as the shipped configs have (runs/...)
    algo = _FakeAlgorithm()
    with RunFolder("runs/x").locked() as run:
        for k in range(3):
            save_checkpoint(algo, run, {"steps": k})
        assert (run.path / CHECKPOINT / "rllib_checkpoint.json").read_text() == "3"
        assert not (run.path / OLD_CHECKPOINT).exists() and run.foreign_files() == []
        # a kill between the two renames: the last checkpoint waits under .rllib.old
        (run.path / CHECKPOINT).rename(run.path / OLD_CHECKPOINT)
        _recover(run)
        assert (run.path / CHECKPOINT / "rllib_checkpoint.json").read_text() == "3"
        run.prepare_new_run(force=True)  # --force removes what the runs wrote, and all of it
        assert run.foreign_files() == [] and not (run.path / CHECKPOINT).exists()


def test_a_checkpoint_never_deletes_files_no_run_wrote(tmp_path):
    from training.rllib_train import OLD_CHECKPOINT, save_checkpoint
    from training.run_folder import RunFolder

    algo = _FakeAlgorithm()
    with RunFolder(tmp_path / "run").locked() as run:
        save_checkpoint(algo, run, {"steps": 0})
        stray = run.path / OLD_CHECKPOINT / "mine.txt"
        stray.parent.mkdir(parents=True)
        stray.write_text("not the run's")
        with pytest.raises(ValueError, match="no commerce run wrote"):
            save_checkpoint(algo, run, {"steps": 1})
        assert stray.read_text() == "not the run's"
