"""The RLModules of a Commerce league: masked PPO (learning or frozen) and heuristics.

:class:`MaskedPPOModule` is RLlib's action-masking PPO module
(``ray/rllib/examples/rl_modules/classes/action_masking_rlm.py``) in short:
the default PPO networks see ``obs["observations"]``, and illegal actions get
a logit of ``FLOAT_MIN`` from ``obs["action_mask"]``, in exploration,
inference and training alike.  Its policy path (actor encoder MLP, then one
linear layer) is exactly :mod:`agents.learned`'s network, which is how it is
exported (:func:`policy_weights`).

:class:`HeuristicRLModule` plays a built-in agent: the env computes each
heuristic's action for the seat to act (``obs["heuristic_actions"]``,
:mod:`training.rllib_env`) and the module returns column ``index`` of it.
It never trains.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.utils.numpy import convert_to_numpy
from ray.rllib.utils.torch_utils import FLOAT_MIN


def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``(action mask, batch with the plain observation vector as OBS)``."""
    observation = batch[Columns.OBS]
    return observation["action_mask"], {**batch, Columns.OBS: observation["observations"]}


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO over ``obs["observations"]`` whose logits are masked by ``obs["action_mask"]``."""

    def __init__(self, *, observation_space=None, **kwargs):
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self):
        super().setup()
        self.observation_space = self.observation_space_with_mask

    @staticmethod
    def _mask(outs: dict[str, Any], mask: Any) -> dict[str, Any]:
        outs[Columns.ACTION_DIST_INPUTS] = outs[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask),
                                                                                            min=FLOAT_MIN)
        return outs

    def _forward_inference(self, batch, **kwargs):
        mask, batch = _split(batch)
        return self._mask(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch, **kwargs):
        mask, batch = _split(batch)
        return self._mask(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        mask, batch = _split(batch)
        return self._mask(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        if isinstance(batch[Columns.OBS], dict):
            _, batch = _split(batch)
        return super().compute_values(batch, embeddings)


class HeuristicRLModule(RLModule):
    """A built-in agent as a non-learning module: column ``model_config["index"]`` of ``heuristic_actions``."""

    def setup(self):
        self.index = int(self.model_config["index"])

    def _forward(self, batch, **kwargs):
        actions = convert_to_numpy(batch[Columns.OBS]["heuristic_actions"])[:, self.index]
        return {Columns.ACTIONS: actions.astype(np.int64)}

    def _forward_train(self, *args, **kwargs):
        raise NotImplementedError("a heuristic module does not train")

    def compile(self, *args, **kwargs):  # what a TorchLearner may call on its modules
        pass


def policy_weights(module: MaskedPPOModule) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The policy path of a trained module as :mod:`agents.learned` tensors, and its ``network`` record."""
    encoder = getattr(module.encoder, "actor_encoder", module.encoder)
    hidden_layers = [m for m in encoder.modules() if isinstance(m, torch.nn.Linear)]
    head = [m for m in module.pi.modules() if isinstance(m, torch.nn.Linear)]
    if len(head) != 1:
        raise ValueError(f"the policy head must be one linear layer to export, got {len(head)}")
    activations = {type(m) for m in encoder.modules() if isinstance(m, (torch.nn.Tanh, torch.nn.ReLU))}
    names = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    if len(activations) != 1:
        raise ValueError(f"the encoder must use one of tanh or relu to export, got {activations}")
    hidden = [m.out_features for m in hidden_layers]
    layer_names = [f"hidden.{i}" for i in range(len(hidden))] + ["logits"]
    weights: dict[str, np.ndarray] = {}
    for name, layer in zip(layer_names, [*hidden_layers, *head], strict=True):
        weights[f"{name}.weight"] = layer.weight.detach().cpu().numpy().astype(np.float32)
        weights[f"{name}.bias"] = layer.bias.detach().cpu().numpy().astype(np.float32)
    return weights, {"hidden": hidden, "activation": names[activations.pop()]}
