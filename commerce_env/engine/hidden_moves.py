"""The replay of one deal's hidden moves for the determinizer (docs/rules.md R11).

A deal is replayed from its record as steps on card *positions* (:class:`World`): each
hidden choice of another player (which card he discards, offers or gives) is a choice
among the positions he holds, drawn at random by :func:`search`, a depth-first search
that never strands a card the seat will see again (:func:`constraints`) and never makes
a flush of the past in My Ship Sails (R7.3).  :mod:`.determinize` places the cards.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import NamedTuple

from ..hands import is_ship
from .base import SHOW


class NoConsistentDealError(RuntimeError):
    """No re-deal consistent with the seat's record was found within the time limit or the
    attempts allowed (some very long deals, docs/agents.md); the search agent then plays its
    fallback.  ``attempts`` and ``seconds`` say how far it went (0 attempts: the time ran out
    while the deal's constraints were still being worked out)."""

    def __init__(self, attempts: int, seconds: float):
        super().__init__(f"no consistent deal found in {attempts} attempts ({seconds:.2f} s)")
        self.attempts, self.seconds = attempts, seconds


class OutOfTime(Exception):  # noqa: N818 - a signal between these modules, never seen outside
    """The deadline passed while the constraints or the needs were being worked out."""


def check_clock(deadline: float) -> None:
    """:class:`OutOfTime` once ``time.perf_counter()`` has passed ``deadline``."""
    if time.perf_counter() >= deadline:
        raise OutOfTime


# Step kinds of the replay.
_READY_MONEY, _OFFER, _GIVE, _EXCHANGE, _TAKE_WIDOW, _KEEP_HAND, _SHOW, _NOTHING = range(8)
_KINDS = {"ready_money": _READY_MONEY, "offer": _OFFER, "give": _GIVE, "exchange": _EXCHANGE,
          "take_widow": _TAKE_WIDOW, "keep_hand": _KEEP_HAND, SHOW: _SHOW}


class World:
    """Positions (ints) in hands, table, stock and discards, and the cards written on them."""

    __slots__ = ("hands", "table", "stock", "discards", "card_of", "item_of", "offer", "offer_seat",
                 "moved", "flush_checks")

    def copy(self) -> World:
        """An independent copy for a trial move (the move histories are shared: never changed)."""
        new = object.__new__(World)
        new.hands = {seat: list(items) for seat, items in self.hands.items()}
        new.table = list(self.table)
        new.stock = list(self.stock)
        new.discards = list(self.discards)
        new.card_of = dict(self.card_of)
        new.item_of = dict(self.item_of)
        new.offer, new.offer_seat = self.offer, self.offer_seat
        new.moved = self.moved  # persistent lists (cons cells): shared safely
        new.flush_checks = self.flush_checks
        return new

    def write(self, item: int, card: int) -> bool:
        """Write ``card`` on position ``item``; False if that contradicts what is written."""
        known = self.card_of.get(item)
        if known is not None:
            return known == card
        if card in self.item_of:
            return False
        self.card_of[item] = card
        self.item_of[card] = item
        return True


def first_world(pack: Sequence[int | None], order: Sequence[int], table_size: int, flush_ends_deal: bool) -> World:
    """The deal's positions (R1.5) and the cards the seat sees at once (``None``: hidden)."""
    m = len(order)
    world = object.__new__(World)
    world.hands = {s: [i, i + m, i + 2 * m] for i, s in enumerate(order)}
    top = 3 * m
    world.table = list(range(top, top + table_size))
    top += table_size
    world.stock = list(reversed(range(top, len(pack))))
    world.discards = []
    world.card_of, world.item_of = {}, {}
    world.offer = world.offer_seat = None
    world.moved = None
    world.flush_checks = None
    for item, card in enumerate(pack):  # its own hand (unless blind, R6.2), the face-up table
        if card is not None:
            world.write(item, card)
    if flush_ends_deal:
        world.flush_checks = (tuple(tuple(items) for items in world.hands.values()), None)
    return world


def replay_steps(deal: Sequence[tuple]) -> list[tuple]:
    """The deal's record after its deal entry as replay steps; hidden cards are ``None``."""
    steps = []
    for index in range(1, len(deal)):
        actor, kind, cards, _ = deal[index]
        code = _KINDS.get(kind, _NOTHING)
        if code == _READY_MONEY:
            steps.append((code, actor, cards[0], cards[1]))  # the discard, the card drawn
        elif code == _OFFER:
            card = cards[0]
            reply = deal[index + 1] if index + 1 < len(deal) else None
            if card is None and reply is not None and reply[1] == "give":
                card = reply[2][1]  # the neighbour saw the offered card when he took it
            steps.append((code, actor, card))
        elif code == _GIVE:
            steps.append((code, actor, cards[0], deal[index - 1][0], cards[1]))  # ..., trader, offered
        elif code == _EXCHANGE:
            steps.append((code, actor, cards[0], cards[1]))
        elif code == _TAKE_WIDOW:
            steps.append((code, actor, cards[:3]))  # his unseen hand, now face up
        elif code in (_KEEP_HAND, _SHOW):
            steps.append((code, actor, cards))
        else:
            steps.append((_NOTHING, actor))
    return steps


class StockMoves(NamedTuple):
    """The stock's public moves in one deal (R5.3), the same in every world: what put each card
    there, as the step whose face-down discard it is (``discard: bottom``) or ``-1 - q`` for the
    card dealt to its place ``q`` (R1.5)."""

    before: list[list[int]]  # the stock before each step, and after the last, top last
    drawn: dict[int, int]  # for each ready-money step, what put the card it draws there


def stock_moves(steps: list[tuple], stock_size: int, bottom: bool) -> StockMoves:
    """The stock's moves (:class:`StockMoves`) over ``steps``: a queue, drawn from the top, and
    with ``bottom`` each discard put under it before the draw."""
    queue = [-1 - q for q in range(stock_size)]
    before, drawn = [], {}
    for j, step in enumerate(steps):
        before.append(list(queue))
        if step[0] == _READY_MONEY:
            if bottom:
                queue.insert(0, j)
            drawn[j] = queue.pop()
    before.append(queue)
    return StockMoves(before, drawn)


def mark_discards_seen_again(steps: list[tuple], seat: int, sources: dict[int, int]) -> list[tuple]:
    """``steps`` with the card written into each face-down discard under the stock (R5.3,
    ``discard: bottom``) that ``seat`` itself draws later (``sources``: ``StockMoves.drawn``):
    the card he draws is the card another player discarded then.  Without it the search would
    have to guess that choice, and in a long deal it nearly never guesses it."""
    marked = list(steps)
    for j, source in sources.items():
        step = steps[j]
        if step[1] == seat and source >= 0 and steps[source][1] != seat and step[3] is not None:
            code, actor, _, drawn = steps[source]
            marked[source] = (code, actor, step[3], drawn)
    return marked


_STOCK, _DISCARDS = -1, -2  # places other than a seat's hand, for the constraints
Place = int | tuple[str, int]  # a seat, _STOCK, _DISCARDS, _OFFERED, or a place on the stock (on_stock)


def on_stock(source: int) -> tuple[str, int]:
    """The place of a card on the stock put there by ``source`` (``StockMoves``: the step of its
    face-down discard, R5.3, or ``-1 - q`` where it was dealt), for the constraints and the needs."""
    return ("stock", source)


def constraints(steps: list[tuple], seat: int, sources: dict[int, int] | None = None,
                deadline: float = math.inf) -> dict[int, dict[int, frozenset[Place]]]:
    """Where each card the seat saw, gave away and will see again may be before each step.

    A card that left ``seat``'s hand (given, or discarded) and later comes back
    into it (received, drawn, or discarded under the stock by another for him
    to draw) must travel from where it went to where it is seen again through
    the hidden moves between.  Going backwards from the sighting gives, before
    each step, the places from which it can still get there; choices that leave
    a card where it cannot are never drawn.  Only trade and barter and My Ship
    Sails have hidden moves.  With ``sources`` (``discard: bottom``,
    ``StockMoves.drawn``) a card under the stock is followed in its place in
    the queue, and ``_STOCK`` before a step means: in the place its ready money
    makes; otherwise the stock holds only cards dealt there and ``_DISCARDS`` is
    the face-down discards (R5.3).  :class:`OutOfTime` once ``deadline`` passes.
    """
    left: dict[int, int] = {}  # card -> step at which it left the seat's hand
    sightings = []  # (card, place before the step, step, step it left)
    for j, step in enumerate(steps):
        code = step[0]
        if code == _READY_MONEY and step[1] == seat:
            left[step[2]] = j
            if step[3] in left:
                place = _STOCK if sources is None else on_stock(sources[j])
                sightings.append((step[3], place, j, left.pop(step[3])))
        elif code == _READY_MONEY and step[2] in left:  # another's discard that he draws back (marked)
            sightings.append((step[2], step[1], j, left.pop(step[2])))
        elif code == _GIVE and seat in (step[1], step[3]):
            giver, trader = step[1], step[3]
            gone, back, source = (step[4], step[2], giver) if trader == seat else (step[2], step[4], trader)
            left[gone] = j
            if back in left:
                sightings.append((back, source, j, left.pop(back)))
    allowed: dict[int, dict[int, frozenset[Place]]] = {}
    for card, place, sighted, gone in sightings:
        check_clock(deadline)
        # The places, kept as two sets: seats and piles, and the places on the stock by what put
        # the card there (``on_stock``); a set is replaced, never changed, so steps share them.
        held = frozenset(() if isinstance(place, tuple) else (place,))
        queue = frozenset((place[1],) if isinstance(place, tuple) else ())
        read = _Read(sources)
        table = allowed.setdefault(card, {})
        table[sighted] = read(held, queue, sighted)
        for j in range(sighted - 1, gone, -1):
            step = steps[j]
            code, actor = step[0], step[1]
            if code == _READY_MONEY and sources is not None:  # R5.3: under the stock, drawn in turn
                drew = actor != seat and actor in held and sources[j] >= 0  # he drew it
                if j in queue:  # the card discarded at j was his, or, the seat's, not this one
                    queue = queue - {j}
                    if actor != seat:
                        held = held | {actor}
                if drew:
                    queue = queue | {sources[j]}
            elif code == _READY_MONEY and actor != seat:
                discarded, drawn = _DISCARDS in held, actor in held
                if discarded:
                    held = held | {actor}
                if drawn:
                    held = held | {_STOCK}
            elif code == _GIVE and seat not in (actor, step[3]):
                gave, took = actor in held, step[3] in held
                if gave:
                    held = held | {step[3]}
                if took:
                    held = held | {actor}
            table[j] = read(held, queue, j)
    return allowed


class _Read:
    """The places before a step as :func:`_choices` reads them: the seats and piles, and under
    ``discard: bottom`` ``_STOCK`` too if the card may be the one the ready money of the step
    before puts under the stock (the other places on the stock are not read)."""

    def __init__(self, sources: dict[int, int] | None):
        self.bottom = sources is not None
        self.held: frozenset | None = None
        self.with_stock: frozenset = frozenset()

    def __call__(self, held: frozenset, queue: frozenset, step: int) -> frozenset:
        if not self.bottom or step - 1 not in queue:
            return held
        if held is not self.held:
            self.held, self.with_stock = held, held | {_STOCK}
        return self.with_stock


_OFFERED = -3  # the card on offer (R5.4, R7.2): a place for the needs (:mod:`.hidden_needs`)
ALL_CARDS = (1 << 52) - 1  # every card of a full pack as bits (R1.1): a need of unwritten positions only

Need = tuple[frozenset[int], int, int, int]
Needs = dict[int, list[Need]]
"""Before a step: needs ``(places, count, barred, stock)``: the places (seats, the card on offer)
and the positions in the stock's list whose bits ``stock`` sets must hold at least ``count``
positions whose card is not written, or not among the bits of ``barred`` (:mod:`.hidden_needs`)."""


def _supplied(world: World, needs: list[Need]) -> bool:
    """Whether ``world`` holds the positions ``needs`` asks of it (:data:`Needs`)."""
    card_of, hands = world.card_of, world.hands
    for places, wanted, barred, stock in needs:
        have = 0
        if stock:
            for k, item in enumerate(world.stock):
                if stock >> k & 1 and (card_of.get(item) is None or not barred >> card_of[item] & 1):
                    have += 1
        for place in places:
            if have >= wanted:  # enough: most needs ask for one
                break
            if place == _OFFERED:  # the card on offer, still in its owner's hand: counted once
                if world.offer is None or world.offer_seat in places:
                    continue
                items = (world.offer,)
            else:
                items = hands[place]
            for item in items:
                card = card_of.get(item)
                if card is None or not barred >> card & 1:
                    have += 1
        if have < wanted:
            return False
    return True


def destination(steps: list[tuple], index: int, seat: int, bottom: bool) -> tuple[int, Place | None, bool]:
    """Where the card another player chooses at ``index`` (ready money, an offer, a card given) goes:
    the step after which it is there (an offer's card moves with the give that answers it), its place,
    and whether the seat sees it (it goes to him, or he draws it back from under the stock)."""
    step = steps[index]
    if step[0] == _OFFER:
        reply = steps[index + 1] if index + 1 < len(steps) else None
        return index + 1, (reply[1] if reply is not None else None), (reply is not None and reply[0] == _GIVE
                                                                     and reply[1] == seat)
    if step[0] == _GIVE:
        return index, step[3], step[3] == seat
    return index, _STOCK if bottom else _DISCARDS, step[2] is not None  # ready money (R5.3)


def _choices(steps: list[tuple], index: int, world: World, seat: int,
             allowed: dict[int, dict[int, set[int]]], bottom: bool) -> list:
    """The positions a step may move in ``world`` (one ``None`` when nothing is chosen)."""
    step = steps[index]
    code, actor = step[0], step[1]
    if code == _READY_MONEY or code == _OFFER or code == _GIVE:
        if actor == seat:  # he knows which card he names
            item = world.item_of.get(step[2])
            return [item] if item in world.hands[actor] else []
        hand = world.hands[actor]
        moved_at, target, sighted = destination(steps, index, seat, bottom)
        if sighted:  # the seat receives this card: it must be the one he saw
            item = world.item_of.get(step[2])
            if item is not None:
                return [item] if item in hand else []
            return [i for i in hand if i not in world.card_of]
        free, forced = [], []
        for item in hand:
            card = world.card_of.get(item)
            places = allowed[card].get(moved_at + 1) if card in allowed else None
            if places is None:
                free.append(item)
                continue
            may_move, may_stay = target in places, actor in places
            if not may_stay:
                forced.append(item)
            if may_move:
                free.append(item)
        if forced:
            return forced if len(forced) == 1 and forced[0] in free else []
        return free  # a face-down choice: any card of his that can be where it is seen again
    if code == _EXCHANGE:  # face up: the card is known, only its position may be open
        item = world.item_of.get(step[2])
        if item is not None:
            return [item] if item in world.hands[actor] else []
        unwritten = [i for i in world.hands[actor] if i not in world.card_of]
        return unwritten[:1]  # unwritten positions of one hand are alike
    return [None]


def _apply(step: tuple, world: World, item: int | None, seat: int, bottom: bool) -> bool:
    """Play ``step`` with the chosen position on ``world``; False on a contradiction."""
    code, actor = step[0], step[1]
    if code == _READY_MONEY:  # R5.3
        if actor != seat and step[2] is not None and not world.write(item, step[2]):  # drawn back later
            return False
        world.hands[actor].remove(item)
        if bottom:
            world.stock.insert(0, item)
        else:
            world.discards.append(item)
        drawn = world.stock.pop()
        world.hands[actor].append(drawn)
        world.moved = ((item, drawn), world.moved)
        return actor != seat or world.write(drawn, step[3])  # he sees what he draws
    if code == _OFFER:  # R5.4, R7.2: face down
        world.offer, world.offer_seat = item, actor
        world.moved = ((item,), world.moved)
        return True
    if code == _GIVE:
        trader, offered = world.offer_seat, world.offer
        world.hands[trader].remove(offered)
        world.hands[actor].remove(item)
        world.hands[trader].append(item)
        world.hands[actor].append(offered)
        world.offer = world.offer_seat = None
        world.moved = ((item, offered), world.moved)
        seen = item if trader == seat else offered if actor == seat else None
        if seen is not None:  # each sees what he receives
            new = seen not in world.card_of
            if not world.write(seen, step[2] if trader == seat else step[4]):
                return False
            if new and world.flush_checks is not None and _past_flush(world, seen):
                return False
        if world.flush_checks is not None:  # R7.3: neither hand may have become a flush
            hands = (tuple(world.hands[trader]), tuple(world.hands[actor]))
            card_of = world.card_of
            for items in hands:
                if all(i in card_of for i in items) and is_ship([card_of[i] for i in items]):
                    return False
            world.flush_checks = (hands, world.flush_checks)
        return True
    if code == _EXCHANGE:  # R6.3, R8.2: both cards face up
        if not world.write(item, step[2]):
            return False
        taken = world.item_of[step[3]]
        slot = world.table.index(taken)
        world.table[slot] = item
        world.hands[actor].remove(item)
        world.hands[actor].append(taken)
        world.moved = ((item, taken), world.moved)
        return True
    if code == _TAKE_WIDOW:  # R6.2: his unseen hand becomes the face-up widow
        hand = world.hands[actor]  # still the dealt positions: his first decision
        for position, card in zip(hand, step[2], strict=True):  # the cards sorted, as he holds them
            if not world.write(position, card):
                return False
        world.moved = ((*hand, *world.table), world.moved)
        world.hands[actor] = list(world.table)
        world.table = list(hand)
        return True
    if code == _KEEP_HAND or code == _SHOW:  # he looks at his cards; or every hand is shown (R11)
        hand = world.hands[actor]
        world.moved = (tuple(hand), world.moved)
        cards = step[2]
        if cards[0] is None:  # another's look at his own hand
            return True
        missing = [c for c in cards if world.item_of.get(c) not in hand]
        open_items = [i for i in hand if i not in world.card_of]
        if len(missing) != len(open_items):
            return False
        return all(world.write(i, c) for i, c in zip(open_items, missing, strict=True))
    world.moved = ((), world.moved)
    return True


def _past_flush(world: World, item: int) -> bool:
    """Whether a card just written on ``item`` completes a flush in a hand of the past (R7.3)."""
    card_of = world.card_of
    checks = world.flush_checks
    while checks is not None:
        hands, checks = checks
        for items in hands:
            if item in items and all(i in card_of for i in items) and is_ship([card_of[i] for i in items]):
                return True
    return False


CLOCK_EVERY = 64
"""The search looks at the clock once in this many tries."""


def search(steps: list[tuple], world: World, seat: int, bottom: bool, rng: random.Random,
           allowed: dict[int, dict[int, set[int]]], needs: Needs,
           deadline: float = math.inf) -> tuple[World | None, bool]:
    """Depth-first search for hidden choices consistent with everything ``seat`` saw
    (``allowed``: :func:`constraints`; ``needs``: :mod:`.hidden_needs`), and whether a choice
    among several was drawn from ``rng`` (if not, every search of this deal gives the same answer).

    ``None`` if a budget of tries runs out (the caller starts again with new draws), or
    ``time.perf_counter()`` passes ``deadline``.
    """
    drawn = False
    budget = 5 * (len(steps) + 1) + 100  # small: fresh random draws beat long backtracking
    stack: list[tuple[int, World, list]] = [(0, world, None)]
    while stack and budget:
        if budget % CLOCK_EVERY == 0 and time.perf_counter() >= deadline:
            return None, drawn
        index, current, options = stack[-1]
        if index == len(steps):
            return current, drawn
        if options is None:
            options = _choices(steps, index, current, seat, allowed, bottom)
            if len(options) > 1:
                rng.shuffle(options)  # a list of one or none draws nothing
                drawn = True
            stack[-1] = (index, current, options)
        if not options:
            stack.pop()
            continue
        budget -= 1
        item = options.pop()
        trial = current.copy()
        if _apply(steps[index], trial, item, seat, bottom) and _supplied(trial, needs.get(index + 1, ())):
            stack.append((index + 1, trial, None))
    return None, drawn
