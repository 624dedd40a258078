"""What one seat knows (RULES.md R11), and worlds sampled consistently with it.

Heuristic and search agents are handed the live engine state, which holds
every card.  This module is the one place that turns that state into what a
seat may know, so that no agent reads a hidden card by accident:

* its own hand (not the widow dealer's before his blind choice, R6.2), the
  face-up table, and its own discards;
* cards whose place is public: a card taken from the table in an exchange
  (R6.3, R8.2) is in the taker's hand until he exchanges it back; after the
  widow dealer takes the widow his whole hand is public (the old widow, plus
  public exchanges); a card this seat bartered away (R5.4, R7.2) is in the
  neighbour's hand until that neighbour makes a face-down move (a ready-money
  trade or a barter), after which it is treated as unknown again;
* everything else is *unseen*: the other hands apart from their public cards,
  the stock and other players' face-down discards.

:func:`determinize` deals the unseen cards at random into the unseen places,
the standard "determinization" of imperfect-information search.  It reads the
state's hidden cards for nothing but their count, and it shuffles the sorted
list of unseen cards, so the worlds it samples for a given ``rng`` are the
same whatever the hidden cards really are (``tests/test_agents.py`` checks
this by permuting them).  Opponents' past actions are not used to weigh the
worlds (each consistent world is equally likely): a documented simplification.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from commerce_env.engine.base import REPLY, Game


@dataclass(frozen=True)
class Knowledge:
    """The cards one seat can place, and the cards it cannot (R11)."""

    seat: int
    own_hand: tuple[int, ...]  # empty when the seat does not see it
    public_hands: dict[int, tuple[int, ...]]  # other seat -> cards known to be in its hand
    unseen: tuple[int, ...]  # sorted: cards whose place this seat does not know

    def opponents_known(self, game: Game) -> dict[int, tuple[int, ...]]:
        """Other seats in the deal whose whole hand is public."""
        return {s: cards for s, cards in self.public_hands.items()
                if s != self.seat and len(cards) == len(game.hands[s]) and cards}


def _public_places(game: Game, seat: int) -> dict[int, int]:
    """``card -> seat`` for cards known to ``seat`` to be in another player's hand."""
    places: dict[int, int] = {}
    deal = game.history[game.deal_start:]
    took_widow = False
    for i, (actor, kind, cards) in enumerate(deal):
        if kind == "exchange":  # R6.3 / R8.2: both cards are face up as they move
            own, taken = cards
            places.pop(own, None)
            places[taken] = actor
        elif kind == "take_widow":
            took_widow = True
        elif kind == "ready_money":  # a face-down discard and a face-down draw
            if actor != seat:
                places = {c: s for c, s in places.items() if s != actor}
        elif kind == "offer":
            reply = deal[i + 1] if i + 1 < len(deal) else None
            if reply is None or reply[1] != "give":
                continue  # still pending, or answered by a knock: nothing moved
            neighbour = reply[0]
            if actor == seat:  # it gave its card and got the neighbour's
                places[cards[0]] = neighbour
                places.pop(reply[2][0], None)
            elif neighbour == seat:
                places[reply[2][0]] = actor
                places.pop(cards[0], None)
            else:
                places = {c: s for c, s in places.items() if s not in (actor, neighbour)}
    if took_widow and game.dealer != seat:
        # R6.2: the dealer's hand became the face-up widow's cards; since then
        # only public exchanges have changed it, so all of it is public.
        for card in game.hands[game.dealer]:
            places[card] = game.dealer
    return {c: s for c, s in places.items() if s != seat}


def own_discards(game: Game, seat: int) -> set[int]:
    """This seat's discards still out of play or under the stock (R5.3); one drawn
    again from a stock that ran round is in some hand and no longer placed."""
    mine = set(game.discarded[seat])
    if mine and game.rules.discard == "bottom":
        return mine & (set(game.stock) | set(game.discards))
    return mine


def knowledge(game: Game, seat: int) -> Knowledge:
    """What ``seat`` knows now (R11)."""
    sees = game.sees_own_hand(seat)
    own = tuple(game.hands[seat]) if sees else ()
    places = _public_places(game, seat)
    public: dict[int, list[int]] = {}
    for card, holder in places.items():
        public.setdefault(holder, []).append(card)
    known = set(own) | set(game.table) | own_discards(game, seat) | set(places)
    unseen = tuple(c for c in game.pack if c not in known)
    return Knowledge(seat, own, {s: tuple(sorted(c)) for s, c in public.items()}, unseen)


def determinize(game: Game, seat: int, rng: random.Random) -> Game:
    """A clone of ``game`` with the cards ``seat`` cannot see dealt again at random.

    Hands keep their sizes and their public cards; the stock keeps its size and
    the places of this seat's own discards (Peel's ``bottom``, R5.3); the
    discard pile keeps this seat's discards.  Everything else is refilled from
    the unseen cards, shuffled with ``rng``.
    """
    info = knowledge(game, seat)
    world = game.clone()
    pool = list(info.unseen)
    rng.shuffle(pool)
    mine = own_discards(game, seat)
    draw = iter(pool)
    for other in range(game.num_players):
        if other == seat and info.own_hand:
            continue
        if not game.hands[other]:
            continue
        public = info.public_hands.get(other, ()) if other != seat else ()
        fresh = [next(draw) for _ in range(len(game.hands[other]) - len(public))]
        world.hands[other] = sorted([*public, *fresh])
    world.stock = [c if c in mine else next(draw) for c in game.stock]
    world.discards = [c if c in mine else next(draw) for c in game.discards]
    leftover = next(draw, None)
    if leftover is not None:  # a bug in the bookkeeping above, never a player's fault
        raise AssertionError(f"determinize: card {leftover} was left over for seat {seat}")
    offer = getattr(game, "offer", None)
    if game.phase == REPLY and offer is not None and offer[0] != seat:
        trader = offer[0]  # the offered card is face down: any card of the trader's new hand
        world.offer = (trader, world.hands[trader][rng.randrange(len(world.hands[trader]))])
    world._legal_cache = None
    return world
