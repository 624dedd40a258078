"""Re-dealing what a seat has not seen, compiled: the twin of :mod:`commerce_env.engine.determinize`.

:func:`sample_places` draws ``count`` worlds as ``DealSampler.sample_places`` draws them, one
after another from the same generator (each after the 64 bits ``view.sample_worlds`` draws for
its later deals), and gives where every card is as arrays for :mod:`.sampled`.  The replay of
the hidden moves is :mod:`.hidden_moves`; here the unseen cards are placed (``_write_unseen``,
with My Ship Sails' flushes of the past, R7.3) and a world is tried again as in
``DealSampler._placed``.  Deals it does not compile (:func:`compiles`) stay in Python.
"""

from __future__ import annotations

import random
from typing import NamedTuple

import numpy as np

from ..engine.determinize import (
    FILL_ATTEMPTS,
    MAX_ATTEMPTS,
    TIME_LIMIT,
    DealSampler,
    NoConsistentDealError,
    check_time_limit,
)
from ..engine.hidden_moves import _EXCHANGE, _GIVE, _OFFER, _READY_MONEY
from . import hidden_moves as M  # noqa: N812 - the world's fields read as M.W_CARD_OF
from .python_random import _next_word, random_state, set_random_state, shuffle
from .row import kernel


class PlacedWorlds(NamedTuple):
    """Where ``count`` worlds put every card: ``cards[r, position]`` the card on a position of world
    ``r``, and the positions of each seat's hand (``hands[r, seat]``, ``hand_sizes[seat]`` of them),
    of the table, of the stock (top last) and the discards, and of the offered card (-1: none).
    ``chosen[r, j]`` (where given) is the position step ``j`` of the deal moved by its choice (-1:
    none), the first card its record entry names: what a replay of world ``r`` needs."""

    cards: np.ndarray
    hands: np.ndarray
    hand_sizes: np.ndarray
    table: np.ndarray
    stock: np.ndarray
    discards: np.ndarray
    offer: np.ndarray
    chosen: np.ndarray | None = None


_CHOOSING = (_READY_MONEY, _OFFER, _GIVE, _EXCHANGE)  # the steps whose choice is a position

MAX_STACK_BYTES = 32 << 20
"""The most memory the compiled search's stack of worlds may take (one world per step of the deal):
a deal longer than that (hundreds of rounds, R12's ``max_rounds``) is sampled in Python."""


def compiles(sampler: DealSampler, rng: random.Random, num_players: int) -> bool:
    """Whether :func:`sample_places` serves this deal: only its steps are compiled, it draws from
    a plain ``random.Random``, the seat saw every card it is told of, and its stack of worlds
    fits in :data:`MAX_STACK_BYTES`."""
    if (len(sampler.steps) + 1) * int(_layout(sampler, num_players)[M.W_WIDTH]) * 8 > MAX_STACK_BYTES:
        return False
    for step in sampler.steps:
        if step[0] not in M.COMPILED_STEPS:
            return False
        if step[1] == sampler.seat and any(card is None for card in step[2:]):
            return False
        if step[0] == _GIVE and sampler.seat in (step[1], step[3]) and (step[2] is None or step[4] is None):
            return False
    return type(rng) is random.Random and max(sampler.deck) < M.NO_CARDS


@kernel
def _write_unseen(w, lay, deck, flush_ends_deal, mt, at, free, unwritten, counts):
    """``engine.determinize._write_unseen`` on world ``w`` (``deck`` ascending): 1 written, 0 failed
    (try again), -1 when the positions already written make a flush of the past."""
    positions = len(deck)
    card_of = w[lay[M.W_CARD_OF]:lay[M.W_CARD_OF] + positions].copy()
    left = 0
    for item in range(positions):
        if card_of[item] < 0:
            unwritten[left] = item
            left += 1
    count = 0
    for card in deck:  # ascending, not in the hidden pack order
        if w[lay[M.W_ITEM_OF] + card] < 0:
            free[count] = card
            count += 1
    shuffle(free, count, mt, at)
    counts[:positions] = 0
    checked = 0
    if flush_ends_deal:
        for k in range(w[lay[M.W_CHECKS_LEN]]):
            hand = lay[M.W_CHECKS] + 3 * k
            if M.is_flush_hand(w, lay, hand):
                return -1
            if card_of[w[hand]] < 0 or card_of[w[hand + 1]] < 0 or card_of[w[hand + 2]] < 0:
                for j in range(3):
                    counts[w[hand + j]] += 1
        order = np.empty(left, np.int64)  # the positions in most hands to check first, the others after
        most = 0
        for k in range(left):
            most = max(most, counts[unwritten[k]])
        for times in range(most, 0, -1):
            for k in range(left):
                if counts[unwritten[k]] == times:
                    order[checked] = unwritten[k]
                    checked += 1
        rest = checked
        for k in range(left):
            if counts[unwritten[k]] == 0:
                order[rest] = unwritten[k]
                rest += 1
        unwritten[:left] = order
    for k in range(left):
        item = unwritten[k]
        if k >= checked:  # the rest are in no hand to check
            for j in range(k, left):
                card_of[unwritten[j]] = free[j - k]
            break
        barred = 0  # suits that would complete a flush with the two other cards of a hand
        for c in range(w[lay[M.W_CHECKS_LEN]]):
            hand = lay[M.W_CHECKS] + 3 * c
            if w[hand] != item and w[hand + 1] != item and w[hand + 2] != item:
                continue
            first, second, n = -1, -1, 0  # the cards on the hand's two other positions
            for j in range(3):
                if w[hand + j] != item:
                    if n == 0:
                        first = card_of[w[hand + j]]
                    else:
                        second = card_of[w[hand + j]]
                    n += 1
            if first >= 0 and second >= 0 and (first & 3) == (second & 3):
                barred |= 1 << (first & 3)
        taken = -1
        for j in range(count):
            if not barred & (1 << (free[j] & 3)):  # the first card of the shuffle that completes no flush
                taken = j
                break
        if taken < 0:
            return 0
        card_of[item] = free[taken]
        for j in range(taken, count - 1):
            free[j] = free[j + 1]
        count -= 1
    w[lay[M.W_CARD_OF]:lay[M.W_CARD_OF] + positions] = card_of
    return 1


@kernel
def _sample(count, first, searched, has_searched, searched_path, steps, lay, seat, bottom, flush_ends_deal, allowed,
            needs, deck, mt, at, cards, hands, stock, discards, offer, chosen, piles, time_limit, spent):
    """``count`` worlds as in ``DealSampler._placed``, each after two words drawn for its later deals
    (``deck`` ascending; ``piles``: the stock's and the discards' final sizes; ``chosen``: each step's
    chosen position, ``searched_path`` those of ``searched``); False if one found none within
    ``time_limit`` seconds or :data:`MAX_ATTEMPTS`: then ``spent`` holds its attempts and seconds."""
    stack = np.empty((len(steps) + 1, len(first)), np.int64)
    options = np.empty((len(steps) + 1, 3), np.int64)
    option_count = np.empty(len(steps) + 1, np.int64)
    free = np.empty(len(deck), np.int64)
    unwritten = np.empty(len(deck), np.int64)
    counts = np.empty(len(deck), np.int64)
    cached = searched.copy()
    cached_path = searched_path.copy()
    path = np.empty(len(steps), np.int64)
    world = np.empty(len(first), np.int64)
    num_players = len(hands[0]) // 3
    for r in range(count):
        _next_word(mt, at)  # the world's generator for later deals (64 bits): a row keeps the engine's own
        _next_word(mt, at)
        placed = False
        start = M.clock()
        deadline = start + time_limit
        attempts = 0
        for _ in range(MAX_ATTEMPTS):
            attempts += 1
            found = True
            if has_searched:
                world[:] = cached
                path[:] = cached_path
            else:
                stack[0] = first
                depth, drawn = M.search(steps, stack, lay, seat, bottom, flush_ends_deal, allowed, needs, options,
                                        option_count, mt, at, deadline)
                found = depth >= 0
                if found:
                    world[:] = stack[depth]
                    for j in range(len(steps)):  # the position each step's choice moved (-1: none)
                        path[j] = options[j, option_count[j]]
                    if not drawn:  # every choice was forced: the same answer every time
                        cached[:] = world
                        cached_path[:] = path
                        has_searched = True
            for _ in range(FILL_ATTEMPTS if found else 0):
                written = _write_unseen(world, lay, deck, flush_ends_deal, mt, at, free, unwritten, counts)
                if written == 1:
                    placed = True
                    break
                if written == -1:  # the cards already written make a flush: choose again
                    break
            if placed or M.clock() >= deadline:
                break
        if not placed:
            spent[0], spent[1] = attempts, M.clock() - start
            return False
        cards[r] = world[lay[M.W_CARD_OF]:lay[M.W_CARD_OF] + len(deck)]
        hands[r] = world[lay[M.W_HANDS]:lay[M.W_HANDS] + 3 * num_players]
        piles[0], piles[1] = world[lay[M.W_STOCK_LEN]], world[lay[M.W_DISCARDS_LEN]]  # alike in every world
        stock[r, :piles[0]] = world[lay[M.W_STOCK]:lay[M.W_STOCK] + piles[0]]
        discards[r, :piles[1]] = world[lay[M.W_DISCARDS]:lay[M.W_DISCARDS] + piles[1]]
        offer[r] = world[lay[M.W_OFFER]]
        chosen[r] = path
    return True


def sample_places(sampler: DealSampler, rng: random.Random, count: int, num_players: int,
                  time_limit: float | None = TIME_LIMIT) -> PlacedWorlds:
    """``count`` times ``rng.getrandbits(64)`` then ``sampler.sample_places(rng, time_limit)``,
    compiled (where :func:`compiles`), ``rng`` left as Python would leave it; the worlds as arrays.
    :class:`NoConsistentDealError` as in Python, where a world is not found within ``time_limit``
    seconds (the compiled search tries many times more often in that time)."""
    limit = check_time_limit(time_limit)
    sampler.prepare(limit)  # at once where a sample came first (sampled_rows)
    steps = np.full((len(sampler.steps), 5), -1, dtype=np.int64)
    for j, step in enumerate(sampler.steps):
        steps[j, :len(step)] = [-1 if x is None else x for x in step]
    positions = len(sampler.deck)
    lay = _layout(sampler, num_players)
    first = M.world_array(sampler.first, lay)
    searched = sampler.searched
    cached = first if searched is None else M.world_array(searched, lay)
    allowed = np.full((M.NO_CARDS, len(steps) + 2), -1, dtype=np.int64)
    for card, table in sampler.allowed.items():
        for j, places in table.items():
            allowed[card, j] = M.place_bits(places)
    mt, at, rest = random_state(rng)
    out = PlacedWorlds(np.empty((count, positions), np.int64), np.empty((count, 3 * num_players), np.int64),
                       first[lay[M.W_HAND_LEN]:lay[M.W_HAND_LEN] + num_players].copy(), np.empty((count, 0), np.int64),
                       np.empty((count, positions), np.int64), np.empty((count, positions), np.int64),
                       np.empty(count, np.int64), np.empty((count, len(steps)), np.int64))
    piles = np.zeros(2, np.int64)  # how many positions the stock and the discards end with
    needs, deck = M.need_arrays(sampler.needs, len(steps)), np.sort(np.asarray(sampler.deck, dtype=np.int64))
    spent = np.zeros(2, np.float64)  # a world not found: its attempts and seconds
    path = np.full(len(steps), -1, np.int64) if searched is None else chosen_positions(searched, sampler.steps)
    ok = _sample(count, first, cached, searched is not None, path, steps, lay, sampler.seat, sampler.bottom,
                 sampler.first.flush_checks is not None, allowed, needs, deck,
                 mt, at, out.cards, out.hands, out.stock, out.discards, out.offer, out.chosen, piles,
                 limit, spent)
    set_random_state(rng, mt, at, rest)
    if not ok:  # as DealSampler._placed
        raise NoConsistentDealError(int(spent[0]), float(spent[1]))
    return out._replace(hands=out.hands.reshape(count, num_players, 3), stock=out.stock[:, :piles[0]],
                        discards=out.discards[:, :piles[1]])


def chosen_positions(world, steps) -> np.ndarray:
    """The position each of ``steps`` moved by its choice in a readable search's ``world``
    (``engine.hidden_moves.World``): the first it moved where the step chooses one (a card traded,
    offered, given or exchanged), else -1; as :func:`sample_places` gives them."""
    moved, node = [], world.moved
    while node is not None:
        items, node = node
        moved.append(items[0] if items else -1)
    moved.reverse()
    return np.array([item if step[0] in _CHOOSING else -1 for item, step in zip(moved, steps, strict=True)],
                    dtype=np.int64)


def _layout(sampler: DealSampler, num_players: int) -> np.ndarray:
    """The layout of this deal's worlds: where a flush ends the deal (R7.3), room for every hand of
    the deal that may not have been one (the dealt hands, two more per trade); else none."""
    if sampler.first.flush_checks is None:
        return M.world_layout(num_players, len(sampler.deck), 0)
    gives = sum(step[0] == _GIVE for step in sampler.steps)
    return M.world_layout(num_players, len(sampler.deck), num_players + 2 * gives)
