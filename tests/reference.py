"""An independent, deliberately plain implementation of docs/rules.md for differential tests.

It shares nothing with the engine but the card texts (R1.3, tested on their own):
hands are sets of cards, values are tuples written straight from R2, and every
rule is spelled out in the order the text gives it.  It is slow and simple on
purpose; tests replay random games through the engine and this side by side.
"""

from __future__ import annotations

from collections import Counter

from commerce_env.cards import RANK_PIPS, format_cards, parse_pack

LIVES_VARIANTS = ("widow", "my_ship_sails", "pool")


def hand_value(hand, combos) -> tuple:
    """R2 written out directly: a tuple that sorts like the hand's value."""
    ranks = sorted(c >> 2 for c in hand)
    suits = [c & 3 for c in hand]
    one_suit = len(set(suits)) == 1
    if ranks[0] == ranks[2]:
        return (5, ranks[0])  # R2.1
    if one_suit and ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1:
        return (4, ranks[2])  # R2.2
    if one_suit and ranks == [0, 1, 12]:
        return (4, 1)  # R2.2: A 2 3, the lowest sequence (its top card is the 3)
    pips = [RANK_PIPS[c >> 2] for c in hand]
    if "flush" in combos and one_suit:
        return (3, sum(pips))  # R2.3
    if "pair" in combos and len(set(ranks)) == 2:
        pair = ranks[1]
        odd = ranks[0] if ranks[0] != pair else ranks[2]
        return (2, pair, odd)  # R2.4
    suit, size = Counter(suits).most_common(1)[0]
    if size >= 2:  # R2.5
        return (1, sum(p for p, s in zip(pips, suits, strict=True) if s == suit), size)
    return (0,)


def ship_value(hand) -> tuple:
    """R7.4: a three-card flush by pips above every hand without one; else two-card pips."""
    suits = Counter(c & 3 for c in hand)
    suit, size = suits.most_common(1)[0]
    pips = sum(RANK_PIPS[c >> 2] for c in hand if c & 3 == suit) if size >= 2 else 0
    return (1 if size == 3 else 0, pips)


def text(card) -> str:
    return format_cards([card])


class Reference:
    """One match of ``rules`` (a commerce_env Rules record, used only for its option values)."""

    def __init__(self, rules, num_players: int, decks, dealer: int):
        self.r = rules
        self.v = rules.variant
        self.n = num_players
        self.decks = [parse_pack(d, rules.deck_size) for d in decks]
        self.dealer = dealer
        lives = 3 if self.v in LIVES_VARIANTS else 0
        self.counters = [lives] * num_players
        self.money = [0] * num_players
        self.pool = 0
        self.out = [False] * num_players
        self.dealt = 0
        self.counted = 0
        self.over = False
        self.history: list[tuple[int, str]] = []
        self.pending = [0.0] * num_players
        self.paid = [self.balance(s) for s in range(num_players)]
        self.losers: list[int] = []
        self.horse_offered = False
        if self.v == "pool":  # R9.2
            for s in range(num_players):
                self.money[s] -= rules.entry
                self.pool += rules.entry
        self.deal()

    # ------------------------------------------------------------ basics
    def balance(self, seat):
        return self.money[seat] if self.v == "pool" else self.counters[seat]

    def total(self):
        return sum(self.balance(s) for s in range(self.n)) + self.pool

    def left(self, seat):
        i = self.order.index(seat)
        return self.order[(i + 1) % len(self.order)]

    def deal(self):
        """R1.5, R3.1, R4.2: deal a pack from the eldest, dealer last."""
        n = self.n
        self.order = [(self.dealer + k) % n for k in range(1, n + 1) if not self.out[(self.dealer + k) % n]]
        pack = list(self.decks[self.dealt])
        self.dealt += 1
        m = len(self.order)
        self.hands = {s: set() for s in range(n)}
        for i, seat in enumerate(self.order):
            self.hands[seat] = {pack[i], pack[i + m], pack[i + 2 * m]}
        rest = pack[3 * m:]
        self.table = []
        if self.v in ("widow", "old_game", "pool"):
            self.table, rest = rest[:3], rest[3:]
        self.stock = rest  # index 0 is the top
        if self.v in ("trade_barter", "widow", "my_ship_sails"):
            for seat in self.order:
                self.counters[seat] -= 1
                self.pool += 1
        self.rounds = 0
        self.offer = None
        self.stood, self.passed, self.last_turns = [], [], []
        self.phase = "act"
        self.to_act = self.order[0]
        if self.v == "widow":
            self.phase, self.to_act = "widow", self.dealer  # R6.2
        if self.v == "my_ship_sails" and any(self.is_flush(self.hands[s]) for s in self.order):
            self.showdown(counted=False)  # R7.3

    @staticmethod
    def is_flush(hand):
        return len({c & 3 for c in hand}) == 1

    def able(self, seat):
        if self.v in ("old_game", "pool"):
            return seat not in self.stood and seat not in self.passed
        return True

    def next_turn(self, seat):
        """R4.4: pass play left; a round ends when play comes round past the dealer."""
        m = len(self.order)
        i = self.order.index(seat)
        for step in range(1, m + 1):
            j = (i + step) % m
            if self.able(self.order[j]):
                if j <= i:
                    self.rounds += 1
                    if self.rounds >= self.r.max_rounds:
                        return self.showdown()
                self.phase, self.to_act = "act", self.order[j]
                return None
        return self.showdown()

    # ------------------------------------------------------------ actions
    def legal(self) -> set[str]:
        if self.over:
            return set()
        s, v, ph = self.to_act, self.v, self.phase
        hand = sorted(self.hands[s])
        if ph == "horse":
            return {"buy_horse", "no_horse"}
        if ph == "choice":
            return {"stand", "continue"}
        if ph == "widow":
            return {"take_widow", "keep_hand"}
        if ph == "reply":
            gives = {f"give {text(c)}" for c in hand}
            return gives if v == "my_ship_sails" else gives | {"knock"}
        exchanges = {f"exchange {text(h)} {text(t)}" for h in hand for t in self.table}
        if v == "trade_barter":
            out = {"knock"} | {f"offer {text(c)}" for c in hand}
            if self.stock:
                out |= {f"ready_money {text(c)}" for c in hand}
            return out
        if v == "widow":
            return {"knock"} | exchanges | ({"pass"} if self.r.allow_pass else set())
        if v == "my_ship_sails":
            return {"decline"} | {f"offer {text(c)}" for c in hand}
        if ph == "last":
            return {"pass"} | exchanges
        return {"stand", "pass"} | exchanges

    def apply(self, action: str) -> None:
        assert action in self.legal(), (action, self.legal())
        seat = self.to_act
        self.history.append((seat, action))
        words = action.split()
        verb = words[0]
        cards = {format_cards([c]): c for c in list(self.hands[seat]) + list(self.table)}
        if verb == "knock" or verb == "stand" and self.v == "trade_barter":
            return self.showdown()
        if verb == "continue":
            return self.next_turn(seat)
        if verb == "ready_money":  # R5.3
            card = cards[words[1]]
            self.hands[seat].remove(card)
            if self.r.discard == "bottom":
                self.stock.append(card)
            self.hands[seat].add(self.stock.pop(0))
            if seat != self.dealer:
                self.counters[seat] -= 1
                self.counters[self.dealer] += 1
            return self.after_trade(seat)
        if verb == "offer":  # R5.4, R7.2
            self.offer = (seat, cards[words[1]])
            self.phase, self.to_act = "reply", self.left(seat)
            return None
        if verb == "give":
            trader, offered = self.offer
            given = cards[words[1]]
            self.hands[trader].remove(offered)
            self.hands[seat].remove(given)
            self.hands[trader].add(given)
            self.hands[seat].add(offered)
            self.offer = None
            if self.v == "my_ship_sails":
                if self.is_flush(self.hands[trader]) or self.is_flush(self.hands[seat]):
                    return self.showdown()  # R7.3
                return self.next_turn(trader)
            return self.after_trade(trader)
        if verb in ("take_widow", "keep_hand"):  # R6.2
            if verb == "take_widow":
                self.hands[seat], self.table = set(self.table), list(self.hands[seat])
            self.phase, self.to_act = "act", self.order[0]
            return None
        if verb == "decline":
            return self.next_turn(seat)
        if verb in ("buy_horse", "no_horse"):  # R9.4
            if verb == "buy_horse":
                self.money[seat] -= self.r.horse_price
                self.pool += self.r.horse_price
                self.counters[seat] = 1
                self.out[seat] = False
            return self.pool_end_or_next()
        if verb == "exchange":  # R6.3, R8.2
            own, taken = cards[words[1]], cards[words[2]]
            self.hands[seat].remove(own)
            self.hands[seat].add(taken)
            self.table[self.table.index(taken)] = own
        elif verb == "pass" and self.v != "widow":
            self.passed.append(seat)
        elif verb == "stand":
            self.stood.append(seat)
        if self.v == "widow":
            return self.next_turn(seat)
        # R8.2 / R8.3
        if self.phase == "last":
            return self.next_last()
        if verb == "stand" and len(self.stood) == 2:
            i = self.order.index(seat)
            m = len(self.order)
            self.last_turns = [self.order[(i + k) % m] for k in range(1, m) if self.able(self.order[(i + k) % m])]
            self.phase = "last"
            return self.next_last()
        return self.next_turn(seat)

    def next_last(self):
        if self.last_turns:
            self.to_act = self.last_turns.pop(0)
            return None
        return self.showdown()

    def after_trade(self, trader):
        if self.r.stand_after_trade:  # R5.6
            self.phase, self.to_act = "choice", trader
            return None
        return self.next_turn(trader)

    # ---------------------------------------------------------- settlement
    def value(self, seat):
        if self.v == "my_ship_sails":
            return ship_value(self.hands[seat])
        return hand_value(self.hands[seat], self.r.combinations)

    def preference(self):
        """R3.3: seats in order of preference among equal hands."""
        if self.r.tie_break == "dealer":
            return [self.dealer] + [s for s in self.order if s != self.dealer]
        return list(self.order)

    def winners(self):
        best = max(self.value(s) for s in self.order)
        tied = [s for s in self.preference() if self.value(s) == best]
        return tied if self.r.tie_break == "split" else tied[:1]

    def worst(self, among):
        low = min(self.value(s) for s in among)
        return [s for s in self.preference() if s in among and self.value(s) == low][-1]  # R3.4

    def share_pool(self, winners):
        """R3.5: equal shares, the remainder one each from the dealer's left."""
        ranked = [s for s in self.order if s in winners]
        share, rest = divmod(self.pool, len(ranked))
        for i, s in enumerate(ranked):
            self.counters[s] += share + (1 if i < rest else 0)
        self.pool = 0

    def showdown(self, counted=True):
        v, dealer = self.v, self.dealer
        winners = self.winners()
        if v in ("trade_barter", "widow", "my_ship_sails"):
            self.share_pool(winners)
        if v == "trade_barter":  # R5.8
            others = [s for s in self.order if s != dealer]
            mode = self.r.dealer_pays
            dv, wv = self.value(dealer), self.value(winners[0])
            if mode == "foster" and dealer not in winners:
                payees = others if dv[0] == wv[0] and dv[0] != 0 else winners
                for s in payees:
                    self.counters[dealer] -= 1
                    self.counters[s] += 1
            if mode in ("peel_each", "peel_better") and dv[0] >= 2:
                better = [s for s in others if self.value(s) > dv]
                if better:
                    for s in (others if mode == "peel_each" else better):
                        self.counters[dealer] -= 1
                        self.counters[s] += 1
        if v == "old_game":  # R8.4
            for w in winners:
                for s in self.order:
                    if s not in winners:
                        self.counters[s] -= 1
                        self.counters[w] += 1
        if v == "pool":  # R9.3
            for w in winners:
                take = min(self.r.payout, self.pool)
                self.money[w] += take
                self.pool -= take
            self.counters[self.worst(self.order)] -= 1
        if counted:
            self.counted += 1
        newly_out = []
        if v in LIVES_VARIANTS:
            for s in self.order:
                if self.counters[s] <= 0 and not self.out[s]:
                    self.out[s] = True
                    newly_out.append(s)
        self.pay()
        self.to_act = None
        if v == "pool":
            if newly_out and not self.horse_offered:
                self.horse_offered = True
                self.phase, self.to_act = "horse", newly_out[0]
                return None
            return self.pool_end_or_next()
        if v in ("widow", "my_ship_sails"):
            if self.r.match_end == "whiskey" and newly_out:
                self.losers = [self.worst(newly_out)]
                return self.end()
            holders = [s for s in range(self.n) if not self.out[s]]
            if self.r.match_end == "freeze_out" and len(holders) <= 1:
                self.losers = [s for s in range(self.n) if self.out[s]]
                return self.end()
        if self.r.deals != "until_out" and self.counted >= self.r.deals:
            return self.end()
        return self.next_deal()

    def pool_end_or_next(self):
        holders = [s for s in range(self.n) if not self.out[s]]
        if len(holders) == 1:  # R9.5
            self.money[holders[0]] += self.pool
            self.pool = 0
            self.losers = [s for s in range(self.n) if self.out[s]]
            return self.end()
        if self.r.deals != "until_out" and self.counted >= self.r.deals:
            ranked = [(self.dealer + k) % self.n for k in range(1, self.n + 1)]
            ranked = [s for s in ranked if s in holders]
            share, rest = divmod(self.pool, len(ranked))
            for i, s in enumerate(ranked):
                self.money[s] += share + (1 if i < rest else 0)
            self.pool = 0
            return self.end()
        return self.next_deal()

    def next_deal(self):
        seat = self.dealer  # R4.5: the deal passes left to the next player still in
        while True:
            seat = (seat + 1) % self.n
            if not self.out[seat]:
                break
        self.dealer = seat
        self.deal()

    def pay(self):
        if self.r.reward == "counters":
            for s in range(self.n):
                self.pending[s] += self.balance(s) - self.paid[s]
                self.paid[s] = self.balance(s)

    def end(self):
        self.over = True
        self.to_act = None
        self.pay()
        if not self.losers:
            balances = [self.balance(s) for s in range(self.n)]
            if min(balances) != max(balances):
                self.losers = [s for s in range(self.n) if balances[s] == min(balances)]
        if self.r.reward == "outcome" and self.losers:
            winners = [s for s in range(self.n) if s not in self.losers]
            for s in self.losers:
                self.pending[s] -= 1 / len(self.losers)
            for s in winners:
                self.pending[s] += 1 / len(winners)

    def take_rewards(self):
        out, self.pending = self.pending, [0.0] * self.n
        return out
