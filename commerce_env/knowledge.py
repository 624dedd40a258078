"""What one seat knows (docs/rules.md R11), read from the engine's record.

The engine records every card movement once, with the seats that see it
(:attr:`commerce_env.engine.base.Game.record`).  Everything a seat knows is
derived here from that record: the cards that passed through its hands (for
the observation), the seat's copy of the record with every card it has not
seen blanked out (for seat views and the re-deals of search), and where the
cards it has seen are now, as far as it can tell (for the heuristic agents).

Seat views ask for the seat's copy of the record at every decision, and a
match of the lives variants runs to hundreds of entries: :func:`known_record`
masks each entry once per seat, when it is first asked for, and keeps the
masked entries on the game (the record only grows), so that a view costs
the same at the end of a long match as at its start.  They are kept on the
game, not in this module: what one seat saw must not be reachable from
another seat's view (``view.sample_world.__globals__`` leads here), and only
the engine and the arena hold the game.
"""

from __future__ import annotations

from collections.abc import Sequence

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


class _KnownRecords:
    """One game's record as each seat knows it: the masked entries and, without the
    ``deal`` entries, the ``(seat, kind, cards)`` of the view's ``history``."""

    __slots__ = ("record", "sources", "entries", "history")

    def __init__(self, record: list[Entry], num_players: int):
        self.record = record  # the game's list: a game given a new record gets new copies
        self.sources: list[Entry] = []  # the record's entries masked so far (for any seat)
        self.entries: list[list[Entry]] = [[] for _ in range(num_players)]
        self.history: list[list[tuple]] = [[] for _ in range(num_players)]

    def share(self, previous: _KnownRecords) -> None:
        """Start from ``previous``'s masks of the entries both records hold (the same
        objects: a clone's, or a replay's next state's), so that a game and its copies
        hold one set of masked tuples (memory), not one each."""
        record, sources = self.record, previous.sources
        same, limit = 0, min(len(record), len(sources))
        while same < limit and record[same] is sources[same]:
            same += 1
        if not same or len(previous.entries) != len(self.entries):
            return
        self.sources = sources[:same]
        for seat, (entries, history) in enumerate(zip(previous.entries, previous.history, strict=True)):
            kept = min(same, len(entries))
            deals = sum(1 for entry in sources[:kept] if entry[1] == DEAL)
            self.entries[seat] = entries[:kept]
            self.history[seat] = history[:kept - deals]


def known_record(game: Game, seat: int) -> tuple[list[Entry], list[tuple]]:
    """``seat_record(game, seat)`` and its ``(seat, kind, cards)`` without the ``deal``
    entries, the entries masked once and kept on the game for the next call (speed):
    ``game.known_records``, and ``game.lineage`` that the game's clones share.

    The two lists belong to the cache: read them, never change them.  Their
    entries are the same tuples from call to call (immutable, so a view may hold
    them); each is a fresh tuple made for this seat, so a view that holds them
    pickles as one made by :func:`seat_record` does.
    """
    record = game.record
    known = game.known_records
    entries = None if known is None or known.record is not record else known.entries[seat]
    if entries is not None and entries and (len(entries) > len(record)
                                            or record[len(entries) - 1] is not known.sources[len(entries) - 1]):
        entries = None  # the record was rewritten in place (tests do; the engine only appends)
    lineage = game.lineage
    if entries is None:
        known = game.known_records = _KnownRecords(record, game.num_players)
        if lineage.last is not None:  # a clone's record starts as the game's it was cloned from
            known.share(lineage.last)
        entries = known.entries[seat]
    lineage.last = known
    history, sources = known.history[seat], known.sources
    done = len(entries)
    if done < len(record):
        bit = game.seat_bits[seat]
        for index in range(done, len(record)):
            entry = record[index]
            if index == len(sources):
                sources.append(entry)
            mine = masked(entry, bit)
            entries.append(mine)
            if mine[1] != DEAL:
                history.append((mine[0], mine[1], mine[2]))
    return entries, history


def deal_memory(game: Game, seat: int) -> tuple[list[tuple[int, int]], list[int]]:
    """The cards that passed through ``seat``'s hands this deal (R11): ``(card, to seat)``
    for each card it gave in a barter, and the cards it discarded for ready money."""
    gave, discarded = [], []
    record = game.record
    for index in range(game.deal_start, len(record)):
        actor, kind, cards, _ = record[index]
        if kind == "ready_money":
            if actor == seat:
                discarded.append(cards[0])
        elif kind == "give":
            trader = record[index - 1][0]  # a give answers the offer just before it
            if actor == seat:
                gave.append((cards[0], trader))
            elif trader == seat:
                gave.append((cards[1], actor))
    return gave, discarded


def public_places(deal: Sequence[Entry], seat: int) -> dict[int, int]:
    """``card -> seat`` for the cards ``seat`` knows to be in another player's hand now.

    ``deal`` is the seat's masked record of the current deal.  A card taken
    from the table (R6.3, R8.2) is in the taker's hand until he exchanges it
    back; after the widow dealer takes the widow, its cards are in his hand
    (R6.2); a card this seat bartered away (R5.4, R7.2) is in the neighbour's
    hand until that neighbour makes a face-down move, after which it is
    treated as unknown again; at the showdown every hand is shown (R11).
    """
    places: dict[int, int] = {}
    for index, (actor, kind, cards, _) in enumerate(deal):
        if kind == "exchange":
            own, taken = cards
            places.pop(own, None)
            places[taken] = actor
        elif kind == "take_widow":
            for card in cards[3:]:
                places[card] = actor
        elif kind == "ready_money":  # a face-down discard and a face-down draw
            if actor != seat:
                places = {c: s for c, s in places.items() if s != actor}
        elif kind == "give":
            trader = deal[index - 1][0]
            given, offered = cards
            if trader == seat:  # it gave its card and got the neighbour's
                places[offered] = actor
                places.pop(given, None)
            elif actor == seat:
                places[given] = trader
                places.pop(offered, None)
            else:
                places = {c: s for c, s in places.items() if s not in (actor, trader)}
        elif kind == SHOW:
            for card in cards:
                places[card] = actor
    return {c: s for c, s in places.items() if s != seat}


def placed_discards(deal: Sequence[Entry], seat: int, bottom: bool) -> list[int]:
    """This seat's discards still out of play or under the stock (R5.3), in the order made.

    With Peel's ``bottom`` a discard goes under the stock and may be drawn
    again when the stock runs round: then it is in some hand, no longer placed.
    """
    if not deal or deal[0][1] != DEAL:
        return []
    seen = deal[0][3]
    size = len(seen)
    while size and seen[size - 1] == 0:  # the stock: the pack's last cards, seen by nobody
        size -= 1
    stock = [None] * (len(seen) - size)
    mine = []
    for actor, kind, cards, _ in deal:
        if kind != "ready_money":
            continue
        card = cards[0] if actor == seat else None
        if bottom:
            stock.insert(0, card)
            drawn = stock.pop()
            if drawn is not None:
                mine.remove(drawn)
        else:
            stock.pop()
        if card is not None:
            mine.append(card)
    return mine
