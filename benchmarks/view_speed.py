"""The cost of a seat view as a long match goes on: ``python -m benchmarks.view_speed``.

One long My Ship Sails match (4 players, random play, seed :data:`SEED`: 87 deals, 842
record entries) with the seat view of the player to act at every decision, as the local
arena hands them out (:func:`commerce_env.view.seat_view`).  Each call is timed on its
own; the figures are microseconds for the median view of the first deal and of the deals
after :data:`LATE`, so that ``late / first`` says how much a view's cost grows with the match
(1.0: not at all).  ``python -m research.compare_commits --what view A B`` times the views
of several commits in one run; ``python -m benchmarks`` shows this commit's in its arena section.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import time

VARIANT = "my_ship_sails"
SEED = 17
LATE = 40  # deals after this one are "late"
NUM_PLAYERS = 4


def match_view_times(package: str = "commerce_env", seed: int = SEED) -> tuple[list[int], list[float], int]:
    """The deal and the seconds of each seat view of the match, and the record's final length."""
    engine = importlib.import_module(f"{package}.engine")
    seat_view = importlib.import_module(f"{package}.view").seat_view
    rules = importlib.import_module(f"{package}.rules").make_rules(VARIANT)
    game = engine.new_game(rules, NUM_PLAYERS, rng=random.Random(seed))
    rng, clock = random.Random(seed), time.perf_counter
    deals, seconds = [], []
    while not game.over:
        start = clock()
        seat_view(game, game.current_player)
        seconds.append(clock() - start)
        deals.append(game.deals_dealt)
        legal = game.legal_actions()
        game.apply(legal[int(rng.random() * len(legal))])
    return deals, seconds, len(game.record)


def costs(package: str = "commerce_env", seed: int = SEED) -> dict[str, float]:
    """Microseconds per view: the median view of the first deal and of the deals after
    :data:`LATE` (medians: a view interrupted by another process counts as one view), and the
    mean over the match."""
    deals, seconds, entries = match_view_times(package, seed)
    first = [t for d, t in zip(deals, seconds, strict=True) if d == 1]
    late = [t for d, t in zip(deals, seconds, strict=True) if d > LATE]
    return {"first_us": 1e6 * statistics.median(first), "late_us": 1e6 * statistics.median(late),
            "all_us": 1e6 * statistics.fmean(seconds), "views": len(seconds), "deals": max(deals), "entries": entries}


def measure(packages: list[str], repeats: int) -> dict[str, dict[str, float]]:
    """:func:`costs` of each package, the packages taking turns, medians over ``repeats`` matches."""
    runs: dict[str, list[dict[str, float]]] = {p: [] for p in packages}
    for _ in range(repeats):
        for package in packages:
            runs[package].append(costs(package))
    return {p: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for p, rs in runs.items()}


def benchmark_rows(Row, repeats: int = 3) -> list:  # noqa: N803 - a class passed in
    """Rows for ``python -m benchmarks`` (its ``arena`` section)."""
    m = measure(["commerce_env"], repeats)["commerce_env"]
    label = (f"seat_view, a long {VARIANT} match ({NUM_PLAYERS} players, {m['deals']:.0f} deals, "
             f"{m['entries']:.0f} record entries)")
    return [Row("arena", f"{label}: after deal {LATE}", m["late_us"], "us/view", "the same match's first deal",
                m["first_us"], m["late_us"] / m["first_us"], note="lower is better; ratio 1: no growth with the match"),
            Row("arena", f"{label}: whole match", m["all_us"], "us/view")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    m = measure(["commerce_env"], args.repeats)["commerce_env"]
    print(f"{VARIANT}, seed {SEED}: {m['views']:.0f} views, {m['deals']:.0f} deals, {m['entries']:.0f} entries")
    print(f"us per view: first deal {m['first_us']:.1f}, after deal {LATE} {m['late_us']:.1f} "
          f"(x{m['late_us'] / m['first_us']:.2f}), whole match {m['all_us']:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
