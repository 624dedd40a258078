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

import math
import random
import time

import numpy as np

from commerce_env.engine.actions import EXCHANGE
from commerce_env.engine.base import HORSE, Game
from commerce_env.rules import Rules
from commerce_env.view import SeatView

from .base import Agent
from .heuristics import (
    ExpectedValueAgent,
    Value,
    flag_argument,
    greedy_action,
    life_shares,
    number_argument,
    quantile_key,
    value_function,
)

MAX_WORLDS = 10_000
"""The most worlds a decision may sample: beyond it one decision takes minutes."""
MAX_MS = 60_000
"""The longest time budget of a decision, in milliseconds (a minute)."""


def deal_value(game: Game, seat: int) -> float:
    """What ``seat`` holds, in reward units: counters, or, where lives are not money
    (pool commerce, R9), money plus its share of the pool: the chance that its lives
    outlast everyone's (R9.5, :func:`agents.heuristics.life_shares`)."""
    if not game.plays_for_money:
        return float(game.counters[seat])
    return game.money[seat] + game.pool * life_shares(tuple(game.lives))[seat]


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
    """Determinized Monte Carlo with greedy rollouts; ``worlds`` (at most :data:`MAX_WORLDS`)
    or ``ms`` (at most :data:`MAX_MS`) per decision.

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

    def __init__(self, worlds: int = 24, ms: float | None = None, rollout_quantile: float | None = None,
                 barter: bool = True, prior: bool | None = None, margin: float = 1.0, candidates: int | None = 4,
                 seed: int | None = None):
        self.worlds = number_argument("worlds", worlds, 1, MAX_WORLDS, whole=True)
        self.ms = None if ms is None else number_argument("ms", ms, 0, MAX_MS, above_low=True)
        # A hand has 3 cards and the table 3: at most 9 exchanges to choose among (R6.3, R8.2).
        self.candidates = None if candidates is None else number_argument("candidates", candidates, 1, 9, whole=True)
        self.rollout_quantile = (None if rollout_quantile is None
                                 else number_argument("rollout_quantile", rollout_quantile, 0.0, 1.0))
        self.barter = flag_argument("barter", barter)
        self.margin = number_argument("margin", margin, 0.0, math.inf)
        self.use_prior = flag_argument("prior", prior, optional=True)
        self.prior = ExpectedValueAgent()
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise ValueError(f"seed must be an integer or None, got {seed!r}")
        self.rng = random.Random(None if seed is None else int(seed))
        self.last_values: dict[int, float] = {}  # action -> mean result at the last decision

    def reset(self, seat: int, num_players: int, rules: Rules, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    def rollout_threshold(self, view: SeatView) -> int:
        """The hand value at which the rollouts' players stop: the ``rollout_quantile`` of all
        hands, by default 0.9 where a stand leaves the others drawing (R8.2, so stopping
        early is costly) and 0.6 otherwise."""
        quantile = self.rollout_quantile
        if quantile is None:
            quantile = 0.9 if view.engine.pass_ends_turns else 0.6
        return quantile_key(view.engine, view.rules.combinations, quantile)

    def candidate_actions(self, view: SeatView) -> list[int]:
        """The actions worth a rollout: every one, except that of the exchanges with a
        face-up table (R6.3, R8.2) only the ``candidates`` leaving the best hands now."""
        legal = list(view.legal_actions)
        exchanges = [a for a in legal if a >= EXCHANGE]
        if self.candidates is None or len(exchanges) <= self.candidates or not view.engine.has_table:
            return legal

        def after(action: int) -> int:
            own, slot = divmod(action - EXCHANGE, 3)
            cards = list(view.hand)
            cards[own] = view.table[slot]
            return view.hand_value(cards)

        kept = sorted(exchanges, key=after, reverse=True)[:self.candidates]
        return [a for a in legal if a < EXCHANGE or a in kept]

    def evaluate(self, view: SeatView, include: tuple[int, ...] = ()) -> dict[int, np.ndarray]:
        """Each candidate action's (and each of ``include``'s) result in each sampled world
        (rows share worlds)."""
        legal = self.candidate_actions(view)
        legal += [a for a in include if a not in legal]
        engine, combos = view.engine, view.rules.combinations
        threshold = self.rollout_threshold(view)
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
        if view.phase == HORSE:  # R9.4: after the deal; the rollouts stop at its end
            return self.prior.act(view)
        use_prior = self.use_prior
        if use_prior is None:
            use_prior = view.engine.blind_trades
        default = self.prior.act(view) if use_prior else None
        results = self.evaluate(view, () if default is None else (default,))
        self.last_values = {a: float(v.mean()) for a, v in results.items()}
        best_value = max(self.last_values.values())
        best = min(a for a in results if self.last_values[a] >= best_value - 1e-12)
        if default is None:
            return best
        gain = results[best] - results[default]
        if len(gain) > 1 and gain.mean() > self.margin * gain.std(ddof=1) / np.sqrt(len(gain)):
            return best
        return default
