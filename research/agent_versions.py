"""The built-in agents as they were before they were strengthened, kept for measurement only.

``research.stronger_agents`` plays the agents of :mod:`agents.heuristics` and
:mod:`agents.search` against these frozen copies in the arena (duplicate deals),
which is how docs/agents.md's before/after tables are made.  They are copied
verbatim (only the class names and agent names differ: ``expected_value_v1``,
``search_v1``) together with the greedy policy their rollouts used, so that a
change to the live agents never changes the yardstick.  Not for use elsewhere.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import numpy as np

from agents.base import Agent
from agents.heuristics import TRIPLES, Value, _given_cards, quantile_key, value_function, worst_slot
from agents.odds import sorted_keys as _sorted_keys
from commerce_env.engine import actions
from commerce_env.engine.base import HORSE, LAST_EXCHANGE, REPLY, STAND_CHOICE, WIDOW_CHOICE, Game
from commerce_env.rules import Rules
from commerce_env.view import SeatView


def best_exchange_v1(hand: Sequence[int], table: Sequence[int], legal: Sequence[int], value: Value) -> tuple[int, int]:
    """``(action, value)`` of the exchange with the table that leaves the best hand now."""
    best, best_value = -1, -1
    for action in legal:
        if action < actions.EXCHANGE:
            continue
        own, slot = divmod(action - actions.EXCHANGE, 3)
        cards = list(hand)
        cards[own] = table[slot]
        new = value(cards)
        if new > best_value:
            best, best_value = action, new
    return best, best_value


def greedy_choice_v1(phase: str, legal: Sequence[int], hand: Sequence[int], table: Sequence[int], value: Value,
                  threshold: int, barter: bool = False, ship: bool = False) -> int:
    """The greedy policy: knock (stand, decline) once the hand is worth ``threshold``;
    else the exchange that improves the hand most now, or trade away the least
    useful card (for ready money, or with ``barter`` to the neighbour, R5.3-R5.4).
    ``ship``: My Ship Sails' values, where only suits make hands (R7.4)."""
    if phase == WIDOW_CHOICE:  # R6.2: the dealer has not seen his hand; judge the widow
        return actions.TAKE_WIDOW if value(table) >= threshold else actions.KEEP_HAND
    if phase == HORSE:
        return actions.BUY_HORSE
    now = value(hand)
    strong = now >= threshold
    if phase == STAND_CHOICE:
        return actions.STAND if strong else actions.CONTINUE
    if phase == REPLY:
        if actions.KNOCK in legal and strong:
            return actions.KNOCK
        return actions.GIVE + worst_slot(hand, ship)
    if actions.DECLINE in legal:  # R7.2: offer the least useful card, unless the hand is already good
        return actions.DECLINE if strong else actions.OFFER + worst_slot(hand, ship=True)
    if actions.OFFER in legal:  # R5.3-R5.4: ready money or barter
        if strong:
            return actions.KNOCK
        slot = worst_slot(hand)
        return actions.READY_MONEY + slot if actions.READY_MONEY in legal and not barter else actions.OFFER + slot
    # Exchanges with a face-up table: widow (R6.3), old game and pool (R8.2, R8.3).
    stop = actions.KNOCK if actions.KNOCK in legal else actions.STAND
    if strong and phase != LAST_EXCHANGE:
        return stop
    action, new_value = best_exchange_v1(hand, table, legal, value)
    if new_value > now:
        return action
    if actions.PASS in legal and (phase == LAST_EXCHANGE or actions.KNOCK in legal):  # R6.3's pass lets a turn go
        return actions.PASS
    return stop


def greedy_action_v1(game: Game, seat: int, threshold: int, value: Value, barter: bool = False) -> int:
    """:func:`greedy_choice` for ``seat`` of an engine state: the search agent's rollouts,
    played in worlds it sampled (its own, so reading every hand there is fair)."""
    return greedy_choice_v1(game.phase, game.legal_actions(), game.hands[seat], game.table, value, threshold,
                         barter, game.flush_ends_deal)


class WinModelV1:
    """The chance that a hand is the best at the table, given what a seat knows.

    Each opponent whose hand is not public holds three cards drawn from the
    cards this seat has not seen; an opponent whose whole hand is public holds
    exactly it.  Ties count half.  Opponents are taken as independent.
    """

    def __init__(self, view: SeatView):
        self.engine, self.combinations = view.engine, view.rules.combinations
        self.value = value_function(self.engine, self.combinations)
        self.unseen = np.array(view.unseen, dtype=np.intp)
        mask = np.zeros(52, dtype=bool)
        mask[self.unseen] = True
        self._inside = mask[TRIPLES[:, 0]] & mask[TRIPLES[:, 1]] & mask[TRIPLES[:, 2]]
        keys, order = _sorted_keys(self.engine, self.combinations)
        self.sorted_keys = keys[self._inside[order]]  # the unseen hands' values, ascending
        known = view.known_hands()
        self.known_values = np.array([self.value(cards) for cards in known.values()])
        opponents = [s for s in view.order if s != view.seat]
        self.unknown_opponents = len(opponents) - len(known)
        self._given: np.ndarray | None = None

    @property
    def given_card_weights(self) -> np.ndarray:
        """How likely each card is to be the one a player gives away blind (R5.4,
        R7.2): his least useful one, over every hand of unseen cards he may hold."""
        if self._given is None:
            gives = _given_cards(self.engine.flush_ends_deal)[self._inside]
            weights = np.bincount(gives, minlength=52).astype(float)
            self._given = weights / weights.sum() if weights.sum() else weights
        return self._given

    def win_probability(self, values: np.ndarray | int) -> np.ndarray:
        values = np.asarray(values)
        keys = self.sorted_keys
        if len(keys):
            below = np.searchsorted(keys, values, side="left")
            equal = np.searchsorted(keys, values, side="right") - below
            beat_one = (below + 0.5 * equal) / len(keys)
        else:
            beat_one = np.ones(values.shape)
        probability = beat_one ** self.unknown_opponents
        for other in self.known_values:
            probability = probability * np.where(values > other, 1.0, np.where(values == other, 0.5, 0.0))
        return probability

    def after_swap(self, hand: Sequence[int], slot: int, weights: np.ndarray | None = None) -> float:
        """Expected win probability after replacing ``hand[slot]`` by an unseen card
        (uniform, or drawn with ``weights`` over the 52 cards)."""
        if len(self.unseen) == 0:
            return float(self.win_probability(self.value(hand)))
        kept = [c for i, c in enumerate(hand) if i != slot]
        count = len(self.unseen)
        values = self.engine.values_of(np.full(count, kept[0], dtype=np.intp), np.full(count, kept[1], dtype=np.intp),
                                       self.unseen, self.combinations)
        chances = self.win_probability(values)
        if weights is None:
            return float(chances.mean())
        w = weights[self.unseen]
        total = w.sum()
        return float((chances * w).sum() / total) if total > 0 else float(chances.mean())

    def random_hand(self) -> float:
        """Expected win probability of three cards drawn from the unseen ones."""
        return float(self.win_probability(self.sorted_keys).mean()) if len(self.sorted_keys) else 0.5


class ExpectedValueV1(Agent):
    """Chooses by exact expectations over the unseen cards (see docs/agents.md)."""

    name = "expected_value_v1"

    def __init__(self, knock_threshold: float = 0.35):
        if not 0.0 <= knock_threshold <= 1.0:
            raise ValueError(f"knock_threshold must lie in [0, 1], got {knock_threshold!r}")
        self.knock_threshold = knock_threshold

    def act(self, view: SeatView) -> int:
        phase, legal = view.phase, view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if phase == HORSE:
            return actions.BUY_HORSE
        model = WinModelV1(view)
        value, threshold = model.value, self.knock_threshold
        if phase == WIDOW_CHOICE:  # R6.2: the face-up widow against an unseen hand
            widow = float(model.win_probability(value(view.table)))
            return actions.TAKE_WIDOW if widow >= model.random_hand() else actions.KEEP_HAND
        hand = view.hand
        now = float(model.win_probability(value(hand)))
        if phase == STAND_CHOICE:
            return actions.STAND if now >= threshold else actions.CONTINUE
        if view.engine.blind_trades:
            return self._trade(view, model, hand, now, legal)
        stop = actions.KNOCK if actions.KNOCK in legal else actions.STAND
        if now >= threshold and phase != LAST_EXCHANGE:
            return stop
        action, best = best_exchange_v1(hand, view.table, legal, value)
        if action >= 0 and float(model.win_probability(best)) > now:
            return action
        if actions.PASS in legal and (phase == LAST_EXCHANGE or actions.KNOCK in legal):  # R6.3's pass lets a turn go
            return actions.PASS
        return stop

    def _trade(self, view: SeatView, model: WinModelV1, hand: Sequence[int], now: float,
               legal: Sequence[int]) -> int:
        """R5.3-R5.4 and R7.2: the trade with the best expected result, in counters."""
        pool, threshold = view.pool, self.knock_threshold
        blind = model.given_card_weights  # a neighbour gives, or offers, his least useful card
        if view.phase == REPLY:
            gives = [(model.after_swap(hand, slot, blind), actions.GIVE + slot) for slot in range(3)]
            best, action = max(gives)
            if actions.KNOCK in legal and (now >= threshold or now >= best):
                return actions.KNOCK
            return action
        stop = actions.KNOCK if actions.KNOCK in legal else actions.DECLINE
        if now >= threshold:
            return stop
        cost = 0 if view.seat == view.dealer else 1
        options = [(pool * now, stop)]
        for action in legal:
            if actions.READY_MONEY <= action < actions.OFFER:
                options.append((pool * model.after_swap(hand, action - actions.READY_MONEY) - cost, action))
            elif actions.OFFER <= action < actions.GIVE:
                options.append((pool * model.after_swap(hand, action - actions.OFFER, blind), action))
        return max(options)[1]


def deal_value_v1(game: Game, seat: int) -> float:
    """What ``seat`` holds, in reward units: counters, or money plus lives at the
    pool's going rate where lives are not money (pool commerce, R9)."""
    if not game.plays_for_money:
        return float(game.counters[seat])
    lives = sum(game.counters) or 1
    return game.money[seat] + game.counters[seat] * game.pool / lives


def rollout_v1(world: Game, seat: int, threshold: int, value: Value, first: int | None = None,
            barter: bool = False, max_actions: int = 2000) -> float:
    """Take ``first`` in ``world``, then play to the end of its deal with the greedy
    policy for everyone; the change of ``seat``'s holdings (the deal's payments,
    before the next ante).  ``world`` is used up."""
    start = deal_value_v1(world, seat)
    world.stop_after_deal()
    if first is not None:
        world.apply(first)
    for _ in range(max_actions):
        if world.over:
            break
        world.apply(greedy_action_v1(world, world.current_player, threshold, value, barter))
    return deal_value_v1(world, seat) - start


class SearchV1(Agent):
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

    name = "search_v1"

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
        self.prior = ExpectedValueV1()
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
                results[action].append(rollout_v1(world.clone(), view.seat, threshold, value, action, self.barter))
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


VERSIONS = {"expected_value": ExpectedValueV1, "search": SearchV1}
