"""TorchRL on the Gymnasium vector env: its GymWrapper, ActionMask transform, collector and PPO loss.

The recipe of docs/libraries.md: ``action_mask="info"`` (TorchRL reads final observations
as arrays, and the mask from the infos), ``illegal_action="terminate"`` (GymWrapper probes
the env with unmasked random actions when it registers the infos).
"""

from __future__ import annotations

import pytest

pytest.importorskip("numba")
torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

import gymnasium  # noqa: E402
from tensordict.nn import TensorDictModule  # noqa: E402
from torch import nn  # noqa: E402
from torchrl.collectors import Collector  # noqa: E402
from torchrl.envs import ActionMask, GymWrapper, TransformedEnv  # noqa: E402
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator  # noqa: E402
from torchrl.objectives import ClipPPOLoss  # noqa: E402
from torchrl.objectives.value import GAE  # noqa: E402

import commerce_env  # noqa: E402

NUM_ENVS = 8


def torchrl_env(variant: str) -> tuple[TransformedEnv, int]:
    vec = gymnasium.make_vec(commerce_env.GYM_ENV_ID, num_envs=NUM_ENVS, variant=variant, num_players=4,
                             opponents=["greedy"], action_mask="info", illegal_action="terminate")
    env = TransformedEnv(GymWrapper(vec, categorical_action_encoding=True), ActionMask())
    env.set_seed(0)
    return env, vec.single_observation_space.shape[0]


@pytest.mark.parametrize("variant", ["trade_barter", "widow"])
def test_a_torchrl_ppo_trains_on_the_vector_env(variant):
    torch.manual_seed(0)
    env, size = torchrl_env(variant)
    net = nn.Sequential(nn.Linear(size, 32), nn.Tanh(), nn.Linear(32, 27))
    actor = ProbabilisticActor(TensorDictModule(net, in_keys=["observation"], out_keys=["logits"]),
                               in_keys={"logits": "logits", "mask": "action_mask"},
                               distribution_class=MaskedCategorical, return_log_prob=True)
    critic = ValueOperator(nn.Sequential(nn.Linear(size, 32), nn.Tanh(), nn.Linear(32, 1)), in_keys=["observation"])
    collector = Collector(env, actor, frames_per_batch=16 * NUM_ENVS, total_frames=48 * NUM_ENVS,
                          auto_register_policy_transforms=False)
    advantage, loss = GAE(gamma=0.99, lmbda=0.95, value_network=critic), ClipPPOLoss(actor, critic)
    optimizer = torch.optim.Adam(loss.parameters(), lr=1e-3)
    before = [p.detach().clone() for p in net.parameters()]
    ends = 0
    for batch in collector:  # (NUM_ENVS, time)
        chosen = batch["action_mask"].gather(-1, batch["action"].unsqueeze(-1))
        assert chosen.all()  # every action legal in its own observation's mask
        done = batch["next", "done"].squeeze(-1)
        ends += int(done.sum())
        # The step after an episode's end sees the next episode's first observation, while the
        # ended step keeps its own last one: TorchRL undid the same-step autoreset correctly.
        same = (batch["next", "observation"][:, :-1] == batch["observation"][:, 1:]).all(-1)
        assert same[~done[:, :-1]].all() and not same[done[:, :-1]].any()
        advantage(batch)
        losses = loss(batch.reshape(-1))
        total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
        assert torch.isfinite(total)
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
    assert ends > 0
    assert any((a != b).any() for a, b in zip(before, net.parameters(), strict=True))
