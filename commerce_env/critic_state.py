"""What a centralised critic may see in training and an agent never does: the opponents' hands.

Asymmetric actor-critic ("perfect-training, imperfect-execution": Pinto et al.
2017; PerfectDou, Yang et al. 2022): the value function that PPO uses as its
baseline is given the hidden cards, so the luck of the deal, most of a card
game's variance, is taken out of the advantage; the policy still reads only
the seat's own observation (R11), and it is the policy alone that a model
file keeps and an agent plays.  The baseline may depend on hidden state
without biasing the policy gradient, because the action is drawn from the
policy given the observation alone; the critic also reads that observation
(Baisero and Amato 2022: a critic of history and state is unbiased).

Per opponent, from the observer's left: 52 card indicators of his hand and its
percentile among all 22,100 hands (the ``hand_strength`` table); a seat dealt
nothing (out, R9.4) is all zeros.
"""

from __future__ import annotations

import numpy as np

from .features import HandStrength
from .rules import Rules

CARDS = 52
PER_OPPONENT = CARDS + 1  # the hand's cards, then its percentile


class CriticState:
    """The opponents' hands, relative to each learner's seat, for a batch of games."""

    name = "opponent_hands"

    def __init__(self, rules: Rules, num_players: int):
        strength = HandStrength(rules, num_players)
        self.keys = strength.keys
        self.percentile = strength.percentile
        self.num_players = num_players
        self.size = (num_players - 1) * PER_OPPONENT

    def __call__(self, hands: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """``hands``: ``(games, players, 3)`` cards, -1 for a seat dealt nothing; ``seats``: each
        game's learner.  Returns ``(games, size)`` float32."""
        hands = np.asarray(hands, dtype=np.int64)
        seats = np.asarray(seats, dtype=np.int64)
        games, n = len(hands), self.num_players
        if hands.shape[1:] != (n, 3) or seats.shape != (games,):
            raise ValueError(f"hands of shape {hands.shape} and seats of shape {seats.shape}; expected "
                             f"(games, {n}, 3) and (games,)")
        others = (seats[:, None] + np.arange(1, n)[None, :]) % n  # the observer's left first
        theirs = hands[np.arange(games)[:, None], others]  # (games, n - 1, 3)
        out = np.zeros((games, n - 1, PER_OPPONENT), dtype=np.float32)
        dealt = (theirs >= 0).all(axis=2)
        g, o = np.nonzero(dealt)
        for k in range(3):
            out[g, o, theirs[g, o, k]] = 1.0
        if len(g):
            held = theirs[g, o]
            out[g, o, CARDS] = self.percentile[self.keys(held[:, 0], held[:, 1], held[:, 2])]
        return out.reshape(games, self.size)


def game_hands(game, num_players: int) -> np.ndarray:
    """A readable engine game's hands as ``(1, players, 3)``, -1 for a seat dealt nothing."""
    hands = np.full((1, num_players, 3), -1, dtype=np.int64)
    for seat, hand in enumerate(game.hands):
        if len(hand) == 3:
            hands[0, seat] = hand
    return hands
