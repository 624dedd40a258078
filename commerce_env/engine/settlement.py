"""Payments and the ends of deals and matches (the readable twin of vector/settlement.py).

Ties and the worst hand (R3.3-R3.4), dividing a pool (R3.5), and :class:`Payments`: transfers
and rewards, going on to the next deal or ending the match (R3.2, R4.5), and the default end of
a deal (R6.5, R7.5).  None of it calls a variant's hook: the variants' settlements build on it,
and :class:`commerce_env.engine.settling.Settling` (a ``Payments``) calls them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..options import UNTIL_OUT


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


class Payments:
    """What a variant's settlement calls on the game: ties, transfers, rewards, the next deal and
    the match's end (mixed into ``Game`` through :class:`commerce_env.engine.settling.Settling`)."""

    def winners(self, values: Sequence[int]) -> list[int]:
        return best_hands(values, self.order, self.rules.tie_break)

    def worst(self, values: Sequence[int], among: Sequence[int] | None = None) -> int:
        return worst_hand(values, self.order, self.rules.tie_break, among)

    def _pay_pool(self, winners: Sequence[int]) -> None:
        """The pool to the winner, or divided among ``split`` winners (R3.5)."""
        for seat, amount in divide(self.pool, winners, self.order).items():
            self.counters[seat] += amount
        self.pool = 0

    def _transfer(self, payer: int, payee: int, amount: int = 1) -> None:
        self.counters[payer] -= amount
        self.counters[payee] += amount

    def _own_end(self, newly_out: list[int]) -> bool:
        """R6.5 / R7.5 `match_end`; sets the losers of the outcome reward."""
        if not self.rules.has_lives:
            return False
        if self.rules.match_end == "whiskey":
            if newly_out:
                self.match_losers = [self.worst(self.values, among=newly_out)]
                return True
            return False
        in_game = [s for s in range(self.num_players) if not self.out[s]]
        if len(in_game) <= 1:
            self.match_losers = [s for s in range(self.num_players) if s not in in_game]
            return True
        return False

    def _deals_reached(self) -> bool:
        deals = self.rules.deals
        return deals != UNTIL_OUT and self.deals_played >= deals

    def _deal_next(self) -> None:
        """R3.2 / R4.5: the deal passes left to the next player still in the game."""
        n = self.num_players
        seat = self.dealer
        for _ in range(n):
            seat = (seat + 1) % n
            if not self.out[seat]:
                break
        self.dealer = seat
        self._deal()

    def _end_match(self) -> None:
        self._halt()
        if not self.match_losers:
            balances = self.balances()
            lowest = min(balances)
            if lowest != max(balances):
                self.match_losers = [s for s in range(self.num_players) if balances[s] == lowest]
        self._pay_rewards()
        if self.rules.reward == "outcome" and self.match_losers:
            losers = self.match_losers
            others = [s for s in range(self.num_players) if s not in losers]
            for s in losers:
                self._add_reward(s, -1.0 / len(losers))
            for s in others:
                self._add_reward(s, 1.0 / len(others))

    def _pay_rewards(self) -> None:
        """Counter rewards: each player's net change since the last payment."""
        if self.rules.reward != "counters":
            return
        paid = self._paid
        for seat, now in enumerate(self.balances()):
            if now != paid[seat]:
                self._add_reward(seat, float(now - paid[seat]))
                paid[seat] = now

    def _add_reward(self, seat: int, amount: float) -> None:
        self.pending_rewards[seat] += amount
        self.total_rewards[seat] += amount

    def take_rewards(self) -> list[float]:
        """Rewards earned since the last call (the env pays them on a step)."""
        rewards = self.pending_rewards
        self.pending_rewards = [0.0] * self.num_players
        return rewards
