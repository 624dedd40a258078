"""A seat view: what one seat knows now (docs/rules.md R11), as plain data. Agents get this.

``seat_view(game, seat)`` copies out of the engine exactly what ``seat``
knows, derived from the engine's record (:mod:`commerce_env.knowledge`): its
own cards, the face-up cards, the public history as this seat knows it, the
counters and statuses, the phase, its legal actions, and the AEC env's
observation vector and action mask.  The view shares no mutable object with
the game (its rules are a copy of the game's), holds no random generator and
no hidden card; no cache that its functions' globals lead to holds a game or
a seat's record (:mod:`commerce_env.knowledge` keeps those on the game); and
two games that differ only in cards the seat has not seen give views that
pickle to the same bytes.  ``view.sample_world(rng)`` deals the hidden cards anew into a
fresh engine state, for search (:mod:`commerce_env.engine.determinize`).

The fields that grow with the deal or the match (``history``, ``gave``,
``discarded`` and the records behind ``sample_world``) are
:class:`commerce_env.chain.Chain` snapshots of what the game keeps for the seat:
immutable sequences that read like tuples, share their items with the game's
copy (so that a view costs the same late in a long deal as early in it) and
pickle as tuples.

``view["observation"]`` and ``view["action_mask"]`` work as on the AEC env's
observation dict, so a policy written for the env reads a view unchanged.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import islice
from typing import Any

import numpy as np

from . import observation as obs
from .cards import format_cards, make_pack
from .chain import Chain
from .checks import whole_number
from .engine import ENGINES
from .engine.actions import TEXT_CARDS, action_from_text, action_text
from .engine.base import OVER, SHOW, Game
from .engine.determinize import TIME_LIMIT, DealSampler, SampledDeal
from .knowledge import deal_memories, masked, seat_knowledge
from .rules import Rules

__all__ = ["SeatView", "entry_text", "pending_text", "public_text", "seat_view"]

_RECORDS = ("gave", "discarded", "history", "_deal", "_past")  # the fields that grow with the deal or match

@dataclass(frozen=True, eq=False)
class SeatView:
    """What ``seat`` knows now (R11).  Cards are card numbers (:data:`commerce_env.cards.CARDS`)."""

    seat: int
    num_players: int
    rules: Rules
    phase: str
    current_player: int | None  # the seat to decide, None when the match is over
    dealer: int
    order: tuple[int, ...]  # the players of this deal, eldest first (R3.1)
    hand: tuple[int, ...]  # its own cards, sorted; empty when it does not see them (R6.2)
    table: tuple[int, ...]  # face up (R6.1, R8.1)
    stock_size: int
    pool: int
    counters: tuple[int, ...]  # by seat: counters, or lives where the variant keeps lives
    money: tuple[int, ...]  # by seat: pool commerce's money (R9)
    out: tuple[bool, ...]
    rounds_done: int
    deals_played: int
    deals_dealt: int
    offer_from: int | None  # the trader whose face-down offer waits for an answer (R5.4, R7.2)
    gave: Sequence[tuple[int, int]]  # (card, to seat) of each card it gave this deal
    discarded: Sequence[int]  # its discards this deal (R5.3)
    public_hands: tuple[tuple[int, ...], ...]  # by seat: the cards known to be in that hand now
    unseen: tuple[int, ...]  # every card whose place this seat does not know, ascending
    history: Sequence[tuple[int, str, tuple[int | None, ...]]]  # (seat, kind, cards; None: unseen)
    legal_actions: tuple[int, ...]  # empty unless it is this seat's turn
    observation: np.ndarray  # the AEC env's vector (commerce_env.observation.encode)
    action_mask: np.ndarray  # int8, all zeros unless it is this seat's turn
    _deal: Sequence[tuple]  # this seat's record of the current deal: for sample_world
    _past: Sequence[tuple]  # this seat's record of the earlier deals (None: a card it did not see)
    _state: tuple  # the engine's public fields (Game.public_state): for sample_world

    # ---------------------------------------------------------------- access
    def __getstate__(self) -> dict[str, Any]:
        """Pickled (and copied) with its records as tuples: the bytes do not depend on how they were kept."""
        state = dict(vars(self))
        for name in _RECORDS:
            state[name] = tuple(state[name])
        return state

    def __getitem__(self, key: str) -> np.ndarray:
        """``view["observation"]`` and ``view["action_mask"]``, as the AEC env's observation dict."""
        if key == "observation":
            return self.observation
        if key == "action_mask":
            return self.action_mask
        raise KeyError(key)

    @property
    def variant(self) -> str:
        return self.rules.variant

    @property
    def engine(self) -> type[Game]:
        """The variant's engine class: its rules' flags and hand values (R2, R7.4).  Every game of the
        variant plays with it: read it, never write it (the arena undoes and reports a change by an
        agent it watches, :mod:`agents.boundary`)."""
        return ENGINES[self.rules.variant]

    @property
    def lives(self) -> tuple[int, ...]:
        """Lives by seat where the variant keeps them (R6.1, R7.1, R9.2): ``counters``
        under the name the rules give them (see ``Game.lives``)."""
        if not self.rules.has_lives:
            raise AttributeError(f"{self.variant} keeps no lives")
        return self.counters

    @property
    def over(self) -> bool:
        """The match has ended (as the engine's ``Game.over``)."""
        return self.phase == OVER

    def hand_value(self, cards: Any) -> int:
        """The value of three cards in this variant (R2, R7.4): higher is better."""
        return self.engine.value_of(cards, self.rules.combinations)

    def known_hands(self) -> dict[int, tuple[int, ...]]:
        """Other seats in the deal whose whole hand is public (R6.2, R11)."""
        return {s: self.public_hands[s] for s in self.order
                if s != self.seat and len(self.public_hands[s]) == 3}

    def action_text(self, action: int) -> str:
        """The canonical text (R12) of one of this seat's actions: ``offer 10H``."""
        return action_text(action, self.hand, self.table)

    def action_from_text(self, text: str) -> int:
        """The action number of a canonical text for this seat now."""
        return action_from_text(text, self.hand, self.table)

    def history_texts(self) -> list[tuple[int, str]]:
        """The match's actions as ``(seat, text)``, face-down cards it has not seen left out."""
        return [(s, entry_text(kind, cards)) for s, kind, cards in self.history if kind != SHOW]

    # ---------------------------------------------------------------- search
    def sample_world(self, rng: random.Random, time_limit: float | None = TIME_LIMIT) -> Game:
        """A fresh engine state consistent with everything this seat knows (R11).

        The cards hidden from the seat (other hands, the stock, face-down
        discards, an offered card and, before his choice, the widow dealer's
        own hand) are dealt anew with ``rng``; later deals are shuffled from a
        fresh generator drawn from ``rng``.  The record of earlier deals is
        this seat's: a card it did not see there is ``None`` (nothing in play
        depends on earlier deals).  A re-deal that finds no consistent world
        within ``time_limit`` seconds gives up (``NoConsistentDealError``).
        """
        if self.deals_own_worlds():  # a subclass's sample_worlds, which may take no time limit
            return self.sample_worlds(rng, 1)[0]
        return self.sample_worlds(rng, 1, time_limit)[0]

    def sample_worlds(self, rng: random.Random, count: int, time_limit: float | None = TIME_LIMIT) -> list[Game]:
        """``count`` worlds as :meth:`sample_world` samples them one after another with ``rng``
        (the same worlds, the same numbers drawn), for less work: what depends only on this
        seat's record is worked out once (:class:`commerce_env.engine.determinize.DealSampler`)."""
        if self.deals_own_worlds():  # a subclass's sample_world is the one to call
            check_sampling(rng, count)
            return [self.sample_world(rng) for _ in range(count)]
        worlds = self.world_stream(rng, time_limit)
        check_sampling(rng, count)
        return list(islice(worlds, count))

    def world_stream(self, rng: random.Random, time_limit: float | None = TIME_LIMIT) -> Iterator[Game]:
        """The worlds of :meth:`sample_worlds` one after another for as long as wanted (a search
        with a time budget does not know how many it needs), each re-deal giving up after
        ``time_limit`` seconds; a view that deals its own worlds gives its :meth:`sample_world`'s."""
        if self.deals_own_worlds():
            return iter(partial(self.sample_world, rng), None)
        sampler = self.deal_sampler()  # worked out once for all the worlds

        def draw() -> Iterator[Game]:
            while True:
                world_rng = random.Random(rng.getrandbits(64))  # future deals are unknown to everyone
                yield self.world_of(sampler.sample(rng, time_limit), world_rng)
        return draw()

    def deals_own_worlds(self) -> bool:
        """Whether a subclass deals its worlds otherwise (overrides :meth:`sample_world` or
        :meth:`sample_worlds`): then search takes them from it, not from :meth:`deal_sampler`."""
        return (type(self).sample_world is not SeatView.sample_world
                or type(self).sample_worlds is not SeatView.sample_worlds)

    def deal_sampler(self) -> DealSampler:
        """The determinizer of this seat's record of the deal: :meth:`sample_worlds`'s first step."""
        if self.phase == OVER:
            raise ValueError("the match is over: nothing is hidden any more")
        engine = self.engine
        return DealSampler(tuple(self._deal), self.seat, self.order, 3 if engine.has_table else 0,
                           self.rules.discard == "bottom", engine.flush_ends_deal, make_pack(self.rules.deck_size))

    def world_of(self, sampled: SampledDeal, rng: random.Random) -> Game:
        """The engine state of this view around one sampled deal, later deals shuffled from ``rng``."""
        hands = [sorted(sampled.hands[s]) if s in sampled.hands else [] for s in range(self.num_players)]
        return self.engine.restore(self._state, hands=hands, table=sampled.table, stock=sampled.stock,
                                   discards=sampled.discards,
                                   offer=sampled.offer if self.offer_from is not None else None,
                                   record=[*self._past, *sampled.record], deal_start=len(self._past) + 1, rng=rng)


def check_sampling(rng: Any, count: Any) -> None:
    """Refuse, naming it, a generator that is not a ``random.Random`` or a count that is not a
    whole number from 0."""
    if not isinstance(rng, random.Random):
        raise TypeError(f"rng must be a random.Random, got {type(rng).__name__}")
    whole_number("count", count, 0)


def entry_text(kind: str, cards: tuple) -> str:
    """The text of a record entry as far as its cards are known: ``offer 10H``, or ``offer``."""
    if kind == SHOW:
        return f"show {format_cards(cards)}"
    count = TEXT_CARDS.get(kind, 0)
    named = cards[:count]
    if count and None not in named:
        return f"{kind} {format_cards(named)}"
    return kind


def public_text(game: Game, index: int, observer: int) -> str:
    """Record entry ``index`` of ``game`` as ``observer`` knows it (R11)."""
    _, kind, cards, _ = masked(game.record[index], game.seat_bits[observer])
    return entry_text(kind, cards)


def pending_text(game: Game, action: int, observer: int) -> str:
    """The action the player to act is about to take, as ``observer`` will know it (R11)."""
    _, kind, cards, _ = masked(game.record_entry(action), game.seat_bits[observer])
    return entry_text(kind, cards)


def seat_view(game: Game, seat: int) -> SeatView:
    """What ``seat`` knows of ``game`` now (R11); see the module docstring.  Its cost does not grow
    with the match or the deal (:func:`commerce_env.knowledge.seat_knowledge`)."""
    seat = whole_number("seat", seat, 0, game.num_players - 1)
    knows = seat_knowledge(game, seat)
    memory = deal_memories(game)[seat]  # R11: the cards that passed through its hands
    sees = bool(game.hands[seat]) and game.sees_own_hand(seat)
    hand = tuple([*game.hands[seat]]) if sees else ()
    places = knows.places.known()
    public: list[list[int]] = [[] for _ in range(game.num_players)]
    for card, holder in places.items():
        public[holder].append(card)
    known = set(hand) | set(game.table) | set(knows.discards.mine) | set(places)
    current = game.current_player
    offer = game.offer
    state = game.public_state()  # copied, its rules too: an agent's write to them (object.__setattr__)
    rules = state[bisect_left(state, ("rules",))][1]  # changes neither the game nor another view
    return SeatView(
        seat=seat, num_players=game.num_players, rules=rules, phase=game.phase, current_player=current,
        dealer=game.dealer, order=tuple([*game.order]), hand=hand, table=tuple([*game.table]),
        stock_size=len(game.stock), pool=game.pool, counters=tuple([*game.counters]),
        money=tuple([*game.money]), out=tuple([*game.out]), rounds_done=game.rounds_done,
        deals_played=game.deals_played, deals_dealt=game.deals_dealt,
        offer_from=None if offer is None else offer[0],
        gave=Chain() if memory is None else memory.gave.chain(),
        discarded=Chain() if memory is None else memory.discarded.chain(),
        public_hands=tuple([tuple(sorted(cards)) for cards in public]),
        unseen=tuple([c for c in game.pack if c not in known]),
        history=knows.history.chain(),
        legal_actions=tuple(game.legal_actions()) if current == seat else (),
        observation=obs.encode(game, seat), action_mask=obs.action_mask(game, seat),
        _deal=knows.deal.chain(), _past=knows.past_chain(), _state=state)
