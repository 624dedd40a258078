"""NFSP through OpenSpiel (training/nfsp.py): seat 0's average policy, saved in the safe format, plays
as that network does on the pyspiel game's observation tensor, and a short run leaves its checkpoints."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("pyspiel")
torch = pytest.importorskip("torch")

from training.nfsp import Args, average_policy, save_average, train  # noqa: E402


@pytest.mark.parametrize("variant", ["trade_barter", "widow"])
def test_the_saved_average_policy_plays_as_the_network(tmp_path, variant):
    import pyspiel
    from open_spiel.python.pytorch import nfsp

    import commerce_env.openspiel  # noqa: F401
    from agents import make_agent
    from agents.openspiel import agent_action

    game = pyspiel.load_game(f"python_commerce_{variant}", {"players": 4})
    size = game.observation_tensor_shape()[0]
    learner = nfsp.NFSP(0, size, game.num_distinct_actions(), [32, 16], 1000, 0.1, seed=3)
    network = average_policy(learner)
    assert [type(m).__name__ for m in network] == ["Linear", "ReLU", "Linear", "ReLU", "Linear"]
    agent = make_agent(f"model:{save_average(learner, Args(variant=variant), tmp_path / 'model')}")
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(60):  # R11: the model reads the seat's observation, as the network did
        state = game.new_initial_state()
        agent.reset(0, 4, game.rules, 0)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
                continue
            seat = state.current_player()
            if seat == 0:
                legal = state.legal_actions()
                with torch.no_grad():
                    scores = network(torch.as_tensor(state.observation_tensor(0), dtype=torch.float32)).numpy()
                assert agent_action(agent, state.engine, 0) == legal[int(np.argmax(scores[legal]))]
                compared += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert compared >= 30


def test_a_short_run_saves_checkpoints_and_a_model(tmp_path):
    seen = []
    args = Args(total_timesteps=600, hidden=[16], min_buffer_size_to_learn=64, batch_size=16, learn_every=16,
                checkpoint_every=250, eval_deals=0, output=str(tmp_path))
    model = train(args, on_checkpoint=lambda steps, folder: seen.append((steps, folder.name)), quiet=True)
    steps = [s for s, _ in seen]  # checked at each deal's end: 250, 500 and the last, or just past them
    assert len(steps) == 3 and 250 <= steps[0] < 500 <= steps[1] < 600 <= steps[2]
    assert all(name == f"step_{steps}" for steps, name in seen) and seen[-1][0] >= 600
    assert json.loads((tmp_path / "run.json").read_text())["steps"] == seen[-1][0]
    assert (model / "model.json").is_file()


@pytest.mark.parametrize("variant", ["trade_barter", "widow"])
def test_the_turn_environment_gives_the_player_to_move_what_openspiels_gives_every_player(variant):
    # The same chance draws and choices through both: each time step agrees for the player to move, and
    # wholly at the deal's end.
    import random

    import pyspiel
    from open_spiel.python import rl_environment

    import commerce_env.openspiel  # noqa: F401 - registers python_commerce_<variant>
    from training.nfsp import turn_environment

    game = pyspiel.load_game(f"python_commerce_{variant}", {"players": 4, "dealer": 1})
    for deal in range(3):
        runs = []
        for env in (turn_environment(game, seed=3), rl_environment.Environment(
                game, observation_type=rl_environment.ObservationType.OBSERVATION)):
            draws, choices = random.Random(deal), random.Random(deal + 100)
            env._chance_event_sampler = lambda state, draws=draws: draws.choice(
                [action for action, probability in state.chance_outcomes() if probability > 0])
            steps = [env.reset()]
            while not steps[-1].last():
                player = steps[-1].observations["current_player"]
                steps.append(env.step([choices.choice(steps[-1].observations["legal_actions"][player])]))
            runs.append(steps)
        lean, full = runs
        assert len(lean) == len(full) > 1
        for mine, theirs in zip(lean, full, strict=True):
            assert mine.step_type == theirs.step_type and mine.rewards == theirs.rewards
            if theirs.last():
                assert mine.observations["info_state"] == theirs.observations["info_state"]
                continue
            player = theirs.observations["current_player"]
            assert mine.observations["current_player"] == player
            assert mine.observations["info_state"][player] == theirs.observations["info_state"][player]
            assert mine.observations["legal_actions"][player] == theirs.observations["legal_actions"][player]


def test_the_turn_environment_deals_as_its_seed_says_and_only_what_chance_can_deal():
    import pyspiel

    import commerce_env.openspiel  # noqa: F401 - registers python_commerce_<variant>
    from training.nfsp import turn_environment

    game = pyspiel.load_game("python_commerce_trade_barter", {"players": 4, "dealer": 0})

    def first_views(seed: int) -> list[list[float]]:
        env = turn_environment(game, seed)
        return [(step := env.reset()).observations["info_state"][step.observations["current_player"]]
                for _ in range(4)]

    assert first_views(7) == first_views(7)
    assert first_views(7) != first_views(8)
    env, seen = turn_environment(game, 1), []
    sampler = env._chance_event_sampler
    state = game.new_initial_state()
    while state.is_chance_node():
        possible = {action for action, probability in state.chance_outcomes() if probability > 0}
        seen.append(sampler(state))
        assert seen[-1] in possible
        state.apply_action(seen[-1])
    assert len(set(seen)) == len(seen)  # a card is dealt once
