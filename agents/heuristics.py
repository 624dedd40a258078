"""Two hand-crafted baselines for every variant: ``greedy`` and ``expected_value``.

Both play from a seat view (:mod:`commerce_env.view`): their own hand, the
face-up table, the counters, the phase and, for ``expected_value``, the cards
their seat has not seen (R11).  ``greedy`` is also the fast policy that the
search agent's rollouts use for every player of a sampled world, so it is
written for speed.  Hand values and the variant's flags come from the
variant's engine class (``value_of``, ``values_of``, ``flush_ends_deal``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cache
from numbers import Real
from typing import Any

import numpy as np

from commerce_env.cards import RANK_PIPS
from commerce_env.engine.actions import (
    BUY_HORSE,
    CONTINUE,
    DECLINE,
    EXCHANGE,
    GIVE,
    KEEP_HAND,
    KNOCK,
    NO_HORSE,
    OFFER,
    PASS,
    READY_MONEY,
    STAND,
    TAKE_WIDOW,
)
from commerce_env.engine.base import (
    HORSE,
    LAST_EXCHANGE,
    REPLY,
    STAND_CHOICE,
    WIDOW_CHOICE,
    Game,
)
from commerce_env.view import SeatView

from . import odds
from .base import Agent
from .odds import (
    TRIPLES,
    all_keys,
    exchange_outlook,
    finished_seats,
    life_shares,
    life_value,
)

_PIPS = np.array(RANK_PIPS, dtype=np.int64)
Value = Callable[[Sequence[int]], int]


@cache
def _given_cards(ship: bool) -> np.ndarray:
    """For each of the 22,100 hands, the card :func:`worst_slot` would give away."""
    a, b, c = TRIPLES.T
    scores = np.column_stack([_keep_scores(b, c, ship), _keep_scores(a, c, ship), _keep_scores(a, b, ship)])
    return TRIPLES[np.arange(len(TRIPLES)), scores.argmax(axis=1)]


def value_function(engine: type[Game], combos: frozenset[str]) -> Value:
    """The variant's hand value as a one-argument function (R2, R7.4)."""
    return engine.value_function(combos)


@cache
def quantile_key(engine: type[Game], combos: frozenset[str], quantile: float) -> int:
    """The hand value at ``quantile`` of all 22,100 hands (a fixed, card-free yardstick)."""
    return int(np.quantile(all_keys(engine, combos), quantile, method="lower"))


def keep_score(a: int, b: int, ship: bool) -> int:
    """How promising two kept cards are: a rank pair (tricon), a suit pair, else the high card."""
    pa, pb = RANK_PIPS[a >> 2], RANK_PIPS[b >> 2]
    if not ship and a >> 2 == b >> 2:
        return 60 + (a >> 2)
    if a & 3 == b & 3:
        near = not ship and abs((a >> 2) - (b >> 2)) <= 2
        return 30 + pa + pb + (4 if near else 0)
    return max(pa, pb)


def _keep_scores(a: np.ndarray, b: np.ndarray, ship: bool) -> np.ndarray:
    """:func:`keep_score` for arrays of card pairs."""
    ra, rb = a >> 2, b >> 2
    pa, pb = _PIPS[ra], _PIPS[rb]
    same_rank = (ra == rb) & (not ship)
    near = (np.abs(ra - rb) <= 2) & (not ship)
    return np.where(same_rank, 60 + ra, np.where((a & 3) == (b & 3), 30 + pa + pb + 4 * near, np.maximum(pa, pb)))


def worst_slot(hand: Sequence[int], ship: bool = False) -> int:
    """The slot of the card whose loss leaves the most promising two cards."""
    a, b, c = hand
    scores = (keep_score(b, c, ship), keep_score(a, c, ship), keep_score(a, b, ship))
    return max(range(3), key=scores.__getitem__)


# ----------------------------------------------------------------- greedy
def best_exchange(hand: Sequence[int], table: Sequence[int], legal: Sequence[int], value: Value) -> tuple[int, int]:
    """``(action, value)`` of the exchange with the table that leaves the best hand now."""
    best, best_value = -1, -1
    for action in legal:
        if action < EXCHANGE:
            continue
        own, slot = divmod(action - EXCHANGE, 3)
        cards = list(hand)
        cards[own] = table[slot]
        new = value(cards)
        if new > best_value:
            best, best_value = action, new
    return best, best_value


def greedy_choice(phase: str, legal: Sequence[int], hand: Sequence[int], table: Sequence[int], value: Value,
                  threshold: int, barter: bool = False, ship: bool = False) -> int:
    """The greedy policy: knock (stand, decline) once the hand is worth ``threshold``;
    else the exchange that improves the hand most now, or trade away the least
    useful card (for ready money, or with ``barter`` to the neighbour, R5.3-R5.4).
    ``ship``: My Ship Sails' values, where only suits make hands (R7.4)."""
    if phase == WIDOW_CHOICE:  # R6.2: the dealer has not seen his hand; judge the widow
        return TAKE_WIDOW if value(table) >= threshold else KEEP_HAND
    if phase == HORSE:
        return BUY_HORSE
    now = value(hand)
    strong = now >= threshold
    if phase == STAND_CHOICE:
        return STAND if strong else CONTINUE
    if phase == REPLY:
        if KNOCK in legal and strong:
            return KNOCK
        return GIVE + worst_slot(hand, ship)
    if DECLINE in legal:  # R7.2: offer the least useful card, unless the hand is already good
        return DECLINE if strong else OFFER + worst_slot(hand, ship=True)
    if OFFER in legal:  # R5.3-R5.4: ready money or barter
        if strong:
            return KNOCK
        slot = worst_slot(hand)
        return READY_MONEY + slot if READY_MONEY in legal and not barter else OFFER + slot
    # Exchanges with a face-up table: widow (R6.3), old game and pool (R8.2, R8.3).
    stop = KNOCK if KNOCK in legal else STAND
    if strong and phase != LAST_EXCHANGE:
        return stop
    action, new_value = best_exchange(hand, table, legal, value)
    if new_value > now:
        return action
    if PASS in legal and (phase == LAST_EXCHANGE or KNOCK in legal):  # R6.3's pass lets a turn go
        return PASS
    return stop


def greedy_action(game: Game, seat: int, threshold: int, value: Value, barter: bool = False) -> int:
    """:func:`greedy_choice` for ``seat`` of an engine state: the search agent's rollouts,
    played in worlds it sampled (its own, so reading every hand there is fair)."""
    return greedy_choice(game.phase, game.legal_actions(), game.hands[seat], game.table, value, threshold,
                         barter, game.flush_ends_deal)


def number_argument(name: str, value: Any, low: float, high: float, *, whole: bool = False,
                    above_low: bool = False) -> float | int:
    """An agent's numeric argument, checked to lie in ``[low, high]`` (``(low, high]`` with
    ``above_low``): an int with ``whole``, else a float.  Text that reads as a number is taken
    as that number, since YAML 1.1 reads ``1e3`` as text; anything else (a bool, a list, NaN,
    a fraction where a whole number goes) is a ``ValueError`` naming the argument and the value."""
    number: Any = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        number = None
    if number is None or not math.isfinite(number) or not (low < number if above_low else low <= number) \
            or not number <= high or (whole and number != int(number)):
        kind = "a whole number" if whole else "a number"
        raise ValueError(f"{name} must be {kind} {'above' if above_low else 'from'} {low:g} "
                         f"{'and at most' if above_low else 'to'} {high:g}, got {value!r}")
    return int(number) if whole else float(number)


def flag_argument(name: str, value: Any, *, optional: bool = False) -> bool | None:
    """An agent's yes/no argument: True or False (or None where ``optional``), else a ``ValueError`` naming it."""
    if isinstance(value, (bool, np.bool_)) or (optional and value is None):
        return None if value is None else bool(value)
    raise ValueError(f"{name} must be true or false{' or none' if optional else ''}, got {value!r}")


class GreedyAgent(Agent):
    """Improves its hand as much as it can right now; stops past a fixed threshold."""

    name = "greedy"

    def __init__(self, quantile: float = 0.6, barter: bool = False):
        self.quantile = number_argument("quantile", quantile, 0.0, 1.0)
        self.barter = flag_argument("barter", barter)

    def act(self, view: SeatView) -> int:
        engine, combos = view.engine, view.rules.combinations
        threshold = quantile_key(engine, combos, self.quantile)
        return greedy_choice(view.phase, view.legal_actions, view.hand, view.table,
                             value_function(engine, combos), threshold, self.barter, engine.flush_ends_deal)


# --------------------------------------------------------- expected value
class WinModel(odds.WinModel):
    """:class:`commerce_env.odds.WinModel`, and how likely each card is to be given away blind."""

    def __init__(self, view: SeatView, improving: Sequence[int] = ()):
        super().__init__(view, improving)
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


class ExpectedValueAgent(Agent):
    """Chooses by exact expectations over the unseen cards (see docs/agents.md).

    ``knock_threshold``: the chance to win at which it knocks or stands after a
    trade (R5.5, R5.6); ``decline_threshold``: at which it declines to exchange
    in My Ship Sails (R7.2), where a decline ends nothing.  With a face-up table the chance is
    reckoned against what the others will hold at the showdown, and it stops at
    ``close_threshold`` when the stop ends the drawing (a knock, R6.4; the second
    stand, R8.3) and at ``stand_threshold`` when it leaves the others drawing (a
    first stand, R8.2).
    """

    name = "expected_value"

    def __init__(self, knock_threshold: float = 0.35, stand_threshold: float = 0.8, close_threshold: float = 0.65,
                 decline_threshold: float = 0.7):
        self.knock_threshold = number_argument("knock_threshold", knock_threshold, 0.0, 1.0)
        self.stand_threshold = number_argument("stand_threshold", stand_threshold, 0.0, 1.0)
        self.close_threshold = number_argument("close_threshold", close_threshold, 0.0, 1.0)
        self.decline_threshold = number_argument("decline_threshold", decline_threshold, 0.0, 1.0)

    def act(self, view: SeatView) -> int:
        phase, legal = view.phase, view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if phase == HORSE:
            return self._horse(view)
        if view.engine.has_table and phase != WIDOW_CHOICE:
            return self._exchange(view, legal)
        model = WinModel(view)
        value, threshold = model.value, self.knock_threshold
        if phase == WIDOW_CHOICE:  # R6.2: the face-up widow against an unseen hand
            widow = float(model.win_probability(value(view.table)))
            return TAKE_WIDOW if widow >= model.random_hand() else KEEP_HAND
        hand = view.hand
        now = float(model.win_probability(value(hand)))
        if phase == STAND_CHOICE:
            return STAND if now >= threshold else CONTINUE
        return self._trade(view, model, hand, now, legal)

    # ------------------------------------------------------- face-up table
    def _exchange(self, view: SeatView, legal: Sequence[int]) -> int:
        """R6.3, R8.2-R8.3: stop (knock, stand) once the hand is good enough against what the
        others will hold at the showdown, else the exchange that is worth most then."""
        outlook, phase, knock = exchange_outlook(view), view.phase, KNOCK in legal
        exchanges, scores, keep = outlook.exchanges, outlook.scores, outlook.keep
        threshold = self.close_threshold if outlook.closes else self.stand_threshold
        best, gain = -1, False
        if exchanges:
            best = int(np.argmax(scores))
            gain = float(scores[best]) > keep
        # The chance to win decides when to stop; the choice of exchange weighs all that is at stake.
        # A stand leaves the others drawing for a while (R8.2-R8.3), so a gaining exchange comes first.
        first = not knock and gain
        if exchanges and not any(a in legal for a in (KNOCK, STAND, PASS)):  # an exchange it must make
            return exchanges[best]
        if phase != LAST_EXCHANGE and not first and outlook.win_now >= threshold:
            return KNOCK if knock else STAND
        # While turns remain, an exchange that loses nothing keeps the hand drawing (R8.2: a
        # stand or a pass ends this player's turns); the last exchange must gain (R8.3).
        drawing = view.engine.pass_ends_turns and phase != LAST_EXCHANGE
        if exchanges and (gain or (drawing and float(scores[best]) == keep)):
            return exchanges[best]
        if PASS in legal and (phase == LAST_EXCHANGE or knock):  # R6.3's pass lets a turn go
            return PASS
        return KNOCK if knock else STAND

    def _horse(self, view: SeatView) -> int:
        """R9.4: buy the horse when the life it buys is worth its price in pool share."""
        price = view.rules.horse_price
        lives = list(view.counters)
        lives[view.seat] += 1
        share = life_shares(tuple(lives))[view.seat]
        return BUY_HORSE if (view.pool + price) * share > price else NO_HORSE

    def _trade(self, view: SeatView, model: WinModel, hand: Sequence[int], now: float,
               legal: Sequence[int]) -> int:
        """R5.3-R5.4 and R7.2: the trade with the best expected result, in counters."""
        pool, threshold = view.pool, self.knock_threshold
        blind = model.given_card_weights  # a neighbour gives, or offers, his least useful card
        if view.phase == REPLY:
            gives = [(model.after_swap(hand, slot, blind), GIVE + slot) for slot in range(3)]
            best, action = max(gives)
            if KNOCK in legal and (now >= threshold or now >= best):
                return KNOCK
            return action
        stop = KNOCK if KNOCK in legal else DECLINE
        if stop == DECLINE:  # R7.2: a decline stops nothing, and the others still exchange
            threshold = self.decline_threshold
        if now >= threshold:
            return stop
        cost = 0 if view.seat == view.dealer else 1
        options = [(pool * now, stop)]
        for action in legal:
            if READY_MONEY <= action < OFFER:
                options.append((pool * model.after_swap(hand, action - READY_MONEY) - cost, action))
            elif OFFER <= action < GIVE:
                options.append((pool * model.after_swap(hand, action - OFFER, blind), action))
        return max(options)[1]


__all__ = ["GreedyAgent", "ExpectedValueAgent", "WinModel", "finished_seats", "greedy_action", "greedy_choice",
           "life_shares", "life_value", "quantile_key", "value_function", "worst_slot"]
