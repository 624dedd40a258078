"""Agents that act for many games of a :class:`commerce_env.vector.BatchEngine` in one call.

The protocol is one method, ``act_batch(engine, games, seats) -> actions``:
``games`` are game indices whose player to act is ``seats`` (same length),
and the answer is one legal action per game.  :mod:`commerce_env.vector.vec_env`
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
from numba import njit

from commerce_env.engine import actions as A
from commerce_env.rules import Rules
from commerce_env.vector import kernels as K

from .base import Agent


class BatchedAgent:
    """Base class of the ``act_batch`` protocol."""

    name = "batched"

    def act_batch(self, engine, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class BatchedRandom(BatchedAgent):
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act_batch(self, engine, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        masks = engine.action_mask[games]
        return (self.rng.random(masks.shape) * masks).argmax(axis=1)


# ----------------------------------------------------------------- greedy
@njit(cache=True)
def _keep_score(a, b, ship, pips):
    pa, pb = pips[a >> 2], pips[b >> 2]
    if not ship and a >> 2 == b >> 2:
        return 60 + (a >> 2)
    if (a & 3) == (b & 3):
        near = not ship and abs((a >> 2) - (b >> 2)) <= 2
        return 30 + pa + pb + (4 if near else 0)
    return max(pa, pb)


@njit(cache=True)
def _worst_slot(a, b, c, ship, pips):
    """The slot of the card whose loss leaves the most promising two cards (first of equals)."""
    s0, s1, s2 = _keep_score(b, c, ship, pips), _keep_score(a, c, ship, pips), _keep_score(a, b, ship, pips)
    if s0 >= s1 and s0 >= s2:
        return 0
    return 1 if s1 >= s2 else 2


@njit(cache=True)
def _greedy_actions(hands, tables, phases, masks, keys, pips, threshold, variant, barter):
    """``agents.heuristics.greedy_action`` for each row."""
    out = np.empty(len(phases), np.int64)
    ship = variant == K.V_SHIP
    for r in range(len(phases)):
        phase = phases[r]
        if phase == K.WIDOW_CHOICE:  # R6.2: judge the face-up widow
            t0, t1, t2 = tables[r, 0], tables[r, 1], tables[r, 2]
            out[r] = K.TAKE_WIDOW if keys[t0 * 2704 + t1 * 52 + t2] >= threshold else K.KEEP_HAND
            continue
        if phase == K.HORSE:
            out[r] = K.BUY_HORSE
            continue
        a, b, c = hands[r, 0], hands[r, 1], hands[r, 2]
        value = keys[a * 2704 + b * 52 + c]
        strong = value >= threshold
        if phase == K.STAND_CHOICE:
            out[r] = K.STAND if strong else K.CONTINUE
        elif phase == K.REPLY:
            if masks[r, K.KNOCK] and strong:
                out[r] = K.KNOCK
            else:
                out[r] = K.GIVE + _worst_slot(a, b, c, ship, pips)
        elif ship:
            out[r] = K.DECLINE if strong else K.OFFER + _worst_slot(a, b, c, True, pips)
        elif variant == K.V_TRADE_BARTER:
            if strong:
                out[r] = K.KNOCK
            else:
                slot = _worst_slot(a, b, c, False, pips)
                out[r] = K.READY_MONEY + slot if masks[r, K.READY_MONEY] and not barter else K.OFFER + slot
        else:  # exchanges with a face-up table (R6.3, R8.2, R8.3)
            stop = K.KNOCK if masks[r, K.KNOCK] else K.STAND
            if strong and phase != K.LAST_EXCHANGE:
                out[r] = stop
                continue
            best, best_value = -1, -1
            for action in range(K.EXCHANGE, K.NUM_ACTIONS):
                if not masks[r, action]:
                    continue
                own, slot = (action - K.EXCHANGE) // 3, (action - K.EXCHANGE) % 3
                x, y, z = a, b, c
                t = tables[r, slot]
                if own == 0:
                    x = t
                elif own == 1:
                    y = t
                else:
                    z = t
                v = keys[x * 2704 + y * 52 + z]
                if v > best_value:
                    best, best_value = action, v
            if best_value > value:
                out[r] = best
            elif masks[r, K.PASS] and (phase == K.LAST_EXCHANGE or variant == K.V_WIDOW):
                out[r] = K.PASS
            else:
                out[r] = stop
    return out




class BatchedGreedy(BatchedAgent):
    """:class:`agents.heuristics.GreedyAgent` for many games at once."""

    name = "greedy"

    def __init__(self, quantile: float = 0.6, barter: bool = False, seed: int | None = None):
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
        from commerce_env.cards import RANK_PIPS

        hands = engine.hands[games, seats]
        return _greedy_actions(np.ascontiguousarray(hands), np.ascontiguousarray(engine.table[games]),
                               np.ascontiguousarray(engine.phase[games]), engine.action_mask[games], engine.keys,
                               np.asarray(RANK_PIPS, dtype=np.int64), self.threshold(engine.rules),
                               int(engine.params[K.P_VARIANT]), self.barter)


# ---------------------------------------------------------------- learned
class BatchedPolicy(BatchedAgent):
    """A :class:`agents.learned.LearnedAgent` evaluated for all its games in one forward pass."""

    name = "learned"

    def __init__(self, agent: Any, seed: int | None = None):
        self.agent = agent
        self.rng = np.random.default_rng(seed)
        self._builders: list | None = None

    def act_batch(self, engine, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        from commerce_env.vector.features import batch_feature_builders, with_features

        if engine.num_players != self.agent.num_players or engine.variant != self.agent.variant:
            raise ValueError(f"this model was trained for {self.agent.variant} with {self.agent.num_players} "
                             f"players, not {engine.variant} with {engine.num_players}")
        if self._builders is None:
            self._builders = batch_feature_builders(self.agent.features, engine.rules, engine.num_players)
        vectors = with_features(engine.observe(seats, games), self._builders)
        scores = self.agent.logits(vectors).astype(np.float64)
        mask = engine.action_mask[games].astype(bool)
        scores[~mask] = -np.inf
        if self.agent.deterministic:
            return scores.argmax(axis=1)
        probabilities = np.exp(scores - scores.max(axis=1, keepdims=True))
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        draws = self.rng.random((len(games), 1))
        return (probabilities.cumsum(axis=1) < draws).sum(axis=1).clip(0, A.NUM_ACTIONS - 1)


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
        return BatchedPolicy(spec)
    kwargs: dict[str, Any] = {}
    if isinstance(spec, Mapping):
        kwargs = dict(spec)
        spec = kwargs.pop("agent", None)
    if isinstance(spec, str) and spec.startswith("model:"):
        from .learned import load_agent

        return BatchedPolicy(load_agent(spec[len("model:"):], variant=rules.variant if rules else None,
                                        num_players=num_players), **kwargs)
    if spec == "random":
        return BatchedRandom(**kwargs)
    if spec == "greedy":
        return BatchedGreedy(**kwargs)
    name = spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)
    if isinstance(spec, Agent) or name in UNBATCHABLE:
        raise ValueError(f"opponent {name!r} has no batched form (it needs the readable engine's state); "
                         f"train against it with vec_env: dummy, or use random, greedy or model:<path>")
    raise ValueError(f"unknown opponent {spec!r}; batched opponents are random, greedy, model:<path> "
                     f"or objects with act_batch(engine, games, seats)")
