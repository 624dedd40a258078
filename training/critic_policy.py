"""MaskablePPO's policy with a centralised critic (``policy.critic: privileged``).

The env appends the opponents' hands to each observation
(:class:`commerce_env.critic_state.CriticState`); the actor's network reads only
the first ``actor_size`` columns, the seat's own observation and features
(R11), and the value network reads them all.  So the exported policy
(:func:`agents.sb3_models.weights_from_policy`: ``mlp_extractor.policy_net`` and
``action_net``) is an ordinary model of the seat's observation, and playing it
never needs the hidden cards.
"""

from __future__ import annotations

from typing import Any

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn


class SplitMlpExtractor(nn.Module):
    """An :class:`MlpExtractor` whose actor sees the first ``actor_size`` features and whose
    critic sees all of them (the same attributes, so SB3 and the exporter need nothing else)."""

    def __init__(self, feature_dim: int, actor_size: int, net_arch: dict[str, list[int]],
                 activation_fn: type[nn.Module], device: th.device | str = "auto"):
        super().__init__()
        if not 0 < actor_size < feature_dim:
            raise ValueError(f"actor_size must lie between 1 and {feature_dim - 1} (the observation's "
                             f"size less the critic's columns), got {actor_size!r}")
        self.actor_size = actor_size
        actor = MlpExtractor(actor_size, dict(pi=net_arch["pi"], vf=[]), activation_fn, device)
        critic = MlpExtractor(feature_dim, dict(pi=[], vf=net_arch["vf"]), activation_fn, device)
        self.policy_net, self.value_net = actor.policy_net, critic.value_net
        self.latent_dim_pi, self.latent_dim_vf = actor.latent_dim_pi, critic.latent_dim_vf

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return self.policy_net(features[..., :self.actor_size])

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_net(features)


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """:class:`MaskableActorCriticPolicy` over :class:`SplitMlpExtractor` (flat observations)."""

    def __init__(self, *args: Any, actor_size: int, **kwargs: Any):
        self.actor_size = actor_size  # read by _build_mlp_extractor, which the parent's __init__ calls
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = SplitMlpExtractor(self.features_dim, self.actor_size, self.net_arch,
                                               self.activation_fn, self.device)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "actor_size": self.actor_size}
