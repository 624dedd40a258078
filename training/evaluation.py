"""Evaluating a learner against baselines over duplicate deals.

:func:`evaluate` calls the arena's ``agents.arena.evaluate_agent`` when it is
there; until then (and as a reference) :func:`duplicate_evaluation` does the
same job here: for each deal, the learner plays the same cards from every
seat against a table of the baseline, and the baseline plays the same cards
from every seat too, so the luck of the deal cancels out of the difference.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from commerce_env import observation as obs
from commerce_env.engine import actions as A
from commerce_env.engine import new_game
from commerce_env.rules import Rules, make_rules

Z95 = 1.959963984540054


def _interval(values: np.ndarray, z: float = Z95) -> list[float]:
    mean = float(values.mean())
    half = z * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return [mean - half, mean + half]


def play_match(rules: Rules, num_players: int, seat_agents: Sequence[Any], match_seed: int, dealer: int,
               ) -> list[float]:
    """One match with ``seat_agents[s]`` in seat ``s``; every seat's return."""
    game = new_game(rules, num_players, dealer=dealer, rng=random.Random(match_seed))
    for seat, agent in enumerate(seat_agents):
        agent.reset(seat, num_players, rules, match_seed + seat)
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    while not game.over:
        seat = game.current_player
        mask[:] = 0
        mask[game.legal_actions()] = 1
        action = seat_agents[seat].act({"observation": obs.encode(game, seat), "action_mask": mask.copy()}, game)
        game.apply(action)
    return game.returns()


def duplicate_evaluation(agent: Any, opponents: Sequence[str], *, variant: str = "trade_barter",
                         num_players: int = 4, options: dict[str, Any] | None = None, deals: int = 200,
                         seed: int = 0) -> dict[str, Any]:
    """The learner's mean reward per match against each baseline table, with 95% intervals.

    ``diff`` is the learner's reward minus the baseline's own in the same
    seat with the same cards (a duplicate comparison); > 0 means it does better.
    """
    from agents.base import make_agent

    rules = make_rules(variant, **(options or {}))
    report: dict[str, Any] = {"variant": variant, "num_players": num_players, "deals": deals, "seed": seed,
                              "opponents": {}}
    for name in opponents:
        table = [make_agent(name) for _ in range(num_players)]
        learner, baseline = [], []
        for deal in range(deals):
            match_seed = seed * 1_000_003 + deal
            dealer = deal % num_players
            base_returns = play_match(rules, num_players, table, match_seed, dealer)
            for seat in range(num_players):
                seats = list(table)
                seats[seat] = agent
                learner.append(play_match(rules, num_players, seats, match_seed, dealer)[seat])
                baseline.append(base_returns[seat])
        per_deal = np.asarray(learner).reshape(deals, num_players).mean(axis=1)
        base_deal = np.asarray(baseline).reshape(deals, num_players).mean(axis=1)
        diff = per_deal - base_deal
        report["opponents"][name] = {
            "mean_reward": float(per_deal.mean()), "ci95": _interval(per_deal),
            "baseline_mean_reward": float(base_deal.mean()),
            "diff": float(diff.mean()), "diff_ci95": _interval(diff),
            "diff_std": float(diff.std(ddof=1)) if deals > 1 else math.inf,
        }
    return report


def evaluate(agent: Any, opponents: Sequence[str], *, variant: str, num_players: int,
             options: dict[str, Any] | None = None, deals: int = 200, seed: int = 0, workers: int = 1,
             ) -> dict[str, Any]:
    """The learner against a table of each baseline in turn, on duplicate deals.

    Uses the arena's ``agents.arena.evaluate_agent`` when it is there (else
    :func:`duplicate_evaluation`); ``opponents[name]`` has the learner's
    ``mean_reward`` per deal with its ``ci95``, and ``diff`` (learner minus
    that baseline) with its ``diff_ci95`` and ``p_value``.
    """
    try:
        from agents.arena import evaluate_agent
    except ImportError:
        return duplicate_evaluation(agent, opponents, variant=variant, num_players=num_players,
                                    options=options, deals=deals, seed=seed)
    report: dict[str, Any] = {"variant": variant, "num_players": num_players, "deals": deals, "seed": seed,
                              "opponents": {}, "arena": {}}
    for name in opponents:
        result = evaluate_agent(agent, [name], variant=variant, num_players=num_players, options=options or {},
                                deals=deals, seed=seed, workers=workers)
        versus = result["vs"][name]
        report["opponents"][name] = {"mean_reward": result["mean"], "ci95": list(result["ci95"]),
                                     "diff": versus["difference"], "diff_ci95": list(versus["ci95"]),
                                     "p_value": versus["p_value"]}
        report["arena"][name] = result["result"]
    return report


def summary_lines(report: dict[str, Any]) -> list[str]:
    """A readable table of an evaluation report."""
    lines = [f"{report.get('variant')} with {report.get('num_players')} players, {report.get('deals')} duplicate deals"]
    lines.append(f"{'opponents':<16}{'learner mean':>14}{'95% CI':>22}{'learner - them':>16}{'95% CI':>22}")
    for name, row in report["opponents"].items():
        lo, hi = row["ci95"]
        dlo, dhi = row["diff_ci95"]
        lines.append(f"{name:<16}{row['mean_reward']:>+14.3f}{f'[{lo:+.3f}, {hi:+.3f}]':>22}"
                     f"{row['diff']:>+16.3f}{f'[{dlo:+.3f}, {dhi:+.3f}]':>22}")
    return lines
