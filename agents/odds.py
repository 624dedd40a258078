"""What a seat can reckon about the showdown from what it knows (R11): the shared odds.

:class:`WinModel` is the chance that a hand is the best (or the worst) at the
table given a seat's view; :func:`showdown_score` weighs it by what is at
stake in pool commerce (R9.3, R9.5).  ``expected_value`` and ``search``
(:mod:`agents.heuristics`) choose by them: agent reasoning, so it lives with the agents.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import combinations
from typing import NamedTuple

import numpy as np

from commerce_env.engine.actions import EXCHANGE, KNOCK
from commerce_env.engine.base import SHOW, Game
from commerce_env.view import SeatView

TRIPLES = np.array(list(combinations(range(52), 3)), dtype=np.intp)  # all 22,100 hands


@cache
def all_keys(engine: type[Game], combos: frozenset[str]) -> np.ndarray:
    return engine.values_of(TRIPLES[:, 0], TRIPLES[:, 1], TRIPLES[:, 2], combos)


@cache
def pairs(count: int) -> tuple[np.ndarray, np.ndarray]:
    """The index pairs ``i < j`` below ``count``, in the order of ``itertools.combinations``."""
    return np.triu_indices(count, 1)


@cache
def sorted_keys(engine: type[Game], combos: frozenset[str]) -> tuple[np.ndarray, np.ndarray]:
    """All hands' values in ascending order, and the order (indices into TRIPLES)."""
    keys = all_keys(engine, combos)
    order = np.argsort(keys, kind="stable")
    return keys[order], order


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


LIFE_CACHE_SIZE = 1 << 16
"""States of :func:`_life_share` kept: at 12 players with 3 lives each there are 1,456."""


@lru_cache(maxsize=LIFE_CACHE_SIZE)
def _life_share(own: int, others: tuple[int, ...]) -> float:
    """The chance that a player with ``own`` lives is the last one with lives (R9.5), when
    ``others[v - 1]`` other players hold ``v`` lives each and every deal takes one life from
    a player chosen uniformly among those still in (R9.3).

    Which of the others holds which lives does not matter, only how many hold each number:
    for lives up to ``L`` and ``n`` players there are at most ``(L + 1) * C(n - 1 + L, L)``
    states, polynomial in ``n`` (the tuples of lives are ``(L + 1) ** n``).  No approximation:
    the same sum over who loses the next life as over the tuples, grouped by the lives he holds.
    """
    alive = (own > 0) + sum(others)
    if alive <= 1:
        return 1.0 if own > 0 else 0.0
    total = _life_share(own - 1, others) if own > 0 else 0.0
    for held, count in enumerate(others, start=1):
        if count:  # one of the ``count`` players holding ``held`` lives loses one
            fewer = list(others)
            fewer[held - 1] -= 1
            if held > 1:
                fewer[held - 2] += 1
            while fewer and not fewer[-1]:
                fewer.pop()
            total += count * _life_share(own, tuple(fewer))
    return total / alive


@lru_cache(maxsize=4096)
def life_shares(lives: tuple[int, ...]) -> tuple[float, ...]:
    """Each player's chance to be the last one with lives (R9.5) when every deal takes
    one life from a player chosen uniformly among those still in (R9.3).  Exact, and
    polynomial in the number of players (:func:`_life_share`)."""
    most = max(lives, default=0)
    held = [0] * (most + 1)  # held[v]: the players with v lives
    for count in lives:
        held[max(count, 0)] += 1
    shares = []
    for own in lives:
        own = max(own, 0)
        others = list(held[1:])
        if own:
            others[own - 1] -= 1
        while others and not others[-1]:
            others.pop()
        shares.append(_life_share(own, tuple(others)))
    return tuple(shares)


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
        self.value = self.engine.value_function(self.combinations)
        self.unseen = np.array(view.unseen, dtype=np.intp)
        mask = np.zeros(52, dtype=bool)
        mask[self.unseen] = True
        self._inside = mask[TRIPLES[:, 0]] & mask[TRIPLES[:, 1]] & mask[TRIPLES[:, 2]]
        keys, order = sorted_keys(self.engine, self.combinations)
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
            first, second = pairs(len(rest))
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

    def _beats(self, values: np.ndarray) -> list[np.ndarray]:
        """For each opponent, the chance that ``values`` beats his hand (ties half); opponents who
        share their possible hands (``opponent_keys``, one array) share the answer."""
        chances, done = [], {}
        for keys in self.opponent_keys:
            chance = done.get(id(keys))
            if chance is None:
                if len(keys) == 0:
                    chance = np.ones(values.shape)
                else:
                    below = np.searchsorted(keys, values, side="left")
                    equal = np.searchsorted(keys, values, side="right") - below
                    chance = (below + 0.5 * equal) / len(keys)
                done[id(keys)] = chance
            chances.append(chance)
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


def showdown_score(view: SeatView, model: WinModel, values: np.ndarray | int) -> np.ndarray:
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


class ExchangeOutlook(NamedTuple):
    """A seat's reckoning of its turn at the face-up table (R6.3-R6.4, R8.2-R8.3)."""

    exchanges: list[int]  # the legal exchange actions
    scores: np.ndarray  # each one's showdown_score against what the others will hold then
    keep: float  # the showdown_score of the hand as it is
    win_now: float  # the chance that the hand as it is wins the showdown
    closes: bool  # a stop now ends the drawing (a knock, R6.4; the second stand, R8.3)


def exchange_outlook(view: SeatView) -> ExchangeOutlook:
    """What ``expected_value`` weighs at the face-up table, from ``view`` alone (R11).

    Who still exchanges before the showdown (R8.2-R8.3) is everyone who has
    neither stood nor passed, credited with his best exchange with the table as
    it lies (:class:`WinModel`); with a knock legal (R6.4) any turn may be the
    last, so nobody is counted on to.
    """
    legal, hand = view.legal_actions, view.hand
    value = view.engine.value_function(view.rules.combinations)
    knock = KNOCK in legal
    done = finished_seats(view)
    improving = [] if knock else [s for s in view.order if s != view.seat and s not in done]
    later = WinModel(view, improving)
    now_value = value(hand)
    exchanges = [a for a in legal if a >= EXCHANGE]
    values = []
    for action in exchanges:
        own, slot = divmod(action - EXCHANGE, 3)
        cards = list(hand)
        cards[own] = view.table[slot]
        values.append(value(cards))
    scores = showdown_score(view, later, np.array(values, dtype=np.int64)) if exchanges else np.zeros(0)
    return ExchangeOutlook(exchanges, np.asarray(scores, dtype=float), float(showdown_score(view, later, now_value)),
                           float(later.win_probability(now_value)), knock or bool(finished_seats(view, ("stand",))))
