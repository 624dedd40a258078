"""Whether an action costs more late in a long deal than early: ``python -m benchmarks.long_deal_speed``.

One deal of trade and barter, 12 players, ``max_rounds`` 1000, players that never knock (they
trade and barter at random): about 24,000 actions in one deal, the longest the rules allow.
It is played three ways, up to the late window's end: through the engine with, at every action, the
legal set (:meth:`Game.legal_actions`, fresh after the last action), the observation of the
player to act (the AEC env's vector and mask, :mod:`commerce_env.observation`) and his seat view
(:func:`commerce_env.view.seat_view`), each timed on its own; through the AEC env's
``agent_iter()`` / ``last()`` / ``step()`` loop; and through the arena's play loop
(:func:`agents.play.play_game`, the time between one agent's decision and the next).
The figures are the median microseconds per action over :data:`WINDOW` actions from action
:data:`EARLY` and from action :data:`LATE` of the same deal, and their ratio ``late / early``
(1: an action costs the same however long the deal has run).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import commerce_env
from agents.base import Agent
from agents.play import play_game
from commerce_env import observation as obs
from commerce_env.engine import new_game
from commerce_env.engine.actions import KNOCK
from commerce_env.rules import make_rules
from commerce_env.view import seat_view

VARIANT = "trade_barter"
NUM_PLAYERS = 12
OPTIONS = {"max_rounds": 1000}
SEED = 3
EARLY, LATE = 200, 20_000  # the first action of each window
WINDOW = 500  # actions per window
MEASURES = ("legal set", "observation", "seat view", "AEC env", "arena play loop")


def steady_choice(legal, rng: random.Random) -> int:
    """A legal action other than a knock (there always is one), at random: the deal runs its rounds."""
    return rng.choice([a for a in legal if a != KNOCK])


class _EnoughError(Exception):
    """The arena's deal has been played as far as the figures need."""


class Steady(Agent):
    """Never knocks; notes the clock at each decision (the arena's loop between two of them), and
    stops the deal (:class:`_EnoughError`) after ``stop`` decisions of the table."""

    name = "steady"

    def __init__(self, rng: random.Random, clock: list[float], stop: int):
        self.rng, self.clock, self.stop = rng, clock, stop

    def act(self, view) -> int:
        self.clock.append(time.perf_counter())
        if len(self.clock) > self.stop:
            raise _EnoughError
        return steady_choice(view.legal_actions, self.rng)


def _window_medians(seconds: list[float], early: int, late: int, window: int) -> tuple[float, float]:
    """Median microseconds of the actions in the two windows (``seconds[i]``: action ``i``)."""
    if len(seconds) < late + window:
        raise ValueError(f"the deal ended after {len(seconds)} actions, before action {late + window}")
    return (1e6 * statistics.median(seconds[early:early + window]),
            1e6 * statistics.median(seconds[late:late + window]))


def engine_times(seed: int, actions: int) -> dict[str, list[float]]:
    """Seconds of the legal set, the observation and the seat view at each of the deal's first ``actions``."""
    game = new_game(make_rules(VARIANT, deals=1, **OPTIONS), NUM_PLAYERS, rng=random.Random(seed))
    rng, clock = random.Random(seed), time.perf_counter
    times: dict[str, list[float]] = {"legal set": [], "observation": [], "seat view": []}
    while not game.over and game.actions_taken < actions:
        seat = game.current_player
        start = clock()
        legal = game.legal_actions()
        legal_done = clock()
        obs.encode(game, seat)
        obs.action_mask(game, seat)
        observed = clock()
        seat_view(game, seat)
        viewed = clock()
        times["legal set"].append(legal_done - start)
        times["observation"].append(observed - legal_done)
        times["seat view"].append(viewed - observed)
        game.apply(steady_choice(legal, rng))
    return times


def aec_times(seed: int, actions: int) -> list[float]:
    """Seconds of each of the deal's first ``actions`` in the AEC env's loop: ``last()`` (the
    observation) and ``step()``."""
    env = commerce_env.env(variant=VARIANT, num_players=NUM_PLAYERS, deals=1, **OPTIONS)
    env.reset(seed=seed)
    rng, clock = random.Random(seed), time.perf_counter
    times, start = [], clock()
    for _ in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(steady_choice(observation["action_mask"].nonzero()[0].tolist(), rng))
        now = clock()
        times.append(now - start)
        start = now
        if len(times) == actions:
            break
    return times


def arena_times(seed: int, actions: int) -> list[float]:
    """Seconds between one decision and the next in :func:`agents.play.play_game` (the seat view,
    the agent, the checks and the engine's step), for the deal's first ``actions``."""
    game = new_game(make_rules(VARIANT, deals=1, **OPTIONS), NUM_PLAYERS, rng=random.Random(seed))
    rng, clock = random.Random(seed), []
    try:
        play_game(game, [Steady(rng, clock, actions) for _ in range(NUM_PLAYERS)])
    except _EnoughError:
        pass
    return [b - a for a, b in zip(clock, clock[1:], strict=False)]


def measure(repeats: int = 3, early: int = EARLY, late: int = LATE,
            window: int = WINDOW) -> dict[str, dict[str, float]]:
    """Per measure: median microseconds per action early and late, and the median over ``repeats``
    deals of their ratio (each deal's ratio from one run: load falls on both windows alike)."""
    runs: dict[str, list[tuple[float, float]]] = {m: [] for m in MEASURES}
    for repeat in range(repeats):
        seed = SEED + repeat
        actions = late + window
        series = {**engine_times(seed, actions), "AEC env": aec_times(seed, actions),
                  "arena play loop": arena_times(seed, actions)}
        for name in MEASURES:
            runs[name].append(_window_medians(series[name], early, late, window))
    return {name: {"early_us": statistics.median(e for e, _ in pairs),
                   "late_us": statistics.median(lt for _, lt in pairs),
                   "ratio": statistics.median(lt / e for e, lt in pairs)} for name, pairs in runs.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="deals played each way (default 3)")
    parser.add_argument("--late", type=int, default=LATE, help=f"the late window's first action (default {LATE})")
    parser.add_argument("--window", type=int, default=WINDOW, help=f"actions per window (default {WINDOW})")
    args = parser.parse_args(argv)
    if not 0 < args.window <= args.late - EARLY:
        parser.error(f"--window must be from 1 to --late minus {EARLY}, got {args.window}")
    figures = measure(args.repeats, EARLY, args.late, args.window)
    print(f"{VARIANT}, {NUM_PLAYERS} players, max_rounds {OPTIONS['max_rounds']}, players who never knock: "
          f"one deal; median us per action over {args.window} actions from action {EARLY} and from "
          f"action {args.late}; medians of {args.repeats} deals")
    print(f"{'':<18}{'early':>10}{'late':>10}{'late/early':>12}")
    for name, m in figures.items():
        print(f"{name:<18}{m['early_us']:>10.1f}{m['late_us']:>10.1f}{m['ratio']:>11.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
