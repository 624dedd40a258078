"""Your own policy network in the safe model format: :func:`save_policy`.

A network trained with one's own loop (CleanRL, TorchRL, plain torch) on the env's observation
is an MLP: linear layers with ``tanh`` or ``relu`` between them, from the observation (plus any
extra features) to one score per action.  Saved here as ``model.json`` and plain tensors
(:mod:`agents.model_files`), it plays as ``model:FOLDER`` wherever a model does
(:class:`agents.learned.LearnedAgent`, which picks the best-scoring legal action), and nothing in
the folder can run code.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from commerce_env import observation as obs
from commerce_env.engine.actions import NUM_ACTIONS
from commerce_env.rules import DEFAULT_PLAYERS, DEFAULT_VARIANT, make_rules

from .model_files import ACTIVATIONS, FEATURE_SIZES, _layer_names, check_hidden, make_meta, save_model

TORCH_ACTIVATIONS = {"Tanh": "tanh", "ReLU": "relu"}


def save_policy(folder: str | os.PathLike, network: Any, *, variant: str = DEFAULT_VARIANT,
                num_players: int = DEFAULT_PLAYERS,
                hidden: Sequence[int] | None = None, activation: str | None = None,
                features: Sequence[str] = (), options: Mapping[str, Any] | None = None,
                search: Mapping[str, Any] | None = None) -> Path:
    """Save a policy network as a safe model folder that plays as ``model:FOLDER``; returns the folder.

    :param folder: a new or empty folder (or one holding a model, which is replaced).
    :param network: a ``torch.nn.Sequential`` of ``Linear`` layers with ``Tanh`` or ``ReLU`` between
        them, or its ``state_dict()`` (any mapping of names to tensors or arrays: each linear layer's
        ``weight``, out x in as torch stores it, and ``bias``, in order).
    :param variant: the variant it was trained on.
    :param num_players: the player count it was trained with.
    :param hidden: the hidden layer sizes, checked against the tensors (default: read from them).
    :param activation: ``"tanh"`` or ``"relu"``; read from a ``Sequential``, else ``"tanh"``.
    :param features: extra observation features the network was trained with (``["hand_strength"]``,
        the env's ``features`` option); rebuilt from the observation at play time.
    :param options: the rule options (R12) it was trained with, e.g. ``{"preset": "foster"}``.
    :param search: test-time search to play with (``{"worlds": 24, "margin": 1.0}``), or none.

    A tensor that does not fit is a ``ValueError`` naming the first layer whose shape is wrong, the
    shape it has and the shape the observation, ``hidden`` and the 27 actions call for.
    """
    rules = make_rules(variant, **dict(options or {}))
    rules.check_players(num_players)
    features = list(features)
    unknown = [f for f in features if f not in FEATURE_SIZES]
    if unknown:
        raise ValueError(f"unknown features {unknown}; known: {', '.join(FEATURE_SIZES)}")
    layers, found = _layers(network)
    if activation is None:
        activation = found or "tanh"
    elif found is not None and activation != found:
        raise ValueError(f"activation={activation!r}, but the network's layers use {found!r}")
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    inputs = obs.observation_size(num_players) + sum(FEATURE_SIZES[f] for f in features)
    hidden = _check_shapes(layers, inputs, None if hidden is None else list(hidden), variant, num_players, features)
    problem = check_hidden(hidden)
    if problem:
        raise ValueError(f"hidden layers {hidden}: the safe format takes {problem}")
    weights = {}
    for name, (_, weight, bias) in zip(_layer_names(hidden), layers, strict=True):
        weights[f"{name}.weight"], weights[f"{name}.bias"] = weight, bias
    meta = make_meta(rules, num_players, {"hidden": hidden, "activation": activation}, features=features,
                     search=search)
    return save_model(folder, weights, meta)


def _array(value: Any, name: str) -> np.ndarray:
    """A tensor or array as float32 numpy, refused when it holds NaN or infinities."""
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    array = np.asarray(value, dtype=np.float32)
    if not np.isfinite(array).all():
        raise ValueError(f"tensor {name!r} holds NaN or infinite values")
    return array


def _layers(network: Any) -> tuple[list[tuple[str, np.ndarray, np.ndarray]], str | None]:
    """``[(name, weight, bias)]`` of each linear layer in order, and the activation the network
    names (None for a plain mapping of tensors)."""
    if hasattr(network, "state_dict") and hasattr(network, "children"):  # a torch module
        return _sequential_layers(network)
    if not isinstance(network, Mapping):
        raise TypeError(f"network must be a torch.nn.Sequential or a mapping of names to tensors "
                        f"(its state_dict()), got {type(network).__name__}")
    prefixes: dict[str, dict[str, Any]] = {}
    for key, value in network.items():
        prefix, _, part = str(key).rpartition(".")
        prefixes.setdefault(prefix, {})[part] = value
    layers = []
    for prefix, parts in prefixes.items():
        if sorted(parts) != ["bias", "weight"]:
            raise ValueError(f"tensors {', '.join(f'{prefix}.{p}' for p in parts)}: a layer of the network is a "
                             "weight and a bias (a linear layer); save_policy writes an MLP of linear layers")
        weight, bias = _array(parts["weight"], f"{prefix}.weight"), _array(parts["bias"], f"{prefix}.bias")
        if weight.ndim != 2 or bias.ndim != 1:
            raise ValueError(f"layer {prefix!r}: weight of shape {weight.shape} and bias of shape {bias.shape} "
                             "are not a linear layer's (out x in, and out)")
        layers.append((prefix, weight, bias))
    if not layers:
        raise ValueError("the network holds no tensors")
    return layers, None


def _sequential_layers(network: Any) -> tuple[list[tuple[str, np.ndarray, np.ndarray]], str | None]:
    """The linear layers of a ``torch.nn.Sequential`` and its one activation, checked to alternate."""
    layers, activations, previous = [], set(), None
    for name, module in network.named_children():
        kind = type(module).__name__
        if kind == "Linear":
            if previous == "Linear":
                raise ValueError(f"layers before {name!r}: two linear layers with no Tanh or ReLU between them")
            if module.bias is None:
                raise ValueError(f"layer {name!r} has no bias (Linear(..., bias=False)); the safe format's do")
            layers.append((name, _array(module.weight, f"{name}.weight"), _array(module.bias, f"{name}.bias")))
        elif kind in TORCH_ACTIVATIONS and previous == "Linear":
            activations.add(TORCH_ACTIVATIONS[kind])
        else:
            raise ValueError(f"module {name!r} ({kind}): save_policy writes an MLP of Linear layers with Tanh or "
                             "ReLU between them, ending in a Linear layer")
        previous = "Linear" if kind == "Linear" else "activation"
    if previous != "Linear":
        raise ValueError("the network must end in a Linear layer: its outputs are the action scores")
    if len(activations) > 1:
        raise ValueError(f"the network mixes activations {sorted(activations)}; the safe format has one")
    return layers, next(iter(activations), None)


def _check_shapes(layers: list[tuple[str, np.ndarray, np.ndarray]], inputs: int, hidden: list[int] | None,
                  variant: str, num_players: int, features: list[str]) -> list[int]:
    """The hidden sizes, after checking every layer's shape in order; the first that does not fit is
    named with the shape it has and the one it needs."""
    sizes = [inputs, *(hidden if hidden is not None else [w.shape[0] for _, w, _ in layers[:-1]]), NUM_ACTIONS]
    if len(sizes) - 1 != len(layers):
        raise ValueError(f"hidden={hidden} makes {len(sizes) - 1} linear layers; the network has {len(layers)} "
                         f"({', '.join(name for name, _, _ in layers)})")
    for index, (name, weight, bias) in enumerate(layers):
        expected = (sizes[index + 1], sizes[index])
        if weight.shape != expected or bias.shape != (expected[0],):
            n_out, n_in = weight.shape
            if n_in != expected[1] and index == 0:
                extra = f" plus {', '.join(features)}" if features else ""
                why = f"its input is the observation of {variant} with {num_players} players{extra}: {inputs} numbers"
            elif n_in != expected[1]:
                why = f"its input is the {sizes[index]} outputs of the layer before"
            elif n_out != expected[0] and index == len(layers) - 1:
                why = f"its output is one score per action: {NUM_ACTIONS}"
            elif n_out != expected[0]:
                why = f"hidden[{index}] is {expected[0]}"
            else:
                why = "a bias has one number per output"
            label = f"{name}.weight"
            raise ValueError(f"layer {index} ({label!r}) has weight {weight.shape} and bias {bias.shape}; "
                             f"expected {expected} and ({expected[0]},): {why}")
    return sizes[1:-1]
