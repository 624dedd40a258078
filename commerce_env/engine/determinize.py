"""Re-deal what a player has not seen (docs/rules.md R11): the one determinizer.

:class:`DealSampler` takes one seat's copy of the record of the current deal
(:func:`commerce_env.knowledge.seat_record`: every card it has not seen is
``None``) and places every hidden card anew, in a way that this seat cannot
tell from the true deal: every card it saw is where it saw it, every
observation it made would have been the same, and every public event (who
traded, bartered, exchanged, knocked) happened just as it did.  It never sees
the true hidden cards, so the samples depend only on what the seat knows.
:func:`commerce_env.view.SeatView.sample_world` builds an engine state from one.

How: the deal is replayed from its pack and its record as a sequence of card
*positions* (the three cards dealt to each player, the table, the stock).  A
card is written on a position only when the seat sees it (its own hand, a
card it draws or receives, a face-up card, the hands shown at the showdown);
a hidden choice of another player (which card he discards, offers or gives)
is drawn again at random among the positions he holds, except a discard under
the stock (R5.3) that the seat has since drawn back itself: the stock's moves
are public, so that discard was the card it drew.  So a card the seat
gave away is not assumed to be still where it went: it may since have been
discarded or passed on, exactly as far as the seat can tell.  A card the seat
gave away and later sees again must be able to travel back through the hidden
moves between: a backward pass over those moves gives where it may be before
each one, and a choice that strands it is never drawn; nor is one after
which a hand can no longer serve what comes later (:mod:`.hidden_needs`: a
new card to show the seat, a card free to be discarded or passed on).  What
is left is settled by a short depth-first search with restarts; the true deal
is always one answer.  Cards never written anywhere are then shuffled over the
unwritten positions; in My Ship Sails so that no hand of the past was a flush
(R7.3: it would have been declared).

The samples are consistent, not exactly uniform over everything consistent
(the choices are drawn uniformly step by step).  The replay and its search are
:mod:`.hidden_moves`, the needs :mod:`.hidden_needs`; this module places the cards.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from numbers import Real
from typing import NamedTuple

import numpy as np

from ..cards import CARDS
from ..hands import is_ship
from .base import DEAL, SHOW
from .hidden_moves import (
    Needs,
    NoConsistentDealError,
    OutOfTime,
    World,
    constraints,
    first_world,
    mark_discards_seen_again,
    replay_steps,
    search,
    stock_moves,
)
from .hidden_needs import hidden_needs

__all__ = ["TIME_LIMIT", "DealSampler", "NoConsistentDealError", "Places", "SampledDeal", "ShufflePlan"]

MAX_ATTEMPTS = 1000  # hidden choices drawn before giving up (reached only in some very long deals: docs/agents.md)
FILL_ATTEMPTS = 20  # My Ship Sails: fillings tried for one set of hidden choices
TIME_LIMIT = 1.0
"""Seconds one re-deal may search before it gives up (:class:`NoConsistentDealError`): a consistent
re-deal is found in milliseconds, but in some very long deals none is found at all, and without
a bound the search would try :data:`MAX_ATTEMPTS` times, minutes in Python (docs/agents.md)."""


def check_time_limit(time_limit: object) -> float:
    """``time_limit`` in seconds as a float (``None``: no limit, ``math.inf``), or ``ValueError`` naming it."""
    if time_limit is None:
        return math.inf
    if (isinstance(time_limit, (bool, np.bool_)) or not isinstance(time_limit, Real)
            or math.isnan(time_limit) or time_limit <= 0):
        raise ValueError(f"time_limit must be a number of seconds above 0 or None, got {time_limit!r}")
    return float(time_limit)


class SampledDeal(NamedTuple):
    """One re-deal: where every card is now, and the deal's record with its cards named."""

    record: list[tuple]
    hands: dict[int, list[int]]
    table: list[int]
    stock: list[int]
    discards: list[int]
    offer: tuple[int, int] | None


class Places(NamedTuple):
    """Where a deal's positions are (``hands`` by seat, ``table``, ``stock`` with its top last,
    ``discards``, and ``offer``, a position or None) and the card on each position of ``cards``."""

    cards: dict[int, int]
    hands: dict[int, list[int]]
    table: list[int]
    stock: list[int]
    discards: list[int]
    offer: int | None


class ShufflePlan(NamedTuple):
    """What is left to chance where no hidden choice is: ``free`` (ascending) shuffled over the
    positions ``unwritten``; ``places`` holds the positions and the other positions' cards."""

    places: Places
    unwritten: list[int]
    free: list[int]


class DealSampler:
    """The hidden cards of one deal placed anew, consistently with ``seat``'s record of it:
    ``DealSampler(...).sample(rng)``, as many times as wanted.

    ``deal`` is the seat's masked record of the deal, its ``deal`` entry
    first; ``order`` the players of the deal, eldest first; ``table_size``
    the face-up cards dealt (R1.5); ``bottom`` Peel's discard under the stock
    (R5.3); ``flush_ends_deal`` My Ship Sails' rule that a flush ends the deal (R7.3);
    ``deck`` every card of the pack.  What depends only on the record (the
    replay steps, the constraints, the first positions, and where no hidden
    choice is left to chance the searched positions themselves) is worked out once;
    the constraints and needs at the first sample, within its time limit (in the
    longest deals they take seconds: :meth:`prepare`).
    """

    def __init__(self, deal: Sequence[tuple], seat: int, order: Sequence[int], table_size: int, bottom: bool,
                 flush_ends_deal: bool, deck: Sequence[int]):
        if not deal or deal[0][1] != DEAL:
            raise ValueError("a deal's record starts with its deal entry")
        self.deal, self.seat, self.bottom, self.deck = deal, seat, bottom, deck
        self.first = first_world(deal[0][2], order, table_size, flush_ends_deal)
        self.steps = replay_steps(deal)
        self._stock = stock_moves(self.steps, len(self.first.stock), bottom)
        if bottom:
            self.steps = mark_discards_seen_again(self.steps, seat, self._stock.drawn)
        self._allowed: dict[int, dict[int, frozenset]] | None = None  # constraints(), made by prepare()
        self._needs: Needs | None = None  # hidden_needs(), made by prepare()
        self._searched: World | None = None  # the search's answer where it drew nothing at random

    def prepare(self, time_limit: float | None = None) -> None:
        """Work out the constraints (:attr:`allowed`) and the needs (:attr:`needs`), once;
        :class:`NoConsistentDealError` if that takes longer than ``time_limit`` seconds
        (nothing kept: a later call starts again)."""
        start = time.perf_counter()
        self._prepare(start, start + check_time_limit(time_limit))

    def _prepare(self, start: float, deadline: float) -> None:
        if self._needs is not None:
            return
        stock = self._stock
        try:
            allowed = constraints(self.steps, self.seat, stock.drawn if self.bottom else None, deadline)
            self._needs = hidden_needs(self.steps, self.seat, self.first, allowed, self.bottom, stock, deadline)
        except OutOfTime:
            raise NoConsistentDealError(0, time.perf_counter() - start) from None
        self._allowed = allowed

    @property
    def allowed(self) -> dict[int, dict[int, frozenset]]:
        """Where each card the seat will see again may be before each step (``hidden_moves.constraints``)."""
        self.prepare()
        return self._allowed

    @property
    def needs(self) -> Needs:
        """What the hands must hold before each step (``hidden_needs.hidden_needs``)."""
        self.prepare()
        return self._needs

    def sample(self, rng: random.Random, time_limit: float | None = TIME_LIMIT) -> SampledDeal:
        """One re-deal, drawn with ``rng``; :class:`NoConsistentDealError` if none is found within
        ``time_limit`` seconds (``None``: only :data:`MAX_ATTEMPTS` bounds it).  Where one is
        found the limit changes nothing: the same re-deal, the same numbers drawn."""
        return _fill(self._placed(rng, check_time_limit(time_limit)), self.deal)

    def sample_places(self, rng: random.Random, time_limit: float | None = TIME_LIMIT) -> Places:
        """Where :meth:`sample` would put every card, drawn alike, without the deal's record."""
        return _places(self._placed(rng, check_time_limit(time_limit)))

    def _placed(self, rng: random.Random, time_limit: float) -> World:
        start = time.perf_counter()
        deadline, attempts = start + time_limit, 0
        self._prepare(start, deadline)
        while attempts < MAX_ATTEMPTS:
            attempts += 1
            world = self._search(rng, deadline)
            for _ in range(FILL_ATTEMPTS if world is not None else 0):
                written = _write_unseen(world, self.deck, rng)
                if written:
                    return world
                if written is None:  # the cards already written make a flush: choose again
                    break
            if time.perf_counter() >= deadline:
                break
        raise NoConsistentDealError(attempts, time.perf_counter() - start)

    @property
    def searched(self) -> World | None:
        """The hidden choices' positions where a search found that none is drawn at random (every
        later sample starts from them), else None."""
        return self._searched

    def shuffle_plan(self) -> ShufflePlan | None:
        """Where every later :meth:`sample` only shuffles: once a sample has found that no hidden
        choice is drawn (the variants with a face-up table), and no flush of the past constrains
        the shuffle (R7.3), each sample draws exactly ``rng.shuffle(list(plan.free))`` and puts
        the cards over ``plan.unwritten`` in order; otherwise None."""
        world = self._searched
        if world is None or world.flush_checks is not None:
            return None
        card_of = world.card_of
        return ShufflePlan(_places(world.copy()), [item for item in range(len(self.deck)) if item not in card_of],
                           sorted(card for card in self.deck if card not in world.item_of))

    def _search(self, rng: random.Random, deadline: float) -> World | None:
        if self._searched is not None:
            return self._searched.copy()
        world, drawn = search(self.steps, self.first.copy(), self.seat, self.bottom, rng, self._allowed,
                              self._needs, deadline)
        if world is not None and not drawn:  # every choice was forced: the same answer every time
            self._searched = world.copy()
        return world


def _write_unseen(world: World, pack: Sequence[int], rng: random.Random) -> bool | None:
    """Shuffle the cards never written over the unwritten positions.

    In My Ship Sails no hand of the past may have been a flush (R7.3): the
    positions in such hands are filled first, each with the first shuffled
    card that completes no flush.  False if that fails (the caller may try
    again), ``None`` if the positions already written make a flush.
    """
    card_of = dict(world.card_of)
    unwritten = [item for item in range(len(pack)) if item not in card_of]
    free = sorted(card for card in pack if card not in world.item_of)  # not in the hidden pack order
    rng.shuffle(free)
    hands_of: dict[int, list[tuple[int, ...]]] = {}
    checks = world.flush_checks
    while checks is not None:
        hands, checks = checks
        for items in hands:
            if all(i in card_of for i in items):
                if is_ship([card_of[i] for i in items]):
                    return None
            else:
                for item in items:
                    hands_of.setdefault(item, []).append(items)
    if hands_of:  # the positions in most hands to check first, the others after in their order
        checked = sorted((item for item in unwritten if item in hands_of), key=lambda item: -len(hands_of[item]))
        unwritten = checked + [item for item in unwritten if item not in hands_of]
    for k, item in enumerate(unwritten):
        hands = hands_of.get(item)
        if not hands:  # the rest are in no hand to check
            for rest, card in zip(unwritten[k:], free, strict=True):
                card_of[rest] = card
            break
        barred = set()  # suits that would complete a flush with the two other cards of a hand
        for hand in hands:
            first, second = (card_of.get(i) for i in hand if i != item)
            if first is not None and second is not None and (first & 3) == (second & 3):
                barred.add(first & 3)
        for j, card in enumerate(free):
            if (card & 3) not in barred:  # the first card of the shuffle that completes no flush
                card_of[item] = card
                del free[j]
                break
        else:
            return False
    world.card_of = card_of
    return True


def _places(world: World) -> Places:
    """The positions of ``world`` and their cards (shared with it: a sampled world is used once)."""
    return Places(world.card_of, world.hands, world.table, world.stock, world.discards, world.offer)


def _fill(world: World, deal: Sequence[tuple]) -> SampledDeal:
    """The sampled deal: where each card is, and the record with the sampled cards."""
    card_of = world.card_of
    moved = []
    node = world.moved
    while node is not None:
        items, node = node
        moved.append(items)
    moved.reverse()
    dealer, _, pack, seen = deal[0]
    record = [(dealer, DEAL, tuple([CARDS[card_of[item]] for item in range(len(pack))]), seen)]
    for (actor, kind, _, seen), items in zip(deal[1:], moved, strict=True):
        cards = [CARDS[card_of[i]] for i in items]
        if kind == "keep_hand" or kind == SHOW:
            cards.sort()  # a hand is kept sorted
        record.append((actor, kind, tuple(cards), seen))
    offer = None if world.offer is None else (world.offer_seat, CARDS[card_of[world.offer]])
    return SampledDeal(
        record=record,
        hands={s: sorted(CARDS[card_of[i]] for i in items) for s, items in world.hands.items()},
        table=[CARDS[card_of[i]] for i in world.table], stock=[CARDS[card_of[i]] for i in world.stock],
        discards=[CARDS[card_of[i]] for i in world.discards], offer=offer)
