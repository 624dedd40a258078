"""Trade and barter (docs/rules.md R5): Foster's game without a widow, Peel's modern game."""

from __future__ import annotations

from types import MappingProxyType

from ..hands import CATEGORIES, category_index
from ..options import FOSTER_COMBINATIONS, Variant, register
from .actions import CONTINUE, EXCHANGE, GIVE, KNOCK, OFFER, READY_MONEY, STAND
from .base import ACT, REPLY, STAND_CHOICE, Game

_SLOTS = (0, 1, 2)
_OFFERS = [OFFER + i for i in _SLOTS]
_ACT_WITH_STOCK = [KNOCK] + [READY_MONEY + i for i in _SLOTS] + _OFFERS
_ACT_NO_STOCK = [KNOCK] + _OFFERS
_REPLY = [KNOCK] + [GIVE + i for i in _SLOTS]
_STAND_CHOICE = [STAND, CONTINUE]
_NO_COMBINATION = CATEGORIES.index("none")
# R5.8 (peel): by category index, whether a dealer holding it pays (a tricon, sequence, flush or pair).
_PENALISED = tuple(category in ("tricon", "sequence", "flush", "pair") for category in CATEGORIES)


# R5.8 in two functions of hand values, which the batched kernels compile as they are
# (commerce_env.vector.variants.trade_barter): one statement of the rule for both engines.
def foster_pays_all(dealer_value: int, winner_value: int) -> bool:
    """R5.8 (Foster): a losing dealer whose hand is of the winner's category (a combination,
    not none) pays every other player; otherwise he pays the winners."""
    category = category_index(dealer_value)
    return category == category_index(winner_value) and category != _NO_COMBINATION


def peel_penalised(dealer_value: int) -> bool:
    """R5.8 (peel): only a dealer holding a tricon, sequence, flush or pair pays."""
    return _PENALISED[category_index(dealer_value)]


class TradeBarter(Game):
    """R5: trade for ready money, barter with the left neighbour, or knock."""

    variant = "trade_barter"
    has_stock = True
    blind_trades = True
    research_pack = 9  # 2, 3 and 4 in three suits: every decision of the deal (commerce_env.small_game)
    prompts = MappingProxyType({**Game.prompts,
                                STAND_CHOICE: ("Your trade is made", "is choosing to stand or continue")})

    def _legal(self) -> list[int]:
        if self.phase == ACT:
            return _ACT_WITH_STOCK if self.stock else _ACT_NO_STOCK  # R5.3: no empty stock
        if self.phase == REPLY:
            return _REPLY
        return _STAND_CHOICE

    def _step(self, seat: int, action: int) -> None:
        if action == KNOCK:  # R5.5 (also the neighbour's answer to a barter, R5.4)
            self.offer = None
            self._showdown()
        elif action == STAND:  # R5.6: a knock after his own trade
            self._showdown()
        elif action == CONTINUE:  # R5.6: play passes left
            self._next_turn(seat)
        elif action < OFFER:  # R5.3 ready money
            hand = self.hands[seat]
            card = hand.pop(action - READY_MONEY)
            if self.rules.discard == "bottom":
                self.stock.insert(0, card)
            else:
                self.discards.append(card)
            hand.append(self.stock.pop())
            hand.sort()
            if seat != self.dealer:
                self._transfer(seat, self.dealer)
            self._after_trade(seat)
        elif action < GIVE:  # R5.4 barter: offer face down to the left
            self._offer(seat, action)
        elif action < EXCHANGE:  # the neighbour gives a card, chosen blind
            self._after_trade(self._give(seat, action))

    def _after_trade(self, trader: int) -> None:
        if self.rules.stand_after_trade:
            self.phase = STAND_CHOICE
            self.current_player = trader
        else:
            self._next_turn(trader)

    def _settle(self, values: list[int]) -> None:
        winners = self.winners(values)
        self._pay_pool(winners)  # R5.7
        self._dealer_pays(values, winners)

    def _dealer_pays(self, values: list[int], winners: list[int]) -> None:
        """R5.8 (and R10.2): the dealer's payments after the showdown."""
        mode, dealer = self.rules.dealer_pays, self.dealer
        others = [s for s in self.order if s != dealer]
        if mode == "foster":
            if dealer in winners:
                return
            for seat in others if foster_pays_all(values[dealer], values[winners[0]]) else winners:
                self._transfer(dealer, seat)
        elif mode in ("peel_each", "peel_better"):
            if not peel_penalised(values[dealer]):
                return
            better = [s for s in others if values[s] > values[dealer]]
            if better:
                for seat in others if mode == "peel_each" else better:
                    self._transfer(dealer, seat)


VARIANT = register(Variant(
    name="trade_barter",
    title="Commerce: trade and barter",
    guide=(
        "Trade and barter (R5): everyone antes one to the pool. In turn, trade a card for ready money "
        "(discard it face down, pay the dealer one, draw from the stock), barter (offer a card face down to "
        "your left neighbour, who gives you one of his, unseen, or knocks), or knock. A knock shows the "
        "hands: the best takes the pool, and a dealer who did not win may pay the winners (R5.8)."),
    options=frozenset({"combinations", "discard", "stand_after_trade", "dealer_pays"}),
    defaults=dict(combinations=FOSTER_COMBINATIONS, tie_break="dealer", discard="table", stand_after_trade=False,
                  dealer_pays="foster", deals=1, max_rounds=10),
    engine=TradeBarter,
    kernel=0,
))
