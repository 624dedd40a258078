"""The replay of one deal's hidden moves, compiled: the twin of :mod:`commerce_env.engine.hidden_moves`.

With blind trades (R5.3, R5.4, R7.2) each world search samples replays the deal and draws every
hidden choice of another player again; in Python that replay is most of a world's cost.  Here
the same depth-first search runs on a world laid out as one int64 array (:func:`world_layout`),
a stack of them one per step, and draws from the state of Python's generator
(:mod:`.python_random`), so it makes the very choices, in the same order, that
:func:`commerce_env.engine.hidden_moves.search` makes, refusing the same ones (the needs that
``engine.hidden_needs`` works out, as arrays: :func:`need_arrays`).  Only the steps of the blind-trade
variants are compiled (ready money, offer, give, and steps that move nothing); a deal with
others (exchanges, the widow, the hands shown) is left to Python (:data:`COMPILED_STEPS`).
"""

from __future__ import annotations

import time

import numpy as np
from numba import objmode

from ..engine.hidden_moves import _GIVE, _NOTHING, _OFFER, _READY_MONEY, CLOCK_EVERY, Needs, World
from .python_random import shuffle
from .row import kernel

COMPILED_STEPS = (_READY_MONEY, _OFFER, _GIVE, _NOTHING)
"""The replay steps this module plays; a deal with any other is sampled in Python."""

# A world's fields, in the order of its array (offsets: world_layout).
(W_HANDS, W_HAND_LEN, W_STOCK, W_STOCK_LEN, W_DISCARDS, W_DISCARDS_LEN, W_CARD_OF, W_ITEM_OF, W_OFFER,
 W_OFFER_SEAT, W_CHECKS, W_CHECKS_LEN, W_WIDTH) = range(13)
NO_CARDS = 52  # item_of's length: every card of a full pack (R1.1)

_OFFERED_BIT, _STOCK_BIT, _DISCARDS_BIT = 1 << 60, 1 << 61, 1 << 62  # engine.hidden_moves' other places
_PLACE_BITS = {-1: _STOCK_BIT, -2: _DISCARDS_BIT, -3: _OFFERED_BIT}


def place_bits(places: set[int] | frozenset[int]) -> int:
    """A set of places of :func:`commerce_env.engine.hidden_moves.constraints` or ``unseen_needs``
    (seats, the stock -1, the discards -2, the card on offer -3) as bits: seat ``s`` is bit ``s``."""
    bits = 0
    for place in places:
        bits |= _PLACE_BITS[place] if place < 0 else 1 << place
    return bits


def need_arrays(needs: Needs, steps: int) -> tuple[np.ndarray, ...]:
    """``engine.hidden_moves.Needs`` as arrays: those before step ``j`` are at ``at[j]:at[j + 1]`` of
    the others: their places (:func:`place_bits`), positions to hold, barred cards and positions
    in the stock's list (bits)."""
    at = np.zeros(steps + 2, dtype=np.int64)
    for j, group in needs.items():
        at[j + 1] = len(group)
    at = np.cumsum(at)
    bits, counts, barred, stock = (np.empty(at[-1], dtype=np.int64) for _ in range(4))
    for j, group in needs.items():
        for k, (places, wanted, cards, on_stock) in enumerate(group):
            bits[at[j] + k], counts[at[j] + k] = place_bits(places), wanted
            barred[at[j] + k], stock[at[j] + k] = cards, on_stock
    return at, bits, counts, barred, stock


def world_layout(num_players: int, positions: int, checks: int) -> np.ndarray:
    """The offsets of a world's fields in its array, :data:`W_WIDTH` last: hands (3 positions a
    seat), their lengths, the stock (its top last) and discards with their lengths, the card on
    each position and the position of each card (-1: none), the offer and its seat, and up to
    ``checks`` hands of the past that may not have been a flush (R7.3) with their count."""
    sizes = [3 * num_players, num_players, positions, 1, positions, 1, positions, NO_CARDS, 1, 1, 3 * checks, 1]
    return np.cumsum([0, *sizes]).astype(np.int64)


def check_room(lay: np.ndarray) -> int:
    """How many hands of the past layout ``lay`` has room to check (R7.3)."""
    return int(lay[W_CHECKS_LEN] - lay[W_CHECKS]) // 3


def world_array(world: World, lay: np.ndarray) -> np.ndarray:
    """``world`` (engine.hidden_moves' World) as an array of layout ``lay`` (:func:`world_layout`)."""
    num_players, checks = int(lay[W_STOCK] - lay[W_HAND_LEN]), check_room(lay)
    w = np.full(int(lay[W_WIDTH]), -1, dtype=np.int64)
    w[lay[W_HAND_LEN]:lay[W_HAND_LEN] + num_players] = 0
    for seat, items in world.hands.items():
        w[lay[W_HANDS] + 3 * seat:lay[W_HANDS] + 3 * seat + len(items)] = items
        w[lay[W_HAND_LEN] + seat] = len(items)
    for field, length, items in ((W_STOCK, W_STOCK_LEN, world.stock), (W_DISCARDS, W_DISCARDS_LEN, world.discards)):
        w[lay[field]:lay[field] + len(items)] = items
        w[lay[length]] = len(items)
    for item, card in world.card_of.items():
        w[lay[W_CARD_OF] + item] = card
    for card, item in world.item_of.items():
        w[lay[W_ITEM_OF] + card] = item
    w[lay[W_OFFER]] = -1 if world.offer is None else world.offer
    w[lay[W_OFFER_SEAT]] = -1 if world.offer_seat is None else world.offer_seat
    hands = []
    node = world.flush_checks
    while node is not None:  # the order does not matter: every hand is checked alike
        group, node = node
        hands += [list(items) for items in group]
    if len(hands) > checks:
        raise ValueError(f"{len(hands)} hands to check, room for {checks}")
    for k, items in enumerate(hands):
        w[lay[W_CHECKS] + 3 * k:lay[W_CHECKS] + 3 * k + 3] = items
    w[lay[W_CHECKS_LEN]] = len(hands)
    return w


@kernel
def _holds(w, lay, seat, item):
    """Whether ``seat``'s hand holds position ``item``."""
    for k in range(w[lay[W_HAND_LEN] + seat]):
        if w[lay[W_HANDS] + 3 * seat + k] == item:
            return True
    return False


@kernel
def _remove(w, lay, seat, item):
    """``hands[seat].remove(item)``: the later positions move up."""
    at, length = lay[W_HANDS] + 3 * seat, w[lay[W_HAND_LEN] + seat]
    k = 0
    while w[at + k] != item:
        k += 1
    for j in range(k, length - 1):
        w[at + j] = w[at + j + 1]
    w[lay[W_HAND_LEN] + seat] = length - 1


@kernel
def _append(w, lay, seat, item):
    """``hands[seat].append(item)``."""
    w[lay[W_HANDS] + 3 * seat + w[lay[W_HAND_LEN] + seat]] = item
    w[lay[W_HAND_LEN] + seat] += 1


@kernel
def _item_of(w, lay, card):
    """The position of ``card`` (-1: not written, or no card)."""
    return -1 if card < 0 else w[lay[W_ITEM_OF] + card]


@kernel
def _write(w, lay, item, card):
    """``World.write``: ``card`` on position ``item``; False if that contradicts what is written."""
    known = w[lay[W_CARD_OF] + item]
    if known >= 0:
        return known == card
    if w[lay[W_ITEM_OF] + card] >= 0:
        return False
    w[lay[W_CARD_OF] + item] = card
    w[lay[W_ITEM_OF] + card] = item
    return True


@kernel
def is_flush_hand(w, lay, at):
    """Whether the three positions at ``w[at:at + 3]`` are all written and a flush (R7.3)."""
    a, b, c = w[lay[W_CARD_OF] + w[at]], w[lay[W_CARD_OF] + w[at + 1]], w[lay[W_CARD_OF] + w[at + 2]]
    return a >= 0 and b >= 0 and c >= 0 and (a & 3) == (b & 3) and (b & 3) == (c & 3)


@kernel
def _past_flush(w, lay, item):
    """``engine.hidden_moves._past_flush``: a card just written on ``item`` completes a flush of the past."""
    for k in range(w[lay[W_CHECKS_LEN]]):
        at = lay[W_CHECKS] + 3 * k
        if (w[at] == item or w[at + 1] == item or w[at + 2] == item) and is_flush_hand(w, lay, at):
            return True
    return False


@kernel
def _choices(steps, index, w, lay, seat, allowed, bottom, out):
    """``engine.hidden_moves._choices`` for the compiled steps: the positions written into ``out``, their count
    returned (-1 for a step that chooses nothing)."""
    code, actor = steps[index, 0], steps[index, 1]
    if code == _NOTHING:
        return -1
    hand_at, length = lay[W_HANDS] + 3 * actor, w[lay[W_HAND_LEN] + actor]
    if actor == seat:  # he knows which card he names
        item = _item_of(w, lay, steps[index, 2])
        if item >= 0 and _holds(w, lay, actor, item):
            out[0] = item
            return 1
        return 0
    if code == _OFFER:
        has_reply = index + 1 < len(steps)
        moved_at = index + 1
        target = steps[index + 1, 1] if has_reply else -3  # -3: no place
        sighted = has_reply and steps[index + 1, 0] == _GIVE and steps[index + 1, 1] == seat
    elif code == _GIVE:
        moved_at, target = index, steps[index, 3]
        sighted = target == seat
    else:  # ready money: seen when the seat draws it back from under the stock
        moved_at, target = index, -1 if bottom else -2
        sighted = steps[index, 2] >= 0
    if sighted:  # the seat receives this card: it must be the one he saw
        item = _item_of(w, lay, steps[index, 2])
        if item >= 0:
            if _holds(w, lay, actor, item):
                out[0] = item
                return 1
            return 0
        count = 0
        for k in range(length):
            if w[lay[W_CARD_OF] + w[hand_at + k]] < 0:
                out[count] = w[hand_at + k]
                count += 1
        return count
    target_bit = 0 if target == -3 else _STOCK_BIT if target == -1 else _DISCARDS_BIT if target == -2 else 1 << target
    free, forced, forced_count = 0, -1, 0
    forced_free = False
    for k in range(length):
        item = w[hand_at + k]
        card = w[lay[W_CARD_OF] + item]
        places = allowed[card, moved_at + 1] if card >= 0 else -1
        if places < 0:
            out[free] = item
            free += 1
            continue
        may_move, may_stay = (places & target_bit) != 0, (places & (1 << actor)) != 0
        if not may_stay:
            forced_count += 1
            forced = item
        if may_move:
            out[free] = item
            free += 1
            if not may_stay:
                forced_free = True
    if forced_count:
        if forced_count == 1 and forced_free:
            out[0] = forced
            return 1
        return 0
    return free  # a face-down choice: any card of his that can be where it is seen again


@kernel
def _apply(step, w, lay, item, seat, bottom, flush_ends_deal):
    """``engine.hidden_moves._apply`` for the compiled steps; False on a contradiction."""
    code, actor = step[0], step[1]
    if code == _READY_MONEY:  # R5.3
        if actor != seat and step[2] >= 0 and not _write(w, lay, item, step[2]):  # drawn back later
            return False
        _remove(w, lay, actor, item)
        if bottom:
            at, length = lay[W_STOCK], w[lay[W_STOCK_LEN]]
            for k in range(length, 0, -1):
                w[at + k] = w[at + k - 1]
            w[at] = item
            w[lay[W_STOCK_LEN]] = length + 1
        else:
            w[lay[W_DISCARDS] + w[lay[W_DISCARDS_LEN]]] = item
            w[lay[W_DISCARDS_LEN]] += 1
        w[lay[W_STOCK_LEN]] -= 1
        drawn = w[lay[W_STOCK] + w[lay[W_STOCK_LEN]]]
        _append(w, lay, actor, drawn)
        return actor != seat or _write(w, lay, drawn, step[3])  # he sees what he draws
    if code == _OFFER:  # R5.4, R7.2: face down
        w[lay[W_OFFER]], w[lay[W_OFFER_SEAT]] = item, actor
        return True
    if code == _GIVE:
        trader, offered = w[lay[W_OFFER_SEAT]], w[lay[W_OFFER]]
        _remove(w, lay, trader, offered)
        _remove(w, lay, actor, item)
        _append(w, lay, trader, item)
        _append(w, lay, actor, offered)
        w[lay[W_OFFER]], w[lay[W_OFFER_SEAT]] = -1, -1
        seen = item if trader == seat else offered if actor == seat else -1
        if seen >= 0:  # each sees what he receives
            new = w[lay[W_CARD_OF] + seen] < 0
            if not _write(w, lay, seen, step[2] if trader == seat else step[4]):
                return False
            if new and flush_ends_deal and _past_flush(w, lay, seen):
                return False
        if flush_ends_deal:  # R7.3: neither hand may have become a flush
            for holder in (trader, actor):
                if is_flush_hand(w, lay, lay[W_HANDS] + 3 * holder):
                    return False
            for holder in (trader, actor):
                at = lay[W_CHECKS] + 3 * w[lay[W_CHECKS_LEN]]
                w[at:at + 3] = w[lay[W_HANDS] + 3 * holder:lay[W_HANDS] + 3 * holder + 3]
                w[lay[W_CHECKS_LEN]] += 1
        return True
    return True  # a step that moves nothing


@kernel
def _serves(w, lay, item, barred):
    """Whether position ``item`` may serve a need: its card is not written, or not among ``barred``."""
    card = w[lay[W_CARD_OF] + item]
    return card < 0 or not (barred >> card) & 1


@kernel
def _supplied(w, lay, index, need_at, need_bits, need_counts, need_barred, need_stock):
    """``engine.hidden_moves._supplied`` for the needs before step ``index`` (:func:`need_arrays`)."""
    for k in range(need_at[index], need_at[index + 1]):
        bits, barred, have = need_bits[k], need_barred[k], 0
        on_stock, j = need_stock[k], 0
        while on_stock:  # the positions in the stock's list the need names, as bits
            if on_stock & 1 and _serves(w, lay, w[lay[W_STOCK] + j], barred):
                have += 1
            on_stock >>= 1
            j += 1
        for seat in range(lay[W_STOCK] - lay[W_HAND_LEN]):
            if bits & (1 << seat):
                for j in range(w[lay[W_HAND_LEN] + seat]):
                    if _serves(w, lay, w[lay[W_HANDS] + 3 * seat + j], barred):
                        have += 1
        offer = w[lay[W_OFFER]]  # the card on offer, still in its owner's hand: counted once
        if bits & _OFFERED_BIT and offer >= 0 and not bits & (1 << w[lay[W_OFFER_SEAT]]) and _serves(w, lay, offer,
                                                                                                      barred):
            have += 1
        if have < need_counts[k]:
            return False
    return True


@kernel
def clock():
    """``time.perf_counter()``, read from a compiled loop (for the re-deal's time limit)."""
    with objmode(now="float64"):
        now = time.perf_counter()
    return now


@kernel
def search(steps, stack, lay, seat, bottom, flush_ends_deal, allowed, needs, options, option_count, mt, at, deadline):
    """``engine.hidden_moves.search`` from the world ``stack[0]`` (``needs``: :func:`need_arrays`):
    the depth at which ``stack`` holds the answer (-1: the budget ran out, or :func:`clock` passed
    ``deadline``) and whether a choice among several was drawn."""
    need_at, need_bits, need_counts, need_barred, need_stock = needs
    drawn = False
    budget = 5 * (len(steps) + 1) + 100
    depth = 0
    option_count[0] = -2  # -2: the options not yet listed
    while depth >= 0 and budget:
        if budget % CLOCK_EVERY == 0 and clock() >= deadline:
            return -1, drawn
        if depth == len(steps):
            return depth, drawn
        if option_count[depth] == -2:
            count = _choices(steps, depth, stack[depth], lay, seat, allowed, bottom, options[depth])
            if count == -1:  # one choice, of nothing
                options[depth, 0] = -1
                count = 1
            if count > 1:
                shuffle(options[depth], count, mt, at)
                drawn = True
            option_count[depth] = count
        if option_count[depth] == 0:
            depth -= 1
            continue
        budget -= 1
        option_count[depth] -= 1
        item = options[depth, option_count[depth]]
        stack[depth + 1] = stack[depth]
        if (_apply(steps[depth], stack[depth + 1], lay, item, seat, bottom, flush_ends_deal)
                and _supplied(stack[depth + 1], lay, depth + 1, need_at, need_bits, need_counts, need_barred,
                              need_stock)):
            depth += 1
            option_count[depth] = -2
    return -1, drawn
