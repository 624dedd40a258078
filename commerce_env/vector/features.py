"""Observation features for a batch of observation vectors, in one compiled call.

:class:`BatchHandStrength` computes what :class:`commerce_env.features.HandStrength`
computes for one vector (the same 20 numbers, equal up to float32 rounding
of the means), for every row of an ``(N, obs_size)`` array, from the vector
alone (R11-safe).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numba import njit, prange

from ..cards import make_pack
from ..engine import ENGINES
from ..engine.actions import EXCHANGE, KNOCK
from ..features import ExchangeOdds, HandStrength
from ..observation import PLAYER_FEATURES, PLAYER_FIELDS
from ..observation import layout as observation_layout
from ..odds import life_value
from ..rules import Rules
from .kernels import triple_index

_life_value = functools.lru_cache(maxsize=1 << 16)(life_value)  # few distinct (lives, seat, pool)


@njit(cache=True, error_model="numpy")
def _hand_strength(obs, out, keys, percentile, opponents, ship, hand_at, table_at, discarded_at):
    seen = np.zeros(52, np.bool_)
    hand = np.empty(3, np.int64)
    table = np.empty(3, np.int64)
    unseen = np.empty(52, np.int64)
    for r in range(obs.shape[0]):
        for i in range(20):
            out[r, i] = 0.0
        count = 0
        for c in range(52):
            if obs[r, hand_at + c] != 0.0:
                if count < 3:
                    hand[count] = c
                count += 1
        if count != 3:
            continue
        a, b, c = hand[0], hand[1], hand[2]
        key = keys[triple_index(a, b, c)]
        q = np.float64(percentile[key])
        out[r, 0] = q
        out[r, 1] = math.pow(q, opponents)
        if ship:
            category = 5 if key >= 100 else (1 if key > 0 else 0)
        else:
            category = key // 1000
        out[r, 2 + category] = 1.0
        tables = 0
        for s in range(3):
            at = table_at + 17 * s
            rank, suit, any_set = 0, 0, False
            for k in range(13):
                if obs[r, at + k] > obs[r, at + rank]:
                    rank = k
                any_set = any_set or obs[r, at + k] != 0.0
            for k in range(4):
                if obs[r, at + 13 + k] > obs[r, at + 13 + suit]:
                    suit = k
                any_set = any_set or obs[r, at + 13 + k] != 0.0
            if any_set:
                table[tables] = rank * 4 + suit
                tables += 1
        for k in range(52):
            seen[k] = obs[r, discarded_at + k] > 0
        for k in range(3):
            seen[hand[k]] = True
        for k in range(tables):
            seen[table[k]] = True
        n = 0
        for k in range(52):
            if not seen[k]:
                unseen[n] = k
                n += 1
        for i in range(3):  # the two cards kept when slot i goes: (1, 2), (0, 2), (0, 1)
            ka = hand[1] if i == 0 else hand[0]
            kb = hand[1] if i == 2 else hand[2]
            if n:
                total = 0.0
                for k in range(n):
                    total += percentile[keys[triple_index(ka, kb, unseen[k])]]
                out[r, 8 + i] = total / n
            if tables == 3:
                for j in range(3):
                    out[r, 11 + 3 * i + j] = percentile[keys[triple_index(ka, kb, table[j])]]


@njit(cache=True, inline="always")
def _count_hands(a, b, rest, start, n_rest, better, vt, pair_best, hist):
    """Counts in ``hist`` by value the hands ``a, b, rest[z]`` for ``z`` from ``start``: with
    ``better``, each is worth its best of keeping or one exchange with the table (``pair_best``)."""
    ab, pab = a * 2704 + b * 52, pair_best[a * 52 + b]
    for z in range(start, n_rest):
        c = rest[z]
        v = vt[ab + c]
        if better:
            v = max(v, pab, pair_best[a * 52 + c], pair_best[b * 52 + c])
        hist[v] += 1


@njit(cache=True)
def _beats(cands, rest, n_rest, known, m, better, vt, pair_best, hist, out):
    """For each candidate value, the chance that it beats one opponent's hand (ties half):
    the opponent holds the ``m`` cards of ``known`` and the rest from ``rest``, and if
    ``better`` makes his best exchange with the table (``pair_best``; WinModel._values).
    ``hist`` counts the opponent's hands by value; values are dense ranks, so it is short."""
    hist[:] = 0
    f = min(m, 3)
    if f == 3:
        a, b, c = known[0], known[1], known[2]
        v = vt[a * 2704 + b * 52 + c]
        if better:
            v = max(v, pair_best[b * 52 + c], pair_best[a * 52 + c], pair_best[a * 52 + b])
        hist[v] += 1
    elif f == 2:
        _count_hands(known[0], known[1], rest, 0, n_rest, better, vt, pair_best, hist)
    elif f == 1:
        for y in range(n_rest):
            _count_hands(known[0], rest[y], rest, y + 1, n_rest, better, vt, pair_best, hist)
    else:
        for x in range(n_rest):
            for y in range(x + 1, n_rest):
                _count_hands(rest[x], rest[y], rest, y + 1, n_rest, better, vt, pair_best, hist)
    total = 0
    for v in range(hist.shape[0]):  # hist[v] becomes the count of values below v
        count = hist[v]
        hist[v] = total
        total += count
    if total == 0:
        out[:] = 1.0
        return
    for i in range(cands.shape[0]):
        v = cands[i]
        if v < 0:
            out[i] = 0.0
        else:
            above = hist[v + 1] if v + 1 < hist.shape[0] else total
            out[i] = (hist[v] + 0.5 * (above - hist[v])) / total


@njit(cache=True)
def _pair_best(table, vt, out):
    """``out[u * 52 + w]``: the best value of the cards ``u`` and ``w`` kept with one of the
    table's cards.  The value table is symmetric, so where the table card goes does not matter."""
    for u in range(52):
        out[u * 52 + u] = -1
        for w in range(u + 1, 52):
            best = -1
            for t in range(3):
                best = max(best, vt[table[t] * 2704 + u * 52 + w])
            out[u * 52 + w] = best
            out[w * 52 + u] = best


@njit(cache=True)
def _odds_inputs(all_hands, seats, dealers, tables, known_cols, finished, knock, legal, pack,
                 hands, unseen, known, known_count, opponents, better):
    """Each row's hand, unseen cards and opponents (from the dealer's left, as the view's
    ``order``, R3.1): the cards known in each hand and whether he still draws (R8.2-R8.3)."""
    n = all_hands.shape[1]
    for r in range(all_hands.shape[0]):
        if not legal[r].any():
            continue
        seat = seats[r]
        full = True
        for t in range(3):
            full = full and tables[r, t] >= 0
        for c in range(52):
            unseen[r, c] = pack[c]
        for t in range(3):
            hands[r, t] = all_hands[r, seat, t]
            unseen[r, hands[r, t]] = False
            if tables[r, t] >= 0:
                unseen[r, tables[r, t]] = False
        o = 0
        for k in range(1, n + 1):
            s = (dealers[r] + k) % n
            if s == seat or all_hands[r, s, 0] < 0:
                continue
            j = (s - seat) % n  # his known-card columns and observation block, from the seat's left
            m = 0
            for c in range(52):
                if known_cols[r, j - 1, c]:
                    unseen[r, c] = False
                    if m < 3:
                        known[r, o, m] = c
                    m += 1
            known_count[r, o] = m
            better[r, o] = full and not knock[r] and not finished[r, j]
            o += 1
        opponents[r] = o


@njit(cache=True, parallel=True)
def _exchange_odds(hands, tables, unseen, known, known_count, opponents, better, legal, payout, life, vt, out):
    """Each row's 20 numbers (:class:`~commerce_env.features.ExchangeOdds`); rows in parallel."""
    top = vt.max()
    for r in prange(hands.shape[0]):
        for i in range(20):
            out[r, i] = 0.0
        if legal[r].any():
            _exchange_odds_row(r, hands, tables, unseen, known, known_count, opponents, better, legal,
                               payout, life, vt, top, out)


@njit(cache=True)
def _exchange_odds_row(r, hands, tables, unseen, known, known_count, opponents, better, legal, payout, life,
                       vt, top, out):
    """Row ``r``'s scores: each exchange's and keeping's chance against every opponent (WinModel),
    and in pool commerce the life the worst hand loses (R9.3); own scratch, so rows run in parallel."""
    rest = np.empty(52, np.int64)
    cands = np.empty(10, np.int64)
    beat = np.empty(10, np.float64)
    win = np.empty(10, np.float64)
    worst = np.empty(10, np.float64)
    shared = np.empty((2, 10), np.float64)
    pair_best = np.empty(2704, np.int64)
    hist = np.empty(top + 2, np.int64)
    hand, table = hands[r], tables[r]
    for e in range(9):
        own, slot = e // 3, e % 3
        h0, h1, h2 = hand[0], hand[1], hand[2]
        if own == 0:
            h0 = table[slot]
        elif own == 1:
            h1 = table[slot]
        else:
            h2 = table[slot]
        cands[e] = vt[h0 * 2704 + h1 * 52 + h2] if legal[r, e] else -1
    cands[9] = vt[hand[0] * 2704 + hand[1] * 52 + hand[2]]
    n_rest = 0
    for c in range(52):
        if unseen[r, c]:
            rest[n_rest] = c
            n_rest += 1
    done = np.zeros(2, np.bool_)  # the unknown opponents' beats, without and with the exchange credit
    if better[r].any():
        _pair_best(table, vt, pair_best)
    for i in range(10):
        win[i] = 1.0
        worst[i] = 1.0
    for o in range(opponents[r]):
        m, credit = known_count[r, o], better[r, o]
        if m == 0 and done[int(credit)]:
            for i in range(10):
                beat[i] = shared[int(credit), i]
        else:
            _beats(cands, rest, n_rest, known[r, o], m, credit, vt, pair_best, hist, beat)
            if m == 0:
                done[int(credit)] = True
                for i in range(10):
                    shared[int(credit), i] = beat[i]
        for i in range(10):
            win[i] = win[i] * beat[i]
            worst[i] = worst[i] * (1.0 - beat[i])
    stake = payout[r] + life[r]
    best, best_score = -1, -1.0
    for i in range(10):
        score = win[i] if stake <= 0 else (payout[r] * win[i] + life[r] * (1.0 - worst[i])) / stake
        if i < 9:
            if legal[r, i]:
                out[r, i] = score
                if score > best_score:
                    best, best_score = i, score
        else:
            out[r, 9] = score
            out[r, 10] = win[i]
    out[r, 11 + best] = 1.0


class BatchHandStrength:
    """``hand_strength`` (:class:`~commerce_env.features.HandStrength`) for a batch of vectors."""

    name = HandStrength.name
    size = HandStrength.size

    def __init__(self, rules: Rules, num_players: int):
        one = HandStrength(rules, num_players)
        self.percentile = one.percentile
        self.keys = ENGINES[rules.variant].value_table(rules.combinations)  # R2, or R7.4's values
        self.ship = one.ship
        self.opponents = one.opponents
        self.offsets = (one.hand_at, one.table_at, one.discarded_at)

    def __call__(self, vectors: np.ndarray) -> np.ndarray:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        out = np.empty((len(vectors), self.size), dtype=np.float32)
        _hand_strength(vectors, out, self.keys, self.percentile, self.opponents, self.ship, *self.offsets)
        return out


class BatchKnownHands:
    """:class:`commerce_env.features.KnownHands` for a batch: the engine's record of the cards each
    seat knows to be in the other hands (:meth:`BatchEngine.known_cards`), not the vectors."""

    name = "known_hands"
    needs_view = True

    def __init__(self, rules: Rules, num_players: int):
        self.size = 52 * (num_players - 1)

    def __call__(self, vectors: np.ndarray, engine=None, games: np.ndarray | None = None,
                 seats: np.ndarray | None = None) -> np.ndarray:
        if engine is None or seats is None:
            raise ValueError(f"the feature {self.name!r} reads the batched engine: give engine, games and seats")
        return engine.known_cards(seats, games)


_STOOD, _PASSED = PLAYER_FIELDS.index("stood"), PLAYER_FIELDS.index("passed")


class BatchExchangeOdds:
    """:class:`commerce_env.features.ExchangeOdds` for a batch: the same 20 numbers (equal up to
    float32 rounding), from the batched engine's hands, table, known cards, lives and pool."""

    name = "exchange_odds"
    needs_view = True
    size = ExchangeOdds.size

    def __init__(self, rules: Rules, num_players: int):
        ExchangeOdds(rules, num_players)  # the same checks
        self.rules, self.num_players = rules, num_players
        self.engine_class = ENGINES[rules.variant]
        values = np.asarray(self.engine_class.value_table(rules.combinations)).ravel()
        # Only the order of values matters: dense ranks keep it, and a short int16 table stays in cache.
        self.values = np.unique(values, return_inverse=True)[1].astype(np.int16)
        self.pack = np.zeros(52, np.bool_)
        self.pack[list(make_pack(rules.deck_size))] = True
        self.players_at = {name: start for name, start, _ in observation_layout(num_players)}["players"]

    def __call__(self, vectors: np.ndarray, engine=None, games: np.ndarray | None = None,
                 seats: np.ndarray | None = None) -> np.ndarray:
        if engine is None or seats is None:
            raise ValueError(f"the feature {self.name!r} reads the batched engine: give engine, games and seats")
        games = np.arange(engine.num_games) if games is None else np.asarray(games)
        seats = np.broadcast_to(np.asarray(seats), games.shape)
        rows, n = len(games), self.num_players
        out = np.zeros((rows, ExchangeOdds.size), dtype=np.float32)
        to_act = engine.current_player[games] == seats
        legal = engine.action_mask[games][:, EXCHANGE:EXCHANGE + 9].astype(np.bool_) & to_act[:, None]
        if not legal.any():
            return out
        knock = engine.action_mask[games][:, KNOCK].astype(np.bool_)
        tables = engine.table[games].astype(np.int64)
        known_cols = engine.known_cards(seats, games).reshape(rows, n - 1, 52) > 0
        # R8.2: who stood or passed takes no further turns (a widow pass lets one turn go, R6.3)
        blocks = self.players_at + np.arange(n) * PLAYER_FEATURES
        finished = (vectors[:, blocks + _STOOD] > 0) | (vectors[:, blocks + _PASSED] > 0)
        finished &= self.engine_class.pass_ends_turns
        hands = np.zeros((rows, 3), np.int64)
        unseen = np.zeros((rows, 52), np.bool_)
        known = np.zeros((rows, n - 1, 3), np.int64)
        known_count = np.zeros((rows, n - 1), np.int64)
        opponents = np.zeros(rows, np.int64)
        better = np.zeros((rows, n - 1), np.bool_)
        dealers = engine.dealer[games].astype(np.int64)
        _odds_inputs(engine.hands[games].astype(np.int64), seats.astype(np.int64), dealers, tables, known_cols,
                     finished, knock, legal, self.pack, hands, unseen, known, known_count, opponents, better)
        payout = np.zeros(rows, np.float64)
        life = np.zeros(rows, np.float64)
        if self.engine_class.plays_for_money:  # R9.3: the payout and the life the worst hand gives up
            pools, counters = engine.pool[games], engine.counters()[games]
            for r in np.flatnonzero(legal.any(axis=1)):
                pool = int(pools[r])
                payout[r] = float(min(self.rules.payout, pool))
                life[r] = _life_value(tuple(counters[r].tolist()), int(seats[r]), pool)
        _exchange_odds(hands, tables, unseen, known, known_count, opponents, better, legal,
                       payout, life, self.values, out)
        return out


class BatchExchangeChoice(BatchExchangeOdds):
    """:class:`commerce_env.features.ExchangeChoice` for a batch: the one-hot columns of the odds."""

    name = "exchange_choice"
    size = 9

    def __call__(self, vectors: np.ndarray, engine=None, games: np.ndarray | None = None,
                 seats: np.ndarray | None = None) -> np.ndarray:
        return np.ascontiguousarray(super().__call__(vectors, engine, games, seats)[:, 11:])


BATCH_FEATURES = {BatchHandStrength.name: BatchHandStrength, BatchKnownHands.name: BatchKnownHands,
                  BatchExchangeOdds.name: BatchExchangeOdds, BatchExchangeChoice.name: BatchExchangeChoice}


def batch_feature_builders(names, rules: Rules, num_players: int) -> list:
    """The batched versions of the features named by ``names``."""
    unknown = [n for n in names if n not in BATCH_FEATURES]
    if unknown or isinstance(names, str):
        raise ValueError(f"unknown observation features {unknown or names!r}; choose from {', '.join(BATCH_FEATURES)}")
    return [BATCH_FEATURES[n](rules, num_players) for n in names]


def with_features(vectors: np.ndarray, builders: list, engine=None, games: np.ndarray | None = None,
                  seats: np.ndarray | None = None) -> np.ndarray:
    """The vectors with every feature's columns appended; a view feature reads the ``engine``'s
    ``games`` for their ``seats``."""
    if not builders:
        return vectors
    return np.concatenate([vectors, *(f(vectors, engine, games, seats) if getattr(f, "needs_view", False)
                                      else f(vectors) for f in builders)], axis=1)
