"""Determinized Monte Carlo search (see docs/agents.md).

For each decision the agent samples worlds consistent with what its seat has
seen (``view.sample_world``, R11: the whole deal and its hidden choices dealt
anew), plays every legal action in each world on a copy of it, finishes the
deal with fast rollouts (every player follows
:func:`agents.heuristics.greedy_action`), and picks the action with the best
mean result; with blind trades it keeps the expected-value agent's choice
unless another action is clearly better.  All actions are scored on the same
worlds (common random numbers), so their differences are much less noisy than
their values.  The budget is a number of worlds per decision, or milliseconds.
"""

from __future__ import annotations

import random
import time

import numpy as np

from commerce_env.engine.base import Game
from commerce_env.rules import Rules
from commerce_env.view import SeatView

from .base import Agent
from .heuristics import ExpectedValueAgent, Value, greedy_action, quantile_key, value_function


def deal_value(game: Game, seat: int) -> float:
    """What ``seat`` holds, in reward units: counters, or money plus lives at the
    pool's going rate where lives are not money (pool commerce, R9)."""
    if not game.plays_for_money:
        return float(game.counters[seat])
    lives = game.lives
    return game.money[seat] + lives[seat] * game.pool / (sum(lives) or 1)


def rollout(world: Game, seat: int, threshold: int, value: Value, first: int | None = None,
            barter: bool = False, max_actions: int = 2000) -> float:
    """Take ``first`` in ``world``, then play to the end of its deal with the greedy
    policy for everyone; the change of ``seat``'s holdings (the deal's payments,
    before the next ante).  ``world`` is used up."""
    start = deal_value(world, seat)
    world.stop_after_deal()
    if first is not None:
        world.apply(first)
    for _ in range(max_actions):
        if world.over:
            break
        world.apply(greedy_action(world, world.current_player, threshold, value, barter))
    return deal_value(world, seat) - start


class SearchAgent(Agent):
    """Determinized Monte Carlo with greedy rollouts; ``worlds`` or ``ms`` per decision.

    With a ``prior`` the search starts from the expected-value agent's choice
    and switches to another action only when the rollouts, on the same worlds,
    show it better by more than ``margin`` standard errors of the paired
    difference; without, it takes the plain argmax.  The default (``None``)
    uses the prior in the variants with blind trades (trade and barter, My Ship
    Sails), where greedy rollouts are the weakest model of the other players,
    and not with a face-up table, where the plain search measured better
    (docs/agents.md).
    """

    name = "search"

    def __init__(self, worlds: int = 24, ms: float | None = None, rollout_quantile: float = 0.6,
                 barter: bool = True, prior: bool | None = None, margin: float = 1.0, seed: int | None = None):
        if isinstance(worlds, bool) or not isinstance(worlds, int) or worlds < 1:
            raise ValueError(f"worlds must be a whole number >= 1, got {worlds!r}")
        if ms is not None and not ms > 0:
            raise ValueError(f"ms must be a positive number of milliseconds, got {ms!r}")
        self.worlds = worlds
        self.ms = ms
        self.rollout_quantile = rollout_quantile
        self.barter = barter
        self.margin = margin
        self.use_prior = prior
        self.prior = ExpectedValueAgent()
        self.rng = random.Random(seed)
        self.last_values: dict[int, float] = {}  # action -> mean result at the last decision

    def reset(self, seat: int, num_players: int, rules: Rules, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    def evaluate(self, view: SeatView) -> dict[int, np.ndarray]:
        """Each legal action's result in each sampled world (rows share worlds)."""
        legal = list(view.legal_actions)
        engine, combos = view.engine, view.rules.combinations
        threshold = quantile_key(engine, combos, self.rollout_quantile)
        value = value_function(engine, combos)
        results: dict[int, list[float]] = {a: [] for a in legal}
        deadline = None if self.ms is None else time.perf_counter() + self.ms / 1000.0
        while True:
            world = view.sample_world(self.rng)
            for action in legal:
                results[action].append(rollout(world.clone(), view.seat, threshold, value, action, self.barter))
            if deadline is None:
                if len(results[legal[0]]) >= self.worlds:
                    break
            elif time.perf_counter() >= deadline:
                break
        return {a: np.array(v) for a, v in results.items()}

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        results = self.evaluate(view)
        self.last_values = {a: float(v.mean()) for a, v in results.items()}
        best_value = max(self.last_values.values())
        best = min(a for a in legal if self.last_values[a] >= best_value - 1e-12)
        use_prior = self.use_prior
        if use_prior is None:
            use_prior = view.engine.blind_trades
        if not use_prior:
            return best
        default = self.prior.act(view)
        gain = results[best] - results[default]
        if len(gain) > 1 and gain.mean() > self.margin * gain.std(ddof=1) / np.sqrt(len(gain)):
            return best
        return default
