"""Arena throughput per agent: ``python -m benchmarks.arena_speed [--seconds S] [--workers W]``.

For each variant and each built-in agent, four copies of the agent play
duplicate deals through :func:`agents.arena.run_arena`; the figure is deals
per second, printed beside random play through the bare engine in the same
run (the peer: the arena's own overhead and the agents' thinking are the
difference).  A last row times the acceptance lineup
(search, expected_value, greedy, random).  Rates vary with the machine's load:
compare the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import random
import time

from agents.arena import run_arena
from commerce_env.engine import new_game
from commerce_env.rules import make_rules

VARIANTS = ("trade_barter", "widow")
AGENTS = ("random", "greedy", "expected_value", "search")
LINEUP = ["search", "expected_value", "greedy", "random"]


def engine_rate(variant: str, seconds: float, num_players: int = 4) -> float:
    """Deals per second of random play through the engine alone."""
    rules, rng = make_rules(variant), random.Random(0)
    deals, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = new_game(rules, num_players, rng=rng)
        while not game.over:
            game.apply(rng.choice(game.legal_actions()))
        deals += game.deals_played
    return deals / (time.perf_counter() - start)


def arena_rate(lineup: list[str], variant: str, seconds: float, workers: int) -> float:
    """Deals per second of the arena, with a first short run to size the timed one."""
    probe = run_arena(lineup, variant=variant, deals=24, seed=0, workers=1, progress=False)
    deals = max(24, int(probe["games_per_second"] * seconds * workers))
    result = run_arena(lineup, variant=variant, deals=deals, seed=1, workers=workers, progress=False)
    return result["deals_per_second"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="about this long per figure")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"{'variant':<14}{'agents':<34}{'deals/s':>10}{'engine deals/s':>16}{'ratio':>8}")
    for variant in VARIANTS:
        peer = engine_rate(variant, args.seconds)
        for lineup in [[name] * 4 for name in AGENTS] + [LINEUP]:
            rate = arena_rate(lineup, variant, args.seconds, args.workers)
            label = f"4 x {lineup[0]}" if len(set(lineup)) == 1 else ",".join(lineup)
            print(f"{variant:<14}{label:<34}{rate:>10.1f}{peer:>16.0f}{rate / peer:>8.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
