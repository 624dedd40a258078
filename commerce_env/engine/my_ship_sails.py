"""My Ship Sails, or My Bird Sings (docs/rules.md R7)."""

from __future__ import annotations

from ..hands import is_ship, ship_key, ship_key_array, ship_key_list, ship_keys
from ..options import UNTIL_OUT, Variant, register
from .actions import DECLINE, GIVE, OFFER
from .base import ACT, Game

_ACT = [DECLINE] + [OFFER + i for i in range(3)]
_REPLY = [GIVE + i for i in range(3)]


class MyShipSails(Game):
    """R7: blind exchanges to the left until someone's ship sails (a flush)."""

    variant = "my_ship_sails"
    flush_ends_deal = True  # R7.3
    blind_trades = True

    @staticmethod
    def value_of(cards, combinations=None) -> int:
        return ship_key(cards)  # R7.4: combinations do not apply

    @staticmethod
    def value_function(combinations=None):
        keys = ship_key_list()
        return lambda cards: keys[cards[0] * 2704 + cards[1] * 52 + cards[2]]

    @staticmethod
    def values_of(a, b, c, combinations=None):
        return ship_keys(a, b, c)

    @staticmethod
    def value_table(combinations=None):
        return ship_key_array()

    def category(self, value: int) -> str:
        return "ship" if value >= 100 else "point" if value else "none"  # R7.4: a flush sails, else points

    def _begin_deal(self) -> None:
        if any(is_ship(self.hands[s]) for s in self.order):  # R7.3: a dealt flush
            self._showdown(counted=False)  # R4.5: settled before any decision

    def _legal(self) -> list[int]:
        return _ACT if self.phase == ACT else _REPLY

    def _step(self, seat: int, action: int) -> None:
        if action == DECLINE:
            self._next_turn(seat)
        elif action < GIVE:  # R7.2: offer one card to the left neighbour
            self._offer(seat, action)
        else:  # the neighbour must give one, chosen before seeing the offer
            trader = self._give(seat, action)
            if is_ship(self.hands[trader]) or is_ship(self.hands[seat]):  # R7.3: declared at once
                self._showdown()
            else:
                self._next_turn(trader)

    def _settle(self, values: list[int]) -> None:
        self._pay_pool(self.winners(values))  # R7.4


VARIANT = register(Variant(
    name="my_ship_sails",
    title="My Ship Sails",
    guide=(
        "My Ship Sails (R7): three counters each, one ante per deal. In turn offer a card face down to your "
        "left neighbour, who must give one of his in exchange, chosen unseen; or decline to offer. The moment "
        "a hand is a flush (three of one suit) its ship sails and the hands are shown; after two rounds the "
        "most pips in two cards of a suit wins. The winner takes the pool."),
    options=frozenset({"match_end"}),
    defaults=dict(tie_break="eldest", match_end="freeze_out", deals=UNTIL_OUT, max_rounds=2),
    engine=MyShipSails,
    kernel=2,
    presets=False, has_lives=True,
))
