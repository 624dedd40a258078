"""Which exchanges a learned policy may choose from (R6.3, R8.2): every legal one, or ``expected_value``'s.

With ``exchange: expected_value`` the policy's mask keeps, of the legal
exchanges with the face-up table, only the one ``expected_value`` makes when it
exchanges (the best showdown score, :class:`commerce_env.features.ExchangeOdds`).
The policy still decides *whether* to exchange, stand or pass; the card for
card is the heuristic's.  A narrower mask for the learner only: the rules
(``legal_actions``) are unchanged, and the mask is rebuilt at play time from
the seat's view (R11), as a view feature is.  ``any`` (the default) leaves the
mask as the rules make it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .engine import ENGINES
from .engine.actions import EXCHANGE
from .rules import Rules

EXCHANGE_LIMITS = ("any", "expected_value")


def check_exchange_limit(limit: object, variant: str) -> str:
    """``limit`` if it is one of :data:`EXCHANGE_LIMITS` and fits ``variant``; a ``ValueError`` naming it if not."""
    if not isinstance(limit, str) or limit not in EXCHANGE_LIMITS:
        raise ValueError(f"exchange {limit!r}: choose from {', '.join(EXCHANGE_LIMITS)}")
    if limit != "any" and not ENGINES[variant].has_table:
        raise ValueError(f"exchange {limit!r} limits the exchanges with the face-up table (the widow game, the old "
                         f"game, pool commerce); the variant {variant!r} has none: use exchange 'any'")
    return limit


class ExchangeLimit:
    """One seat's mask narrowed to ``expected_value``'s exchange; ``limit(mask, view)``."""

    def __init__(self, rules: Rules, num_players: int, limit: str = "expected_value"):
        from .features import ExchangeChoice

        self.limit = check_exchange_limit(limit, rules.variant)
        self.choice = ExchangeChoice(rules, num_players) if limit == "expected_value" else None

    def __call__(self, mask: np.ndarray, view: Any) -> np.ndarray:
        """``mask`` (27 legal-action flags of the seat to act) with only the chosen exchange left."""
        mask = np.array(mask, dtype=bool)
        if self.choice is None or not mask[EXCHANGE:].any():
            return mask
        if not hasattr(view, "legal_actions"):
            raise ValueError(f"exchange {self.limit!r} reads the seat's view; give a commerce_env.view.SeatView, "
                             f"not {type(view).__name__}")
        mask[EXCHANGE:] &= self.choice(view.observation, view) > 0
        return mask


class BatchExchangeLimit:
    """:class:`ExchangeLimit` for a batch of games of the batched engine: the same masks."""

    def __init__(self, rules: Rules, num_players: int, limit: str = "expected_value"):
        from .vector.features import BatchExchangeChoice

        self.limit = check_exchange_limit(limit, rules.variant)
        self.choice = BatchExchangeChoice(rules, num_players) if limit == "expected_value" else None

    def __call__(self, masks: np.ndarray, engine: Any, games: np.ndarray, seats: np.ndarray,
                 vectors: np.ndarray | None = None) -> np.ndarray:
        """``masks`` (rows of ``games``, the seats ``seats`` to act) narrowed; ``vectors``: their
        observations, when already made (else the engine's)."""
        masks = np.array(masks, dtype=bool)
        if self.choice is None or not masks[:, EXCHANGE:].any():
            return masks
        if vectors is None:
            vectors = engine.observe(seats, games)
        masks[:, EXCHANGE:] &= self.choice(vectors, engine, games, seats) > 0
        return masks

