"""What a game's state shows and how it is copied: the public state a seat view starts from (R11),
restoring a state from it, pickling and cloning.  A part of :class:`commerce_env.engine.base.Game`."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..cards import CARDS, format_cards
from ..options import Rules
from .actions import TEXT_CARDS
from .phases import DEAL, SHOW

if TYPE_CHECKING:
    from .base import Game

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


class Lineage:
    """One slot that a game and every copy :meth:`Game.clone` makes of it share (clone copies
    lists, not this): :func:`commerce_env.knowledge.seat_knowledge` keeps there the seats' masked
    record it used last, so that the clones of one game (a replay's states) share one set of
    masked entries.  It holds what each seat saw (R11): it lives on the game, where no view reaches."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last = None


class Snapshots:
    """The public state, restore, pickling and clone of a game (mixed into ``Game``)."""

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
