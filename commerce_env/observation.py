"""What a player observes, as a fixed-length float vector (docs/rules.md R11).

The layout (version :data:`LAYOUT_VERSION`) is the same in every variant for a
given number of players; sections are listed by :func:`layout`.  Seats are
relative: block 0 of the per-player section is the observer, block 1 his left
neighbour, and so on.  Nothing here reads a card the observer has not seen:
his own hand (unless he is the widow dealer before his blind choice, R6.2),
the face-up table, and the cards that passed through his own hands.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from .engine.actions import KINDS, NUM_ACTIONS
from .engine.base import HORSE, PHASES, REPLY, Game
from .knowledge import deal_memories

# The layout's versions; a model file records the one it was trained on (agents.model_files).
# 1: a player who had done nothing yet in the deal set `passed` (the index -1 of his last kind fell there).
# 2: he sets `last_none`, and `passed` means a pass (R6.3, R8.2).  The vector's size is unchanged.
LAYOUT_VERSION = 2
LAYOUT_VERSIONS = (1, 2)
CARD_FEATURES = 17  # 13 ranks + 4 suits
PLAYER_FEATURES = 7 + len(KINDS) + 1
SCALE = 0.1  # counters and money are given in tens

_SECTIONS = (
    ("hand", 52), ("hand_slots", 3 * CARD_FEATURES), ("table_slots", 3 * CARD_FEATURES),
    ("gave_left", 52), ("gave_right", 52), ("discarded", 52), ("phase", len(PHASES)),
    ("flags", 6),
)
_NO_KIND = len(KINDS)  # the `last_none` field, after the kinds
PLAYER_FIELDS = ("counters", "money", "out", "dealer", "to_act", "stood", "passed") + tuple(
    f"last_{k}" for k in KINDS) + ("last_none",)


def layout(num_players: int) -> list[tuple[str, int, int]]:
    """``(name, start, length)`` of each section of the observation vector."""
    out, start = [], 0
    for name, length in (*_SECTIONS, ("players", num_players * PLAYER_FEATURES)):
        out.append((name, start, length))
        start += length
    return out


def observation_size(num_players: int) -> int:
    name, start, length = layout(num_players)[-1]
    return start + length


_OFFSETS = {name: start for name, start, _ in layout(2)}
_PLAYERS = _OFFSETS["players"]
_PASSED, _LAST_NONE = PLAYER_FIELDS.index("passed"), PLAYER_FIELDS.index("last_none")
_SIZES = [observation_size(n) if n >= 2 else 0 for n in range(13)]


def known_layout(version: object) -> bool:
    """Whether ``version`` (as a model file gives it) is one of :data:`LAYOUT_VERSIONS`."""
    return type(version) is int and version in LAYOUT_VERSIONS


def as_layout(vectors: np.ndarray, version: int, num_players: int) -> np.ndarray:
    """Observations of this layout (one vector, or a batch of them) as layout ``version`` gave them:
    what a model trained on that layout was fed.  A new array; ``vectors`` is left alone."""
    if not known_layout(version):
        raise ValueError(f"unknown observation layout version {version!r}; known: {LAYOUT_VERSIONS}")
    out = np.array(vectors, dtype=np.float32)
    if out.shape[-1] != _SIZES[num_players]:
        raise ValueError(f"observations of size {out.shape[-1]}, not {_SIZES[num_players]} "
                         f"for {num_players} players")
    if version == 1:  # `last_none` was never set: a player who had done nothing yet set `passed`
        blocks = _PLAYERS + PLAYER_FEATURES * np.arange(num_players)
        out[..., blocks + _PASSED] = np.maximum(out[..., blocks + _PASSED], out[..., blocks + _LAST_NONE])
        out[..., blocks + _LAST_NONE] = 0.0
    return out


# Speed (benchmarks/, docs/performance.md): an observation is built as a list
# of the positions that hold 1.0 plus a few scalars, written into the vector in
# one numpy call each; writing numpy elements one at a time costs more than all
# the rest.  These tables give the positions a card lights up in each slot.
def _slot_positions(start: int) -> list[list[tuple[int, int]]]:
    """``[slot][card]`` -> the rank and suit positions of ``card`` in ``slot``."""
    return [[(start + i * CARD_FEATURES + (card >> 2), start + i * CARD_FEATURES + 13 + (card & 3))
             for card in range(52)] for i in range(3)]


_HAND_SLOTS = _slot_positions(_OFFSETS["hand_slots"])
_TABLE_SLOTS = _slot_positions(_OFFSETS["table_slots"])
_GAVE_LEFT, _GAVE_RIGHT, _DISCARDED = _OFFSETS["gave_left"], _OFFSETS["gave_right"], _OFFSETS["discarded"]
_PHASE_POSITION = {phase: _OFFSETS["phase"] + i for i, phase in enumerate(PHASES)}
_FLAGS = _OFFSETS["flags"]


def encode(game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``seat`` (R11)."""
    n = game.num_players
    vector = np.zeros(_SIZES[n], dtype=np.float32) if out is None else out
    if out is not None:
        vector.fill(0.0)
    ones: list[int] = [_PHASE_POSITION[game.phase]]  # positions set to 1.0
    hand = game.hands[seat]
    sees_hand = bool(hand) and game.sees_own_hand(seat)
    if sees_hand:
        ones += hand
        for slot, card in enumerate(hand):
            ones += _HAND_SLOTS[slot][card]
    for slot, card in enumerate(game.table):
        ones += _TABLE_SLOTS[slot][card]
    memory = deal_memories(game)[seat]  # R11: the cards that passed through his hands (each once)
    if memory is not None:
        if memory.gave_once:
            left = game.left_of(seat) if seat in game.position else -1
            for card, to in memory.gave_once:
                ones.append((_GAVE_LEFT if to == left else _GAVE_RIGHT) + card)
        for card in memory.discarded_once:
            ones.append(_DISCARDED + card)
    if sees_hand:
        ones.append(_FLAGS)
    to_act = game.current_player
    if to_act == seat and game.phase == REPLY:
        ones.append(_FLAGS + 1)
    if game.phase == HORSE:
        ones.append(_FLAGS + 5)
    # Scalars: (position, value) pairs; zeros may be left out.
    places = [_FLAGS + 2, _FLAGS + 3, _FLAGS + 4]
    values = [len(game.stock) / 52.0, game.pool * SCALE, game.rounds_done / game.rules.max_rounds]
    stood = getattr(game, "stood", ())
    passed = getattr(game, "passed", ())
    counters, money, out_, last_kind, dealer = game.counters, game.money, game.out, game.last_kind, game.dealer
    base = _PLAYERS
    for k in range(n):
        other = (seat + k) % n
        places.append(base)
        values.append(counters[other] * SCALE)
        if money[other]:
            places.append(base + 1)
            values.append(money[other] * SCALE)
        if out_[other]:
            ones.append(base + 2)
        if other == dealer:
            ones.append(base + 3)
        if other == to_act:
            ones.append(base + 4)
        if other in stood:
            ones.append(base + 5)
        if other in passed:
            ones.append(base + 6)
        kind = last_kind[other]
        ones.append(base + 7 + (kind if kind >= 0 else _NO_KIND))  # nothing done yet: `last_none`
        base += PLAYER_FEATURES
    vector.put(ones, 1.0)
    vector.put(places, values)
    return vector


def state_size(num_players: int) -> int:
    return observation_size(num_players) + num_players * 52 + 52 * 3


def encode_state(game: Game) -> np.ndarray:
    """The full state for centralised critics: seat 0's public view plus every
    hand (by absolute seat), the table, the stock and the discards."""
    n = game.num_players
    vector = np.zeros(state_size(n), dtype=np.float32)
    public = observation_size(n)
    encode(game, 0, vector[:public])
    for seat, hand in enumerate(game.hands):
        if hand:
            vector[public + seat * 52 + np.asarray(hand)] = 1.0
    base = public + n * 52
    for offset, cards in ((0, game.table), (52, game.stock), (104, game.discards)):
        if cards:
            vector[base + offset + np.asarray(cards)] = 1.0
    return vector


_MASKS: dict[tuple[int, ...], np.ndarray] = {}


def action_mask(game: Game, seat: int) -> np.ndarray:
    """The int8 mask of ``seat``'s legal actions: all zeros unless it is his turn.

    A fresh copy of a cached array per set of legal actions: faster than building it.
    """
    if game.current_player != seat:
        return np.zeros(NUM_ACTIONS, dtype=np.int8)
    legal = game.legal_actions()
    key = tuple(legal)
    mask = _MASKS.get(key)
    if mask is None:
        mask = _MASKS[key] = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[legal] = 1
    return mask.copy()


class SeatObservation(Mapping):
    """The AEC env's observation dict of one seat, ``{"observation", "action_mask"}``,
    computed on first access (heuristic agents never read the vector)."""

    def __init__(self, game: Game, seat: int):
        self.game, self.seat = game, seat
        self._vector: np.ndarray | None = None

    def __getitem__(self, key: str) -> np.ndarray:
        if key == "observation":
            if self._vector is None:
                self._vector = encode(self.game, self.seat)
            return self._vector
        if key == "action_mask":
            return action_mask(self.game, self.seat)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(("observation", "action_mask"))

    def __len__(self) -> int:
        return 2
