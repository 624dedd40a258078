"""Random play through pyspiel: our Python games beside our AEC env and OpenSpiel's C++ leduc_poker.

``python -m benchmarks.openspiel_speed [--seconds S] [--repeats R] [--players N]``

Every workload is driven by the same Python loop (uniform over the legal
actions, chance outcomes uniform over the cards left), and the workloads take
turns round by round (:func:`benchmarks.timing.interleaved`), so the figures
are comparable as ratios in one run.  A *state* is one ``apply_action``
(chance or player), a *decision* one player action; the AEC env has no chance
nodes (its engine deals a pack at once), so decisions are what compare.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from commerce_env.rules import VARIANTS

from .timing import interleaved

DEFAULT_VARIANTS = VARIANTS


class Counter:
    """States and decisions of every run of one workload."""

    def __init__(self) -> None:
        self.states = 0
        self.decisions = 0

    def decision_share(self) -> float:
        return self.decisions / self.states if self.states else float("nan")


def pyspiel_run(game, counter: Counter, seed: int = 0):
    """Whole episodes of random play on a pyspiel game for about ``seconds``; returns the states."""
    rng = random.Random(seed)

    def run(seconds: float) -> int:
        states = decisions = 0
        deadline = time.perf_counter() + seconds
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice(state.chance_outcomes())[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                    decisions += 1
                states += 1
            if time.perf_counter() >= deadline:
                break
        counter.states += states
        counter.decisions += decisions
        return states

    return run


def aec_run(variant: str, players: int, counter: Counter, seed: int = 0):
    """Whole episodes of random legal play through ``commerce_env.env``; returns the decisions."""
    import commerce_env

    env = commerce_env.env(variant=variant, num_players=players)
    rng = np.random.default_rng(seed)

    def run(seconds: float) -> int:
        decisions = 0
        deadline = time.perf_counter() + seconds
        while True:
            env.reset(seed=int(rng.integers(2**31)))
            for _agent in env.agent_iter():
                observation, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    env.step(None)
                    continue
                env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
                decisions += 1
            if time.perf_counter() >= deadline:
                break
        counter.states += decisions
        counter.decisions += decisions
        return decisions

    return run


def measure(variants: tuple[str, ...], players: int, repeats: int, seconds: float) -> list[dict]:
    import pyspiel

    import commerce_env.openspiel as cos

    leduc = pyspiel.load_game("leduc_poker")
    rows = []
    for variant in variants:
        game = pyspiel.load_game(cos.game_name(variant), {"players": players})
        counters = {"pyspiel": Counter(), "aec": Counter(), "leduc": Counter()}
        runs = {"pyspiel": pyspiel_run(game, counters["pyspiel"]),
                "aec": aec_run(variant, players, counters["aec"]),
                "leduc": pyspiel_run(leduc, counters["leduc"])}
        series = interleaved(runs, repeats, seconds)
        share = {name: c.decision_share() for name, c in counters.items()}
        ours_states = series["pyspiel"].median
        ours_decisions = ours_states * share["pyspiel"]
        aec_decisions = series["aec"].median
        leduc_states = series["leduc"].median
        # Ratios per round (the same round's runs share the machine's load), then their median.
        aec_ratio = statistics.median(a / (p * share["pyspiel"]) for a, p in
                                      zip(series["aec"].rates, series["pyspiel"].rates, strict=True))
        leduc_ratio = statistics.median(lead / p for lead, p in
                                        zip(series["leduc"].rates, series["pyspiel"].rates, strict=True))
        rows.append(dict(variant=variant, players=players, pyspiel_states=ours_states,
                         pyspiel_decisions=ours_decisions, chance_share=1.0 - share["pyspiel"],
                         aec_decisions=aec_decisions, aec_over_pyspiel=aec_ratio,
                         leduc_states=leduc_states, leduc_over_pyspiel=leduc_ratio))
    return rows


def table(rows: list[dict]) -> str:
    head = ("| variant | pyspiel states/s | pyspiel decisions/s | chance share | AEC env decisions/s | "
            "AEC / pyspiel (decisions) | C++ leduc_poker states/s | leduc / pyspiel (states) |")
    lines = [head, "|" + "---|" * 8]
    for r in rows:
        lines.append(f"| {r['variant']} ({r['players']}p) | {r['pyspiel_states']:,.0f} | "
                     f"{r['pyspiel_decisions']:,.0f} | {r['chance_share']:.0%} | {r['aec_decisions']:,.0f} | "
                     f"{r['aec_over_pyspiel']:.1f}x | {r['leduc_states']:,.0f} | {r['leduc_over_pyspiel']:.1f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per run (default 1)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of runs (default 3)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variants", default=",".join(DEFAULT_VARIANTS))
    args = parser.parse_args(argv)
    variants = tuple(v.strip() for v in args.variants.split(",") if v.strip())
    print(table(measure(variants, args.players, args.repeats, args.seconds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
