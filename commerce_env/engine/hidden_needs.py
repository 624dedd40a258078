"""What the hands must hold for the rest of a deal to be replayable (docs/rules.md R11).

The depth-first search of :mod:`.hidden_moves` draws each hidden choice of
another player at random and backtracks on a contradiction.  In a long deal a
contradiction often shows only long after the choice that made it: a
neighbour of the seat has been left holding only cards the seat has seen when
he must show it a new one, or only cards that must stay where they are when he
must discard or pass one on.  Here such needs are worked out once per deal,
from the record alone, as needs on sets of places before each step; a choice
after which a need cannot be met is refused at once.

A need is ``(places, count, barred, stock)`` (``hidden_moves.Need``): the
places (seats, the card on offer) and the positions of the stock's list set
in ``stock`` must hold at least ``count`` positions whose card is not written,
or is written and not among the bits of ``barred``.  Each need is necessary
for any consistent deal (so the true deal always meets them all): the places
are those from which a suitable position can still reach the player in time,
found by going backwards over the barters and draws between, as
:func:`.hidden_moves.constraints` does for one card.
"""

from __future__ import annotations

import math

from .hidden_moves import (
    _GIVE,
    _OFFER,
    _OFFERED,
    _READY_MONEY,
    ALL_CARDS,
    Need,
    Needs,
    StockMoves,
    World,
    check_clock,
    destination,
    on_stock,
)


def _sightings(steps: list[tuple], seat: int, first: World, bottom: bool) -> list[tuple[int, int]]:
    """``(player, step)`` where another player shows the seat a card it has not seen yet: offers
    or gives it to him (R5.4, R7.2), or discards it under the stock for him to draw back (R5.3)."""
    seen = set(first.item_of)
    sightings = []
    for j, step in enumerate(steps):
        code, actor = step[0], step[1]
        if code in (_READY_MONEY, _OFFER, _GIVE):
            if actor != seat and destination(steps, j, seat, bottom)[2]:
                if step[2] not in seen:
                    sightings.append((actor, j))
                seen.add(step[2])
            elif code == _READY_MONEY and actor == seat:
                seen.add(step[3])  # he sees what he draws
            elif code == _GIVE and actor == seat:
                seen.add(step[4])  # and what he is offered
        else:  # face up or shown: whatever is named is seen (none of these is before a barter)
            seen.update(card for card in step[2:] if isinstance(card, int))
            seen.update(card for part in step[2:] if isinstance(part, tuple) for card in part if card is not None)
    return sightings


def _hidden_moves(steps: list[tuple], seat: int, allowed: dict[int, dict[int, set[int]]],
                  bottom: bool) -> list[tuple[int, int, int]]:
    """``(player, step, barred)`` for each hidden move another player chooses (a discard, an offer,
    a card given, none of them shown to the seat): he must hold a card that may move then, one
    not among ``barred``, the cards the seat will see again that may not go where it goes."""
    moves = []
    for j, step in enumerate(steps):
        if step[1] == seat or step[0] not in (_READY_MONEY, _OFFER, _GIVE):
            continue
        moved_at, target, sighted = destination(steps, j, seat, bottom)
        if sighted:
            continue
        barred = 0
        for card, table in allowed.items():
            places = table.get(moved_at + 1)
            if places is not None and target not in places:
                barred |= 1 << card
        if barred:
            moves.append((step[1], j, barred))
    return moves


def _back(steps: list[tuple], seat: int, player: int, step: int, others: set[int] | None, stock: StockMoves,
          barred: int = ALL_CARDS):
    """The places from which a position can still reach ``player`` by ``step``, before each step
    from ``step`` backwards (pairs of step and places), as long as that is worth checking: until
    every hand of ``others`` could serve, or without ``others`` until a card on the stock could,
    which is seldom short of one, or until a card the seat passes into the places (a barter with
    him, R5.4, R7.2) could: one not among ``barred``.  A card on the stock is followed in its place
    there (:class:`.hidden_moves.StockMoves`), as ``("stock", what put it there)``."""
    places = frozenset((player,))
    yield step, places
    for j in range(step - 1, -1, -1):
        code, actor, before = steps[j][0], steps[j][1], places  # a set is replaced only where it changes
        if code == _READY_MONEY:  # R5.3: he discards one, face down, and draws the top of the stock
            discard = on_stock(j)
            discarded, drew = discard in places, actor != seat and actor in places
            if discarded and actor == seat:  # under the stock (discard: bottom): a card the seat knows
                return  # it may serve, and is not followed
            if discarded:
                places = (places - {discard}) | {actor}
            if drew:
                places = places | {on_stock(stock.drawn[j])}
        elif code == _GIVE and seat not in (actor, steps[j][3]):  # the giver receives the card on offer
            trader = steps[j][3]
            gave, took = actor in places, trader in places
            if gave:
                places = places | {_OFFERED}
            if took:
                places = places | {actor}
        elif code == _GIVE:  # a barter with the seat: the other receives a card the seat knows
            other, card = (steps[j][3], steps[j][2]) if actor == seat else (actor, steps[j][4])
            if other in places and not barred >> card & 1:
                return  # it may serve
        elif code == _OFFER and _OFFERED in places:
            places = (places - {_OFFERED}) | {actor}
        if ((places is not before or j == step - 1)  # else as at the step after, where it went on
                and (others <= places if others is not None else any(isinstance(place, tuple) for place in places))):
            return
        yield j, places


def hidden_needs(steps: list[tuple], seat: int, first: World, allowed: dict[int, dict[int, set[int]]],
                 bottom: bool, stock: StockMoves, deadline: float = math.inf) -> Needs:
    """The needs before each step (see the module docstring; ``stock``: the stock's moves;
    ``OutOfTime`` once ``deadline`` passes).

    A sighting of a card the seat has not seen needs an unwritten position in
    the shower's hand, and writes on it: every set of places must hold at least
    as many as there are sightings that can only be served from within it
    (Hall's condition).  A hidden move needs a card that may make it.
    """
    others = {place for place in first.hands if place != seat}
    shown: dict[int, list[frozenset]] = {}
    for player, sighted in _sightings(steps, seat, first, bottom):  # counted together: not stopped at every hand
        check_clock(deadline)
        for j, places in _back(steps, seat, player, sighted, None, stock):
            shown.setdefault(j, []).append(places)
    needs: dict[int, list[tuple[frozenset, int, int]]] = {
        j: [(places, sum(other <= places for other in group), ALL_CARDS) for places in dict.fromkeys(group)]
        for j, group in shown.items()}
    moves: dict[int, dict[tuple[frozenset, int, int], None]] = {}
    for player, moved, barred in _hidden_moves(steps, seat, allowed, bottom):
        check_clock(deadline)
        for j, places in _back(steps, seat, player, moved, others, stock, barred):
            if j < moved:  # at the move itself its choices say so
                moves.setdefault(j, {})[places, 1, barred] = None
    for j, group in moves.items():
        needs.setdefault(j, []).extend(group)
    out: Needs = {}
    splits: dict[frozenset, tuple[frozenset, tuple[int, ...]]] = {}  # many needs share one set of places
    for j, group in needs.items():
        check_clock(deadline)
        out[j] = _on_the_stock(group, stock.before[j], splits)
    return out


def _on_the_stock(group: list[tuple[frozenset, int, int]], queue: list[int],
                  splits: dict[frozenset, tuple[frozenset, tuple[int, ...]]]) -> list[Need]:
    """The needs of one step with their places on the stock as positions in the stock's list
    (bits), ``queue`` being the stock then (``StockMoves.before``); ``splits`` keeps each set of
    places split into the others and the stock's (what put each card there)."""
    where: dict[int, int] | None = None  # the queue's positions, looked up only if a need names one
    out = []
    for places, wanted, barred in group:
        split = splits.get(places)
        if split is None:
            sources = tuple(place[1] for place in places if isinstance(place, tuple))
            split = splits[places] = (
                frozenset(place for place in places if not isinstance(place, tuple)) if sources else places, sources)
        others, sources = split
        positions = 0
        if sources:
            if where is None:
                where = {source: k for k, source in enumerate(queue)}
            for source in sources:
                positions |= 1 << where[source]
        out.append((others, wanted, barred, positions))
    return out
