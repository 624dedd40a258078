"""The shared game state machine: seating, dealing, turns, counters, matches.

A :class:`Game` is one match (R4.5) of one variant.  Subclasses (one per
variant, each a small state machine) say what a deal's decisions are and how
its showdown is paid; this class does everything they share: seats and the
dealer's rotation (R3.1-R3.2), antes and the pool (R4), dealing (R1.5), turn
order with the round cap (R4.4), players going out (R4.6), the match's end,
rewards, the record of every card movement and who saw it (R11), and clone.

The record (:attr:`Game.record`) is the one place that says what each seat
knows: one entry ``(seat, kind, cards, seen)`` per event, where ``kind`` is
an action kind (``"offer"``, ``"exchange"`` ...), ``"deal"`` (``seat`` is
the dealer, ``cards`` the pack, top first) or ``"show"`` (``seat``'s hand at
the showdown), and ``seen[i]`` is the bit mask of the seats that see
``cards[i]`` (bit ``1 << s`` for seat ``s``).  Observations, public action
texts, seat views and the re-deals of search agents are derived from it
(:mod:`commerce_env.knowledge`).

The engine knows nothing of PettingZoo, Gymnasium or torch.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..cards import CARDS, format_cards, make_pack, parse_pack
from ..hands import CATEGORIES, hand_key, key_array, key_list, keys_of
from ..options import UNTIL_OUT, Rules
from .actions import (
    ACTION_KIND_INDEX,
    ACTION_KINDS,
    EXCHANGE,
    GIVE,
    KEEP_HAND,
    NUM_ACTIONS,
    OFFER,
    READY_MONEY,
    TAKE_WIDOW,
    TEXT_CARDS,
    IllegalActionError,
    action_cards,
    action_from_text,
    action_text,
    check_action,
    describe_action,
)
from .settlement import Showdown, best_hands, divide, worst_hand
from .shuffle import shuffled

# Fields of a game's state that hold hidden cards or the shuffles of later deals (R11), or that
# Game.restore builds anew: what Game.public_state leaves out.
HIDDEN_FIELDS = frozenset(("rng", "decks", "record", "hands", "stock", "discards", "offer", "_legal_cache",
                           "deal_start", "position", "_rng_shared", "_stop_after_deal", "known_records",
                           "lineage"))


def _copied(value: Any) -> Any:
    """``value`` with its lists (and lists in lists), dicts and rules copied: the rest of a state is
    immutable.  Rules are frozen, but ``object.__setattr__`` writes them: a seat view's are its own."""
    if type(value) is list:
        return [list(x) if type(x) is list else x for x in value]
    if type(value) is dict:
        return dict(value)
    if type(value) is Rules:
        rules = object.__new__(Rules)
        rules.__dict__.update(value.__dict__)  # every field immutable: a shallow copy is whole
        return rules
    return value


# Phases of a decision.
ACT = "act"  # a player's own turn
REPLY = "reply"  # the left neighbour answers an offer (R5.4, R7.2)
STAND_CHOICE = "stand_choice"  # stand or continue after a trade (R5.6)
WIDOW_CHOICE = "widow_choice"  # the widow dealer's blind choice (R6.2)
LAST_EXCHANGE = "last_exchange"  # the old game's last exchanges (R8.3)
HORSE = "horse"  # pool commerce: buy a horse or not (R9.4)
OVER = "over"
PHASES = (ACT, REPLY, STAND_CHOICE, WIDOW_CHOICE, LAST_EXCHANGE, HORSE, OVER)

# Record kinds that are not actions.
DEAL = "deal"  # cards: the pack, top first; seen: each card's holder (R1.5), the face-up table by all
SHOW = "show"  # one per hand at the showdown: shown to all (R11)

STARTING_LIVES = 3  # R6.1, R7.1, R9.2
_DEALT_SEEN: dict[tuple, tuple[int, ...]] = {}  # Game._dealt_seen's results


class Lineage:
    """One slot that a game and every copy :meth:`Game.clone` makes of it share (clone copies
    lists, not this): :func:`commerce_env.knowledge.known_record` keeps there the seats' masked
    record it used last, so that the clones of one game (a replay's states) share one set of
    masked entries.  It holds what each seat saw (R11): it lives on the game, where no view reaches."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last = None


class Game:
    """One match of a variant; subclasses fill in the deal's decisions."""

    variant = ""
    antes = True  # R4.2: each player in the deal antes one
    has_table = False  # three cards dealt face up / to the widow (R1.5)
    table_name = "table"  # what the face-up cards are called
    dealer_blind = False  # R6.2: the dealer decides before seeing his hand
    has_stock = False  # R5.3: cards are traded for ready money from a stock
    blind_trades = False  # R5.4, R7.2: cards change hands face down with the left neighbour
    plays_for_money = False  # R9: rewards count money; lives are apart from it
    pass_ends_turns = False  # R8.2: a player who stands or passes takes no further turns

    def __init__(self, rules: Rules, num_players: int, seed: int | None = None,
                 decks: Sequence[str | Sequence[int]] | None = None, dealer: int = 0,
                 rng: random.Random | None = None, wait_for_packs: bool = False):
        if rules.variant != self.variant:
            raise ValueError(f"rules are for {rules.variant!r}, not {self.variant!r}")
        rules.check_players(num_players)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < num_players:
            raise ValueError(f"dealer must be a seat from 0 to {num_players - 1}, got {dealer!r}")
        self.rules = rules
        self.num_players = num_players
        self.combinations = rules.combinations
        self.rng = rng if rng is not None else random.Random(seed)
        self.pack = make_pack(rules.deck_size)
        self.decks = [parse_pack(d, rules.deck_size) for d in (decks or [])]
        # A caller that deals itself (OpenSpiel's chance nodes) gives each later pack
        # with supply_pack() instead of letting the engine shuffle it.
        if wait_for_packs and not self.decks:
            raise ValueError("wait_for_packs needs the first deal's pack in decks")
        self.wait_for_packs = wait_for_packs
        self.awaiting_pack = False
        self._supplied_pack: Sequence[int] | None = None
        needed = 3 * num_players + (3 if self.has_table else 0)
        if needed > rules.deck_size:
            raise ValueError(f"{num_players} players need {needed} cards; the pack has {rules.deck_size}")
        self.seat_bits = tuple(1 << s for s in range(num_players))  # the masks of the record's `seen`
        self.everyone = (1 << num_players) - 1
        self._stop_after_deal = False
        self._start_match(dealer)

    # ----------------------------------------------------------------- match
    def _start_match(self, dealer: int) -> None:
        n = self.num_players
        lives = STARTING_LIVES if self.rules.has_lives else 0
        self.counters = [lives] * n  # by seat; where the variant keeps lives they are its lives (`lives`)
        self.money = [0] * n  # pool commerce only: money apart from lives (R4.1)
        self.pool = 0
        self.out = [False] * n
        self.deals_played = 0  # deals that count toward `deals` (R4.5)
        self.deals_dealt = 0
        self.dealer = dealer
        self.record: list[tuple[int, str, tuple[int, ...], tuple[int, ...]]] = []
        self.known_records = None  # the seats' masked copies of the record (commerce_env.knowledge)
        self.lineage = Lineage()
        self.actions_taken = 0
        self.first_dealer = dealer
        # Every showdown of the match, for replays (immutable: clones share them).
        self._showdowns: tuple[tuple, ...] = ()  # raw facts; see `showdowns`
        self.over = False  # the match has ended (end one early with abandon())
        self.current_player: int | None = None  # the seat to decide now; None when over or awaiting a pack
        self.match_losers: list[int] = []
        self.pending_rewards = [0.0] * n
        self.total_rewards = [0.0] * n
        self._paid = list(self.balances())  # pool: before the entry (R9.5)
        self._dealing = False  # see _deal
        self._redeal = False
        self._begin_match()
        self._deal()

    def _begin_match(self) -> None:
        """Hook: a variant's one-off payments at the start of a match (R9.2)."""

    def balances(self) -> list[int]:
        """What rewards count, by seat: counters, or money in pool commerce (R4.1)."""
        return self.counters

    def balance(self, seat: int) -> int:
        """One seat's balance (see :meth:`balances`)."""
        return self.balances()[seat]

    @property
    def lives(self) -> list[int]:
        """Lives by seat, in a variant that keeps them (R6.1, R7.1, R9.2): a player with
        none is out (R4.6).  They are the same list as ``counters`` (R4.1: an amount is
        counted in counters); this is the name for code that means lives."""
        if not self.rules.has_lives:
            raise AttributeError(f"{self.variant} keeps no lives")
        return self.counters

    def total_value(self) -> int:
        """Counters (or money) of all players plus the pool: constant (R4.3)."""
        return sum(self.balances()) + self.pool

    # ------------------------------------------------------------------ deal
    _rng_shared = False  # set by clone(): copy the generator before drawing from it

    def _next_pack(self) -> Sequence[int] | None:
        """This deal's pack: supplied, given in ``decks``, shuffled, or ``None`` to wait for one."""
        pack, self._supplied_pack = self._supplied_pack, None
        if pack is not None:
            return pack
        index = self.deals_dealt
        if index < len(self.decks):
            return self.decks[index]
        if self.wait_for_packs:
            return None
        if self._rng_shared:
            rng = random.Random.__new__(random.Random)  # no seeding from urandom: setstate fills it
            rng.setstate(self.rng.getstate())
            self.rng, self._rng_shared = rng, False
        return shuffled(self.pack, self.rng)  # the same as rng.shuffle, faster

    def supply_pack(self, pack: str | Sequence[int]) -> None:
        """Deal the deal the game waits for (``awaiting_pack``) from ``pack``, top first (R1.5)."""
        if not self.awaiting_pack:
            raise ValueError("the game is not waiting for a pack")
        self._supplied_pack = parse_pack(pack, self.rules.deck_size)
        self.awaiting_pack = False
        self._start_deal()

    def await_later_packs(self) -> None:
        """From the next deal on, wait (``awaiting_pack``) for each pack to be given with
        :meth:`supply_pack`, as a game made with ``wait_for_packs``: no pack left in
        ``decks`` and no shuffle.  For a caller that takes over the dealing of a game in
        play (OpenSpiel's chance nodes); the current deal is untouched."""
        self.wait_for_packs = True
        self.decks = []

    def _start_deal(self) -> None:
        pack = self._next_pack()
        if pack is None:  # wait_for_packs: nobody acts until supply_pack()
            self.awaiting_pack = True
            self.current_player = None
            self._legal_cache = []
            return
        n = self.num_players
        dealer = self.dealer
        # R3.1: order of play from the eldest (dealer's left) to the dealer.
        self.order = [s for s in ((dealer + k) % n for k in range(1, n + 1)) if not self.out[s]]
        self.position = {s: i for i, s in enumerate(self.order)}
        pack = tuple(pack)
        self.deals_dealt += 1
        m = len(self.order)
        self.hands: list[list[int]] = [[] for _ in range(n)]
        for i, seat in enumerate(self.order):  # R1.5: one at a time, eldest first
            self.hands[seat] = sorted(pack[i:3 * m:m])
        top = 3 * m
        if self.has_table:
            self.table = list(pack[top:top + 3])
            top += 3
        else:
            self.table = []
        self.stock = list(reversed(pack[top:]))  # stock[-1] is the top card
        self.discards: list[int] = []
        self.record.append((dealer, DEAL, pack, self._dealt_seen(len(pack))))
        self.deal_start = len(self.record)  # the deal's actions start here
        if self.antes:
            for seat in self.order:
                self.counters[seat] -= 1
                self.pool += 1
        self.rounds_done = 0
        self.shown = False  # the hands are shown (end of the deal)
        self.last_kind = [-1] * n  # the last action kind of each player in this deal
        self.phase = ACT
        self.current_player = self.order[0]
        self._legal_cache: list[int] | None = None
        self.offer: tuple[int, int] | None = None  # (trader, offered card), face down (R5.4, R7.2)
        self._begin_deal()

    def _dealt_seen(self, size: int) -> tuple[int, ...]:
        """Who sees each card of the pack as it is dealt (R1.5, R11): a hand its holder,
        the face-up table everyone, the stock nobody.  The same for every deal with the
        same players, so it is made once per order of play (speed)."""
        key = (self.dealer_blind, self.has_table, self.num_players, tuple(self.order), self.dealer, size)
        seen = _DEALT_SEEN.get(key)
        if seen is None:
            bits = self.seat_bits
            holders = [bits[s] for s in self.order]
            if self.dealer_blind:
                holders[self.position[self.dealer]] = 0  # R6.2: nobody sees his hand before his choice
            table = 3 if self.has_table else 0
            seen = _DEALT_SEEN[key] = tuple(
                holders * 3 + [self.everyone] * table + [0] * (size - 3 * len(holders) - table))
        return seen

    def _begin_deal(self) -> None:
        """Hook: the variant's first decision of a deal (default: the eldest hand acts)."""

    @property
    def deal_pack(self) -> tuple[int, ...]:
        """This deal's pack, top first (from the record's ``deal`` entry)."""
        return self.record[self.deal_start - 1][2]

    @property
    def packs_dealt(self) -> tuple[tuple[int, ...], ...]:
        """Every deal's pack in the record, top first (for replays)."""
        return tuple(cards for _, kind, cards, _ in self.record if kind == DEAL)

    @property
    def history(self) -> list[tuple[int, str, tuple[int, ...]]]:
        """The match's actions as ``(seat, kind, cards its text names)``, from the record:
        full information, every card named (replays, debugging; not for agents)."""
        return [(seat, kind, cards[:TEXT_CARDS.get(kind, 0)]) for seat, kind, cards, _ in self.record
                if kind != DEAL and kind != SHOW]

    @property
    def eldest(self) -> int:
        return self.order[0]

    def left_of(self, seat: int) -> int:
        """The next player in the deal to the left (R3.1)."""
        order = self.order
        return order[(self.position[seat] + 1) % len(order)]

    def can_act(self, seat: int) -> bool:
        """Whether ``seat`` still takes turns in this deal (the old game drops players)."""
        return True

    def _next_turn(self, seat: int) -> None:
        """Pass play left from ``seat``; after ``max_rounds`` rounds show hands (R4.4)."""
        order, pos = self.order, self.position[seat]
        m = len(order)
        for step in range(1, m + 1):
            q = (pos + step) % m
            if self.can_act(order[q]):
                break
        else:
            self._showdown()
            return
        if q <= pos:  # play went round past the dealer: a round is complete
            self.rounds_done += 1
            if self.rounds_done >= self.rules.max_rounds:
                self._showdown()
                return
        self.phase = ACT
        self.current_player = order[q]

    # --------------------------------------------------------------- actions
    def legal_actions(self) -> list[int]:
        """Legal action numbers for the player to act, ascending."""
        if self._legal_cache is None:
            self._legal_cache = [] if self.over else list(self._legal())
        return self._legal_cache

    def _legal(self) -> list[int]:
        raise NotImplementedError

    def apply(self, action: int) -> None:
        """Take ``action`` for the player to act; an illegal one raises and changes nothing."""
        legal = self.legal_actions()
        action = check_action(action)  # not an action number at all: refused in every mode
        if action not in legal:
            self._refuse(action, legal)
        seat = self.current_player
        self._legal_cache = None
        self.last_kind[seat] = ACTION_KIND_INDEX[action]
        self.record.append(self.record_entry(action, seat))
        self.actions_taken += 1
        self._step(seat, action)

    def _refuse(self, action: object, legal: list[int]) -> None:
        if self.over:
            raise IllegalActionError(f"action {action!r}: the match is over; call reset() for a new one")
        if self.awaiting_pack:
            raise IllegalActionError(f"action {action!r}: the game waits for the next deal's pack (supply_pack)")
        texts = ", ".join(f"{a} ({self.action_text(a)})" for a in legal)
        what = action
        if isinstance(action, int) and 0 <= action < NUM_ACTIONS:
            what = f"{action} ({describe_action(action)})"
        raise IllegalActionError(f"illegal action {what} for seat {self.current_player} "
                                 f"in phase {self.phase!r}; legal: {texts}")

    def record_entry(self, action: int, seat: int | None = None) -> tuple:
        """The record entry that ``action`` (legal, by the player to act) makes: every card it
        moves or names and who sees each (R11).  Face-down cards are seen by their owner and,
        in a barter, by the one who receives them; face-up cards by all."""
        seat = self.current_player if seat is None else seat
        kind = ACTION_KINDS[action]
        if action < READY_MONEY:
            if action == TAKE_WIDOW:  # R6.2: his unseen hand goes face up, the widow into his hand
                return seat, kind, (*self.hands[seat], *self.table), (self.everyone,) * 6
            if action == KEEP_HAND:  # he looks at his cards now
                return seat, kind, tuple(self.hands[seat]), (self.seat_bits[seat],) * 3
            return seat, kind, (), ()
        hand, me = self.hands[seat], self.seat_bits[seat]
        if action < OFFER:  # R5.3: a face-down discard and a face-down draw from the top
            return seat, kind, (hand[action - READY_MONEY], self.stock[-1]), (me, me)
        if action < GIVE:  # R5.4, R7.2: offered face down
            return seat, kind, (hand[action - OFFER],), (me,)
        if action < EXCHANGE:  # the given card and the offered one: both seen by both
            both = me | self.seat_bits[self.offer[0]]
            return seat, kind, (hand[action - GIVE], self.offer[1]), (both, both)
        own, slot = divmod(action - EXCHANGE, 3)  # R6.3, R8.2: face up
        return seat, kind, (hand[own], self.table[slot]), (self.everyone, self.everyone)

    def _step(self, seat: int, action: int) -> None:
        raise NotImplementedError

    def action_cards(self, action: int, seat: int | None = None) -> tuple[int, ...]:
        """The cards an action names, in the current state."""
        seat = self.current_player if seat is None else seat
        return action_cards(action, self.hands[seat], self.table)

    def action_text(self, action: int, seat: int | None = None) -> str:
        """The canonical text of an action (R12): ``offer 10H``, ``exchange 2C AS``.

        Full information: it names ``seat``'s cards whoever asks."""
        seat = self.current_player if seat is None else seat
        return action_text(action, self.hands[seat] if seat is not None else (), self.table)

    def action_from_text(self, text: str, seat: int | None = None) -> int:
        """The action number of a canonical text for ``seat`` in the current state."""
        seat = self.current_player if seat is None else seat
        hand = self.hands[seat] if seat is not None else []
        return action_from_text(text, hand, self.table, f"the hand of seat {seat}")

    # ------------------------------------------------------------ settlement
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
        return CATEGORIES[value // 1000]

    def _settle(self, values: list[int]) -> None:
        """Hook: the variant's payments at the showdown."""
        raise NotImplementedError

    def winners(self, values: Sequence[int]) -> list[int]:
        return best_hands(values, self.order, self.rules.tie_break)

    def worst(self, values: Sequence[int], among: Sequence[int] | None = None) -> int:
        return worst_hand(values, self.order, self.rules.tie_break, among)

    def _pay_pool(self, winners: Sequence[int]) -> None:
        """The pool to the winner, or divided among ``split`` winners (R3.5)."""
        for seat, amount in divide(self.pool, winners, self.order).items():
            self.counters[seat] += amount
        self.pool = 0

    def _offer(self, seat: int, action: int) -> None:
        """R5.4, R7.2: ``seat`` offers a card face down; his left neighbour answers."""
        self.offer = (seat, self.hands[seat][action - OFFER])
        self.phase = REPLY
        self.current_player = self.left_of(seat)

    def _give(self, neighbour: int, action: int) -> int:
        """The neighbour's card, chosen blind: the two cards change hands, and each
        player remembers which card he gave to whom (R11).  Returns the trader."""
        trader, offered = self.offer
        self.offer = None
        given = self.hands[neighbour][action - GIVE]
        mine, theirs = self.hands[trader], self.hands[neighbour]
        mine.remove(offered)
        theirs.remove(given)
        mine.append(given)
        theirs.append(offered)
        mine.sort()
        theirs.sort()
        return trader

    def _transfer(self, payer: int, payee: int, amount: int = 1) -> None:
        self.counters[payer] -= amount
        self.counters[payee] += amount

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

    # ------------------------------------------------------------- knowledge
    def sees_own_hand(self, seat: int) -> bool:
        """R11: a player sees his own cards (the widow dealer's blind choice aside)."""
        return True

    def history_texts(self) -> list[tuple[int, str]]:
        """The match's actions as ``(seat, canonical text)``: full information, every card named."""
        texts = []
        for seat, kind, cards, _ in self.record:
            count = TEXT_CARDS.get(kind, 0)
            if kind != DEAL and kind != SHOW:  # a card None (unknown in a sampled world's past): kind only
                named = cards[:count]
                texts.append((seat, f"{kind} {format_cards(named)}" if count and None not in named else kind))
        return texts

    def public_state(self) -> tuple[tuple[str, Any], ...]:
        """The fields of this state that hide nothing from any seat (R11), copied, sorted by
        name: what a seat view keeps so that :meth:`restore` can build a game around
        re-dealt cards.  Left out: :data:`HIDDEN_FIELDS`."""
        return tuple(sorted((name, _copied(value)) for name, value in self.__dict__.items()
                            if name not in HIDDEN_FIELDS))

    @classmethod
    def restore(cls, public_state: Iterable[tuple[str, Any]], *, hands: list[list[int]], table: list[int],
                stock: list[int], discards: list[int], offer: tuple | None, record: list[tuple],
                deal_start: int, rng: random.Random) -> Game:
        """A game of this variant in the state ``public_state`` (:meth:`public_state`) holding the
        given cards of the current deal: the worlds of search (``SeatView.sample_world``, dealt by
        :mod:`.determinize`).  ``record`` is the match's record (the current deal's entries from
        ``deal_start``); later deals are shuffled from ``rng`` (no given packs).  The lists are
        taken, not copied; the caller answers for the cards being one consistent deal
        (:meth:`where_are_cards` checks it).  Without a given state, build a game with the
        constructor."""
        state = {name: _copied(value) for name, value in public_state}
        hidden = sorted(HIDDEN_FIELDS & state.keys())
        if hidden:
            raise ValueError(f"public_state holds hidden fields {hidden}; give them as arguments")
        state.update(rng=rng, decks=[], record=record, deal_start=deal_start, hands=hands, table=table,
                     stock=stock, discards=discards, offer=offer, _legal_cache=None, known_records=None,
                     lineage=Lineage(),
                     position={s: i for i, s in enumerate(state["order"])}, _stop_after_deal=False)
        game = object.__new__(cls)
        game.__dict__ = state
        return game

    def __getstate__(self) -> dict[str, Any]:
        """A pickled or deep-copied game leaves its seats' masked records behind (made again when asked)."""
        state = self.__dict__.copy()
        state.update(known_records=None, lineage=Lineage())
        return state

    def clone(self) -> Game:
        """An independent copy (for search): lists (and lists of lists) copied, the rest
        immutable.  The random generator is shared until either copy needs it
        (:meth:`_next_pack` copies it then): copying it costs more than the rest."""
        new = object.__new__(type(self))
        state = self.__dict__.copy()
        for name, value in state.items():
            if type(value) is list:
                state[name] = [list(x) if type(x) is list else x for x in value]
        state["_rng_shared"] = self._rng_shared = True
        new.__dict__ = state
        return new

    def where_are_cards(self) -> dict[int, str]:
        """Every card of the pack and where it is: for invariant checks."""
        places: dict[int, str] = {}

        def put(card: int, place: str) -> None:
            if card in places:
                raise AssertionError(f"card {CARDS[card]} is both in {places[card]} and {place}")
            places[card] = place

        for seat, hand in enumerate(self.hands):
            for c in hand:
                put(c, f"hand {seat}")
        for c in self.table:
            put(c, "table")
        for c in self.stock:
            put(c, "stock")
        for c in self.discards:
            put(c, "discards")
        return places
