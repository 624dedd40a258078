"""Soak run: a million random decisions across every variant and many option sets.

``python -m benchmarks.soak [--decisions N] [--seed S]`` plays random matches
(random variant, option set of docs/rules.md R12, player count and dealer) through
the engine, and checks at every decision the invariants of
``commerce_env/invariants.py`` (R4.3 counters and money conserved, R1.5 every card in
exactly one place, R9.3-R9.4 lives, the mask, R4.4 a bounded deal).  It also
checks, at a sample of decisions, that an illegal action is refused with the
state unchanged and that the observation and mask of a seat do not change
when the cards it has not seen are re-dealt (R11); and per deal that rewards
sum to zero (pool commerce: per match).  It prints the decisions checked, the
violations found (expected 0) and the throughput, and exits 1 on a violation.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from collections import Counter
from typing import Any

import numpy as np

from commerce_env.engine import IllegalActionError, new_game
from commerce_env.engine.actions import NUM_ACTIONS
from commerce_env.hands import COMBINATIONS
from commerce_env.invariants import ZERO_SUM_PER_DEAL, deal_decision_bound, invariant_violations, snapshot
from commerce_env.observation import encode
from commerce_env.rules import OPTIONS, PRESET_VARIANTS, VARIANTS, VARIANTS_WITH_LIVES, Rules, make_rules
from commerce_env.view import seat_view

REFUSAL_RATE = 0.01  # share of decisions where an unmasked action is tried and the state compared
REDEAL_RATE = 0.005  # share of decisions where the hidden cards are re-dealt (R11)


def random_options(variant: str, rng: random.Random) -> dict[str, Any]:
    """A random valid option set of ``variant``: each R12 option given or left at its default."""
    choices: dict[str, Any] = {
        "combinations": lambda: rng.sample(COMBINATIONS, rng.randrange(6)),
        "tie_break": lambda: rng.choice(["dealer", "eldest", "split"]),
        "discard": lambda: rng.choice(["table", "bottom"]),
        "stand_after_trade": lambda: rng.choice([True, False]),
        "dealer_pays": lambda: rng.choice(["foster", "peel_each", "peel_better", "none"]),
        "allow_pass": lambda: rng.choice([True, False]),
        "match_end": lambda: rng.choice(["whiskey", "freeze_out"]),
        "deals": lambda: rng.choice([1, 2, 5] + (["until_out"] * 3 if variant in VARIANTS_WITH_LIVES else [])),
        "max_rounds": lambda: rng.choice([1, 2, 3, 5, 10, 20]),
        "entry": lambda: rng.randrange(0, 25),
        "payout": lambda: rng.randrange(0, 5),
        "horse_price": lambda: rng.randrange(0, 13),
        "deck_size": lambda: rng.choice([52, 52, 32]),
        "reward": lambda: rng.choice(["counters", "outcome"]),
    }
    options = {name: make() for name, make in choices.items() if name in OPTIONS[variant] and rng.random() < 0.5}
    if variant in PRESET_VARIANTS and rng.random() < 0.3:
        options["preset"] = rng.choice(["foster", "peel"])
    return options


def _refusal_problems(game, rng: random.Random) -> list[str]:
    """An unmasked action (or a number out of range) must raise and change nothing."""
    legal = set(game.legal_actions())
    illegal = [a for a in range(-1, NUM_ACTIONS + 1) if a not in legal]
    before = snapshot(game)
    action = rng.choice(illegal)
    try:
        game.apply(action)
    except IllegalActionError:
        pass
    else:
        return [f"illegal action {action} was accepted"]
    return [] if snapshot(game) == before else [f"refusing action {action} changed the state"]


def _redeal_problems(game, rng: random.Random) -> list[str]:
    """R11: a re-deal of what a seat has not seen leaves its observation and the mask alone."""
    seat = rng.randrange(game.num_players)
    other = seat_view(game, seat).sample_world(rng)
    problems = []
    if not np.array_equal(encode(other, seat), encode(game, seat)):
        problems.append(f"seat {seat}'s observation depends on hidden cards")
    if other.legal_actions() != game.legal_actions():
        problems.append("the mask depends on hidden cards")
    return problems


def soak_match(rules: Rules, num_players: int, seed: int, dealer: int, rng: random.Random) -> tuple[int, list[str]]:
    """Play one random match with every check; returns (decisions, problems)."""
    game = new_game(rules, num_players, seed=seed, dealer=dealer)
    total = game.total_value()
    problems: list[str] = []
    decisions = 0
    deal, in_deal = game.deals_dealt, 0
    rewards = game.take_rewards()
    returns = list(rewards)
    while not game.over:
        problems += invariant_violations(game, total)
        draw = rng.random()
        if draw < REFUSAL_RATE:
            problems += _refusal_problems(game, rng)
        elif draw < REFUSAL_RATE + REDEAL_RATE:
            problems += _redeal_problems(game, rng)
        game.apply(rng.choice(game.legal_actions()))
        decisions += 1
        step = game.take_rewards()
        returns = [a + b for a, b in zip(returns, step, strict=True)]
        if rules.reward == "counters" and rules.variant in ZERO_SUM_PER_DEAL and sum(step) != 0:
            problems.append(f"rewards {step} of a deal do not sum to zero (R4.3)")
        if game.deals_dealt != deal:
            deal, in_deal = game.deals_dealt, 0
        else:
            in_deal += 1
            if in_deal > deal_decision_bound(game):
                problems.append("a deal outlasted its bound (R4.4)")
                break
        if problems:
            break
    if not problems:
        problems += invariant_violations(game, total)
        if abs(sum(returns)) > 1e-9:
            problems.append(f"match returns {returns} do not sum to zero")
        if returns != game.returns():
            problems.append("step rewards do not add up to the returns")
    return decisions, problems


def soak(decisions: int, seed: int, report_every: float = 10.0) -> int:
    """Run until ``decisions`` are checked; print a report; return the number of violations."""
    rng = random.Random(seed)
    done = matches = violations = 0
    per_variant: Counter[str] = Counter()
    option_sets: set[tuple] = set()
    examples: list[str] = []
    start = last = time.perf_counter()
    while done < decisions:
        variant = min(VARIANTS, key=per_variant.__getitem__)  # even decisions across variants
        options = random_options(variant, rng)
        rules = make_rules(variant, **options)
        num_players = rng.randrange(2, (12 if rules.deck_size == 52 else 7) + 1)
        match_seed, dealer = rng.getrandbits(32), rng.randrange(num_players)
        try:
            taken, problems = soak_match(rules, num_players, match_seed, dealer, rng)
        except Exception:  # a crash is a violation too; keep soaking
            taken, problems = 0, [traceback.format_exc(limit=3)]
        matches += 1
        done += taken
        per_variant[variant] += taken
        option_sets.add((repr(rules), num_players))
        if problems:
            violations += 1
            if len(examples) < 5:
                examples.append(f"{variant} {options} players={num_players} seed={match_seed} "
                                f"dealer={dealer}: {problems[0]}")
        now = time.perf_counter()
        if now - last > report_every:
            last = now
            print(f"  {done:,} decisions, {matches:,} matches, {violations} violations, "
                  f"{done / (now - start):,.0f} decisions/s", flush=True)
    elapsed = time.perf_counter() - start
    print(f"soak: {done:,} decisions checked in {matches:,} matches "
          f"({len(option_sets):,} distinct rule sets and player counts)")
    print("per variant: " + ", ".join(f"{v} {per_variant[v]:,}" for v in VARIANTS))
    print(f"violations: {violations}")
    for example in examples:
        print(f"  {example}")
    print(f"throughput: {done / elapsed:,.0f} decisions/s with every check ({elapsed:.1f} s)")
    return violations


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=1_000_000, help="decisions to check (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole run (default 0)")
    args = parser.parse_args(argv)
    return 1 if soak(args.decisions, args.seed) else 0


if __name__ == "__main__":
    sys.exit(main())
