"""What a player observes, as a fixed-length float vector (RULES.md R11).

The layout (version :data:`LAYOUT_VERSION`) is the same in every variant for a
given number of players; sections are listed by :func:`layout`.  Seats are
relative: block 0 of the per-player section is the observer, block 1 his left
neighbour, and so on.  Nothing here reads a card the observer has not seen:
his own hand (unless he is the widow dealer before his blind choice, R6.2),
the face-up table, and the cards that passed through his own hands.
"""

from __future__ import annotations

import numpy as np

from .engine import actions as A
from .engine.base import HORSE, PHASES, REPLY, Game

LAYOUT_VERSION = 1
CARD_FEATURES = 17  # 13 ranks + 4 suits
PLAYER_FEATURES = 7 + len(A.KINDS) + 1
SCALE = 0.1  # counters and money are given in tens

_SECTIONS = (
    ("hand", 52), ("hand_slots", 3 * CARD_FEATURES), ("table_slots", 3 * CARD_FEATURES),
    ("gave_left", 52), ("gave_right", 52), ("discarded", 52), ("phase", len(PHASES)),
    ("flags", 6),
)
PLAYER_FIELDS = ("counters", "money", "out", "dealer", "to_act", "stood", "passed") + tuple(
    f"last_{k}" for k in A.KINDS) + ("last_none",)


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
_PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}


def _card_slots(vector: np.ndarray, start: int, cards: list[int]) -> None:
    for i, card in enumerate(cards):
        base = start + i * CARD_FEATURES
        vector[base + (card >> 2)] = 1.0
        vector[base + 13 + (card & 3)] = 1.0


def encode(game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``seat`` (R11)."""
    n = game.num_players
    vector = np.zeros(observation_size(n), dtype=np.float32) if out is None else out
    if out is not None:
        vector.fill(0.0)
    hand = game.hands[seat]
    if hand and game.sees_own_hand(seat):
        vector[hand] = 1.0
        _card_slots(vector, _OFFSETS["hand_slots"], hand)
    _card_slots(vector, _OFFSETS["table_slots"], game.table)
    if game.gave[seat]:
        left = game.left_of(seat) if seat in game.position else -1
        for card, to in game.gave[seat]:
            vector[(_OFFSETS["gave_left"] if to == left else _OFFSETS["gave_right"]) + card] = 1.0
    for card in game.discarded[seat]:
        vector[_OFFSETS["discarded"] + card] = 1.0
    vector[_OFFSETS["phase"] + _PHASE_INDEX[game.phase]] = 1.0
    flags = _OFFSETS["flags"]
    vector[flags] = float(bool(hand) and game.sees_own_hand(seat))
    vector[flags + 1] = float(game.phase == REPLY and game.to_act == seat)
    vector[flags + 2] = len(game.stock) / 52.0
    vector[flags + 3] = game.pool * SCALE
    vector[flags + 4] = game.rounds_done / game.rules.max_rounds
    vector[flags + 5] = float(game.phase == HORSE)
    stood = getattr(game, "stood", ())
    passed = getattr(game, "passed", ())
    for k in range(n):
        other = (seat + k) % n
        base = _PLAYERS + k * PLAYER_FEATURES
        vector[base] = game.counters[other] * SCALE
        vector[base + 1] = game.money[other] * SCALE
        vector[base + 2] = float(game.out[other])
        vector[base + 3] = float(other == game.dealer)
        vector[base + 4] = float(other == game.to_act)
        vector[base + 5] = float(other in stood)
        vector[base + 6] = float(other in passed)
        vector[base + 7 + game.last_kind[other]] = 1.0  # -1 (nothing yet) is the last slot
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
