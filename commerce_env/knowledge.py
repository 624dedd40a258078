"""What one seat knows (docs/rules.md R11), read from the engine's record.

The engine records every card movement once, with the seats that see it
(:attr:`commerce_env.engine.base.Game.record`).  Everything a seat knows is
derived here from that record: the cards that passed through its hands (for
the observation), the seat's copy of the record with every card it has not
seen blanked out (for seat views and the re-deals of search), and where the
cards it has seen are now, as far as it can tell (for the heuristic agents).

Each of these is read entry by entry (:class:`Places`, :class:`PlacedDiscards`,
:class:`DealMemory`): the functions :func:`public_places`, :func:`placed_discards`
and :func:`deal_memory` read a whole deal at once.  Seat views and observations
are asked for at every decision, and a match may run to thousands of entries, a
deal to tens of thousands: :func:`seat_knowledge` and :func:`deal_memories` keep
them read as the record grows, each entry masked once per seat and read once, so
that a view or an observation costs the same late in a long deal as early in it
(docs/performance.md).  What a view holds of the growing record are
:class:`commerce_env.chain.Chain` snapshots: immutable, sharing all but a short
tail with the game's copy.  The kept knowledge lives on the game, not in this
module: what one seat saw must not be reachable from another seat's view
(``view.sample_world.__globals__`` leads here), and only the engine and the
arena hold the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

from .chain import Chain, ChainBuilder
from .engine.base import DEAL, SHOW, Game

Entry = tuple  # (seat, kind, cards, seen): see commerce_env.engine.base


def masked(entry: Entry, bit: int) -> Entry:
    """``entry`` as the seat with mask ``bit`` knows it: cards it did not see are ``None``.

    Fresh tuples throughout, so that two equal views pickle to equal bytes."""
    seat, kind, cards, seen = entry
    return (seat, kind, tuple([c if s & bit else None for c, s in zip(cards, seen, strict=True)]),
            tuple([*seen]))


def seat_record(game: Game, seat: int, start: int = 0) -> list[Entry]:
    """The record from ``start`` as ``seat`` knows it (R11)."""
    bit = game.seat_bits[seat]
    return [masked(entry, bit) for entry in game.record[start:]]


# ------------------------------------------------------------ read entry by entry
class DealMemory:
    """The cards that passed through one seat's hands this deal (R11), in the order it parted with
    them: ``gave``, ``(card, to seat)`` of each card it gave in a barter, and ``discarded``, the
    cards it discarded for ready money; ``gave_once`` and ``discarded_once`` the same without
    repeats (at most the pack's size, what the observation shows)."""

    __slots__ = ("gave", "discarded", "gave_once", "discarded_once")

    def __init__(self) -> None:
        self.gave, self.discarded = ChainBuilder(), ChainBuilder()
        self.gave_once: dict[tuple[int, int], None] = {}
        self.discarded_once: dict[int, None] = {}

    def give(self, card: int, to: int) -> None:
        self.gave.append((card, to))
        self.gave_once[card, to] = None

    def discard(self, card: int) -> None:
        self.discarded.append(card)
        self.discarded_once[card] = None


def remember(memories: list[DealMemory | None], entry: Entry, previous: int | None) -> None:
    """Record entry ``entry`` of a deal into each seat's :class:`DealMemory` (``None`` for a seat
    with nothing to remember yet); ``previous`` is the seat of the entry before it (a give answers
    the offer just before it, R5.4, R7.2)."""
    actor, kind, cards, _ = entry
    if kind == "ready_money":  # R5.3: a face-down discard, seen by its owner
        _memory(memories, actor).discard(cards[0])
    elif kind == "give":  # both cards seen by both
        _memory(memories, actor).give(cards[0], previous)
        _memory(memories, previous).give(cards[1], actor)


def _memory(memories: list[DealMemory | None], seat: int) -> DealMemory:
    memory = memories[seat]
    if memory is None:
        memory = memories[seat] = DealMemory()
    return memory


def deal_memory(game: Game, seat: int) -> tuple[list[tuple[int, int]], list[int]]:
    """The cards that passed through ``seat``'s hands this deal (R11): ``(card, to seat)``
    for each card it gave in a barter, and the cards it discarded for ready money."""
    memories: list[DealMemory | None] = [None] * game.num_players
    record = game.record
    for index in range(game.deal_start, len(record)):
        remember(memories, record[index], record[index - 1][0])
    memory = memories[seat]
    return ([], []) if memory is None else (list(memory.gave.chain()), list(memory.discarded.chain()))


class Places:
    """Where ``seat`` knows cards of the current deal to be, read from its masked record of the
    deal entry by entry: see :func:`public_places`."""

    __slots__ = ("seat", "places", "previous")

    def __init__(self, seat: int):
        self.seat = seat
        self.places: dict[int, int] = {}  # card -> the seat holding it
        self.previous: int | None = None  # the seat of the last entry read

    def add(self, entry: Entry) -> None:
        actor, kind, cards, _ = entry
        seat, places = self.seat, self.places
        if kind == "exchange":
            own, taken = cards
            places.pop(own, None)
            places[taken] = actor
        elif kind == "take_widow":
            for card in cards[3:]:
                places[card] = actor
        elif kind == "ready_money":  # a face-down discard and a face-down draw
            if actor != seat:
                self.places = {c: s for c, s in places.items() if s != actor}
        elif kind == "give":
            trader = self.previous
            given, offered = cards
            if trader == seat:  # it gave its card and got the neighbour's
                places[offered] = actor
                places.pop(given, None)
            elif actor == seat:
                places[given] = trader
                places.pop(offered, None)
            else:
                self.places = {c: s for c, s in places.items() if s not in (actor, trader)}
        elif kind == SHOW:
            for card in cards:
                places[card] = actor
        self.previous = actor

    def known(self) -> dict[int, int]:
        """``card -> seat`` for the cards known to be in another player's hand now."""
        seat = self.seat
        return {c: s for c, s in self.places.items() if s != seat}


def public_places(deal: Sequence[Entry], seat: int) -> dict[int, int]:
    """``card -> seat`` for the cards ``seat`` knows to be in another player's hand now.

    ``deal`` is the seat's masked record of the current deal.  A card taken
    from the table (R6.3, R8.2) is in the taker's hand until he exchanges it
    back; after the widow dealer takes the widow, its cards are in his hand
    (R6.2); a card this seat bartered away (R5.4, R7.2) is in the neighbour's
    hand until that neighbour makes a face-down move, after which it is
    treated as unknown again; at the showdown every hand is shown (R11).
    """
    places = Places(seat)
    for entry in deal:
        places.add(entry)
    return places.known()


class PlacedDiscards:
    """This seat's discards still out of play or under the stock, read from its masked record of
    one deal entry by entry, the deal's entry first: see :func:`placed_discards`."""

    __slots__ = ("seat", "bottom", "stock", "mine")

    def __init__(self, seat: int, bottom: bool):
        self.seat, self.bottom = seat, bottom
        self.stock: list[int | None] = []  # the stock, top last: this seat's discards, None for other cards
        self.mine: list[int] = []  # its discards still placed, in the order made

    def add(self, entry: Entry) -> None:
        actor, kind, cards, seen = entry
        if kind == DEAL:
            size = len(seen)
            while size and seen[size - 1] == 0:  # the stock: the pack's last cards, seen by nobody
                size -= 1
            self.stock = [None] * (len(seen) - size)
        elif kind == "ready_money":
            card = cards[0] if actor == self.seat else None
            stock, mine = self.stock, self.mine
            if self.bottom:
                stock.insert(0, card)
                drawn = stock.pop()
                if drawn is not None:
                    mine.remove(drawn)
            else:
                stock.pop()
            if card is not None:
                mine.append(card)


def placed_discards(deal: Sequence[Entry], seat: int, bottom: bool) -> list[int]:
    """This seat's discards still out of play or under the stock (R5.3), in the order made.

    With Peel's ``bottom`` a discard goes under the stock and may be drawn
    again when the stock runs round: then it is in some hand, no longer placed.
    """
    if not deal or deal[0][1] != DEAL:
        return []
    placed = PlacedDiscards(seat, bottom)
    for entry in deal:
        placed.add(entry)
    return placed.mine


# ------------------------------------------------------- kept as the game goes
class SeatKnowledge:
    """What one seat knows (R11), read entry by entry as the record grows: its masked record
    (``entries``; ``deal``, the current deal's from its deal entry; ``past``, the parts of the
    chain of the entries before it), the view's history (``(seat, kind, cards)`` without the deal
    entries), ``places`` and ``discards`` of the current deal."""

    __slots__ = ("seat", "bottom", "entries", "past", "deal", "history", "places", "discards")

    def __init__(self, seat: int, bottom: bool):
        self.seat, self.bottom = seat, bottom
        self.entries, self.deal, self.history = ChainBuilder(), ChainBuilder(), ChainBuilder()
        self.past: tuple = ()  # Chain's arguments: each view gets its own Chain of the same tuples
        self.places, self.discards = Places(seat), PlacedDiscards(seat, bottom)

    def add(self, mine: Entry) -> None:
        """Read one entry, masked for this seat."""
        kind = mine[1]
        if kind == DEAL:
            entries = self.entries
            self.past = (entries.root, entries.height, entries.leaves, tuple(entries.tail))
            self.deal = ChainBuilder()
            self.places, self.discards = Places(self.seat), PlacedDiscards(self.seat, self.bottom)
        else:
            self.history.append((mine[0], kind, mine[2]))
        self.entries.append(mine)
        self.deal.append(mine)
        self.places.add(mine)
        self.discards.add(mine)

    def past_chain(self) -> Chain:
        """The masked entries before the current deal's."""
        return Chain(*self.past)


class _Memories:
    """Every seat's :class:`DealMemory` of the current deal, and how far the record has been read
    (``done`` entries, the last of them ``last``), from the current deal's entry on."""

    __slots__ = ("done", "last", "previous", "seats")

    def __init__(self, game: Game):
        record, start = game.record, game.deal_start - 1  # the deal's entry: only this deal is remembered
        start = min(max(start, 0), len(record))  # past the end: a state before its deal's entry, nothing yet
        self.done, self.last, self.previous = start, record[start - 1] if start else None, None
        self.seats: list[DealMemory | None] = [None] * game.num_players  # None: nothing to remember yet


class _Known:
    """One game's record as its seats know it, read as far as :attr:`sources` (the record's entries
    read so far, for any seat); see :func:`seat_knowledge`."""

    __slots__ = ("record", "sources", "seats", "memories", "inherited", "same")

    def __init__(self, game: Game, previous: _Known | None):
        record = self.record = game.record  # the game's list: a game given a new record starts anew
        self.sources: list[Entry] = []
        self.seats: list[SeatKnowledge | None] = [None] * game.num_players
        self.memories = _Memories(game)
        # A clone's record starts as the game's it was cloned from (a replay's states, search):
        # its seats start from the entries both records hold, masked once for both (memory).
        same, self.inherited = 0, {}
        if previous is not None and len(previous.seats) == game.num_players:
            sources, limit = previous.sources, min(len(record), len(previous.sources))
            while same < limit and record[same] is sources[same]:
                same += 1
            if same:
                self.inherited = {s: k.entries.chain() for s, k in enumerate(previous.seats) if k is not None}
        self.same = same


def _known(game: Game) -> _Known:
    """The game's :class:`_Known`, made anew for a new record (a clone's, a new match's) or one
    rewritten in place (tests do; the engine only appends), its sources read up to the record's end."""
    record, known = game.record, game.known_records
    if known is not None:
        sources = known.sources
        done = len(sources)
        if known.record is not record or done > len(record) or (done and record[done - 1] is not sources[done - 1]):
            known = None
    lineage = game.lineage
    if known is None:
        known = game.known_records = _Known(game, lineage.last)
    lineage.last = known
    sources = known.sources
    if len(sources) < len(record):
        sources += record[len(sources):]
    return known


def seat_knowledge(game: Game, seat: int) -> SeatKnowledge:
    """What ``seat`` knows of ``game`` now, read from the record as far as it goes: each entry is
    masked once for the seat and kept on the game (``game.known_records``, and ``game.lineage``
    that the game's clones share) for the next call.  It belongs to the game: read it, never
    change it; a view takes :class:`Chain` snapshots of its records and copies of the rest."""
    known = _known(game)
    kept = known.seats[seat]
    if kept is None:
        kept = known.seats[seat] = SeatKnowledge(seat, game.rules.discard == "bottom")
        inherited = known.inherited.pop(seat, None)
        if inherited is not None:
            for mine in islice(inherited, known.same):
                kept.add(mine)
    sources, bit = known.sources, game.seat_bits[seat]
    for index in range(len(kept.entries), len(sources)):
        kept.add(masked(sources[index], bit))
    return kept


def deal_memories(game: Game) -> list[DealMemory | None]:
    """Every seat's :class:`DealMemory` of the current deal (what :func:`deal_memory` gives; None: it
    gave and discarded nothing yet), read from the record as far as it goes and kept on the game
    for the next call.  Read them, never change them.  (The observation's path: it reads the
    record itself, not the seats' copies of it.)"""
    record, known = game.record, game.known_records
    if known is None or known.record is not record:
        known = _known(game)
    memories, size = known.memories, len(record)
    done = memories.done
    if done > size or (done and record[done - 1] is not memories.last):  # rewritten in place
        memories = known.memories = _Memories(game)
        done = memories.done
    if done < size:
        previous, seats = memories.previous, memories.seats
        for index in range(done, size):
            entry = record[index]
            if entry[1] == DEAL:
                seats = memories.seats = [None] * len(seats)
            else:
                remember(seats, entry, previous)
            previous = entry[0]
        memories.done, memories.last, memories.previous = size, record[size - 1], previous
    return memories.seats
