"""Shared hypothesis strategies and invariant checks for the property, fuzz and soak runs.

Strategies draw variants, valid option sets (every option of RULES.md R12 per
variant, presets, subsets of the combinations), player counts that fit the
pack (R1.4, 32-card packs with at most 7 players) and seeds.  The invariant
checks are plain functions so that ``benchmarks/soak.py`` can use them too.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from commerce_env.cards import make_pack
from commerce_env.engine import new_game
from commerce_env.engine.actions import NUM_ACTIONS, OFFER, READY_MONEY
from commerce_env.engine.base import HORSE, OVER, Game
from commerce_env.hands import COMBINATIONS, is_ship
from commerce_env.observation import encode
from commerce_env.rules import OPTIONS, VARIANTS, VARIANTS_WITH_LIVES, Rules, make_rules

ZERO_SUM_PER_DEAL = frozenset({"trade_barter", "widow", "my_ship_sails", "old_game"})
"""Variants whose counter rewards sum to zero at every deal (R4.3); pool commerce
keeps money in the pool between deals, so only its match returns sum to zero (R9.5)."""

# ------------------------------------------------------------------ strategies
variants = st.sampled_from(VARIANTS)
seeds = st.integers(min_value=0, max_value=2**32 - 1)
flags = st.sampled_from([True, False, "on", "off"])  # R12 flags: booleans or on/off


def option_values(variant: str, max_rounds: int = 12) -> dict[str, st.SearchStrategy]:
    """A strategy for each option that applies to ``variant`` (R12)."""
    deals = st.integers(1, 3)
    if variant in VARIANTS_WITH_LIVES:
        deals = st.one_of(deals, st.just("until_out"))
    values: dict[str, st.SearchStrategy] = {
        "combinations": st.lists(st.sampled_from(COMBINATIONS), unique=True, max_size=5),
        "tie_break": st.sampled_from(["dealer", "eldest", "split"]),
        "discard": st.sampled_from(["table", "bottom"]),
        "stand_after_trade": flags,
        "dealer_pays": st.sampled_from(["foster", "peel_each", "peel_better", "none"]),
        "allow_pass": flags,
        "match_end": st.sampled_from(["whiskey", "freeze_out"]),
        "deals": deals,
        "max_rounds": st.integers(1, max_rounds),
        "entry": st.integers(0, 20),
        "payout": st.integers(0, 4),
        "horse_price": st.integers(0, 10),
        "deck_size": st.sampled_from([52, 32]),
        "reward": st.sampled_from(["counters", "outcome"]),
    }
    return {name: strategy for name, strategy in values.items() if name in OPTIONS[variant]}


@st.composite
def option_sets(draw: st.DrawFn, variant: str, max_rounds: int = 12) -> dict[str, Any]:
    """A valid set of options of ``variant``: any subset of its options, maybe a preset (R12)."""
    options = draw(st.fixed_dictionaries({}, optional=option_values(variant, max_rounds)))
    if variant != "my_ship_sails" and draw(st.booleans()):
        options["preset"] = draw(st.sampled_from(["foster", "peel"]))
    return options


def player_counts(rules: Rules) -> st.SearchStrategy[int]:
    """Every legal number of players for the pack (R1.4)."""
    return st.integers(2, 12 if rules.deck_size == 52 else 7)


@st.composite
def game_setups(draw: st.DrawFn, variant: str | None = None, max_rounds: int = 12) -> tuple[Rules, int, int, int]:
    """``(rules, num_players, seed, dealer)`` over every variant, option set and player count."""
    variant = variant or draw(variants)
    rules = make_rules(variant, **draw(option_sets(variant, max_rounds)))
    num_players = draw(player_counts(rules))
    return rules, num_players, draw(seeds), draw(st.integers(0, num_players - 1))


def setup_game(setup: tuple[Rules, int, int, int]) -> Game:
    rules, num_players, seed, dealer = setup
    return new_game(rules, num_players, seed=seed, dealer=dealer)


# ------------------------------------------------------------------ invariants
def deal_decision_bound(game: Game) -> int:
    """Most decisions one deal can take (R4.4): three per turn (offer, give,
    stand/continue), the widow dealer's choice, R8.3's last exchanges, a horse (R9.4)."""
    players = len(game.order)
    return 3 * players * game.rules.max_rounds + players + 2


def lives_expected(game: Game) -> int | None:
    """Total lives in play if lives are kept apart from money (pool, R9.2-R9.4)."""
    if game.variant != "pool":
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
        if min(game.counters) < 0:
            problems.append(f"negative lives {game.counters}")  # R4.6
        for seat in range(game.num_players):
            if game.out[seat] and game.counters[seat] > 0:
                problems.append(f"seat {seat} is out with {game.counters[seat]} lives")
    expected_lives = lives_expected(game)
    if expected_lives is not None and sum(game.counters) != expected_lives:
        problems.append(f"lives {sum(game.counters)} != {expected_lives} (R9.3, R9.4)")
    legal = game.legal_actions()
    if game.is_over():
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
    antes = 0 if game.variant == "old_game" else len(order)  # R4.2, R8.4: the pool holds the antes
    if game.variant != "pool" and game.pool != antes:
        problems.append(f"pool {game.pool} during a deal, expected {antes}")
    if game.variant == "my_ship_sails" and any(is_ship(game.hands[s]) for s in order):  # R7.3
        problems.append("a ship did not sail")
    if game.variant in ("old_game", "pool") and game.current_player in game.stood + game.passed:  # R8.2
        problems.append(f"seat {game.current_player} acts after standing or passing")
    if game.variant == "trade_barter" and game.phase == "act":  # R5.3: ready money needs a stock
        if any(READY_MONEY <= a < OFFER for a in legal) != bool(game.stock):
            problems.append(f"ready money legal={legal} with {len(game.stock)} cards in the stock")
    return problems


def assert_invariants(game: Game, total: int) -> None:
    problems = invariant_violations(game, total)
    assert not problems, "; ".join(problems)


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
    checking that a refused action changed nothing."""
    state = {k: _copy(v) for k, v in vars(game).items() if k not in ("_legal_cache", "rng", "_rng_shared")}
    state["rng"] = game.rng.getstate()
    state["observations"] = [encode(game, s).tobytes() for s in range(game.num_players)]
    state["legal"] = list(game.legal_actions())
    return state


def play_random(game: Game, rng: random.Random, max_decisions: int = 100_000,
                check: bool = True) -> tuple[int, list[list[float]]]:
    """Random legal play to the match's end; returns the decisions taken and the
    rewards of every step (``take_rewards`` after each action, the first including
    transfers settled before any decision, R4.5)."""
    total = game.total_value()
    rewards = [game.take_rewards()]
    decisions = 0
    deal, in_deal = game.deals_dealt, 0
    while not game.is_over():
        if check:
            assert_invariants(game, total)
        game.apply(rng.choice(game.legal_actions()))
        rewards.append(game.take_rewards())
        decisions += 1
        if game.deals_dealt != deal:
            deal, in_deal = game.deals_dealt, 0
        else:
            in_deal += 1
            assert in_deal <= deal_decision_bound(game), "a deal outlasted its bound (R4.4)"
        assert decisions <= max_decisions, f"match not over after {max_decisions} decisions"
    if check:
        assert_invariants(game, total)
    return decisions, rewards
