"""Two hand-crafted baselines for every variant: ``greedy`` and ``expected_value``.

Both play from a seat view (:mod:`commerce_env.view`): their own hand, the
face-up table, the counters, the phase and, for ``expected_value``, the cards
their seat has not seen (R11).  ``greedy`` is also the fast policy that the
search agent's rollouts use for every player of a sampled world, so it is
written for speed.  Hand values and the variant's flags come from the
variant's engine class (``value_of``, ``values_of``, ``flush_ends_deal``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from itertools import combinations

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
    SHOW,
    STAND_CHOICE,
    WIDOW_CHOICE,
    Game,
)
from commerce_env.view import SeatView

from .base import Agent

TRIPLES = np.array(list(combinations(range(52), 3)), dtype=np.intp)  # all 22,100 hands
_PIPS = np.array(RANK_PIPS, dtype=np.int64)
Value = Callable[[Sequence[int]], int]


@cache
def _all_keys(engine: type[Game], combos: frozenset[str]) -> np.ndarray:
    return engine.values_of(TRIPLES[:, 0], TRIPLES[:, 1], TRIPLES[:, 2], combos)


@cache
def _pairs(count: int) -> tuple[np.ndarray, np.ndarray]:
    """The index pairs ``i < j`` below ``count``, in the order of ``itertools.combinations``."""
    return np.triu_indices(count, 1)


@cache
def _sorted_keys(engine: type[Game], combos: frozenset[str]) -> tuple[np.ndarray, np.ndarray]:
    """All hands' values in ascending order, and the order (indices into TRIPLES)."""
    keys = _all_keys(engine, combos)
    order = np.argsort(keys, kind="stable")
    return keys[order], order


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
    return int(np.quantile(_all_keys(engine, combos), quantile, method="lower"))


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


class GreedyAgent(Agent):
    """Improves its hand as much as it can right now; stops past a fixed threshold."""

    name = "greedy"

    def __init__(self, quantile: float = 0.6, barter: bool = False):
        if not 0.0 <= quantile <= 1.0:
            raise ValueError(f"quantile must lie in [0, 1], got {quantile!r}")
        self.quantile = quantile
        self.barter = barter

    def act(self, view: SeatView) -> int:
        engine, combos = view.engine, view.rules.combinations
        threshold = quantile_key(engine, combos, self.quantile)
        return greedy_choice(view.phase, view.legal_actions, view.hand, view.table,
                             value_function(engine, combos), threshold, self.barter, engine.flush_ends_deal)


# --------------------------------------------------------- expected value
def deal_history(view: SeatView) -> list[tuple[int, str, tuple[int | None, ...]]]:
    """The public actions of the current deal: the history after the last showdown (R11)."""
    history = view.history
    for index in range(len(history) - 1, -1, -1):
        if history[index][1] == SHOW:
            return list(history[index + 1:])
    return list(history)


def finished_seats(view: SeatView, kinds: tuple[str, ...] = ("stand", "pass")) -> set[int]:
    """The seats that stood or passed this deal and take no further turns (R8.2)."""
    if not view.engine.pass_ends_turns:  # R6.3: a widow pass lets one turn go
        return set()
    return {seat for seat, kind, _ in deal_history(view) if kind in kinds}


@cache
def life_shares(lives: tuple[int, ...]) -> tuple[float, ...]:
    """Each player's chance to be the last one with lives (R9.5) when every deal takes
    one life from a player chosen uniformly among those still in (R9.3)."""
    alive = [s for s, n in enumerate(lives) if n > 0]
    if len(alive) <= 1:
        return tuple(1.0 if n > 0 else 0.0 for n in lives)
    shares = np.zeros(len(lives))
    for loser in alive:
        fewer = list(lives)
        fewer[loser] -= 1
        shares += np.array(life_shares(tuple(fewer)))
    return tuple(shares / len(alive))


def life_value(lives: Sequence[int], seat: int, pool: int) -> float:
    """What ``seat`` loses, in money, by being this deal's worst hand rather than another
    player (R9.3, R9.5): its share of the pool falls with each life it gives up."""
    alive = [s for s, n in enumerate(lives) if n > 0 and s != seat]
    if lives[seat] <= 0 or not alive:
        return 0.0

    def share(loser: int) -> float:
        fewer = list(lives)
        fewer[loser] -= 1
        return life_shares(tuple(fewer))[seat]

    return pool * (sum(share(s) for s in alive) / len(alive) - share(seat))


class WinModel:
    """The chance that a hand is the best (or the worst) at the table, given what a seat knows.

    Each opponent holds the cards known to be in his hand (``view.public_hands``:
    table cards he took, R6.3, R8.2; the widow he took, R6.2; a card bartered to
    him, R5.4) and the rest drawn from the cards this seat has not seen.  An
    opponent in ``improving`` (one who will still exchange with the face-up
    table before the showdown) is credited with the best single exchange with
    the table as it is now.  Ties count half.  Opponents are taken as independent.
    """

    def __init__(self, view: SeatView, improving: Sequence[int] = ()):
        self.engine, self.combinations = view.engine, view.rules.combinations
        self.value = value_function(self.engine, self.combinations)
        self.unseen = np.array(view.unseen, dtype=np.intp)
        mask = np.zeros(52, dtype=bool)
        mask[self.unseen] = True
        self._inside = mask[TRIPLES[:, 0]] & mask[TRIPLES[:, 1]] & mask[TRIPLES[:, 2]]
        keys, order = _sorted_keys(self.engine, self.combinations)
        self.sorted_keys = keys[self._inside[order]]  # the unseen hands' values, ascending
        self.table = tuple(view.table)
        opponents = [s for s in view.order if s != view.seat]
        self.opponent_keys: list[np.ndarray] = []  # each opponent's possible values, ascending
        shared: dict[tuple[tuple[int, ...], bool], np.ndarray] = {}
        for seat in opponents:
            known = view.public_hands[seat]
            better = seat in improving and len(self.table) == 3
            if (known, better) not in shared:
                shared[known, better] = self._values(known, better)
            self.opponent_keys.append(shared[known, better])
        known_hands = view.known_hands()
        self.known_values = np.array([self.value(cards) for cards in known_hands.values()])
        self.unknown_opponents = len(opponents) - len(known_hands)
        self._given: np.ndarray | None = None

    def _hands(self, known: tuple[int, ...]) -> np.ndarray:
        """Every hand (rows of three cards) an opponent holding ``known`` may have."""
        if not known:
            return np.compress(self._inside, TRIPLES, axis=0)  # as TRIPLES[self._inside], faster
        rest = np.array([c for c in self.unseen.tolist() if c not in known], dtype=np.intp)
        missing = 3 - len(known)
        if missing <= 0:
            return np.array([known[:3]], dtype=np.intp)
        if missing == 1:
            filler = rest.reshape(-1, 1)
        else:  # the pairs of the other cards, in the order of itertools.combinations (speed)
            first, second = _pairs(len(rest))
            filler = np.column_stack([rest[first], rest[second]])
        if len(filler) == 0:
            return np.zeros((0, 3), dtype=np.intp)
        return np.column_stack([np.tile(np.array(known, dtype=np.intp), (len(filler), 1)), filler])

    def _values(self, known: tuple[int, ...], better: bool) -> np.ndarray:
        if not known and not better:
            return self.sorted_keys
        hands = self._hands(known)
        if len(hands) == 0:
            return np.zeros(0, dtype=np.int64)
        a, b, c = hands[:, 0], hands[:, 1], hands[:, 2]
        if not better:
            return np.sort(self.engine.values_of(a, b, c, self.combinations))
        # R6.3, R8.2: his best exchange with the table as it lies.  From the values of all ordered
        # triples (at a * 2704 + b * 52 + c): for each place in the hand, the best value of the two
        # cards kept with a table card (speed: three small tables, then four look-ups a hand, not ten).
        table = self.engine.value_table(self.combinations)
        cube, face_up = table.reshape(52, 52, 52), list(self.table)
        first = cube[face_up].max(axis=0).ravel()  # at b * 52 + c: the best (t, b, c)
        second = cube[:, face_up].max(axis=1).ravel()  # at a * 52 + c: the best (a, t, c)
        third = cube[:, :, face_up].max(axis=2).ravel()  # at a * 52 + b: the best (a, b, t)
        a, b, c = np.ascontiguousarray(hands.T)
        ab = a * 52 + b
        values = np.maximum(table.take(ab * 52 + c), first.take(b * 52 + c))
        values = np.maximum(values, np.maximum(second.take(a * 52 + c), third.take(ab)))
        return np.sort(values)

    @property
    def given_card_weights(self) -> np.ndarray:
        """How likely each card is to be the one a player gives away blind (R5.4,
        R7.2): his least useful one, over every hand of unseen cards he may hold."""
        if self._given is None:
            gives = _given_cards(self.engine.flush_ends_deal)[self._inside]
            weights = np.bincount(gives, minlength=52).astype(float)
            self._given = weights / weights.sum() if weights.sum() else weights
        return self._given

    def _beats(self, values: np.ndarray) -> list[np.ndarray]:
        """For each opponent, the chance that ``values`` beats his hand (ties half)."""
        chances = []
        for keys in self.opponent_keys:
            if len(keys) == 0:
                chances.append(np.ones(values.shape))
                continue
            below = np.searchsorted(keys, values, side="left")
            equal = np.searchsorted(keys, values, side="right") - below
            chances.append((below + 0.5 * equal) / len(keys))
        return chances

    def win_probability(self, values: np.ndarray | int) -> np.ndarray:
        values = np.asarray(values)
        probability = np.ones(values.shape)
        for beat in self._beats(values):
            probability = probability * beat
        return probability

    def worst_probability(self, values: np.ndarray | int) -> np.ndarray:
        """The chance that ``values`` is the lowest hand at the table (R3.4; ties half)."""
        values = np.asarray(values)
        probability = np.ones(values.shape)
        for beat in self._beats(values):
            probability = probability * (1.0 - beat)
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
        for name, threshold in (("knock_threshold", knock_threshold), ("stand_threshold", stand_threshold),
                                ("close_threshold", close_threshold), ("decline_threshold", decline_threshold)):
            if not 0.0 <= threshold <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1], got {threshold!r}")
        self.knock_threshold = knock_threshold
        self.stand_threshold = stand_threshold
        self.close_threshold = close_threshold
        self.decline_threshold = decline_threshold

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
    def _score(self, view: SeatView, model: WinModel, values: np.ndarray | int) -> np.ndarray:
        """A hand's worth at the showdown on a 0-1 scale: the chance to win (R6.4, R8.4); in
        pool commerce the payout for the best hand and the pool share a life is worth, lost
        by the worst hand (R9.3), weighed by the lives and the pool now (:func:`life_value`)."""
        win = model.win_probability(values)
        if not view.engine.plays_for_money:
            return win
        payout = float(min(view.rules.payout, view.pool))
        life = life_value(view.counters, view.seat, view.pool)
        if payout + life <= 0:
            return win
        return (payout * win + life * (1.0 - model.worst_probability(values))) / (payout + life)

    def _exchange(self, view: SeatView, legal: Sequence[int]) -> int:
        """R6.3, R8.2-R8.3: stop (knock, stand) once the hand is good enough against what the
        others will hold at the showdown, else the exchange that is worth most then."""
        value, hand, phase = value_function(view.engine, view.rules.combinations), view.hand, view.phase
        knock = KNOCK in legal  # R6.4: a knock stops all drawing at once
        # Who still exchanges before the showdown (R8.2-R8.3): everyone who has neither stood
        # nor passed.  With a knock (R6.4) any turn may be the last, so nobody is counted on to.
        done = finished_seats(view)
        improving = [] if knock else [s for s in view.order if s != view.seat and s not in done]
        later = WinModel(view, improving)
        now_value = value(hand)
        # A knock, or the second stand (R8.3), ends the drawing; a first stand leaves the others drawing.
        closes = knock or bool(finished_seats(view, ("stand",)))
        threshold = self.close_threshold if closes else self.stand_threshold
        exchanges = [a for a in legal if a >= EXCHANGE]
        values = []
        for action in exchanges:
            own, slot = divmod(action - EXCHANGE, 3)
            cards = list(hand)
            cards[own] = view.table[slot]
            values.append(value(cards))
        keep = float(self._score(view, later, now_value))
        best, gain = -1, False
        if exchanges:
            scores = self._score(view, later, np.array(values))
            best = int(np.argmax(scores))
            gain = float(scores[best]) > keep
        # The chance to win decides when to stop; the choice of exchange weighs all that is at stake.
        # A stand leaves the others drawing for a while (R8.2-R8.3), so a gaining exchange comes first.
        first = not knock and gain
        if phase != LAST_EXCHANGE and not first and float(later.win_probability(now_value)) >= threshold:
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
