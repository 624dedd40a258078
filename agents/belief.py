"""What an agent's own choices say about the cards a seat has not seen: the belief of a best response.

A sampled world (``view.sample_world``, R11) is a whole deal consistent with
what the seat has seen.  Against a known agent, it is more or less likely by
what that agent would have done in it: replayed from the deal's start with the
world's cards, each of the agent's past decisions has the probability its
policy gave the action it actually took (:meth:`agents.base.Agent.action_probabilities`),
and the world's weight is their product.  A deterministic agent gives 1 or 0
(a world where it would have played otherwise is ruled out), a network its
softmax, random a constant (no information).  A world is also told by its
*misses*, the agent's decisions there that its policy gave no chance: where no
world drawn has none (a deterministic agent's hidden choices are rarely the
ones drawn), the worlds with the fewest are the likeliest for an agent that
trembles, in the limit of small trembles, and they are weighted so
(:func:`world_weight`).  The weights are relative to the
determinizer's proposal, which is consistent but not exactly uniform over the
consistent deals (:mod:`commerce_env.engine.determinize`).

The replay starts from :func:`before_deal`, the world as it stood before its
deal was dealt: nothing a deal's decisions do before its showdown changes what
the deal started from but the antes (R4.2), so the world's public state with
the antes given back is that state.  Only the current deal is replayed: the
agent's view of earlier deals is the searching seat's own record of them
(a card it did not see there is unknown), which an agent that reads only the
current deal, as every built-in one does, does not notice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from commerce_env.engine.actions import ACTION_KINDS, EXCHANGE, GIVE, OFFER, READY_MONEY
from commerce_env.engine.base import DEAL, HORSE, SHOW, Game
from commerce_env.engine.snapshots import Lineage
from commerce_env.view import seat_view

__all__ = ["before_deal", "deal_entries", "dealt_again", "entry_action", "entry_code", "replay", "world_weight"]

# The kinds that name their action alone (knock, stand, ..., take_widow, keep_hand): one action each.
_SINGLE = {kind: action for action, kind in enumerate(ACTION_KINDS) if ACTION_KINDS.count(kind) == 1}
_SLOTTED = {"ready_money": READY_MONEY, "offer": OFFER, "give": GIVE}  # + the hand slot of the card named first


def before_deal(world: Game) -> Game:
    """A copy of ``world`` as it stood before its current deal was dealt, waiting for the deal's pack:
    :func:`dealt_again` deals it again and :func:`replay` plays it on to ``world``.  The same for every
    world of one seat view (it holds no card of the deal), so worked out once per decision.

    The antes are given back (R4.2), and what the deal's actions paid (a ready money's counter to the
    dealer, R5.3) is found by replaying the deal once and given back too: each of those payments
    depends on who acted, which is public, not on what anyone held.  ``world`` is unchanged."""
    if world.over or world.awaiting_pack or world.phase == HORSE:  # the horse comes after the deal (R9.4)
        raise ValueError("the world has no deal in play")
    game = world.clone()
    game.record = game.record[:game.deal_start - 1]
    if game.antes:
        for seat in game.order:
            game.counters[seat] += 1
            game.pool -= 1
    game.deals_dealt -= 1
    game.actions_taken -= sum(entry[1] != SHOW for entry in deal_entries(world))
    game.wait_for_packs, game.decks, game.awaiting_pack = True, [], True
    game.current_player, game.offer, game._legal_cache = None, None, []
    game.known_records, game.lineage = None, Lineage()  # what the seats knew belongs to the old record
    replayed = dealt_again(game, world)
    for _ in replay(replayed, world):
        pass
    for seat in range(game.num_players):
        game.counters[seat] += world.counters[seat] - replayed.counters[seat]
        game.money[seat] += world.money[seat] - replayed.money[seat]
    game.pool += world.pool - replayed.pool
    return game


def deal_entries(world: Game) -> Sequence[tuple]:
    """The record entries of ``world``'s current deal after its ``deal`` entry: every action taken in
    it, with the world's cards named (R11's record)."""
    return world.record[world.deal_start:]


def entry_action(game: Game, entry: tuple) -> int:
    """The action number that makes record ``entry`` now (by the player to act, whose hand is sorted:
    an action names a card by its slot, R12)."""
    seat, kind, cards, _ = entry
    if seat != game.current_player:
        raise ValueError(f"the record has seat {seat} act where seat {game.current_player} is to act")
    if kind in _SINGLE:
        return _SINGLE[kind]
    hand = game.hands[seat]
    if kind in _SLOTTED:
        return _SLOTTED[kind] + hand.index(cards[0])
    if kind == "exchange":
        return EXCHANGE + 3 * hand.index(cards[0]) + game.table.index(cards[1])
    raise ValueError(f"record entry {entry!r} is no action")


def dealt_again(start: Game, world: Game) -> Game:
    """A new game: ``start`` (:func:`before_deal`, unchanged) with ``world``'s deal dealt again."""
    game = start.clone()
    game.lineage = Lineage()
    game.supply_pack(world.deal_pack)
    game.wait_for_packs, game.decks = world.wait_for_packs, world.decks  # as the world deals on
    return game


def replay(game: Game, world: Game) -> Iterator[tuple[int, int]]:
    """Step ``game`` (:func:`dealt_again`) through the actions of ``world``'s current deal, yielding
    ``(seat, action)`` before each: ``game`` is then as it stood when ``seat`` chose ``action``; after
    the last, in ``world``'s state."""
    for entry in deal_entries(world):
        if entry[1] == SHOW or entry[1] == DEAL:  # no decision (the deal's end)
            break
        action = entry_action(game, entry)
        yield entry[0], action
        game.apply(action)


def world_weight(start: Game, world: Game, me: int, agent: Any) -> tuple[float, int]:
    """How likely ``agent`` was, in ``world``, to take the actions every other seat took this deal:
    ``(weight, misses)``.  ``weight`` is the product over their decisions of
    ``agent.action_probabilities(view)[action]``, except that an action it gave no chance (a miss)
    counts at one in its legal actions instead: the limit of an agent that trembles to a random
    action, where the worlds with the fewest misses are the likeliest.  ``start`` is
    :func:`before_deal`'s."""
    weight, misses = 1.0, 0
    game = dealt_again(start, world)
    for seat, action in replay(game, world):
        choices = len(game.legal_actions())
        if seat == me or choices == 1:  # its own choices; a forced move says nothing
            continue
        given = float(agent.action_probabilities(seat_view(game, seat))[action])
        if given > 0.0:
            weight *= given
        else:
            misses += 1
            weight /= choices
    return weight, misses


SINGLE, SLOTTED, EXCHANGED = range(3)  # how an entry names its action: alone, by a hand slot, by two slots


def entry_code(kind: str) -> tuple[int, int]:
    """How a record entry of ``kind`` names its action, for a replay that finds the slots itself:
    ``(SINGLE, action)``, ``(SLOTTED, first action)`` (+ the hand slot of the card it names first) or
    ``(EXCHANGED, EXCHANGE)`` (+ 3 x that slot + the table slot of the card it names second)."""
    if kind in _SINGLE:
        return SINGLE, _SINGLE[kind]
    if kind in _SLOTTED:
        return SLOTTED, _SLOTTED[kind]
    if kind == "exchange":
        return EXCHANGED, EXCHANGE
    raise ValueError(f"record entry kind {kind!r} is no action")
