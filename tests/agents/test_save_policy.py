"""``agents.save_policy``: a network trained in one's own loop, saved in the safe format, plays as
``model:FOLDER`` the actions the network itself picks; a network that does not fit is refused,
naming its first layer that does not."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import agents  # noqa: E402
from agents.base import RandomAgent  # noqa: E402
from commerce_env import observation as obs  # noqa: E402
from commerce_env.engine import new_game  # noqa: E402
from commerce_env.rules import make_rules  # noqa: E402
from commerce_env.view import seat_view  # noqa: E402
from training.cli import main  # noqa: E402

DECISIONS = 1000


def network(inputs: int, hidden: tuple[int, ...] = (64, 64), activation: type = nn.Tanh, seed: int = 0):
    torch.manual_seed(seed)
    sizes = [inputs, *hidden]
    layers: list[nn.Module] = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(n_in, n_out), activation()]
    return nn.Sequential(*layers, nn.Linear(sizes[-1], 27))


def best(net, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The network's own choice: its best-scoring legal action."""
    with torch.no_grad():
        scores = net(torch.as_tensor(observations, dtype=torch.float32))
    return scores.masked_fill(~torch.as_tensor(masks).bool(), -torch.inf).argmax(-1).numpy()


def seat_views(variant: str, num_players: int, count: int):
    """``count`` seat views at decisions of games between random agents."""
    rules, rng, views = make_rules(variant), random.Random(0), []
    while len(views) < count:
        game = new_game(rules, num_players, dealer=0, rng=random.Random(rng.random()))
        player = RandomAgent(seed=len(views))
        while not game.over and len(views) < count:
            view = seat_view(game, game.current_player)
            views.append(view)
            game.apply(player.act(view))
    return views


@pytest.mark.parametrize("variant, num_players, activation", [
    ("trade_barter", 4, nn.Tanh), ("widow", 3, nn.ReLU), ("pool", 5, nn.Tanh)])
def test_the_saved_network_plays_its_own_actions_on_seat_views(variant, num_players, activation, tmp_path):
    net = network(obs.observation_size(num_players), activation=activation)
    folder = agents.save_policy(tmp_path / "mine", net, variant=variant, num_players=num_players)
    agent = agents.make_agent(f"model:{folder}", variant=variant, num_players=num_players)
    views = seat_views(variant, num_players, DECISIONS)
    expected = best(net, np.stack([v.observation for v in views]), np.stack([v.action_mask for v in views]))
    assert [agent.act(v) for v in views] == expected.tolist()


def test_the_saved_network_plays_its_own_actions_on_the_vector_envs_observations(tmp_path):
    """The CleanRL path: trained on the vector env's observations, extra features included."""
    pytest.importorskip("numba")
    import gymnasium

    import commerce_env

    envs = gymnasium.make_vec(commerce_env.GYM_ENV_ID, num_envs=50, variant="widow", num_players=3,
                              opponents=["greedy"], features=["hand_strength"])
    net = network(envs.single_observation_space["observation"].shape[0], hidden=(32,), activation=nn.ReLU)
    folder = agents.save_policy(tmp_path / "mine", net, variant="widow", num_players=3, features=["hand_strength"])
    agent = agents.make_agent(f"model:{folder}")
    plain = obs.observation_size(3)  # the seat's observation; the model rebuilds the features from it
    observations, _ = envs.reset(seed=0)
    played = []
    while len(played) < DECISIONS:
        mine = best(net, observations["observation"], observations["action_mask"])
        played += [(agent.network_act({"observation": o[:plain], "action_mask": m}), int(a))
                   for o, m, a in zip(observations["observation"], observations["action_mask"], mine, strict=True)]
        observations, *_ = envs.step(mine)
    assert all(saved == own for saved, own in played)


def test_a_state_dict_saves_the_same_model_as_its_network(tmp_path):
    net = network(obs.observation_size(4))
    one = agents.save_policy(tmp_path / "module", net)
    two = agents.save_policy(tmp_path / "state_dict", net.state_dict(), hidden=[64, 64], activation="tanh")
    meta = [json.loads((f / "model.json").read_text()) for f in (one, two)]
    assert meta[0]["weights_sha256"] == meta[1]["weights_sha256"] and meta[0] == meta[1]


def test_the_saved_folder_plays_in_the_cli_arena(tmp_path, capsys):
    folder = agents.save_policy(tmp_path / "mine", network(obs.observation_size(4)), variant="widow")
    out = tmp_path / "arena"
    assert main(["arena", "--variant", "widow", "--agents", f"model:{folder},greedy", "--games", "12",
                 "--no-progress", "--out", str(out)]) == 0
    assert json.loads((out / "result.json").read_text())["lineup"] == [f"model:{folder}", "greedy"]


@pytest.mark.parametrize("net, arguments, named", [
    (network(obs.observation_size(3)), {}, r"layer 0 \('0.weight'\).*4 players: 407"),  # a network for 3 players
    (network(obs.observation_size(4)), {"features": ["hand_strength"]}, "layer 0 .*hand_strength: 427"),
    (network(obs.observation_size(4)), {"hidden": [64, 32]}, r"layer 1 \('2.weight'\).*hidden\[1\] is 32"),
    (network(obs.observation_size(4)), {"hidden": [64]}, "makes 2 linear layers; the network has 3"),
    (nn.Sequential(nn.Linear(407, 8), nn.Tanh(), nn.Linear(8, 26)), {}, r"layer 1 \('2.weight'\).*action: 27"),
    (nn.Sequential(nn.Linear(407, 8), nn.Tanh(), nn.Linear(8, 27)), {"activation": "relu"}, "use 'tanh'"),
    (nn.Sequential(nn.Linear(407, 8), nn.LayerNorm(8), nn.Linear(8, 27)), {}, "module '1' .LayerNorm."),
    (nn.Sequential(nn.Linear(407, 8), nn.Tanh(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 27)), {}, "mixes"),
    (nn.Sequential(nn.Linear(407, 27), nn.Tanh()), {}, "end in a Linear layer"),
    ({"actor.weight": np.zeros((27, 407)), "actor.bias": np.zeros(27), "critic.weight": np.zeros((1, 407)),
      "critic.bias": np.zeros(1)}, {}, r"layer 1 \('critic.weight'\)"),  # the critic saved with the actor
    ({"0.weight": np.full((27, 407), np.nan), "0.bias": np.zeros(27)}, {}, "'0.weight' holds NaN"),
    ({"0.weight": np.zeros((27, 407)), "0.bias": np.zeros(27), "norm.running_mean": np.zeros(27)}, {},
     "norm.running_mean"),
])
def test_a_network_that_does_not_fit_is_refused_naming_where(net, arguments, named, tmp_path):
    with pytest.raises(ValueError, match=named):
        agents.save_policy(tmp_path / "mine", net, **arguments)
    assert not (tmp_path / "mine").exists()
