"""A learned policy as an :class:`~agents.base.Agent`, loaded from a safe model file.

The safe format is a folder with two files:

* ``model.json``: what the network is for and what it looks like: ``variant``,
  ``rules`` (every option), ``num_players``, ``observation_layout_version``
  (:data:`commerce_env.observation.LAYOUT_VERSION`), ``observation_size``,
  ``features`` (extra observation features, e.g. ``hand_strength``, rebuilt
  from the observation at play time), ``num_actions``, ``network`` (``hidden`` layer sizes and ``activation``),
  the weights file's name and its SHA-256.
* optionally ``search`` (``{"worlds": 24, "margin": 1.0}``): the model plays with test-time
  search, :class:`agents.search.SearchAgent` with the network as its prior: the network proposes,
  and determinized rollouts on ``worlds`` sampled worlds overrule it only when another action is
  better by more than ``margin`` standard errors (docs/agents.md).  ``search=False`` when loading
  plays the network alone, ``search={"worlds": 96, "margin": 1.0}`` with that search instead
  (``"engine": "readable"`` in it: rollouts on the readable engine, the reference).
* the weights: ``weights.safetensors`` when the ``safetensors`` package is
  installed, else ``weights.pt``, a plain ``{name: tensor}`` dict written by
  ``torch.save`` and read back with ``torch.load(weights_only=True)``.

Nothing is unpickled: a file that is not plain tensors, a wrong shape, a
checksum that does not match, or a model for another variant, player count or
observation layout is refused with a ``ValueError`` saying why.  The forward
pass runs in numpy, so playing needs no torch once the weights are read.

A raw stable-baselines3 ``.zip`` holds pickled Python objects and can run code
when loaded: :func:`load_agent` opens one only with ``trust_sb3_zip=True``,
for files you made yourself.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from commerce_env import observation as obs
from commerce_env.rules import Rules, make_rules
from commerce_env.view import SeatView

from .base import Agent
from .model_files import (  # noqa: F401 - re-exported: the format's names, as before the split
    FEATURE_SIZES,
    FORMAT,
    FORMAT_VERSION,
    MAX_HIDDEN_LAYERS,
    MAX_HIDDEN_SIZE,
    MODEL_JSON,
    SEARCH_KEYS,
    _fail,
    _layer_names,
    check_hidden,
    check_search,
    expected_shapes,
    input_size,
    make_meta,
    read_model,
    save_model,
)
from .sb3_models import ZIP_RULES_KEY, read_sb3_zip, weights_from_policy, zip_rules  # noqa: F401 - re-exported


class _NetworkPrior(Agent):
    """The network's own choice, as the prior of a learned agent's test-time search."""

    name = "network"

    def __init__(self, agent: LearnedAgent):
        self.agent = agent

    def act(self, view: Any) -> int:
        return self.agent.network_act(view)


class LearnedAgent(Agent):
    """Plays the action a trained policy network rates best among the legal ones; with the
    model's test-time ``search`` (model.json), the action its search keeps or picks instead."""

    name = "learned"

    def __init__(self, weights: Mapping[str, np.ndarray], meta: Mapping[str, Any],
                 deterministic: bool = True, seed: int | None = None, search: bool | Mapping[str, Any] = True):
        engine = "batched"  # where the test-time search's rollouts run (agents.search.ENGINES)
        if isinstance(search, Mapping):  # another test-time search than model.json's: another budget
            search = dict(search)
            engine = search.pop("engine", engine)  # a setting may also ask for the readable rollouts
            why = check_search(search)
            if why is not None:
                raise ValueError(f"search {dict(search)!r}: expected {why}")
        elif not isinstance(search, bool):
            raise ValueError(f"search must be True (the model's own setting), False (the network alone) or "
                             f"a setting {{worlds: ..., margin: ...}}, got {search!r}")
        self.meta = dict(meta)
        self.variant: str = meta["variant"]
        self.num_players: int = meta["num_players"]
        self.layout_version: int = meta.get("observation_layout_version")
        if not obs.known_layout(self.layout_version):
            raise ValueError(f"observation layout version {self.layout_version!r}; this commerce_env reads "
                             f"{', '.join(map(str, obs.LAYOUT_VERSIONS))}")
        self.activation: str = meta["network"]["activation"]
        hidden = list(meta["network"]["hidden"])
        self.layers = [(np.ascontiguousarray(weights[f"{name}.weight"].T, dtype=np.float32),
                        np.asarray(weights[f"{name}.bias"], dtype=np.float32)) for name in _layer_names(hidden)]
        self.features = list(meta.get("features", []))
        self.feature_builders = []
        if self.features:
            from commerce_env.features import feature_builders

            rules = make_rules(self.variant, **{k: v for k, v in meta["rules"].items() if k != "variant"})
            self.feature_builders = feature_builders(self.features, rules, self.num_players)
        self.deterministic = deterministic
        self.rng = random.Random(seed)
        self.search = None  # the test-time search (agents.search.SearchAgent), when the model has one
        settings = dict(search) if isinstance(search, Mapping) else meta.get("search") if search else None
        if settings is not None:
            from .search import SearchAgent

            self.search = SearchAgent(worlds=settings["worlds"], margin=settings["margin"], prior=True, seed=seed,
                                      engine=engine)
            self.search.prior = _NetworkPrior(self)

    def reset(self, seat: int, num_players: int, rules: Rules, seed: int | None = None) -> None:
        if num_players != self.num_players or rules.variant != self.variant:
            raise ValueError(f"this model was trained for {self.variant} with {self.num_players} players, "
                             f"not {rules.variant} with {num_players}")
        if seed is not None:
            self.rng.seed(seed)
        if self.search is not None:
            self.search.reset(seat, num_players, rules, seed)

    def model_input(self, observations: np.ndarray) -> np.ndarray:
        """Observations of this commerce_env (one, or a batch) as the model's layout gave them
        (:func:`commerce_env.observation.as_layout`): a model of an older layout sees what it was trained on."""
        if self.layout_version == obs.LAYOUT_VERSION:
            return np.asarray(observations, dtype=np.float32)
        return obs.as_layout(observations, self.layout_version, self.num_players)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The network's action scores for one observation vector (or a batch of them)."""
        x = np.asarray(observation, dtype=np.float32)
        last = len(self.layers) - 1
        for i, (weight, bias) in enumerate(self.layers):
            x = x @ weight + bias
            if i < last:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        return x

    def act(self, view: Any) -> int:
        """The model's action for a seat view: the network's, or with test-time search the one the
        search keeps.  Given only the AEC env's observation dict (which cannot sample worlds), the
        network's alone."""
        if self.search is not None and isinstance(view, SeatView):
            return self.search.act(view)
        return self.network_act(view)

    def action_probabilities(self, view: Any) -> np.ndarray:
        """The network's softmax over the legal actions (one-hot on its best where it plays
        ``deterministic``); with test-time search, one-hot on the search's choice (the default)."""
        if self.search is not None and isinstance(view, SeatView):
            return super().action_probabilities(view)
        scores = self._scores(view)
        if not self.deterministic:
            return _softmax(scores)
        probabilities = np.zeros(len(scores))
        probabilities[int(np.argmax(scores))] = 1.0
        return probabilities

    def _scores(self, view: Any) -> np.ndarray:
        """The network's scores of the actions, -inf where illegal."""
        mask = np.asarray(view["action_mask"], dtype=bool)
        if not mask.any():
            raise ValueError("no legal action in the mask")
        from commerce_env.features import append_features

        vector = append_features(self.model_input(view["observation"]), self.feature_builders)
        scores = self.logits(vector).astype(np.float64)
        scores[~mask] = -np.inf
        return scores

    def network_act(self, view: Any) -> int:
        """The best legal action by the network alone, for a seat view or the AEC env's observation dict."""
        scores = self._scores(view)
        if self.deterministic:
            return int(np.argmax(scores))
        return int(self.rng.choices(range(len(scores)), weights=_softmax(scores))[0])


def _softmax(scores: np.ndarray) -> np.ndarray:
    """The network's policy from its scores (-inf where illegal, which get 0): what it samples from."""
    probabilities = np.exp(scores - scores.max())
    return probabilities / probabilities.sum()


def load_agent(path: str | os.PathLike, *, variant: str | None = None, num_players: int | None = None,
               deterministic: bool = True, seed: int | None = None, trust_sb3_zip: bool = False,
               search: bool | Mapping[str, Any] = True) -> LearnedAgent:
    """A :class:`LearnedAgent` from a safe model folder (or its ``model.json``).

    ``search=False`` plays the network alone where the model has test-time search;
    ``search={"worlds": 96, "margin": 1.0}`` plays with that search instead of model.json's
    (or where it has none), e.g. to measure another budget without editing the model.

    ``variant`` / ``num_players``, when given, must match the model's.  A raw
    SB3 ``.zip`` is opened only with ``trust_sb3_zip=True`` (it unpickles).  A
    checkpoint of ``commerce train`` records its rules (:data:`ZIP_RULES_KEY`,
    read as plain JSON); any other zip needs ``variant=`` (it then gets that
    variant's R12 defaults), and its player count (and features) come from its
    observation size.
    """
    path = Path(path)
    if path.suffix == ".zip":
        if not trust_sb3_zip:
            raise _fail(path, "a stable-baselines3 .zip holds pickled code that runs when loaded; export your "
                              "run with `commerce export --run <folder>` and share that folder, or call "
                              "load_agent(path, trust_sb3_zip=True, variant=...) for a file you made yourself")
        weights, meta = read_sb3_zip(path, variant, num_players)
        return LearnedAgent(weights, meta, deterministic=deterministic, seed=seed)
    weights, meta = read_model(path, variant, num_players)
    return LearnedAgent(weights, meta, deterministic=deterministic, seed=seed, search=search)
