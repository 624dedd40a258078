"""Three-card hands and their order (docs/rules.md R2).

Every hand value is a small int key ``category * 1000 + tie-break``; a higher
key is a better hand and equal keys tie (R2.6).  Keys for every ordered triple
of the 52 cards are precomputed once per set of combinations (numpy, a few ms),
so evaluating a hand is one list lookup and a batch is one fancy index.  The
32-card pack needs no table of its own: its only difference, that A 2 3 is no
sequence (R2.2), cannot arise without a 2 and a 3.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from functools import total_ordering

import numpy as np

from .cards import RANK_PIPS, Card, parse_cards

CATEGORIES = ("none", "point", "pair", "flush", "sequence", "tricon")
"""Categories from worst to best; the index is the category's rank (R2)."""
COMBINATIONS = ("tricon", "sequence", "flush", "pair", "point")
ALWAYS_COUNTED = frozenset({"tricon", "sequence", "point"})
OPTIONAL = ("flush", "pair")
_PIPS = np.array(RANK_PIPS, dtype=np.int64)
_ALL_COMBINATIONS = frozenset(COMBINATIONS)


def normalize_combinations(combinations: Iterable[str] | str | None) -> frozenset[str]:
    """The set of counted combinations; tricon, sequence and point always count (R2)."""
    if combinations is None:
        return _ALL_COMBINATIONS
    text = combinations if isinstance(combinations, str) else None
    if text is not None:
        combinations = text.replace(",", " ").split()
    try:
        given = list(combinations)
    except TypeError:
        raise TypeError(f"combinations must be a list of names, got {combinations!r}") from None
    names = [str(name).strip().lower() for name in given]
    for name, as_given in zip(names, given, strict=True):
        if name not in COMBINATIONS:  # named as the caller wrote it, and the text it was in
            where = "" if text is None else f" in {text!r}"
            raise ValueError(f"unknown combination {as_given!r}{where}; choose from {', '.join(COMBINATIONS)}")
    return frozenset(names) | ALWAYS_COUNTED


def _table_index(combinations: frozenset[str]) -> int:
    return ("flush" in combinations) * 2 + ("pair" in combinations)


def hand_keys(cards: np.ndarray, flush: bool, pair: bool) -> np.ndarray:
    """Vectorised R2 keys for an ``(N, 3)`` int array of cards (0..51)."""
    cards = np.asarray(cards, dtype=np.int64)
    ranks, suits = cards >> 2, cards & 3
    pips = _PIPS[ranks]
    low, mid, high = np.sort(ranks, axis=1).T
    s0, s1, s2 = suits.T
    p0, p1, p2 = pips.T

    one_suit = (s0 == s1) & (s1 == s2)
    tricon = (low == high)
    run = (mid == low + 1) & (high == mid + 1)
    ace_low = (low == 0) & (mid == 1) & (high == 12)  # A 2 3 (R2.2)
    sequence = one_suit & (run | ace_low)
    sequence_top = np.where(ace_low, 1, high)
    is_pair = ~tricon & ((low == mid) | (mid == high))
    odd = np.where(low == mid, high, low)

    # R2.5 point: pips of the longest suit group of two or three cards.
    pair01, pair02, pair12 = s0 == s1, s0 == s2, s1 == s2
    point_pips = np.select(
        [one_suit, pair01, pair02, pair12], [p0 + p1 + p2, p0 + p1, p0 + p2, p1 + p2], 0
    )
    has_point = one_suit | pair01 | pair02 | pair12
    point_key = np.where(has_point, 1000 + point_pips * 2 + one_suit, 0)

    key = point_key
    if pair:
        key = np.where(is_pair, 2000 + mid * 13 + odd, key)
    if flush:
        key = np.where(one_suit, 3000 + p0 + p1 + p2, key)
    key = np.where(sequence, 4000 + sequence_top, key)
    key = np.where(tricon, 5000 + high, key)
    return key


def category_index(key):
    """The index in :data:`CATEGORIES` of a hand key's category (R2): a key is
    ``category * 1000 + tie-break``.  Plain arithmetic on ints or numpy arrays, so that the
    batched kernels compile this very function (commerce_env.vector.hands)."""
    return key // 1000


def table_index(a, b, c):
    """The index of the ordered cards ``(a, b, c)`` in :func:`key_array`'s table (ints or arrays)."""
    return a * 2704 + b * 52 + c


def _build_table(index: int) -> np.ndarray:
    """The keys of all 52**3 ordered triples for one table index.

    Memory (docs/performance.md): a key does not depend on the order of the
    cards, so it is computed once for each of the 24,804 multisets of three
    cards (repeated cards included, as every entry of the table is defined)
    and copied to all their orders, instead of computing 52**3 rows at once.
    """
    multisets = itertools.combinations_with_replacement(range(52), 3)
    triples = np.fromiter(itertools.chain.from_iterable(multisets), dtype=np.int64).reshape(-1, 3)
    keys = hand_keys(triples, flush=bool(index & 2), pair=bool(index & 1))
    table = np.empty(52 ** 3, dtype=np.int64)
    for a, b, c in itertools.permutations(triples.T):
        table[table_index(a, b, c)] = keys
    return table


_KEY_ARRAYS: list[np.ndarray | None] = [None] * 4
_KEY_LISTS: list[list[int] | None] = [None] * 4


def key_array(combinations: frozenset[str]) -> np.ndarray:
    """The 52**3 table of keys, indexed by ``a * 2704 + b * 52 + c`` (built on first use)."""
    index = _table_index(combinations)
    table = _KEY_ARRAYS[index]
    if table is None:
        table = _KEY_ARRAYS[index] = _build_table(index)
    return table


def key_list(combinations: frozenset[str]) -> list[int]:
    """The same table as a Python list: the fastest lookup for one hand.

    Equal keys share one int object (a plain ``tolist()`` would make 140,608
    of them, some 4 MB per table).
    """
    index = _table_index(combinations)
    table = _KEY_LISTS[index]
    if table is None:
        table = _KEY_LISTS[index] = _shared_int_list(key_array(combinations))
    return table


def _shared_int_list(array: np.ndarray) -> list[int]:
    """``array.tolist()`` for a table of small non-negative ints, equal values sharing one object."""
    ints = list(range(int(array.max()) + 1))
    table: list[int] = []
    for start in range(0, array.size, 4096):  # in chunks: no 140,608 temporary ints at once
        table += map(ints.__getitem__, array[start:start + 4096].tolist())
    return table


_LIST_OF: dict[frozenset[str], list[int]] = {}  # speed: one dict lookup per hand


def hand_key(cards: Sequence[int], combinations: frozenset[str]) -> int:
    """The R2 key of a three-card hand (higher is better, equal ties)."""
    a, b, c = cards
    table = _LIST_OF.get(combinations) if type(combinations) is frozenset else None
    if table is None:
        table = key_list(combinations)
        if type(combinations) is frozenset:
            _LIST_OF[combinations] = table
    return table[table_index(a, b, c)]


@total_ordering
class HandValue:
    """A hand's value under a set of combinations: totally ordered (R2)."""

    __slots__ = ("key",)

    def __init__(self, key: int):
        self.key = int(key)

    @property
    def category(self) -> str:
        """``tricon``, ``sequence``, ``flush``, ``pair``, ``point`` or ``none``."""
        return CATEGORIES[category_index(self.key)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HandValue) and self.key == other.key

    def __lt__(self, other: HandValue) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key < other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"HandValue({self.category}, {self.key % 1000})"


_CARD_TYPES = frozenset({int, Card})


def _three_cards(cards: Sequence[int] | str) -> tuple[int, int, int]:
    if type(cards) is tuple and len(cards) == 3:  # speed: the usual case, checked in one expression
        a, b, c = cards
        if (type(a) in _CARD_TYPES and type(b) in _CARD_TYPES and type(c) in _CARD_TYPES
                and 0 <= a < 52 and 0 <= b < 52 and 0 <= c < 52 and a != b and a != c and b != c):
            return cards
    if not isinstance(cards, Iterable):
        raise TypeError(f"a hand is three cards (texts or Card objects), got {cards!r}")
    if isinstance(cards, str) or any(isinstance(card, str) for card in cards):
        cards = parse_cards(cards)  # "AS KS QS" or ["AS", "KS", "QS"] (R1.3)
    cards = tuple(cards)
    if len(cards) != 3:
        raise ValueError(f"a hand has three cards, got {len(cards)}: {cards!r}")
    if len(set(cards)) != 3:
        raise ValueError(f"a hand cannot hold the same card twice: {cards!r}")
    for card in cards:
        if not isinstance(card, (int, np.integer)) or not 0 <= card < 52:
            raise ValueError(f"bad card {card!r}")
    return cards  # type: ignore[return-value]


def evaluate(cards: Sequence[int] | Sequence[str] | str, combinations: Iterable[str] | None = None) -> HandValue:
    """Value of a three-card hand under ``combinations`` (default: all five, R2).

    ``cards`` are :class:`~commerce_env.cards.Card` objects (or their indices), or texts (R1.3).
    """
    return HandValue(hand_key(_three_cards(cards), normalize_combinations(combinations)))


def evaluate_batch(hands: np.ndarray, combinations: Iterable[str] | None = None) -> np.ndarray:
    """Keys (as in :class:`HandValue`) for an ``(N, 3)`` array of card indices."""
    hands = np.asarray(hands)
    if hands.ndim != 2 or hands.shape[1] != 3:
        raise ValueError(f"expected an (N, 3) array of cards, got shape {hands.shape}")
    if hands.size and (hands.min() < 0 or hands.max() > 51):
        raise ValueError("card indices must lie in 0..51")
    table = key_array(normalize_combinations(combinations))
    hands = hands.astype(np.intp, copy=False)
    return table[table_index(hands[:, 0], hands[:, 1], hands[:, 2])]


def keys_of(a: np.ndarray, b: np.ndarray, c: np.ndarray, combinations: frozenset[str]) -> np.ndarray:
    """R2 keys of the hands ``(a[i], b[i], c[i])``, in any order of their cards (no checks)."""
    return key_array(combinations)[table_index(a, b, c)]


def ship_key(cards: Sequence[int]) -> int:
    """My Ship Sails value (R7.4): a three-card flush by pips above any two-card group."""
    a, b, c = cards
    sa, sb, sc = a & 3, b & 3, c & 3
    pa, pb, pc = RANK_PIPS[a >> 2], RANK_PIPS[b >> 2], RANK_PIPS[c >> 2]
    if sa == sb == sc:
        return 100 + pa + pb + pc
    if sa == sb:
        return pa + pb
    if sa == sc:
        return pa + pc
    if sb == sc:
        return pb + pc
    return 0


_PIPS = np.array(RANK_PIPS, dtype=np.int64)


def ship_keys(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """:func:`ship_key` of the hands ``(a[i], b[i], c[i])`` (R7.4)."""
    sa, sb, sc = a & 3, b & 3, c & 3
    pa, pb, pc = _PIPS[a >> 2], _PIPS[b >> 2], _PIPS[c >> 2]
    return np.select([(sa == sb) & (sb == sc), sa == sb, sa == sc, sb == sc],
                     [100 + pa + pb + pc, pa + pb, pa + pc, pb + pc], 0)


_SHIP_ARRAY: list[np.ndarray] = []


def ship_key_array() -> np.ndarray:
    """:func:`ship_key` of all 52**3 ordered triples, indexed as :func:`key_array` (built on first use)."""
    if not _SHIP_ARRAY:
        cards = np.arange(52)
        a, b, c = (x.ravel() for x in np.meshgrid(cards, cards, cards, indexing="ij"))
        _SHIP_ARRAY.append(ship_keys(a, b, c).astype(np.int64))
    return _SHIP_ARRAY[0]


_SHIP_LIST: list[list[int]] = []


def ship_key_list() -> list[int]:
    """:func:`ship_key_array` as a Python list, like :func:`key_list` (built on first use)."""
    if not _SHIP_LIST:
        _SHIP_LIST.append(_shared_int_list(ship_key_array()))
    return _SHIP_LIST[0]


def is_ship(cards: Sequence[int]) -> bool:
    """A three-card flush, sequences included (R7.3)."""
    a, b, c = cards
    return (a & 3) == (b & 3) == (c & 3)
