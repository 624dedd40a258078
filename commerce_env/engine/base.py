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
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import ClassVar

from ..cards import make_pack, parse_pack
from ..checks import whole_number
from ..options import Rules
from .actions import (
    ACTION_KIND_INDEX,
    ACTION_KINDS,
    EXCHANGE,
    GIVE,
    NUM_ACTIONS,
    OFFER,
    READY_MONEY,
    TEXT_CARDS,
    IllegalActionError,
    action_cards,
    action_from_text,
    action_text,
    check_action,
    describe_action,
)
from .phases import (  # noqa: F401 - the phases are read from here by the variants and the envs
    ACT,
    DEAL,
    HORSE,
    LAST_EXCHANGE,
    OVER,
    PHASES,
    REPLY,
    SHOW,
    STAND_CHOICE,
    STARTING_LIVES,
    WIDOW_CHOICE,
)
from .settling import Settling
from .shuffle import shuffled
from .snapshots import HIDDEN_FIELDS, Lineage, Snapshots  # noqa: F401 - HIDDEN_FIELDS read from here

_DEALT_SEEN: dict[tuple, tuple[int, ...]] = {}  # Game._dealt_seen's results


class Game(Settling, Snapshots):
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
    research_pack = 0  # the cards of its small solvable game (commerce_env.small_game); 0: none
    # How a table says each phase of a decision (commerce_env.guide.prompt_text): to the player to
    # act, and of another; a variant with phases of its own adds theirs to its parent's.
    prompts: ClassVar[Mapping[str, tuple[str, str]]] = MappingProxyType({
        ACT: ("Your turn", "is to play"), REPLY: ("Your turn to answer the offer", "is answering an offer")})

    @classmethod
    def deal_decisions_bound(cls, num_players: int, rules: Rules) -> int:
        """A bound on the decisions of one deal (OpenSpiel's observation tensor sizes its history by
        it): at most three per turn (an act, a reply, a stand choice), ``max_rounds`` turns each
        (R4.4), plus room for R8.3's last exchanges, the widow dealer's choice and R9.4's horse.
        One bound for every variant, so that one tensor layout reads all; a variant may override it."""
        return 3 * num_players * rules.max_rounds + num_players + 2

    @classmethod
    def return_bounds(cls, num_players: int, rules: Rules) -> tuple[float, float]:
        """Bounds (not always reached) on a player's return over a match (OpenSpiel's utilities)."""
        n = num_players
        if rules.reward == "outcome":
            return -1.0, 1.0
        if rules.has_lives:  # counters are lives: 3 each (R6.1, R7.1)
            return -3.0, 3.0 * (n - 1)
        # Per deal: an ante, a ready-money counter per turn (R5.3), a counter to each other player
        # (R5.8, R8.4); the dealer receives every trade's counter.
        per_deal = 1 + n * (rules.max_rounds + 2)
        return -float(rules.deals * per_deal), float(rules.deals * per_deal * n)

    def __init__(self, rules: Rules, num_players: int, seed: int | None = None,
                 decks: Sequence[str | Sequence[int]] | None = None, dealer: int = 0,
                 rng: random.Random | None = None, wait_for_packs: bool = False):
        if rules.variant != self.variant:
            raise ValueError(f"rules are for {rules.variant!r}, not {self.variant!r}")
        rules.check_players(num_players)
        dealer = whole_number("dealer", dealer, 0, num_players - 1)
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
        if action < READY_MONEY:  # a choice that moves no card (the widow's own: Widow.record_entry)
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
