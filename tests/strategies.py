"""Shared hypothesis strategies and invariant checks for the property, fuzz and soak runs.

Strategies draw variants, valid option sets (every option of docs/rules.md R12 per
variant, presets, subsets of the combinations), player counts that fit the
pack (R1.4, 32-card packs with at most 7 players) and seeds.  The invariant
checks live in :mod:`commerce_env.invariants` (``benchmarks/soak.py`` runs them too).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from commerce_env.engine import new_game
from commerce_env.engine.base import Game
from commerce_env.hands import COMBINATIONS
from commerce_env.invariants import (  # noqa: F401 - the tests import them from here
    ZERO_SUM_PER_DEAL,
    deal_decision_bound,
    invariant_violations,
    lives_expected,
    snapshot,
)
from commerce_env.rules import OPTIONS, VARIANTS, VARIANTS_WITH_LIVES, Rules, make_rules

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


def assert_invariants(game: Game, total: int) -> None:
    problems = invariant_violations(game, total)
    assert not problems, "; ".join(problems)


def play_random(game: Game, rng: random.Random, max_decisions: int = 100_000,
                check: bool = True) -> tuple[int, list[list[float]]]:
    """Random legal play to the match's end; returns the decisions taken and the
    rewards of every step (``take_rewards`` after each action, the first including
    transfers settled before any decision, R4.5)."""
    total = game.total_value()
    rewards = [game.take_rewards()]
    decisions = 0
    deal, in_deal = game.deals_dealt, 0
    while not game.over:
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
