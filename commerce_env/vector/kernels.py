"""The batched state machine: numba-compiled loops over arrays of games.

Every game is one row of an int64 array ``st`` (its scalars, its players'
fields, hands, table, stock, discards, card bit sets, rewards, random
generator and given packs, at the offsets of the parameter vector ``p``), so
a game's whole state sits together in memory and a function needs only
``(st, g, p)`` (and the key table ``keys`` where hands are valued).  The
entry points (``reset_games``, ``step_games``, ``observe_games``,
``random_play``) loop over games.

The logic is a line-by-line transcription of the readable engine
(``commerce_env/engine``), which stays the reference: the differential tests
(tests/test_vector_engine.py) play both side by side.  Names follow the
readable engine's (``next_turn``, ``best_hands``, ``dealer_pays`` ...).

Why numba and not vectorised numpy, and why one row per game:
docs/performance.md, "Batched engine".  Compiled functions are cached on disk
(``cache=True``): only the first process after an install compiles.  ``error_model="numpy"``:
no division-by-zero checks on the many ``//`` and ``%`` (no divisor here can be zero); 15% faster.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import register_jitable

from ..engine.trade_barter import foster_pays_all, peel_penalised
from ..hands import category_index
from ..hands import table_index as _table_index
from ..rules import variant_info

# R2's categories and R5.8 as the readable engine states them: compiled where the kernels call them.
register_jitable(category_index)
register_jitable(foster_pays_all)
register_jitable(peel_penalised)

# --------------------------------------------------------------- parameters
# Each variant's kernel code, as its engine module declares it (commerce_env.options.Variant.kernel).
V_TRADE_BARTER, V_WIDOW, V_SHIP, V_OLD, V_POOL = (
    variant_info(name).kernel for name in ("trade_barter", "widow", "my_ship_sails", "old_game", "pool"))
(P_VARIANT, P_N, P_TIE, P_DISCARD_BOTTOM, P_STAND_AFTER, P_DEALER_PAYS, P_ALLOW_PASS, P_WHISKEY, P_DEALS,
 P_MAX_ROUNDS, P_ENTRY, P_PAYOUT, P_HORSE_PRICE, P_DECK, P_OUTCOME, P_LIVES, P_ANTES, P_TABLE,
 # offsets of the sections of a game's row
 P_PS, P_HANDS, P_TABLE_AT, P_STOCK_AT, P_DISC_AT, P_BITS_AT, P_REW_AT, P_DECKS_AT, P_WIDTH,
 # 1: a game whose given packs are used up waits for supply_packs instead of shuffling
 P_WAIT,
 # the offset of the public-knowledge bit sets (n x n: observer, holder)
 P_KNOWN_AT) = range(29)
NUM_PARAMS = 29
TIE_DEALER, TIE_ELDEST, TIE_SPLIT = 0, 1, 2
PAYS_FOSTER, PAYS_EACH, PAYS_BETTER, PAYS_NONE = 0, 1, 2, 3
UNTIL_OUT = -1
REWARD_UNIT = 27720  # rewards are kept in 1/27720ths: exact for counters and for 1/k with k <= 12

# Phases: the index in commerce_env.engine.base.PHASES.
ACT, REPLY, STAND_CHOICE, WIDOW_CHOICE, LAST_EXCHANGE, HORSE, OVER = range(7)
NUM_KINDS = 13  # len(commerce_env.engine.actions.KINDS): `last_none` follows the kinds

# Actions (commerce_env.engine.actions).
KNOCK, STAND, CONTINUE, PASS, DECLINE, TAKE_WIDOW, KEEP_HAND, BUY_HORSE, NO_HORSE = range(9)
READY_MONEY, OFFER, GIVE, EXCHANGE, NUM_ACTIONS = 9, 12, 15, 18, 27

# Per-game scalars: the first NUM_GS columns of a row.
(G_PHASE, G_TO_ACT, G_DEALER, G_POOL, G_DEALS_PLAYED, G_DEALS_DEALT, G_ROUNDS, G_M, G_STOCK, G_DISCARDS,
 G_OFFER_TRADER, G_OFFER_CARD, G_OVER, G_STOOD, G_LT_HEAD, G_LT_LEN, G_HORSE_OFFERED, G_HAS_LOSERS,
 G_NUM_DECKS, G_NEWLY_OUT, G_RNG, G_WINNERS, G_UNSHUFFLED, G_AWAITING) = range(24)
NUM_GS = 24
# Per-player fields, NUM_PS columns per seat from p[P_PS].  ORDER, LAST_TURNS and WINNERS are lists
# indexed by position (the i-th entry is in seat i's block).
(S_COUNTERS, S_MONEY, S_OUT, S_ORDER, S_POS, S_LAST_KIND, S_STOOD, S_PASSED, S_VALUE, S_PAID, S_LOSER,
 S_LAST_TURNS, S_NEWLY_OUT, S_WINNER, S_WINNERS) = range(15)
NUM_PS = 15
# Card bit sets (bit c = card c), three per seat from p[P_BITS_AT].
B_GAVE_LEFT, B_GAVE_RIGHT, B_DISCARDED = 0, 1, 2
# Public knowledge (commerce_env.knowledge.public_places): n x n card bit sets from p[P_KNOWN_AT], the
# cards each observer knows to be in each holder's hand now (its own row's own entry unused).

# Observation layout (commerce_env.observation, LAYOUT_VERSION 2).
CARD_FEATURES = 17
O_HAND, O_HAND_SLOTS, O_TABLE_SLOTS = 0, 52, 103
O_GAVE_LEFT, O_GAVE_RIGHT, O_DISCARDED, O_PHASE, O_FLAGS, O_PLAYERS = 154, 206, 258, 310, 317, 323
PLAYER_FEATURES = 21
SCALE = 0.1

_GOLDEN = np.int64(0x9E3779B97F4A7C15 - (1 << 64))  # splitmix64's constants as wrapping int64
_MIX1 = np.int64(0xBF58476D1CE4E5B9 - (1 << 64))
_MIX2 = np.int64(0x94D049BB133111EB - (1 << 64))


def layout_params(num_players: int, num_decks: int) -> dict[int, int]:
    """The offsets of a game's row for ``num_players`` and room for ``num_decks`` given packs."""
    n = num_players
    ps = NUM_GS
    hands = ps + n * NUM_PS
    table = hands + 3 * n
    stock = table + 3
    discards = stock + 52
    bits = discards + 52
    rew = bits + 3 * n
    known = rew + 2 * n
    decks = known + n * n
    return {P_PS: ps, P_HANDS: hands, P_TABLE_AT: table, P_STOCK_AT: stock, P_DISC_AT: discards,
            P_BITS_AT: bits, P_REW_AT: rew, P_KNOWN_AT: known, P_DECKS_AT: decks, P_WIDTH: decks + 52 * num_decks}


# R2's table of all ordered triples, indexed as commerce_env.hands.table_index says (one definition).
triple_index = njit(cache=True, inline="always")(_table_index)


@njit(cache=True, error_model="numpy")
def _action_kind(action):
    """The index of an action's kind in commerce_env.engine.actions.KINDS."""
    if action < READY_MONEY:
        return action
    if action < OFFER:
        return 9
    if action < GIVE:
        return 10
    if action < EXCHANGE:
        return 11
    return 12


@njit(cache=True, error_model="numpy")
def _f(p, seat, field):
    """The column of a seat's field."""
    return p[P_PS] + seat * NUM_PS + field


# ------------------------------------------------------------------ random
@njit(cache=True, error_model="numpy")
def next_random(st, g):
    """splitmix64 on the game's own state: a 64-bit draw (as int64)."""
    z = st[g, G_RNG] + _GOLDEN
    st[g, G_RNG] = z
    z = (z ^ ((z >> 30) & 0x3FFFFFFFF)) * _MIX1
    z = (z ^ ((z >> 27) & 0x1FFFFFFFFF)) * _MIX2
    return z ^ ((z >> 31) & 0x1FFFFFFFF)


@njit(cache=True, error_model="numpy")
def random_below(st, g, bound):
    """A draw from 0 .. bound - 1 (Lemire's multiply-shift on 32 bits; bias below 2**-26)."""
    return (((next_random(st, g) >> 32) & 0xFFFFFFFF) * bound) >> 32


@njit(cache=True, error_model="numpy")
def _shuffled_pack(st, g, p, pack, dealt):
    """The variant's pack (52, or 7 to ace for 32) into ``pack``, its first ``dealt`` cards drawn at
    random (Fisher-Yates, front to back); the rest, the stock, is a random set in no random order yet:
    :func:`_draw_stock_top` draws each stock card at random when it is taken (the same law as a
    full shuffle, and most stock cards are never taken)."""
    size = p[P_DECK]
    low = 0 if size == 52 else 20  # the 32-card pack: ranks 7..A are cards 20..51 (R1.1)
    for i in range(size):
        pack[i] = low + i
    for i in range(dealt):
        j = i + random_below(st, g, size - i)
        pack[i], pack[j] = pack[j], pack[i]


@njit(cache=True, error_model="numpy")
def _draw_stock_top(st, g, p):
    """Take the stock's top card; if the top cards are not in random order yet, draw one of them."""
    stock, count = p[P_STOCK_AT], st[g, G_STOCK]
    unshuffled = st[g, G_UNSHUFFLED]
    if unshuffled > 0:  # the top ``unshuffled`` cards are a random set: pick the top among them
        j = count - unshuffled + random_below(st, g, unshuffled)
        top = stock + count - 1
        st[g, top], st[g, stock + j] = st[g, stock + j], st[g, top]
        st[g, G_UNSHUFFLED] = unshuffled - 1
    card = st[g, stock + count - 1]
    st[g, stock + count - 1] = -1
    st[g, G_STOCK] = count - 1
    return card


# ------------------------------------------------------------------- hands
@njit(cache=True, error_model="numpy")
def _sort_hand(st, g, at):
    a, b, c = st[g, at], st[g, at + 1], st[g, at + 2]
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    st[g, at], st[g, at + 1], st[g, at + 2] = a, b, c


@njit(cache=True, error_model="numpy")
def _is_ship(st, g, at):
    suit = st[g, at] & 3
    return (st[g, at + 1] & 3) == suit and (st[g, at + 2] & 3) == suit


# ------------------------------------------------------------- seats, turns
@njit(cache=True, error_model="numpy")
def _order(st, g, p, i):
    return st[g, p[P_PS] + i * NUM_PS + S_ORDER]


@njit(cache=True, error_model="numpy")
def _left_of(st, g, p, seat):
    """The next player in the deal to the left (R3.1)."""
    return _order(st, g, p, (st[g, _f(p, seat, S_POS)] + 1) % st[g, G_M])


@njit(cache=True, error_model="numpy")
def _can_act(st, g, p, seat):
    """Whether ``seat`` still takes turns in this deal (the old game drops players)."""
    v = p[P_VARIANT]
    if v == V_OLD or v == V_POOL:
        return st[g, _f(p, seat, S_STOOD)] == 0 and st[g, _f(p, seat, S_PASSED)] == 0
    return True


@njit(cache=True, error_model="numpy")
def _balance(st, g, p, seat):
    """Counters, or money in pool commerce (R4.1)."""
    return st[g, _f(p, seat, S_MONEY if p[P_VARIANT] == V_POOL else S_COUNTERS)]


@njit(cache=True, error_model="numpy")
def _transfer(st, g, p, payer, payee):
    st[g, _f(p, payer, S_COUNTERS)] -= 1
    st[g, _f(p, payee, S_COUNTERS)] += 1


@njit(cache=True, error_model="numpy")
def _add_reward(st, g, p, seat, units):
    at = p[P_REW_AT]
    st[g, at + seat] += units
    st[g, at + p[P_N] + seat] += units


# ------------------------------------------------------- public knowledge
@njit(cache=True, error_model="numpy")
def _place(st, g, p, observer, card, holder):
    """``places[card] = holder`` in ``observer``'s knowledge (``holder`` -1: ``places.pop(card)``),
    as :func:`commerce_env.knowledge.public_places` keeps it."""
    n = p[P_N]
    row = p[P_KNOWN_AT] + observer * n
    bit = np.int64(1) << card
    for h in range(n):
        st[g, row + h] &= ~bit
    if holder >= 0:
        st[g, row + holder] |= bit


@njit(cache=True, error_model="numpy")
def _place_for_all(st, g, p, card, holder):
    """A face-up move (R6.2, R6.3, R8.2, the showdown): every seat knows it."""
    for o in range(p[P_N]):
        _place(st, g, p, o, card, holder)


@njit(cache=True, error_model="numpy")
def _forget(st, g, p, holder, keeper):
    """Every seat but ``keeper`` forgets what it knew of ``holder``'s hand (a face-down move)."""
    n = p[P_N]
    for o in range(n):
        if o != keeper:
            st[g, p[P_KNOWN_AT] + o * n + holder] = 0


# ------------------------------------------------------------- match, deal
@njit(cache=True, error_model="numpy")
def start_match(st, g, p, keys, dealer, pack):
    n = p[P_N]
    lives = 3 if p[P_LIVES] else 0
    for s in range(n):
        st[g, _f(p, s, S_COUNTERS)] = lives
        st[g, _f(p, s, S_MONEY)] = 0
        st[g, _f(p, s, S_OUT)] = 0
        st[g, _f(p, s, S_LOSER)] = 0
        st[g, p[P_REW_AT] + s] = 0
        st[g, p[P_REW_AT] + n + s] = 0
    st[g, G_POOL] = 0
    st[g, G_DEALS_PLAYED] = 0
    st[g, G_DEALS_DEALT] = 0
    st[g, G_DEALER] = dealer
    st[g, G_OVER] = 0
    st[g, G_AWAITING] = 0
    st[g, G_HAS_LOSERS] = 0
    st[g, G_HORSE_OFFERED] = 0
    for s in range(n):
        st[g, _f(p, s, S_PAID)] = _balance(st, g, p, s)  # pool: before the entry (R9.5)
    if p[P_VARIANT] == V_POOL:  # R9.2: the entry, once
        for s in range(n):
            st[g, _f(p, s, S_MONEY)] -= p[P_ENTRY]
            st[g, G_POOL] += p[P_ENTRY]
    run_deals(st, g, p, keys, pack)


@njit(cache=True, error_model="numpy")
def start_deal(st, g, p, pack):
    """R1.5, R3.1, R4.2: order from the eldest, deal one at a time, antes.
    Returns whether the deal is settled at once (a dealt ship, R7.3).  With ``P_WAIT``, a
    deal past the given packs waits (``G_AWAITING``) for :func:`supply_packs`."""
    n = p[P_N]
    dealer = st[g, G_DEALER]
    m = 0
    for k in range(1, n + 1):
        s = (dealer + k) % n
        st[g, _f(p, s, S_POS)] = -1
        if st[g, _f(p, s, S_OUT)] == 0:
            st[g, _f(p, m, S_ORDER)] = s
            m += 1
    st[g, G_M] = m
    for i in range(m):
        st[g, _f(p, _order(st, g, p, i), S_POS)] = i
    size = p[P_DECK]
    index = st[g, G_DEALS_DEALT]
    if index < st[g, G_NUM_DECKS]:
        at = p[P_DECKS_AT] + 52 * index
        for i in range(size):
            pack[i] = st[g, at + i]
        st[g, G_UNSHUFFLED] = 0
    elif p[P_WAIT]:
        st[g, G_AWAITING] = 1
        st[g, G_TO_ACT] = -1
        return False
    else:
        dealt = 3 * m + (3 if p[P_TABLE] else 0)
        _shuffled_pack(st, g, p, pack, dealt)
        st[g, G_UNSHUFFLED] = size - dealt
    return deal_pack(st, g, p, pack)


@njit(cache=True, error_model="numpy")
def deal_pack(st, g, p, pack):
    """The rest of :func:`start_deal` once the deal's order of play and ``pack`` are set."""
    n = p[P_N]
    dealer = st[g, G_DEALER]
    m = st[g, G_M]
    size = p[P_DECK]
    st[g, G_DEALS_DEALT] += 1
    hands = p[P_HANDS]
    for i in range(3 * n):
        st[g, hands + i] = -1
    for i in range(m):
        at = hands + 3 * _order(st, g, p, i)
        st[g, at] = pack[i]
        st[g, at + 1] = pack[i + m]
        st[g, at + 2] = pack[i + 2 * m]
        _sort_hand(st, g, at)
    top = 3 * m
    table = p[P_TABLE_AT]
    if p[P_TABLE]:
        for i in range(3):
            st[g, table + i] = pack[top + i]
        top += 3
    else:
        for i in range(3):
            st[g, table + i] = -1
    count = size - top
    stock = p[P_STOCK_AT]
    for i in range(count):  # stock[count - 1] is the top card
        st[g, stock + i] = pack[size - 1 - i]
    st[g, G_STOCK] = count
    st[g, G_DISCARDS] = 0
    if p[P_ANTES]:
        for i in range(m):
            st[g, _f(p, _order(st, g, p, i), S_COUNTERS)] -= 1
            st[g, G_POOL] += 1
    st[g, G_ROUNDS] = 0
    bits = p[P_BITS_AT]
    for s in range(n):
        st[g, _f(p, s, S_LAST_KIND)] = -1
        st[g, _f(p, s, S_STOOD)] = 0
        st[g, _f(p, s, S_PASSED)] = 0
        st[g, bits + 3 * s] = 0
        st[g, bits + 3 * s + 1] = 0
        st[g, bits + 3 * s + 2] = 0
    known = p[P_KNOWN_AT]
    for i in range(n * n):
        st[g, known + i] = 0
    st[g, G_STOOD] = 0
    st[g, G_LT_HEAD] = 0
    st[g, G_LT_LEN] = 0
    st[g, G_PHASE] = ACT
    st[g, G_TO_ACT] = _order(st, g, p, 0)
    st[g, G_OFFER_TRADER] = -1
    st[g, G_OFFER_CARD] = -1
    v = p[P_VARIANT]
    if v == V_WIDOW:  # R6.2: the dealer's blind choice first (no turn, R4.4)
        st[g, G_PHASE] = WIDOW_CHOICE
        st[g, G_TO_ACT] = dealer
    elif v == V_SHIP:  # R7.3: a dealt flush settles the deal before any decision
        for i in range(m):
            if _is_ship(st, g, hands + 3 * _order(st, g, p, i)):
                return True
    return False


@njit(cache=True, error_model="numpy")
def run_deals(st, g, p, keys, pack):
    """Deal; while a deal is settled at once (R7.3), settle it and deal the next (R4.5)."""
    while start_deal(st, g, p, pack):
        if not finish_deal(st, g, p, keys, False):
            return


@njit(cache=True, error_model="numpy")
def _showdown(st, g, p, keys, pack):
    """The hands are shown: settle, end the deal, deal the next one if the match goes on."""
    if finish_deal(st, g, p, keys, True):
        run_deals(st, g, p, keys, pack)


@njit(cache=True, error_model="numpy")
def next_turn(st, g, p, keys, pack, seat):
    """Pass play left from ``seat``; after ``max_rounds`` rounds show hands (R4.4)."""
    m = st[g, G_M]
    pos = st[g, _f(p, seat, S_POS)]
    q = -1
    for step in range(1, m + 1):
        cand = (pos + step) % m
        if _can_act(st, g, p, _order(st, g, p, cand)):
            q = cand
            break
    if q < 0:
        _showdown(st, g, p, keys, pack)
        return
    if q <= pos:  # play went round past the dealer: a round is complete
        st[g, G_ROUNDS] += 1
        if st[g, G_ROUNDS] >= p[P_MAX_ROUNDS]:
            _showdown(st, g, p, keys, pack)
            return
    st[g, G_PHASE] = ACT
    st[g, G_TO_ACT] = _order(st, g, p, q)


# -------------------------------------------------------------- settlement
@njit(cache=True, error_model="numpy")
def _preference(st, g, p, i):
    """The seat at place ``i`` of R3.3's order of preference."""
    m = st[g, G_M]
    if p[P_TIE] == TIE_DEALER:
        return _order(st, g, p, (i + m - 1) % m)  # the dealer, then the eldest and on
    return _order(st, g, p, i)


@njit(cache=True, error_model="numpy")
def _winner(st, g, p, k):
    return st[g, _f(p, k, S_WINNERS)]


@njit(cache=True, error_model="numpy")
def best_hands(st, g, p):
    """R3.3: the winners (in preference order) into the WINNERS list and flags; their number."""
    m = st[g, G_M]
    best = -(1 << 40)
    for i in range(m):
        best = max(best, st[g, _f(p, _order(st, g, p, i), S_VALUE)])
    for s in range(p[P_N]):
        st[g, _f(p, s, S_WINNER)] = 0
    count = 0
    for i in range(m):
        s = _preference(st, g, p, i)
        if st[g, _f(p, s, S_VALUE)] == best:
            st[g, _f(p, count, S_WINNERS)] = s
            st[g, _f(p, s, S_WINNER)] = 1
            count += 1
            if p[P_TIE] != TIE_SPLIT:
                break
    st[g, G_WINNERS] = count
    return count


@njit(cache=True, error_model="numpy")
def worst_hand(st, g, p, among_newly_out):
    """R3.4: the lowest hand (among the newly out if asked), the last in preference among equals."""
    m = st[g, G_M]
    lowest = 1 << 40
    for i in range(m):
        s = _order(st, g, p, i)
        if among_newly_out and st[g, _f(p, s, S_NEWLY_OUT)] == 0:
            continue
        lowest = min(lowest, st[g, _f(p, s, S_VALUE)])
    worst = -1
    for i in range(m):
        s = _preference(st, g, p, i)
        if among_newly_out and st[g, _f(p, s, S_NEWLY_OUT)] == 0:
            continue
        if st[g, _f(p, s, S_VALUE)] == lowest:
            worst = s
    return worst


@njit(cache=True, error_model="numpy")
def _pay_pool(st, g, p):
    """R3.5: the pool to the winners, equal shares, the remainder one each from the dealer's left."""
    m = st[g, G_M]
    amount, count = st[g, G_POOL], st[g, G_WINNERS]
    share, remainder = amount // count, amount % count
    k = 0
    for i in range(m):
        s = _order(st, g, p, i)
        if st[g, _f(p, s, S_WINNER)]:
            st[g, _f(p, s, S_COUNTERS)] += share + (1 if k < remainder else 0)
            k += 1
    st[g, G_POOL] = 0


@njit(cache=True, error_model="numpy")
def finish_deal(st, g, p, keys, counted):
    """``_showdown`` + ``_settle`` + ``_end_deal``: returns whether a new deal must be dealt."""
    n = p[P_N]
    v = p[P_VARIANT]
    hands = p[P_HANDS]
    for i in range(st[g, G_M]):  # R11: every hand of the deal is shown
        s = _order(st, g, p, i)
        for j in range(3):
            if st[g, hands + 3 * s + j] >= 0:
                _place_for_all(st, g, p, st[g, hands + 3 * s + j], s)
    for s in range(n):
        at = hands + 3 * s
        if st[g, at] < 0:
            st[g, _f(p, s, S_VALUE)] = -1
        else:
            st[g, _f(p, s, S_VALUE)] = keys[triple_index(st[g, at], st[g, at + 1], st[g, at + 2])]
    count = best_hands(st, g, p)
    m = st[g, G_M]
    if v == V_TRADE_BARTER or v == V_WIDOW or v == V_SHIP:  # R5.7, R6.4, R7.4: the pool to the best
        _pay_pool(st, g, p)
        if v == V_TRADE_BARTER:
            dealer_pays(st, g, p)
    elif v == V_OLD:  # R8.4: each winner receives one stake from every player who is not a winner
        for k in range(count):
            for i in range(m):
                s = _order(st, g, p, i)
                if st[g, _f(p, s, S_WINNER)] == 0:
                    _transfer(st, g, p, s, _winner(st, g, p, k))
    else:  # R9.3: the payout while the pool lasts; the worst hand loses a life
        for k in range(count):
            amount = min(p[P_PAYOUT], st[g, G_POOL])
            st[g, _f(p, _winner(st, g, p, k), S_MONEY)] += amount
            st[g, G_POOL] -= amount
        st[g, _f(p, worst_hand(st, g, p, False), S_COUNTERS)] -= 1
    # _end_deal
    st[g, G_TO_ACT] = -1
    if counted:
        st[g, G_DEALS_PLAYED] += 1
    newly = 0
    first_out = -1
    for s in range(n):
        st[g, _f(p, s, S_NEWLY_OUT)] = 0
    if p[P_LIVES]:
        for i in range(m):
            s = _order(st, g, p, i)
            if st[g, _f(p, s, S_COUNTERS)] <= 0 and st[g, _f(p, s, S_OUT)] == 0:
                st[g, _f(p, s, S_OUT)] = 1
                st[g, _f(p, s, S_NEWLY_OUT)] = 1
                if newly == 0:
                    first_out = s
                newly += 1
    st[g, G_NEWLY_OUT] = newly
    _pay_rewards(st, g, p)
    if v == V_POOL:  # R9.4: the horse comes before R9.5 is checked
        if newly > 0 and st[g, G_HORSE_OFFERED] == 0:
            st[g, G_HORSE_OFFERED] = 1
            st[g, G_PHASE] = HORSE
            st[g, G_TO_ACT] = first_out
            return False
        return check_pool_end(st, g, p)
    if _own_end(st, g, p, newly) or _deals_reached(st, g, p):
        end_match(st, g, p)
        return False
    deal_next(st, g, p)
    return True


@njit(cache=True, error_model="numpy")
def dealer_pays(st, g, p):
    """R5.8 (and R10.2): the dealer's payments after the showdown."""
    mode = p[P_DEALER_PAYS]
    dealer = st[g, G_DEALER]
    m = st[g, G_M]
    value = st[g, _f(p, dealer, S_VALUE)]
    if mode == PAYS_FOSTER:
        if st[g, _f(p, dealer, S_WINNER)]:
            return
        if foster_pays_all(value, st[g, _f(p, _winner(st, g, p, 0), S_VALUE)]):
            for i in range(m):
                s = _order(st, g, p, i)
                if s != dealer:
                    _transfer(st, g, p, dealer, s)
        else:
            for k in range(st[g, G_WINNERS]):
                _transfer(st, g, p, dealer, _winner(st, g, p, k))
    elif mode == PAYS_EACH or mode == PAYS_BETTER:
        if not peel_penalised(value):
            return
        better = 0
        for i in range(m):
            s = _order(st, g, p, i)
            if s != dealer and st[g, _f(p, s, S_VALUE)] > value:
                better += 1
        if better == 0:
            return
        for i in range(m):
            s = _order(st, g, p, i)
            if s != dealer and (mode == PAYS_EACH or st[g, _f(p, s, S_VALUE)] > value):
                _transfer(st, g, p, dealer, s)


@njit(cache=True, error_model="numpy")
def _own_end(st, g, p, newly):
    """R6.5 / R7.5 `match_end`; sets the losers of the outcome reward."""
    n = p[P_N]
    if not p[P_LIVES]:
        return False
    if p[P_WHISKEY]:
        if newly > 0:
            st[g, _f(p, worst_hand(st, g, p, True), S_LOSER)] = 1
            st[g, G_HAS_LOSERS] = 1
            return True
        return False
    in_game = 0
    for s in range(n):
        if st[g, _f(p, s, S_OUT)] == 0:
            in_game += 1
    if in_game <= 1:
        for s in range(n):
            if st[g, _f(p, s, S_OUT)] != 0:
                st[g, _f(p, s, S_LOSER)] = 1
                st[g, G_HAS_LOSERS] = 1
        return True
    return False


@njit(cache=True, error_model="numpy")
def _deals_reached(st, g, p):
    return p[P_DEALS] != UNTIL_OUT and st[g, G_DEALS_PLAYED] >= p[P_DEALS]


@njit(cache=True, error_model="numpy")
def deal_next(st, g, p):
    """R3.2 / R4.5: the deal passes left to the next player still in the game."""
    n = p[P_N]
    seat = st[g, G_DEALER]
    for _ in range(n):
        seat = (seat + 1) % n
        if st[g, _f(p, seat, S_OUT)] == 0:
            break
    st[g, G_DEALER] = seat


@njit(cache=True, error_model="numpy")
def check_pool_end(st, g, p):
    """R9.5: the last holder takes the pool, or `deals` divides it; else the next deal."""
    n = p[P_N]
    holders = 0
    holder = -1
    for s in range(n):
        if st[g, _f(p, s, S_OUT)] == 0:
            holders += 1
            holder = s
    if holders <= 1:
        if holders == 1:
            st[g, _f(p, holder, S_MONEY)] += st[g, G_POOL]
            st[g, G_POOL] = 0
        for s in range(n):
            if st[g, _f(p, s, S_OUT)] != 0:
                st[g, _f(p, s, S_LOSER)] = 1
                st[g, G_HAS_LOSERS] = 1
        end_match(st, g, p)
        return False
    if _deals_reached(st, g, p):
        share, remainder = st[g, G_POOL] // holders, st[g, G_POOL] % holders
        dealer = st[g, G_DEALER]
        k = 0
        for j in range(1, n + 1):  # counted from the left of the last deal's dealer (R3.5)
            s = (dealer + j) % n
            if st[g, _f(p, s, S_OUT)] == 0:
                st[g, _f(p, s, S_MONEY)] += share + (1 if k < remainder else 0)
                k += 1
        st[g, G_POOL] = 0
        end_match(st, g, p)
        return False
    deal_next(st, g, p)
    return True


@njit(cache=True, error_model="numpy")
def end_match(st, g, p):
    n = p[P_N]
    st[g, G_OVER] = 1
    st[g, G_PHASE] = OVER
    st[g, G_TO_ACT] = -1
    if st[g, G_HAS_LOSERS] == 0:
        lowest = _balance(st, g, p, 0)
        highest = lowest
        for s in range(n):
            lowest = min(lowest, _balance(st, g, p, s))
            highest = max(highest, _balance(st, g, p, s))
        if lowest != highest:
            for s in range(n):
                if _balance(st, g, p, s) == lowest:
                    st[g, _f(p, s, S_LOSER)] = 1
            st[g, G_HAS_LOSERS] = 1
    _pay_rewards(st, g, p)
    if p[P_OUTCOME] and st[g, G_HAS_LOSERS]:
        losers = 0
        for s in range(n):
            losers += st[g, _f(p, s, S_LOSER)]
        for s in range(n):
            if st[g, _f(p, s, S_LOSER)]:
                _add_reward(st, g, p, s, -(REWARD_UNIT // losers))
            else:
                _add_reward(st, g, p, s, REWARD_UNIT // (n - losers))


@njit(cache=True, error_model="numpy")
def _pay_rewards(st, g, p):
    """Counter rewards: each player's net change since the last payment."""
    if p[P_OUTCOME]:
        return
    for s in range(p[P_N]):
        now = _balance(st, g, p, s)
        paid = st[g, _f(p, s, S_PAID)]
        if now != paid:
            _add_reward(st, g, p, s, (now - paid) * REWARD_UNIT)
            st[g, _f(p, s, S_PAID)] = now


# ----------------------------------------------------------------- actions
@njit(cache=True, error_model="numpy")
def legal_mask(st, g, p, masks):
    """Row ``g`` of ``masks``: the legal actions of the player to act (all zero when over)."""
    for a in range(NUM_ACTIONS):
        masks[g, a] = 0
    if st[g, G_OVER] or st[g, G_AWAITING]:
        return
    phase = st[g, G_PHASE]
    v = p[P_VARIANT]
    if phase == HORSE:
        masks[g, BUY_HORSE] = 1
        masks[g, NO_HORSE] = 1
    elif phase == WIDOW_CHOICE:
        masks[g, TAKE_WIDOW] = 1
        masks[g, KEEP_HAND] = 1
    elif phase == STAND_CHOICE:
        masks[g, STAND] = 1
        masks[g, CONTINUE] = 1
    elif phase == REPLY:
        if v == V_TRADE_BARTER:
            masks[g, KNOCK] = 1
        for i in range(3):
            masks[g, GIVE + i] = 1
    elif v == V_TRADE_BARTER:
        masks[g, KNOCK] = 1
        stock = st[g, G_STOCK] > 0  # R5.3: no ready money from an empty stock
        for i in range(3):
            masks[g, OFFER + i] = 1
            if stock:
                masks[g, READY_MONEY + i] = 1
    elif v == V_SHIP:
        masks[g, DECLINE] = 1
        for i in range(3):
            masks[g, OFFER + i] = 1
    else:
        for i in range(9):
            masks[g, EXCHANGE + i] = 1
        if v == V_WIDOW:
            masks[g, KNOCK] = 1
            if p[P_ALLOW_PASS]:
                masks[g, PASS] = 1
        else:
            masks[g, PASS] = 1
            if phase != LAST_EXCHANGE:
                masks[g, STAND] = 1


@njit(cache=True, error_model="numpy")
def _offer(st, g, p, seat, slot):
    """R5.4, R7.2: ``seat`` offers a card face down; his left neighbour answers."""
    st[g, G_OFFER_TRADER] = seat
    st[g, G_OFFER_CARD] = st[g, p[P_HANDS] + 3 * seat + slot]
    st[g, G_PHASE] = REPLY
    st[g, G_TO_ACT] = _left_of(st, g, p, seat)


@njit(cache=True, error_model="numpy")
def _replace_card(st, g, at, card, new):
    for i in range(3):
        if st[g, at + i] == card:
            st[g, at + i] = new
            break
    _sort_hand(st, g, at)


@njit(cache=True, error_model="numpy")
def _give(st, g, p, neighbour, slot):
    """The neighbour's card, chosen blind: the two cards change hands; each player
    remembers which card he gave to whom (R11).  Returns the trader."""
    trader, offered = st[g, G_OFFER_TRADER], st[g, G_OFFER_CARD]
    st[g, G_OFFER_TRADER] = -1
    st[g, G_OFFER_CARD] = -1
    hands = p[P_HANDS]
    given = st[g, hands + 3 * neighbour + slot]
    _replace_card(st, g, hands + 3 * trader, offered, given)
    _replace_card(st, g, hands + 3 * neighbour, given, offered)
    bits = p[P_BITS_AT]
    one = np.int64(1)
    side = B_GAVE_LEFT if _left_of(st, g, p, trader) == neighbour else B_GAVE_RIGHT
    st[g, bits + 3 * trader + side] |= one << offered
    side = B_GAVE_LEFT if _left_of(st, g, p, neighbour) == trader else B_GAVE_RIGHT
    st[g, bits + 3 * neighbour + side] |= one << given
    n = p[P_N]
    for o in range(n):  # the two know where both cards went; the others know neither hand now
        if o != trader and o != neighbour:
            st[g, p[P_KNOWN_AT] + o * n + trader] = 0
            st[g, p[P_KNOWN_AT] + o * n + neighbour] = 0
    _place(st, g, p, trader, offered, neighbour)
    _place(st, g, p, trader, given, -1)
    _place(st, g, p, neighbour, given, trader)
    _place(st, g, p, neighbour, offered, -1)
    return trader


@njit(cache=True, error_model="numpy")
def _after_trade(st, g, p, keys, pack, trader):
    if p[P_STAND_AFTER]:  # R5.6
        st[g, G_PHASE] = STAND_CHOICE
        st[g, G_TO_ACT] = trader
    else:
        next_turn(st, g, p, keys, pack, trader)


@njit(cache=True, error_model="numpy")
def _exchange_with_table(st, g, p, seat, action):
    """R6.3 / R8.2: a hand card goes face up in the taken table card's place."""
    own = p[P_HANDS] + 3 * seat + (action - EXCHANGE) // 3
    slot = p[P_TABLE_AT] + (action - EXCHANGE) % 3
    _place_for_all(st, g, p, st[g, own], -1)
    _place_for_all(st, g, p, st[g, slot], seat)
    st[g, own], st[g, slot] = st[g, slot], st[g, own]
    _sort_hand(st, g, p[P_HANDS] + 3 * seat)


@njit(cache=True, error_model="numpy")
def _step_trade_barter(st, g, p, keys, pack, seat, action):
    if action == KNOCK:  # R5.5 (also the neighbour's answer to a barter, R5.4)
        st[g, G_OFFER_TRADER] = -1
        st[g, G_OFFER_CARD] = -1
        _showdown(st, g, p, keys, pack)
    elif action == STAND:  # R5.6
        _showdown(st, g, p, keys, pack)
    elif action == CONTINUE:
        next_turn(st, g, p, keys, pack, seat)
    elif action < OFFER:  # R5.3 ready money
        at = p[P_HANDS] + 3 * seat + action - READY_MONEY
        card = st[g, at]
        st[g, p[P_BITS_AT] + 3 * seat + B_DISCARDED] |= np.int64(1) << card
        _forget(st, g, p, seat, seat)
        count = st[g, G_STOCK]
        stock = p[P_STOCK_AT]
        if p[P_DISCARD_BOTTOM]:  # under the stock
            for i in range(count, 0, -1):
                st[g, stock + i] = st[g, stock + i - 1]
            st[g, stock] = card
            count += 1
        else:
            st[g, p[P_DISC_AT] + st[g, G_DISCARDS]] = card
            st[g, G_DISCARDS] += 1
        st[g, G_STOCK] = count
        st[g, at] = _draw_stock_top(st, g, p)
        _sort_hand(st, g, p[P_HANDS] + 3 * seat)
        if seat != st[g, G_DEALER]:
            _transfer(st, g, p, seat, st[g, G_DEALER])
        _after_trade(st, g, p, keys, pack, seat)
    elif action < GIVE:  # R5.4 barter: offer face down to the left
        _offer(st, g, p, seat, action - OFFER)
    else:  # the neighbour gives a card, chosen blind
        _after_trade(st, g, p, keys, pack, _give(st, g, p, seat, action - GIVE))


@njit(cache=True, error_model="numpy")
def _step_widow(st, g, p, keys, pack, seat, action):
    if action == TAKE_WIDOW or action == KEEP_HAND:  # R6.2
        if action == TAKE_WIDOW:  # his unseen hand becomes the new widow
            hand, table = p[P_HANDS] + 3 * seat, p[P_TABLE_AT]
            for i in range(3):
                st[g, hand + i], st[g, table + i] = st[g, table + i], st[g, hand + i]
                _place_for_all(st, g, p, st[g, hand + i], seat)
            _sort_hand(st, g, hand)
        st[g, G_PHASE] = ACT
        st[g, G_TO_ACT] = _order(st, g, p, 0)
    elif action == KNOCK:  # R6.4
        _showdown(st, g, p, keys, pack)
    elif action == PASS:  # R6.3 allow_pass
        next_turn(st, g, p, keys, pack, seat)
    else:
        _exchange_with_table(st, g, p, seat, action)
        next_turn(st, g, p, keys, pack, seat)


@njit(cache=True, error_model="numpy")
def _step_ship(st, g, p, keys, pack, seat, action):
    if action == DECLINE:
        next_turn(st, g, p, keys, pack, seat)
    elif action < GIVE:  # R7.2
        _offer(st, g, p, seat, action - OFFER)
    else:
        trader = _give(st, g, p, seat, action - GIVE)
        hands = p[P_HANDS]
        if _is_ship(st, g, hands + 3 * trader) or _is_ship(st, g, hands + 3 * seat):  # R7.3: declared at once
            _showdown(st, g, p, keys, pack)
        else:
            next_turn(st, g, p, keys, pack, trader)


@njit(cache=True, error_model="numpy")
def _next_last_turn(st, g, p, keys, pack):
    if st[g, G_LT_HEAD] < st[g, G_LT_LEN]:
        st[g, G_TO_ACT] = st[g, _f(p, st[g, G_LT_HEAD], S_LAST_TURNS)]
        st[g, G_LT_HEAD] += 1
    else:
        _showdown(st, g, p, keys, pack)


@njit(cache=True, error_model="numpy")
def _step_old_game(st, g, p, keys, pack, seat, action):
    if st[g, G_PHASE] == HORSE:  # R9.4
        if action == BUY_HORSE:
            price = p[P_HORSE_PRICE]
            st[g, _f(p, seat, S_MONEY)] -= price
            st[g, G_POOL] += price
            st[g, _f(p, seat, S_COUNTERS)] += 1
            st[g, _f(p, seat, S_OUT)] = 0
        if check_pool_end(st, g, p):
            run_deals(st, g, p, keys, pack)
        return
    if action >= EXCHANGE:
        _exchange_with_table(st, g, p, seat, action)
    elif action == PASS:
        st[g, _f(p, seat, S_PASSED)] = 1  # R8.2: no more exchanges, no more turns
    else:
        st[g, _f(p, seat, S_STOOD)] = 1
        st[g, G_STOOD] += 1
    if st[g, G_PHASE] == LAST_EXCHANGE:
        _next_last_turn(st, g, p, keys, pack)
    elif action == STAND and st[g, G_STOOD] == 2:
        # R8.3: from the second stander's left, everyone still in gets one turn.
        m = st[g, G_M]
        start = st[g, _f(p, seat, S_POS)]
        count = 0
        for k in range(1, m):
            s = _order(st, g, p, (start + k) % m)
            if _can_act(st, g, p, s):
                st[g, _f(p, count, S_LAST_TURNS)] = s
                count += 1
        st[g, G_LT_HEAD] = 0
        st[g, G_LT_LEN] = count
        st[g, G_PHASE] = LAST_EXCHANGE
        _next_last_turn(st, g, p, keys, pack)
    else:
        next_turn(st, g, p, keys, pack, seat)


@njit(cache=True, error_model="numpy")
def apply_action(st, g, p, keys, pack, action):
    """``Game.apply`` for a legal action (the caller has checked the mask)."""
    seat = st[g, G_TO_ACT]
    st[g, _f(p, seat, S_LAST_KIND)] = _action_kind(action)
    v = p[P_VARIANT]
    if v == V_TRADE_BARTER:
        _step_trade_barter(st, g, p, keys, pack, seat, action)
    elif v == V_WIDOW:
        _step_widow(st, g, p, keys, pack, seat, action)
    elif v == V_SHIP:
        _step_ship(st, g, p, keys, pack, seat, action)
    else:
        _step_old_game(st, g, p, keys, pack, seat, action)


# ------------------------------------------------------------ entry points
@njit(cache=True, error_model="numpy")
def _take_rewards(st, g, p, rewards):
    at = p[P_REW_AT]
    for s in range(p[P_N]):
        rewards[g, s] = st[g, at + s] / REWARD_UNIT
        st[g, at + s] = 0


@njit(cache=True, error_model="numpy")
def reset_games(st, p, keys, games, dealers, masks, rewards):
    """A new match in each of ``games``; its mask and what the reset paid."""
    pack = np.empty(52, np.int64)
    for k in range(len(games)):
        g = games[k]
        start_match(st, g, p, keys, dealers[k], pack)
        legal_mask(st, g, p, masks)
        _take_rewards(st, g, p, rewards)


@njit(cache=True, error_model="numpy")
def step_games(st, p, keys, actions, active, masks, rewards):
    """One action in each active, running game (legality checked by the caller)."""
    pack = np.empty(52, np.int64)
    for g in range(len(actions)):
        if active[g] and st[g, G_OVER] == 0 and st[g, G_AWAITING] == 0:
            apply_action(st, g, p, keys, pack, actions[g])
            legal_mask(st, g, p, masks)
        _take_rewards(st, g, p, rewards)


@njit(cache=True, error_model="numpy")
def supply_packs(st, p, keys, games, packs, masks, rewards):
    """Deal each waiting game of ``games`` its next deal from its row of ``packs`` (top first);
    a deal settled at once (R7.3) asks for the next pack again.  Its mask and what it paid."""
    pack = np.empty(52, np.int64)
    for k in range(len(games)):
        g = games[k]
        for i in range(p[P_DECK]):
            pack[i] = packs[k, i]
        st[g, G_AWAITING] = 0
        st[g, G_UNSHUFFLED] = 0
        if deal_pack(st, g, p, pack) and finish_deal(st, g, p, keys, False):
            run_deals(st, g, p, keys, pack)
        legal_mask(st, g, p, masks)
        _take_rewards(st, g, p, rewards)


@njit(cache=True, error_model="numpy")
def random_play(st, p, keys, steps, masks, totals):
    """``steps`` rounds of one uniform random legal action per game, a finished match
    restarted at once (the benchmark's workload; each game's own generator picks).
    Returns the number of decisions; ``totals`` sums the rewards."""
    pack = np.empty(52, np.int64)
    at = p[P_REW_AT]
    n = p[P_N]
    decisions = 0
    for _ in range(steps):
        for g in range(st.shape[0]):
            if st[g, G_OVER]:
                start_match(st, g, p, keys, 0, pack)
                legal_mask(st, g, p, masks)
            count = 0
            for a in range(NUM_ACTIONS):
                count += masks[g, a]
            pick = random_below(st, g, count)
            for a in range(NUM_ACTIONS):
                if masks[g, a]:
                    if pick == 0:
                        apply_action(st, g, p, keys, pack, a)
                        break
                    pick -= 1
            legal_mask(st, g, p, masks)
            decisions += 1
            for s in range(n):
                totals[g, s] += st[g, at + s]
                st[g, at + s] = 0
    return decisions


@njit(cache=True, error_model="numpy")
def _sees_own_hand(st, g, p, seat):
    """R11: a player sees his own cards, but the widow dealer not before his blind choice (R6.2)."""
    return not (p[P_VARIANT] == V_WIDOW and st[g, G_PHASE] == WIDOW_CHOICE and seat == st[g, G_DEALER])


@njit(cache=True, error_model="numpy")
def encode(st, g, p, seat, out, k):
    """``commerce_env.observation.encode`` of game ``g`` for ``seat`` into row ``k`` of ``out``."""
    n = p[P_N]
    for i in range(out.shape[1]):
        out[k, i] = 0.0
    phase = st[g, G_PHASE]
    out[k, O_PHASE + phase] = 1.0
    hand = p[P_HANDS] + 3 * seat
    if st[g, hand] >= 0 and _sees_own_hand(st, g, p, seat):
        for i in range(3):
            c = st[g, hand + i]
            out[k, O_HAND + c] = 1.0
            out[k, O_HAND_SLOTS + i * CARD_FEATURES + (c >> 2)] = 1.0
            out[k, O_HAND_SLOTS + i * CARD_FEATURES + 13 + (c & 3)] = 1.0
        out[k, O_FLAGS] = 1.0
    if p[P_TABLE]:
        for i in range(3):
            c = st[g, p[P_TABLE_AT] + i]
            out[k, O_TABLE_SLOTS + i * CARD_FEATURES + (c >> 2)] = 1.0
            out[k, O_TABLE_SLOTS + i * CARD_FEATURES + 13 + (c & 3)] = 1.0
    bits = p[P_BITS_AT] + 3 * seat
    left, right, disc = st[g, bits + B_GAVE_LEFT], st[g, bits + B_GAVE_RIGHT], st[g, bits + B_DISCARDED]
    if left | right | disc:
        for c in range(52):
            if (left >> c) & 1:
                out[k, O_GAVE_LEFT + c] = 1.0
            if (right >> c) & 1:
                out[k, O_GAVE_RIGHT + c] = 1.0
            if (disc >> c) & 1:
                out[k, O_DISCARDED + c] = 1.0
    to_act = st[g, G_TO_ACT]
    if to_act == seat and phase == REPLY:
        out[k, O_FLAGS + 1] = 1.0
    if phase == HORSE:
        out[k, O_FLAGS + 5] = 1.0
    out[k, O_FLAGS + 2] = st[g, G_STOCK] / 52.0
    out[k, O_FLAGS + 3] = st[g, G_POOL] * SCALE
    out[k, O_FLAGS + 4] = st[g, G_ROUNDS] / p[P_MAX_ROUNDS]
    dealer = st[g, G_DEALER]
    for j in range(n):
        other = (seat + j) % n
        base = O_PLAYERS + j * PLAYER_FEATURES
        out[k, base] = st[g, _f(p, other, S_COUNTERS)] * SCALE
        out[k, base + 1] = st[g, _f(p, other, S_MONEY)] * SCALE
        if st[g, _f(p, other, S_OUT)]:
            out[k, base + 2] = 1.0
        if other == dealer:
            out[k, base + 3] = 1.0
        if other == to_act:
            out[k, base + 4] = 1.0
        if st[g, _f(p, other, S_STOOD)]:
            out[k, base + 5] = 1.0
        if st[g, _f(p, other, S_PASSED)]:
            out[k, base + 6] = 1.0
        kind = st[g, _f(p, other, S_LAST_KIND)]
        out[k, base + 7 + (kind if kind >= 0 else NUM_KINDS)] = 1.0  # nothing done yet: `last_none`


@njit(cache=True, error_model="numpy")
def observe_games(st, p, games, seats, out):
    for k in range(len(games)):
        encode(st, games[k], p, seats[k], out, k)


@njit(cache=True, error_model="numpy")
def finished_for(st, g, p, seat):
    """``Game.finished_for``: over, or (counter rewards) ``seat`` out and not offered the horse."""
    if st[g, G_OVER]:
        return True
    return p[P_LIVES] != 0 and p[P_OUTCOME] == 0 and st[g, _f(p, seat, S_OUT)] != 0 and st[g, G_TO_ACT] != seat


@njit(cache=True, error_model="numpy")
def finished_games(st, p, seats, out):
    for g in range(len(seats)):
        out[g] = finished_for(st, g, p, seats[g])


@njit(cache=True, error_model="numpy")
def known_games(st, p, games, seats, out):
    """Row ``k``: the cards ``seats[k]`` knows to be in each other hand of game ``games[k]``, 52 per
    player from his left (``view.public_hands``, :class:`commerce_env.features.KnownHands`)."""
    n = p[P_N]
    for k in range(len(games)):
        g, seat = games[k], seats[k]
        for i in range(out.shape[1]):
            out[k, i] = 0.0
        row = p[P_KNOWN_AT] + seat * n
        for j in range(1, n):
            bits = st[g, row + (seat + j) % n]
            if bits:
                for c in range(52):
                    if (bits >> c) & 1:
                        out[k, (j - 1) * 52 + c] = 1.0
