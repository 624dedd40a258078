"""The old game (docs/rules.md R8): exchanges with three face-up table cards."""

from __future__ import annotations

from types import MappingProxyType

from ..options import ALL_COMBINATIONS, Variant, register
from .actions import EXCHANGE, PASS, STAND
from .base import LAST_EXCHANGE, Game
from .widow import exchange_with_table

_EXCHANGES = [EXCHANGE + i for i in range(9)]
_ACT = [STAND, PASS] + _EXCHANGES
_LAST = [PASS] + _EXCHANGES


class OldGame(Game):
    """R8: exchange, stand or pass; the second stand opens the last exchanges."""

    variant = "old_game"
    antes = False  # R8.4: no ante and no pool
    has_table = True
    pass_ends_turns = True  # R8.2
    prompts = MappingProxyType({**Game.prompts, LAST_EXCHANGE: ("Your last turn", "has a last turn")})

    def _begin_deal(self) -> None:
        self.stood: list[int] = []
        self.passed: list[int] = []
        self.last_turns: list[int] = []  # R8.3: who still has a last exchange

    def can_act(self, seat: int) -> bool:
        return seat not in self.stood and seat not in self.passed

    def _legal(self) -> list[int]:
        return _LAST if self.phase == LAST_EXCHANGE else _ACT

    def _step(self, seat: int, action: int) -> None:
        if action >= EXCHANGE:
            exchange_with_table(self, seat, action)
        elif action == PASS:
            self.passed.append(seat)  # R8.2: no more exchanges, no more turns
        else:
            self.stood.append(seat)
        if self.phase == LAST_EXCHANGE:
            self._next_last_turn()
        elif action == STAND and len(self.stood) == 2:
            # R8.3: from the second stander's left, everyone still in gets one turn.
            start = self.position[seat]
            m = len(self.order)
            self.last_turns = [s for s in (self.order[(start + k) % m] for k in range(1, m))
                               if self.can_act(s)]
            self.phase = LAST_EXCHANGE
            self._next_last_turn()
        else:
            self._next_turn(seat)

    def _next_last_turn(self) -> None:
        if self.last_turns:
            self.current_player = self.last_turns.pop(0)
        else:
            self._showdown()

    def _settle(self, values: list[int]) -> None:
        """R8.4: each winner receives one stake from every player who is not a winner."""
        winners = self.winners(values)
        for winner in winners:
            for seat in self.order:
                if seat not in winners:
                    self._transfer(seat, winner)


VARIANT = register(Variant(
    name="old_game",
    title="Commerce: the old game",
    guide=(
        "The old game (R8): three cards face up on the table, no ante. In turn exchange one card with the "
        "table, stand, or pass (no more exchanges for you). When a second player stands, everyone still in "
        "gets one last turn. The best hand receives one stake from each other player."),
    options=frozenset({"combinations"}),
    defaults=dict(combinations=ALL_COMBINATIONS, tie_break="split", deals=1, max_rounds=10),
    engine=OldGame,
    kernel=3,
))
