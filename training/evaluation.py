"""Evaluating a learner against baselines in the arena (duplicate deals).

For each baseline the learner sits at a table of that baseline, every seat in
turn on the same cards (``agents.evaluate.evaluate_agent``), so the luck of the
deal cancels out of the comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def evaluate(agent: Any, opponents: Sequence[str], *, variant: str, num_players: int,
             options: dict[str, Any] | None = None, deals: int = 200, seed: int = 0, workers: int = 1,
             progress: bool = False) -> dict[str, Any]:
    """The learner against a table of each baseline in turn.

    ``opponents[name]`` has the learner's ``mean_reward`` per deal with its
    ``ci95``, and ``diff`` (learner minus that baseline, per deal, in the
    same games) with its ``diff_ci95`` and ``p_value``; ``arena[name]`` is
    the arena's full result.  ``progress`` prints what is being played and
    shows the arena's progress bar.
    """
    from agents.evaluate import evaluate_agent

    report: dict[str, Any] = {"variant": variant, "num_players": num_players, "deals": deals, "seed": seed,
                              "opponents": {}, "arena": {}}
    for i, name in enumerate(opponents, 1):
        if progress:
            print(f"evaluation {i}/{len(opponents)}: {deals} deals against a table of {name}", flush=True)
        result = evaluate_agent(agent, [name], variant=variant, num_players=num_players, options=options or {},
                                deals=deals, seed=seed, workers=workers, progress=progress)
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
