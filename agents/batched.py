"""Agents that act for many games of a :class:`commerce_env.vector.BatchEngine` in one call.

The protocol is one method, ``act_batch(engine, games, seats) -> actions``:
``games`` are game indices whose player to act is ``seats`` (same length),
and the answer is one legal action per game.  :mod:`commerce_env.vector_env`
uses it for the opponents of the learner.

* :class:`BatchedRandom`: uniform over the mask.
* :class:`BatchedGreedy`: :class:`agents.heuristics.GreedyAgent`, compiled
  (numba), with the same knock threshold (``quantile``) and ``barter`` flag;
  it picks the same action as ``GreedyAgent`` on the same state (tested).
* :class:`BatchedPolicy`: a :class:`agents.learned.LearnedAgent` (a shipped
  model or a self-play snapshot) evaluated for all its games in one forward pass.

``expected_value`` and ``search`` need the readable engine's state (they
re-deal hidden cards and look ahead) and have no batched form: train against
them with ``vec_env: dummy`` (:func:`batched_agent` says so).

Needs the ``vector`` extra (numba).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from commerce_env.engine.actions import NUM_ACTIONS
from commerce_env.policies import RandomPolicy
from commerce_env.rules import Rules
from commerce_env.vector import access
from commerce_env.vector.compiled import inlined, kernel

from .base import Agent
from .greedy_kernels import PIPS, flush_ends_deal, greedy_actions, greedy_move


class BatchedAgent:
    """Base class of the ``act_batch`` protocol.  An agent that can also run inside the
    compiled opponent loop says how (:meth:`compiled_spec`) and gives the loop (``play_compiled``)."""

    name = "batched"
    play_compiled = None

    def compiled_spec(self, rules: Rules) -> tuple[int, int, int] | None:
        """``(kind, threshold, barter)`` for :func:`_play_compiled`, or None."""
        return None

    def act_batch(self, engine, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def action_probabilities_batch(self, engine, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """``(len(games), 27)``: how likely this agent is to take each action in each game, as
        :meth:`agents.base.Agent.action_probabilities` (by default one-hot on :meth:`act_batch`)."""
        probabilities = np.zeros((len(games), NUM_ACTIONS))
        probabilities[np.arange(len(games)), self.act_batch(engine, games, seats)] = 1.0
        return probabilities


# ------------------------------------------------------ compiled opponents
KIND_NONE, KIND_RANDOM, KIND_GREEDY = -1, 0, 1


@inlined
def scripted_move(rows, g, params, keys, masks, pips, seat, kind, threshold, ship, barter):
    """The move of a compiled opponent of ``kind`` (``KIND_RANDOM``, ``KIND_GREEDY`` at ``threshold``
    with ``barter``) for ``seat`` to act in game ``g``."""
    if kind == KIND_RANDOM:
        return access.random_legal_action(rows, g, masks)
    return greedy_move(rows, g, params, keys, masks, pips, seat, threshold, ship, barter)


@kernel
def _play_compiled(state, pips, ship, seats, assigned, kinds, thresholds, barters, earned, fresh, redealt,
                   end_when_out):
    """Compiled opponents (random, greedy) move in every game of ``state`` (a
    :class:`commerce_env.vector.access.KernelState`) until the learner's turn, the match's end (with
    ``end_when_out``, also the learner's: ``finished_for``), or an opponent that is not compiled;
    ``earned`` gets the learner's rewards meanwhile.  A ``fresh`` match (the learner has not decided
    yet) that ends is dealt again at once, with a new dealer, the same seats and opponents
    (``redealt``; its ``earned`` starts afresh)."""
    rows, params, keys, masks = state  # once: see commerce_env.vector.access
    pack = np.empty(52, np.int64)
    n = access.num_players(params)
    for g in range(len(seats)):
        redeals = 0
        while True:
            if access.is_over(rows, g) or (end_when_out and seats[g] >= 0
                                           and access.finished_for(rows, g, params, seats[g])):
                if not fresh[g] or redeals >= 1000:
                    break
                redeals += 1
                dealer = access.random_below(rows, g, n)  # R4.5: no decision, deal again
                access.start_match(rows, g, params, keys, masks, dealer, pack)
                redealt[g] = True
                earned[g] = access.take_reward(rows, g, params, seats[g])
                continue
            seat = access.to_act(rows, g)
            if seat == seats[g]:
                break
            k = assigned[g, seat]
            if kinds[k] == KIND_NONE:
                break
            action = scripted_move(rows, g, params, keys, masks, pips, seat, kinds[k], thresholds[k], ship, barters[k])
            access.apply_action(rows, g, params, keys, masks, pack, action)
            earned[g] += access.take_reward(rows, g, params, seats[g])
        access.drop_rewards(rows, g, params)  # the opponents' rewards are nobody's


def play_compiled(engine, seats: np.ndarray, assigned: np.ndarray, specs: np.ndarray, earned: np.ndarray,
                  fresh: np.ndarray, redealt: np.ndarray, end_when_out: bool = False) -> None:
    """Run :func:`_play_compiled` on ``engine``: ``specs[k]`` is ``(kind, threshold, barter)`` of
    opponent ``k`` (kind -1: not compiled).  Consumes the engine's pending rewards."""
    _play_compiled(engine.kernel_state(), PIPS, flush_ends_deal(engine), seats, assigned, specs[:, 0], specs[:, 1],
                   specs[:, 2].astype(np.bool_), earned, fresh, redealt, bool(end_when_out))


class BatchedRandom(RandomPolicy, BatchedAgent):
    """The uniform random policy (:class:`commerce_env.policies.RandomPolicy`), able to move inside the
    compiled opponent loop as well."""

    play_compiled = staticmethod(play_compiled)

    def compiled_spec(self, rules: Rules) -> tuple[int, int, int]:
        return (KIND_RANDOM, 0, 0)

class BatchedGreedy(BatchedAgent):
    """:class:`agents.heuristics.GreedyAgent` for many games at once."""

    name = "greedy"
    play_compiled = staticmethod(play_compiled)

    def compiled_spec(self, rules: Rules) -> tuple[int, int, int]:
        return (KIND_GREEDY, self.threshold(rules), int(self.barter))

    def __init__(self, quantile: float = 0.6, barter: bool = False):
        if not 0.0 <= quantile <= 1.0:
            raise ValueError(f"quantile must lie in [0, 1], got {quantile!r}")
        self.quantile = quantile
        self.barter = barter
        self._thresholds: dict[tuple, int] = {}

    def threshold(self, rules: Rules) -> int:
        from .heuristics import quantile_key

        key = (rules.variant, rules.combinations)
        if key not in self._thresholds:
            from commerce_env.engine import ENGINES

            self._thresholds[key] = quantile_key(ENGINES[rules.variant], rules.combinations, self.quantile)
        return self._thresholds[key]

    def act_batch(self, engine, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        hands = engine.hands[games, seats]
        return greedy_actions(np.ascontiguousarray(hands), np.ascontiguousarray(engine.table[games]),
                              np.ascontiguousarray(engine.phase[games]), engine.action_mask[games], engine.keys,
                              PIPS, self.threshold(engine.rules), flush_ends_deal(engine), self.barter)


# ---------------------------------------------------------------- learned
class BatchedPolicy(BatchedAgent):
    """A :class:`agents.learned.LearnedAgent` evaluated for all its games in one forward pass."""

    name = "learned"

    def __init__(self, agent: Any, seed: int | None = None):
        self.agent = agent
        self.rng = np.random.default_rng(seed)
        self._builders: list | None = None

    def _scores(self, engine, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The network's scores of the actions in each game, -inf where illegal."""
        from commerce_env.vector.features import batch_feature_builders, with_features

        if engine.num_players != self.agent.num_players or engine.variant != self.agent.variant:
            raise ValueError(f"this model was trained for {self.agent.variant} with {self.agent.num_players} "
                             f"players, not {engine.variant} with {engine.num_players}")
        if self._builders is None:
            self._builders = batch_feature_builders(self.agent.features, engine.rules, engine.num_players)
        vectors = with_features(self.agent.model_input(engine.observe(seats, games)), self._builders)
        scores = self.agent.logits(vectors).astype(np.float64)
        mask = engine.action_mask[games].astype(bool)
        scores[~mask] = -np.inf
        return scores

    def action_probabilities_batch(self, engine, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The network's softmax over each game's legal actions (one-hot on its best where the
        agent plays ``deterministic``), as :meth:`agents.learned.LearnedAgent.action_probabilities`."""
        scores = self._scores(engine, games, seats)
        if self.agent.deterministic:
            probabilities = np.zeros_like(scores)
            probabilities[np.arange(len(scores)), scores.argmax(axis=1)] = 1.0
            return probabilities
        probabilities = np.exp(scores - scores.max(axis=1, keepdims=True))
        return probabilities / probabilities.sum(axis=1, keepdims=True)

    def act_batch(self, engine, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        scores = self._scores(engine, games, seats)
        if self.agent.deterministic:
            return scores.argmax(axis=1)
        probabilities = np.exp(scores - scores.max(axis=1, keepdims=True))
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        draws = self.rng.random((len(games), 1))
        return (probabilities.cumsum(axis=1) < draws).sum(axis=1).clip(0, NUM_ACTIONS - 1)


def _network_only(agent: Any, spec: Any = None) -> Any:
    """``agent`` when it plays by its network alone; a model with test-time search is refused: its
    rollouts need the readable engine's state, and the network alone would be another agent."""
    if agent.search is not None:
        name = spec if spec is not None else getattr(agent, "name", "learned")
        raise ValueError(f"opponent {name!r} plays with test-time search (its model.json 'search'), which the "
                         "batched engine cannot run; give {agent: 'model:<path>', search: false} for its network "
                         "alone, or use vec_env: dummy")
    return agent


# ---------------------------------------------------------------- resolve
UNBATCHABLE = ("expected_value", "search", "human")


def batched_agent(spec: Any, rules: Rules | None = None, num_players: int | None = None) -> BatchedAgent:
    """A batched agent from a spec: ``"random"``, ``"greedy"``, ``{"agent": "greedy", "quantile": 0.7}``,
    ``"model:<path>"``, an agent object (greedy, learned) or an object with ``act_batch``."""
    from .heuristics import GreedyAgent
    from .learned import LearnedAgent

    if hasattr(spec, "act_batch"):
        return spec
    if isinstance(spec, GreedyAgent):
        return BatchedGreedy(spec.quantile, spec.barter)
    if isinstance(spec, LearnedAgent):
        return BatchedPolicy(_network_only(spec))
    from .spec_text import read_spec, refuse_trust_arguments

    spec = read_spec(spec)  # "greedy(quantile=0.7)" as on the command line
    kwargs: dict[str, Any] = {}
    if isinstance(spec, Mapping):
        refuse_trust_arguments(spec, spec)  # a spec is data: it cannot make a loader unpickle
        kwargs = dict(spec)
        spec = read_spec(kwargs.pop("agent", None))
        if isinstance(spec, Mapping):  # {agent: "greedy(quantile=0.7)", ...}
            kwargs = {**{k: v for k, v in spec.items() if k != "agent"}, **kwargs}
            spec = spec["agent"]
    if isinstance(spec, str) and spec.startswith("model:"):
        from .learned import load_agent

        search = kwargs.pop("search", True)
        agent = load_agent(spec[len("model:"):], variant=rules.variant if rules else None,
                           num_players=num_players, search=search)
        return BatchedPolicy(_network_only(agent, spec), **kwargs)
    if spec == "random":
        return BatchedRandom(**kwargs)
    if spec == "greedy":
        return BatchedGreedy(**kwargs)
    name = spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)
    from .module_agents import ModuleSpec

    if isinstance(spec, Agent | ModuleSpec) or name in UNBATCHABLE:  # a user's module agent: readable engine
        raise ValueError(f"opponent {name!r} has no batched form (it needs the readable engine's state); "
                         f"train against it with vec_env: dummy, or use random, greedy or model:<path>")
    raise ValueError(f"unknown opponent {spec!r}; batched opponents are random, greedy, model:<path> "
                     f"or objects with act_batch(engine, games, seats)")
