"""Invariants of a game state (docs/rules.md R1.5, R4.3-R4.6, R5.3, R7.3, R8.2, R9.3-R9.4),
checked at every decision by the property tests and by ``python -m benchmarks.soak``."""

from __future__ import annotations

from typing import Any

from .cards import make_pack
from .engine import ENGINES
from .engine.actions import NUM_ACTIONS, OFFER, READY_MONEY
from .engine.base import HORSE, OVER, Game
from .hands import is_ship
from .observation import encode

# Variants whose counter rewards sum to zero at every deal (R4.3); pool commerce keeps money
# in the pool between deals, so only its match returns sum to zero (R9.5).
ZERO_SUM_PER_DEAL = frozenset(name for name, engine in ENGINES.items() if not engine.plays_for_money)


def deal_decision_bound(game: Game) -> int:
    """Most decisions one deal can take (R4.4): three per turn (offer, give,
    stand/continue), the widow dealer's choice, R8.3's last exchanges, a horse (R9.4)."""
    players = len(game.order)
    return 3 * players * game.rules.max_rounds + players + 2


def lives_expected(game: Game) -> int | None:
    """Total lives in play if lives are kept apart from money (pool, R9.2-R9.4)."""
    if not game.plays_for_money:
        return None
    horses = sum(1 for _, kind, _, _ in game.record if kind == "buy_horse")
    return 3 * game.num_players - game.deals_played + horses


def invariant_violations(game: Game, total: int) -> list[str]:
    """Every broken invariant of ``game`` (empty when all hold); ``total`` is
    :meth:`Game.total_value` at the start of the match."""
    problems = []
    if game.total_value() != total:  # R4.3: nothing created or lost
        problems.append(f"total value {game.total_value()} != {total}")
    try:
        places = game.where_are_cards()
    except AssertionError as error:  # a card in two places
        problems.append(str(error))
    else:
        pack = set(make_pack(game.rules.deck_size))
        if set(places) != pack:
            problems.append(f"cards missing {sorted(pack - set(places))} or foreign {sorted(set(places) - pack)}")
    for seat in range(game.num_players):
        hand = game.hands[seat]
        in_deal = seat in game.position
        if len(hand) != (3 if in_deal else 0):
            problems.append(f"seat {seat} holds {len(hand)} cards")
        if hand != sorted(hand):
            problems.append(f"hand of seat {seat} not sorted: {hand}")
    if game.has_table and len(game.table) != 3:
        problems.append(f"table holds {len(game.table)} cards")
    if game.rules.has_lives:
        lives = game.lives
        if min(lives) < 0:
            problems.append(f"negative lives {lives}")  # R4.6
        for seat in range(game.num_players):
            if game.out[seat] and lives[seat] > 0:
                problems.append(f"seat {seat} is out with {lives[seat]} lives")
    expected_lives = lives_expected(game)
    if expected_lives is not None and sum(game.lives) != expected_lives:
        problems.append(f"lives {sum(game.lives)} != {expected_lives} (R9.3, R9.4)")
    legal = game.legal_actions()
    if game.over:
        if legal or game.current_player is not None or game.phase != OVER:
            problems.append("a finished match still has a player to act")
    else:
        seat = game.current_player
        if seat is None or not legal:
            problems.append("a running match has nobody to act")
        elif game.phase != HORSE and (game.out[seat] or seat not in game.position):
            problems.append(f"seat {seat} acts but is not in the deal")
        if legal != sorted(set(legal)) or not all(0 <= a < NUM_ACTIONS for a in legal):
            problems.append(f"bad legal actions {legal}")
        if game.phase != HORSE:
            problems += _deal_rule_violations(game, legal)
    return problems


def _deal_rule_violations(game: Game, legal: list[int]) -> list[str]:
    """Rules that hold at every decision inside a deal."""
    problems = []
    order = game.order
    if order[-1] != game.dealer or any(game.out[s] for s in order):  # R3.1, R3.2
        problems.append(f"order {order} does not end with the dealer {game.dealer} or holds a player out")
    if game.rounds_done >= game.rules.max_rounds:  # R4.4
        problems.append(f"{game.rounds_done} rounds done of {game.rules.max_rounds}")
    antes = len(order) if game.antes else 0  # R4.2, R8.4: the pool holds the antes
    if not game.plays_for_money and game.pool != antes:  # R9: the pool holds money
        problems.append(f"pool {game.pool} during a deal, expected {antes}")
    if game.flush_ends_deal and any(is_ship(game.hands[s]) for s in order):  # R7.3
        problems.append("a ship did not sail")
    if not game.can_act(game.current_player):  # R8.2: no turn after standing or passing
        problems.append(f"seat {game.current_player} acts after standing or passing")
    if game.has_stock and game.phase == "act":  # R5.3: ready money needs a stock
        if any(READY_MONEY <= a < OFFER for a in legal) != bool(game.stock):
            problems.append(f"ready money legal={legal} with {len(game.stock)} cards in the stock")
    return problems


def _copy(value: Any) -> Any:
    """A copy of the engine's mutable containers (lists and dicts); their ints,
    strings and tuples are immutable and are shared, which keeps this cheap."""
    if isinstance(value, list):
        return [_copy(v) for v in value] if value and isinstance(value[0], (list, dict)) else list(value)
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, set):
        return set(value)
    return value


def snapshot(game: Game) -> dict[str, Any]:
    """Everything that makes up the state (and every seat's observation), for
    checking that a refused action changed nothing.  Left out: what the game keeps to answer
    faster (the legal set, what the seats know of the record), which asking fills."""
    caches = ("_legal_cache", "rng", "_rng_shared", "known_records", "lineage")
    state = {k: _copy(v) for k, v in vars(game).items() if k not in caches}
    state["rng"] = game.rng.getstate()
    state["observations"] = [encode(game, s).tobytes() for s in range(game.num_players)]
    state["legal"] = list(game.legal_actions())
    return state
