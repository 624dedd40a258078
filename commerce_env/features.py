"""Extra observation features, computed from a seat's observation vector alone (R11-safe).

They sit beside :mod:`commerce_env.observation`: the single-agent env and the
batched VecEnv append them to the observation, and a learned model rebuilds
them at play time from the same vector (:class:`agents.learned.LearnedAgent`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from . import observation as obs
from .engine.actions import EXCHANGE
from .rules import Rules


class HandStrength:
    """Extra observation features computed from the observation vector alone (R11-safe).

    ``hand_strength`` appends 20 numbers to the AEC observation: the hand's
    percentile among all 22,100 hands (``q``) and ``q ** (players - 1)``, its
    R2 category (one-hot of 6), the mean percentile after replacing each of
    its three cards by an unseen card (3), and the percentile after each of
    the nine exchanges with the face-up table (9, zero without a table).  It
    reads only the observer's hand, the face-up table and its own discards
    from the vector, so a model can rebuild it at play time
    (:class:`agents.learned.LearnedAgent`).  The key tables are the engine's.
    """

    name = "hand_strength"
    size = 20

    def __init__(self, rules: Rules, num_players: int):
        from itertools import combinations

        from .engine import ENGINES
        engine = ENGINES[rules.variant]  # the variant's hand values (R2, or R7.4 in My Ship Sails)
        self.ship = engine.flush_ends_deal  # R7.4's categories: none, a two-card group, a ship
        self._values_of, self._combinations = engine.values_of, rules.combinations
        triples = np.array(list(combinations(range(52), 3)), dtype=np.intp)
        sorted_keys = np.sort(self.keys(triples[:, 0], triples[:, 1], triples[:, 2]))
        # percentile of every possible key among all hands (ties count half): one lookup per hand
        values = np.arange(int(sorted_keys[-1]) + 1)
        below = np.searchsorted(sorted_keys, values, side="left")
        above = np.searchsorted(sorted_keys, values, side="right")
        self.percentile = ((below + above) / (2.0 * len(sorted_keys))).astype(np.float32)
        self.opponents = num_players - 1
        sections = {name: start for name, start, _ in obs.layout(num_players)}
        self.hand_at, self.table_at = sections["hand"], sections["table_slots"]
        self.discarded_at = sections["discarded"]

    def keys(self, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        """The hand values of ``(a[i], b[i], c[i])``, from the variant's engine."""
        return self._values_of(a, b, c, self._combinations)

    def __call__(self, vector: np.ndarray) -> np.ndarray:
        out = np.zeros(self.size, dtype=np.float32)
        hand = np.flatnonzero(vector[self.hand_at:self.hand_at + 52])
        if len(hand) != 3:
            return out
        key = int(self.keys(hand[0:1], hand[1:2], hand[2:3])[0])
        q = float(self.percentile[key])
        out[0], out[1] = q, q ** self.opponents
        category = (5 if key >= 100 else int(key > 0)) if self.ship else key // 1000
        out[2 + category] = 1.0
        slots = vector[self.table_at:self.table_at + 51].reshape(3, 17)
        table = [int(np.argmax(s[:13])) * 4 + int(np.argmax(s[13:])) for s in slots if s.any()]
        seen = vector[self.discarded_at:self.discarded_at + 52] > 0
        seen[hand] = True
        seen[table] = True
        unseen = np.flatnonzero(~seen)
        kept_a, kept_b = hand[[1, 0, 0]], hand[[2, 2, 1]]  # the two cards kept when slot 0, 1, 2 goes
        n = len(unseen)
        if n:
            keys = self.keys(np.repeat(kept_a, n), np.repeat(kept_b, n), np.tile(unseen, 3))
            out[8:11] = self.percentile[keys].reshape(3, n).mean(axis=1)
        if len(table) == 3:  # own slot i for table slot j at 11 + 3i + j
            keys = self.keys(np.repeat(kept_a, 3), np.repeat(kept_b, 3), np.tile(np.asarray(table), 3))
            out[11:20] = self.percentile[keys]
        return out


class KnownHands:
    """The cards the seat knows to be in each other player's hand now (``view.public_hands``, R11).

    ``known_hands`` appends 52 indicators per other player, from the seat's left
    (the order of the observation's player blocks): table cards he took (R6.3,
    R8.2), the widow he took (R6.2), a card this seat bartered to him until he
    makes a face-down move (R5.4, R7.2), his shown hand after a showdown.  The
    observation vector holds only the table as it is now, so this is what a
    learned model cannot rebuild from it: the feature reads the seat's view.
    It is a *view feature* (``needs_view``): called with the vector and the
    :class:`commerce_env.view.SeatView`; the batched engine gives the same
    columns (``BatchEngine.known_cards``).
    """

    name = "known_hands"
    needs_view = True

    def __init__(self, rules: Rules, num_players: int):
        self.num_players = num_players
        self.size = 52 * (num_players - 1)

    def __call__(self, vector: np.ndarray, view: object = None) -> np.ndarray:
        hands = getattr(view, "public_hands", None)
        if hands is None:
            raise ValueError(f"the feature {self.name!r} reads the seat's view (its public_hands, R11); "
                             f"give a commerce_env.view.SeatView, not {type(view).__name__}")
        out = np.zeros(self.size, dtype=np.float32)
        n, seat = self.num_players, view.seat
        for j in range(1, n):
            for card in hands[(seat + j) % n]:
                out[(j - 1) * 52 + card] = 1.0
        return out


class ExchangeOdds:
    """What ``expected_value`` weighs at the face-up table (R6.3-R6.4, R8.2-R8.3, R9.3).

    ``exchange_odds`` appends 20 numbers, from the seat's view
    (:func:`commerce_env.odds.exchange_outlook`): the showdown score of each of
    the nine exchanges (own card ``i`` for table card ``j`` at ``3i + j``, as
    the actions), that of keeping the hand, the chance that the hand as it is
    wins, and a one-hot of the exchange with the best score (the first of
    equals), the one ``expected_value`` makes when it exchanges.  The score is
    the chance to win against what the others will hold at the showdown; in
    pool commerce it also weighs the life the worst hand loses (R9.3).  All
    zero when the seat has no exchange to make.  Only for the variants with a
    face-up table; a *view feature*, like :class:`KnownHands`.
    """

    name = "exchange_odds"
    needs_view = True
    size = 20

    def __init__(self, rules: Rules, num_players: int):
        from .engine import ENGINES

        if not ENGINES[rules.variant].has_table:
            raise ValueError(f"the feature {self.name!r} reads the face-up table (the widow game, the old game, "
                             f"pool commerce); the variant {rules.variant!r} has none")

    def __call__(self, vector: np.ndarray, view: object = None) -> np.ndarray:
        from .odds import exchange_outlook

        if not hasattr(view, "legal_actions"):
            raise ValueError(f"the feature {self.name!r} reads the seat's view; give a commerce_env.view.SeatView, "
                             f"not {type(view).__name__}")
        out = np.zeros(ExchangeOdds.size, dtype=np.float32)
        if not any(a >= EXCHANGE for a in view.legal_actions):
            return out
        outlook = exchange_outlook(view)
        slots = np.array(outlook.exchanges) - EXCHANGE
        out[slots] = outlook.scores
        out[9], out[10] = outlook.keep, outlook.win_now
        out[11 + slots[int(np.argmax(outlook.scores))]] = 1.0
        return out


class ExchangeChoice(ExchangeOdds):
    """Only the last nine of :class:`ExchangeOdds`: a one-hot of the exchange ``expected_value``
    makes when it exchanges (R6.3, R8.2), without the scores that its decision to stop reads."""

    name = "exchange_choice"
    size = 9

    def __call__(self, vector: np.ndarray, view: object = None) -> np.ndarray:
        return super().__call__(vector, view)[11:]


FEATURES = {HandStrength.name: HandStrength, KnownHands.name: KnownHands, ExchangeOdds.name: ExchangeOdds,
            ExchangeChoice.name: ExchangeChoice}


def needs_view(builders: Sequence) -> bool:
    """Whether any of ``builders`` reads the seat's view, not the vector alone."""
    return any(getattr(f, "needs_view", False) for f in builders)


def append_features(vector: np.ndarray, builders: Sequence, view: object = None) -> np.ndarray:
    """``vector`` with every feature's columns appended; a view feature reads ``view``."""
    if not builders:
        return vector
    return np.concatenate([vector, *(f(vector, view) if getattr(f, "needs_view", False) else f(vector)
                                     for f in builders)])


def feature_names(features: str | Sequence[str]) -> list[str]:
    """The feature names of an env's ``features`` argument: a list of names, or one name as
    text (``features="hand_strength"``); anything else is a ``TypeError`` naming it."""
    if isinstance(features, str):
        return [features]
    if isinstance(features, (Mapping, bytes)) or not isinstance(features, Iterable):
        raise TypeError(f"features must be a list of feature names, got {features!r}")
    names = list(features)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"a feature name is text, got {name!r} in features {names!r}")
    return names


def feature_builders(names: str | Sequence[str], rules: Rules, num_players: int) -> list:
    """The extra-feature functions named by ``names`` (see :data:`FEATURES`)."""
    names = feature_names(names)
    unknown = [n for n in names if n not in FEATURES]
    if unknown:
        raise ValueError(f"unknown observation features {unknown!r}; choose from {', '.join(FEATURES)}")
    return [FEATURES[n](rules, num_players) for n in names]
