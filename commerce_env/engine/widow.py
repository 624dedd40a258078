"""Commerce with a widow (docs/rules.md R6): Foster's three-card whiskey poker."""

from __future__ import annotations

from types import MappingProxyType

from ..options import FOSTER_COMBINATIONS, UNTIL_OUT, Variant, register
from .actions import ACTION_KINDS, EXCHANGE, KEEP_HAND, KNOCK, PASS, TAKE_WIDOW
from .base import ACT, WIDOW_CHOICE, Game

_EXCHANGES = [EXCHANGE + i for i in range(9)]
_WITH_PASS = [KNOCK, PASS] + _EXCHANGES
_WITHOUT_PASS = [KNOCK] + _EXCHANGES
_WIDOW_CHOICE = [TAKE_WIDOW, KEEP_HAND]


def exchange_with_table(game: Game, seat: int, action: int) -> None:
    """R6.3 / R8.2: a hand card goes face up in the taken table card's place."""
    own, slot = divmod(action - EXCHANGE, 3)
    hand = game.hands[seat]
    hand[own], game.table[slot] = game.table[slot], hand[own]
    hand.sort()


class Widow(Game):
    """R6: lives, the dealer's blind choice, exchanges with the face-up widow."""

    variant = "widow"
    research_pack = 10  # 2 to 6 in two suits: the tenth card keeps a hand hidden (commerce_env.small_game)
    has_table = True
    dealer_blind = True  # R6.2
    table_name = "widow"
    prompts = MappingProxyType({**Game.prompts, WIDOW_CHOICE: ("You deal: choose before you look at your hand",
                                                               "is choosing between the widow and an unseen hand")})

    def _begin_deal(self) -> None:
        self.phase = WIDOW_CHOICE  # R6.2: no turn (R4.4)
        self.current_player = self.dealer

    def _legal(self) -> list[int]:
        if self.phase == WIDOW_CHOICE:
            return _WIDOW_CHOICE
        return _WITH_PASS if self.rules.allow_pass else _WITHOUT_PASS

    def sees_own_hand(self, seat: int) -> bool:
        return not (self.phase == WIDOW_CHOICE and seat == self.dealer)

    def record_entry(self, action: int, seat: int | None = None) -> tuple:
        """R11 for the dealer's blind choice (R6.2): taking the widow shows his unseen hand and the
        widow to all; keeping his hand shows it to him alone.  Other actions as every variant's."""
        seat = self.current_player if seat is None else seat
        if action == TAKE_WIDOW:  # his unseen hand goes face up, the widow into his hand
            return seat, ACTION_KINDS[action], (*self.hands[seat], *self.table), (self.everyone,) * 6
        if action == KEEP_HAND:  # he looks at his cards now
            return seat, ACTION_KINDS[action], tuple(self.hands[seat]), (self.seat_bits[seat],) * 3
        return super().record_entry(action, seat)

    def _step(self, seat: int, action: int) -> None:
        if action == TAKE_WIDOW:  # his unseen hand becomes the new widow
            hand = self.hands[seat]
            self.hands[seat], self.table = sorted(self.table), list(hand)
            self._first_turn()
        elif action == KEEP_HAND:
            self._first_turn()
        elif action == KNOCK:  # R6.4
            self._showdown()
        elif action == PASS:  # R6.3 allow_pass
            self._next_turn(seat)
        else:
            exchange_with_table(self, seat, action)
            self._next_turn(seat)

    def _first_turn(self) -> None:
        self.phase = ACT
        self.current_player = self.eldest

    def _settle(self, values: list[int]) -> None:
        self._pay_pool(self.winners(values))  # R6.4: no dealer payments


VARIANT = register(Variant(
    name="widow",
    title="Commerce with a widow",
    guide=(
        "Commerce with a widow (R6): three lives each, one ante per deal. Three cards lie face up (the "
        "widow). The dealer may first take the widow instead of his unseen hand. Then in turn exchange one "
        "card with the widow, pass, or knock: the best hand takes the pool. With no lives left you are out; "
        "the first out pays for the whiskey (the match ends)."),
    options=frozenset({"combinations", "allow_pass", "match_end"}),
    defaults=dict(combinations=FOSTER_COMBINATIONS, tie_break="dealer", allow_pass=True, match_end="whiskey",
                  deals=UNTIL_OUT, max_rounds=10),
    engine=Widow,
    kernel=1,
    has_lives=True,
))
