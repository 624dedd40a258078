"""How a deal ends and a match is paid: the showdown, the variant's settlement (R5.7-R5.8, R6.4,
R7.4, R8.4, R9.3-R9.5), going out (R4.6), the match's end (R4.5) and the rewards.  A part of
:class:`commerce_env.engine.base.Game`, kept apart from its seating, dealing and turns."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..hands import CATEGORIES, category_index, hand_key, key_array, key_list, keys_of
from .phases import OVER, SHOW
from .settlement import Payments, Showdown, best_hands


class Settling(Payments):
    """The showdown, settlement, the end of a deal and of a match, rewards (mixed into ``Game``)."""

    flush_ends_deal = False  # R7.3: a flush is declared at once (My Ship Sails)

    @staticmethod
    def value_of(cards: Sequence[int], combinations: frozenset[str]) -> int:
        """The value of three cards in this variant, higher is better: R2's key (My Ship
        Sails overrides with R7.4)."""
        return hand_key(cards, combinations)

    @staticmethod
    def value_function(combinations: frozenset[str]) -> Callable[[Sequence[int]], int]:
        """:meth:`value_of` as a one-argument function, one list lookup per hand: search
        rollouts value about a million hands per second of play."""
        keys = key_list(combinations)
        return lambda cards: keys[cards[0] * 2704 + cards[1] * 52 + cards[2]]

    @staticmethod
    def values_of(a, b, c, combinations: frozenset[str]):
        """:meth:`value_of` for the hands ``(a[i], b[i], c[i])`` (numpy arrays of cards)."""
        return keys_of(a, b, c, combinations)

    @staticmethod
    def value_table(combinations: frozenset[str]):
        """:meth:`value_of` of all 52**3 ordered triples ``(a, b, c)``, at ``hands.table_index(a, b, c)``
        (a numpy array, shared: do not write to it), for code that looks values up in bulk."""
        return key_array(combinations)

    def hand_value(self, seat: int) -> int:
        """The value of ``seat``'s hand (:meth:`value_of`)."""
        return self.value_of(self.hands[seat], self.combinations)

    def _showdown(self, counted: bool = True) -> None:
        """The hands are shown; the variant pays, then the deal ends (``counted``
        toward `deals` unless settled before any decision, R4.5)."""
        self.shown = True
        shown = (self.everyone,) * 3
        for s in self.order:  # R11: at the showdown all hands are shown
            self.record.append((s, SHOW, tuple(self.hands[s]), shown))
        values = [self.hand_value(s) if self.hands[s] else -1 for s in range(self.num_players)]
        self.values = values
        counters, money, pool = tuple(self.counters), tuple(self.money), self.pool
        self._settle(values)
        # Speed: only the raw facts, as one tuple per deal; Showdown objects are made when asked for.
        self._showdowns += ((self.deals_dealt, self.dealer, tuple(self.order), tuple(map(tuple, self.hands)),
                             tuple(self.table), tuple(values), counters, tuple(self.counters), money,
                             tuple(self.money), pool, self.actions_taken),)
        self._end_deal(counted=counted)

    @property
    def showdowns(self) -> tuple[Showdown, ...]:
        """Every showdown of the match, in order (R11: all hands are shown there)."""
        return tuple(self._make_showdown(raw) for raw in self._showdowns)

    @property
    def last_showdown(self) -> Showdown | None:
        """The latest showdown of the match, or None."""
        return self._make_showdown(self._showdowns[-1]) if self._showdowns else None

    def _make_showdown(self, raw: tuple) -> Showdown:
        deal, dealer, order, hands, table, values, *balances, pool, actions = raw
        categories = tuple(self.category(v) if v >= 0 else "" for v in values)
        winners = tuple(best_hands(values, order, self.rules.tie_break))
        return Showdown(deal, dealer, hands, table, values, categories, winners, *balances, pool, actions)

    def category(self, value: int) -> str:
        """The R2 category of a hand value (My Ship Sails overrides with R7.4)."""
        return CATEGORIES[category_index(value)]

    def _settle(self, values: list[int]) -> None:
        """Hook: the variant's payments at the showdown."""
        raise NotImplementedError

    def _end_deal(self, counted: bool) -> None:
        """After a deal's payments: players out, the match's end, the next deal."""
        self.current_player = None
        if counted:
            self.deals_played += 1
        newly_out = []
        if self.rules.has_lives:
            for seat in self.order:
                if self.lives[seat] <= 0 and not self.out[seat]:
                    self.out[seat] = True
                    newly_out.append(seat)
        self._pay_rewards()
        if self._stop_after_deal:
            self._halt()
            return
        self._after_deal(newly_out)

    def _after_deal(self, newly_out: list[int]) -> None:
        """Hook: decide the match's end (R6.5, R7.5, R9.5) or deal again."""
        if self._own_end(newly_out) or self._deals_reached():
            self._end_match()
        else:
            self._deal_next()

    def _deal(self) -> None:
        """Start the next deal.  A deal settled as it is dealt (a dealt flush, R7.3) ends
        by asking for the next one; that request is served by this loop, not by a
        nested call, so any number of such deals in a row costs no stack (R4.5)."""
        if self._dealing:  # asked from inside a deal being dealt: the loop below deals it
            self._redeal = True
            return
        self._dealing = True
        try:
            self._redeal = True
            while self._redeal:
                self._redeal = False
                self._start_deal()
        finally:
            self._dealing = False

    def abandon(self) -> None:
        """End the match now, unsettled: what an env does when a player breaks the rules
        (the terminate convention for illegal actions).  The pool and the cards stay
        where they are; no further reward is paid and no action is legal."""
        self._halt()
        self.offer = None

    def stop_after_deal(self) -> None:
        """Make the match end with the current deal, right after its payments: no
        next deal, no end-of-match payments (search roll-outs play one deal)."""
        self._stop_after_deal = True

    def _halt(self) -> None:
        self.over = True
        self.phase = OVER
        self.current_player = None
        self._legal_cache = []

    def returns(self) -> list[float]:
        """Total rewards of the match so far, per seat."""
        return list(self.total_rewards)

    def finished_for(self, seat: int) -> bool:
        """Whether the match has nothing left for ``seat``: no decision and no payment.

        True when it is over, or, with counter rewards, when ``seat`` is out
        (R4.6, R6.5, R7.5) and is not the one being offered the horse (R9.4):
        an out player is dealt no cards and is paid nothing more, so its return
        is final.  With outcome rewards the losers are known only at the end,
        so only the end counts.  A single-agent env can end a learner's episode
        here (``end_when_out``) instead of playing the others' deals out.
        """
        if self.over:
            return True
        return (self.rules.has_lives and self.rules.reward == "counters" and self.out[seat]
                and self.current_player != seat)
