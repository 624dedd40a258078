"""Pool commerce (docs/rules.md R9): the old game played for a pool, with lives."""

from __future__ import annotations

from types import MappingProxyType

from ..options import ALL_COMBINATIONS, UNTIL_OUT, Rules, Variant, register
from .actions import BUY_HORSE, NO_HORSE
from .base import HORSE
from .old_game import OldGame
from .settlement import divide

_HORSE = [BUY_HORSE, NO_HORSE]


class PoolCommerce(OldGame):
    """R9: entry into the pool, a payout per deal, a life lost by the worst hand."""

    variant = "pool"
    plays_for_money = True
    prompts = MappingProxyType({**OldGame.prompts, HORSE: ("You are the first out of lives",
                                                            "is choosing whether to buy a horse")})

    @classmethod
    def return_bounds(cls, num_players: int, rules: Rules) -> tuple[float, float]:
        """Money apart from lives: the entry and one horse at most (R9.2, R9.4)."""
        if rules.reward == "outcome":
            return -1.0, 1.0
        return -float(rules.entry + rules.horse_price), float((num_players - 1) * rules.entry + rules.horse_price)

    def _begin_match(self) -> None:
        entry = self.rules.entry  # R9.2: once, at the start of the match
        for seat in range(self.num_players):
            self.money[seat] -= entry
            self.pool += entry
        self.horse_offered = False

    def balances(self) -> list[int]:
        return self.money  # R9.5: rewards are net money

    def _legal(self) -> list[int]:
        return _HORSE if self.phase == HORSE else super()._legal()

    def _step(self, seat: int, action: int) -> None:
        if self.phase != HORSE:
            super()._step(seat, action)
            return
        if action == BUY_HORSE:  # R9.4: one counter for the horse price
            self.money[seat] -= self.rules.horse_price
            self.pool += self.rules.horse_price
            self.lives[seat] += 1
            self.out[seat] = False
        self._check_end()

    def _settle(self, values: list[int]) -> None:
        """R9.3: the winners take the payout while the pool lasts; the worst loses a life."""
        for winner in self.winners(values):  # in order from the dealer's left
            amount = min(self.rules.payout, self.pool)
            self.money[winner] += amount
            self.pool -= amount
        self.lives[self.worst(values)] -= 1

    def _after_deal(self, newly_out: list[int]) -> None:
        if newly_out and not self.horse_offered:  # R9.4: before R9.5 is checked
            self.horse_offered = True
            self.phase = HORSE
            self.current_player = newly_out[0]
            return
        self._check_end()

    def _check_end(self) -> None:
        """R9.5: the last player with counters takes the pool; or `deals` divides it."""
        holders = [s for s in range(self.num_players) if not self.out[s]]
        if len(holders) <= 1:
            if holders:
                self.money[holders[0]] += self.pool
                self.pool = 0
            self.match_losers = [s for s in range(self.num_players) if s not in holders]
            self._end_match()
        elif self._deals_reached():
            order = [s for s in ((self.dealer + k) % self.num_players
                                 for k in range(1, self.num_players + 1)) if s in holders]
            for seat, amount in divide(self.pool, holders, order).items():
                self.money[seat] += amount
            self.pool = 0
            self._end_match()
        else:
            self._deal_next()


VARIANT = register(Variant(
    name="pool",
    title="Pool commerce",
    guide=(
        "Pool commerce (R9): the old game played for a pool: everyone pays the entry once and has three "
        "lives. After each deal the winner takes the payout from the pool and the worst hand loses a life. "
        "The first player out may buy a horse (one more life). The last player with lives takes the pool."),
    options=frozenset({"combinations", "entry", "payout", "horse_price"}),
    defaults=dict(combinations=ALL_COMBINATIONS, tie_break="split", deals=UNTIL_OUT, max_rounds=10, entry=12,
                  payout=1, horse_price=None),
    engine=PoolCommerce,
    kernel=4,
    has_lives=True,
))
