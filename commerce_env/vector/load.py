"""A readable engine's game as a row of the batched engine (:meth:`BatchEngine.load_games`).

Search plays on from states it did not start: the worlds it samples
(``SeatView.sample_world``) are readable :class:`~commerce_env.engine.base.Game`
objects, mid-deal and mid-match.  :func:`game_row` writes one such state into
the layout of :mod:`.row` (the same fields under the row's names), so
that the batched engine continues it exactly as the readable engine would
(tests/agents/test_batched_search.py steps both side by side).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engine.base import PHASES, Game
from ..knowledge import deal_memories, public_places, seat_record
from . import row as K  # noqa: N812 - the row's names read as K.G_PHASE
from .game import legal_mask

_PHASE_CODES = {phase: code for code, phase in enumerate(PHASES)}


def checked_places(where: Any, count: int, num_games: int) -> np.ndarray:
    """``where`` as ``count`` distinct game indices from 0 to ``num_games - 1`` (int64), or a
    ``ValueError`` naming it."""
    places = np.asarray(where)
    if places.shape != (count,) or (places.size and (
            not np.issubdtype(places.dtype, np.integer) or places.min() < 0 or places.max() >= num_games)):
        raise ValueError(f"where must be {count} game indices from 0 to {num_games - 1}, got {where!r:.80}")
    if len(np.unique(places)) != len(places):
        raise ValueError(f"where must not repeat a game, got {places.tolist()!r:.80}")
    return places.astype(np.int64)


def other_rules(rules: Any, num_players: int, engine: Any) -> str | None:
    """How a game of ``rules`` and ``num_players`` differs from the games of ``engine`` (a
    :class:`BatchEngine`), or None where it may be one of them (its ``deals`` may differ)."""
    if rules.variant != engine.variant or num_players != engine.num_players:
        return f"it is {rules.variant} with {num_players} players, not {engine.variant} with {engine.num_players}"
    if rules != engine.rules and rules != _with_deals(engine.rules, rules.deals):
        return "its rules differ from the engine's in more than `deals`"
    return None


def unloadable(game: Any, engine: Any) -> str | None:
    """Why ``game`` cannot be a game of ``engine`` (a :class:`BatchEngine`), or None where it can."""
    if not isinstance(game, Game):
        return f"it is no readable engine game but {type(game).__name__}"
    differs = other_rules(game.rules, game.num_players, engine)
    if differs is not None:
        return differs
    if game._stop_after_deal:  # the batched engine has no per-game end after the deal
        return "it stops after its deal (stop_after_deal)"
    if game.awaiting_pack and not engine.wait_for_packs:
        return "it waits for a pack and the engine was made without wait_for_packs"
    return None


def _with_deals(rules: Any, deals: Any) -> Any:
    from dataclasses import replace

    return replace(rules, deals=deals)


def _order(game: Game) -> list[int]:
    """The players of the deal, eldest first; for a game awaiting its next pack, of that deal (R3.1)."""
    if not game.awaiting_pack:
        return list(game.order)
    n = game.num_players
    return [s for s in ((game.dealer + k) % n for k in range(1, n + 1)) if not game.out[s]]


def game_row(game: Game, params: Sequence[int], knowledge: bool = True) -> list[int]:
    """``game``'s state as one row of the layout ``params`` (:mod:`.row`) (a list: read often).  The row's random
    generator (``G_RNG``) is left 0: the caller keeps the engine's own.  With ``knowledge``
    False, what the seats remember (their gifts and discards, R11, and where they know cards to
    be) is left empty: the rows then play on exactly, but observations lack those memories."""
    n = game.num_players
    p = params
    row = [0] * p[K.P_WIDTH]
    row[K.G_PHASE] = _PHASE_CODES[game.phase]
    row[K.G_TO_ACT] = -1 if game.current_player is None else game.current_player
    row[K.G_DEALER] = game.dealer
    row[K.G_POOL] = game.pool
    row[K.G_DEALS_PLAYED] = game.deals_played
    row[K.G_DEALS_DEALT] = game.deals_dealt
    row[K.G_ROUNDS] = game.rounds_done
    order = _order(game)
    row[K.G_M] = len(order)
    row[K.G_STOCK] = len(game.stock)
    row[K.G_DISCARDS] = len(game.discards)
    row[K.G_OFFER_TRADER], row[K.G_OFFER_CARD] = game.offer if game.offer is not None else (-1, -1)
    row[K.G_OVER] = int(game.over)
    stood, passed = getattr(game, "stood", ()), getattr(game, "passed", ())  # the old game's (R8.2)
    last_turns = getattr(game, "last_turns", ())  # R8.3
    row[K.G_STOOD] = len(stood)
    row[K.G_LT_LEN] = len(last_turns)
    row[K.G_HORSE_OFFERED] = int(getattr(game, "horse_offered", False))  # R9.4
    row[K.G_HAS_LOSERS] = int(bool(game.match_losers))
    row[K.G_NUM_DECKS] = len(game.decks)
    row[K.G_AWAITING] = int(game.awaiting_pack)
    counters, money, out, last_kind = game.counters, game.money, game.out, game.last_kind
    paid = game._paid  # the balances at the last payment of rewards (counter rewards)
    position = {s: i for i, s in enumerate(order)}
    base = p[K.P_SEATS_AT]
    for s in range(n):
        at = base + s * K.NUM_PS
        row[at + K.S_COUNTERS] = counters[s]
        row[at + K.S_MONEY] = money[s]
        row[at + K.S_OUT] = int(out[s])
        row[at + K.S_POS] = position.get(s, -1)
        row[at + K.S_LAST_KIND] = last_kind[s]
        row[at + K.S_STOOD] = int(s in stood)
        row[at + K.S_PASSED] = int(s in passed)
        row[at + K.S_PAID] = paid[s]
        row[at + K.S_LOSER] = int(s in game.match_losers)
    for i, s in enumerate(order):  # lists by position: the i-th entry in seat i's block
        row[base + i * K.NUM_PS + K.S_ORDER] = s
    for i, s in enumerate(last_turns):
        row[base + i * K.NUM_PS + K.S_LAST_TURNS] = s
    at = p[K.P_HANDS_AT]
    for s, hand in enumerate(game.hands):
        row[at + 3 * s:at + 3 * s + 3] = sorted(hand) if hand else (-1, -1, -1)
    at = p[K.P_TABLE_AT]
    row[at:at + 3] = game.table if game.table else (-1, -1, -1)
    at = p[K.P_STOCK_AT]
    row[at:at + len(game.stock)] = game.stock  # the top card last, in both engines
    at = p[K.P_DISCARDS_AT]
    row[at:at + len(game.discards)] = game.discards
    at = p[K.P_REWARDS_AT]
    for s in range(n):
        row[at + s] = round(game.pending_rewards[s] * K.REWARD_UNIT)
        row[at + n + s] = round(game.total_rewards[s] * K.REWARD_UNIT)
    at = p[K.P_DECKS_AT]
    for i, pack in enumerate(game.decks):
        row[at + 52 * i:at + 52 * i + len(pack)] = pack
    if knowledge and game.record:
        _write_knowledge(game, row, p)
    return row


def _write_knowledge(game: Game, row: list[int], p: Sequence[int]) -> None:
    """Each seat's memory of the deal (R11) from the record: the cards it gave left or right
    and discarded, and where it knows the other players' cards to be."""
    n = game.num_players
    bits, known = p[K.P_MEMORY_AT], p[K.P_KNOWN_AT]
    sets = len(K.MEMORY_SETS)
    memories = deal_memories(game)  # every seat's, the deal read once (and kept on the game, as encode keeps it)
    for seat in range(n):
        memory = memories[seat]
        if memory is not None:
            left = game.left_of(seat) if seat in game.position else -1
            for card, to in memory.gave_once:
                row[bits + sets * seat + (K.B_GAVE_LEFT if to == left else K.B_GAVE_RIGHT)] |= 1 << card
            for card in memory.discarded_once:
                row[bits + sets * seat + K.B_DISCARDED] |= 1 << card
        deal = seat_record(game, seat, game.deal_start - 1)
        for card, holder in public_places(deal, seat).items():
            row[known + seat * n + holder] |= 1 << card  # cards are 0..51: any int64 holds the bits


@K.kernel
def refresh_masks(st, p, games, masks):
    """The legal-action rows of ``games`` after their state was written from outside."""
    for k in range(len(games)):
        legal_mask(st, games[k], p, masks)
