"""Shared settlement pieces: ties, the worst hand, dividing a pool (R3.3-R3.5)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Showdown:
    """The hands shown at the end of a deal (R11: public) and what they paid.

    Kept by the engine as ``game.last_showdown`` for pictures, replays and
    players; the face-up ``table``; by seat: ``hands`` (empty for a seat not in the deal), ``values``
    (R2 keys, -1 for none), ``categories``; ``winners`` as R3.3 ranks them;
    ``counters`` and ``money`` before and after the payments; ``pool`` before.
    ``actions`` is how many actions the match had when the hands were shown.
    """

    deal: int
    dealer: int
    hands: tuple[tuple[int, ...], ...]
    table: tuple[int, ...]
    values: tuple[int, ...]
    categories: tuple[str, ...]
    winners: tuple[int, ...]
    counters_before: tuple[int, ...]
    counters_after: tuple[int, ...]
    money_before: tuple[int, ...]
    money_after: tuple[int, ...]
    pool: int
    actions: int


def preference_order(order: Sequence[int], tie_break: str) -> list[int]:
    """Seats in R3.3's order of preference; ``order`` runs eldest .. dealer.

    With ``dealer`` the dealer comes first, then the eldest and on to the
    dealer's right; with ``eldest`` and ``split`` the eldest first, dealer last.
    """
    if tie_break == "dealer":
        return [order[-1], *order[:-1]]
    return list(order)


def best_hands(values: Sequence[int], order: Sequence[int], tie_break: str) -> list[int]:
    """Winners among ``order`` (R3.3): one, or every tied best hand with ``split``."""
    best = max(values[s] for s in order)
    tied = [s for s in preference_order(order, tie_break) if values[s] == best]
    return tied if tie_break == "split" else tied[:1]


def worst_hand(values: Sequence[int], order: Sequence[int], tie_break: str,
               among: Sequence[int] | None = None) -> int:
    """The worst hand (R3.4): the lowest, and among equals the last in preference."""
    candidates = order if among is None else [s for s in order if s in among]
    lowest = min(values[s] for s in candidates)
    tied = [s for s in preference_order(order, tie_break) if s in candidates and values[s] == lowest]
    return tied[-1]


def divide(amount: int, winners: Sequence[int], order: Sequence[int]) -> dict[int, int]:
    """Equal shares of ``amount``; the remainder one each to the winners nearest
    the dealer's left, i.e. first in ``order`` (R3.5)."""
    ranked = [s for s in order if s in winners]
    share, remainder = divmod(amount, len(ranked))
    return {s: share + (1 if i < remainder else 0) for i, s in enumerate(ranked)}
