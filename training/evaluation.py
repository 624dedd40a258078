"""Evaluating a learner against baselines in the arena (duplicate deals).

For each baseline the learner sits at a table of that baseline, every seat in
turn on the same cards (``agents.evaluate.evaluate_agent``), so the luck of the
deal cancels out of the comparison.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import EnvSection
    from .run_folder import RunFolder
    from .sections import EvaluationSection, GameSection


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
    """A readable table of an evaluation report: rewards per deal, with 95% intervals."""
    lines = [f"{report.get('variant')} with {report.get('num_players')} players, {report.get('deals')} duplicate "
             "deals; rewards per deal (counters, or money in pool commerce), 95% intervals"]
    lines.append(f"{'table of':<16}{'learner per deal':>18}{'95% CI':>20}{'learner - them per deal':>25}"
                 f"{'95% CI':>20}")
    for name, row in report["opponents"].items():
        lo, hi = row["ci95"]
        dlo, dhi = row["diff_ci95"]
        lines.append(f"{name:<16}{row['mean_reward']:>+18.3f}{f'[{lo:+.3f}, {hi:+.3f}]':>20}"
                     f"{row['diff']:>+25.3f}{f'[{dlo:+.3f}, {dhi:+.3f}]':>20}")
    return lines


def verdict(report: dict[str, Any]) -> str:
    """The evaluation in one sentence: against each table, ahead, behind or level (the 95% interval of the
    learner's margin per deal above, below or around 0), with the margin, its interval and its p-value."""
    parts = []
    for name, row in report["opponents"].items():
        low, high = row["diff_ci95"]
        figures = f"{row['diff']:+.3f} per deal [{low:+.3f}, {high:+.3f}], p={row['p_value']:.2g}"
        if low > 0:
            parts.append(f"beats {name} by {figures}")
        elif high < 0:
            parts.append(f"loses to {name}: {figures}")
        else:
            parts.append(f"is level with {name}: {figures} (the interval holds 0)")
    return "Verdict: the agent " + "; ".join(parts) + "." if parts else "Verdict: no evaluation was played."


def final_report(model: Any, env: EnvSection, name: str, search: dict[str, Any] | None,
                 evaluation: EvaluationSection, run: RunFolder, *, progress: bool = False) -> dict[str, Any]:
    """The arena's evaluation of the final policy, written to ``report.json`` and ``report.txt``:
    ``env``'s game against the ``evaluation`` section's baselines, under the run's ``name``; ``search``
    (``policy.search``) is in the agent's record, as :func:`training.checkpoints.policy_agent` writes it.

    ``progress`` shows what it plays as it goes (a minute or so of duplicate deals in the demo).
    """
    from .checkpoints import policy_agent

    agent, _, _ = policy_agent(model, env, name, search)
    steps = int(model.num_timesteps)
    report = {"run": name, "steps": steps, "model": "model"}
    return write_final_report(agent, evaluation, env, run, report, f"run {name}: {steps} steps", progress)


def write_final_report(agent: Any, evaluation: EvaluationSection, env: GameSection, run: RunFolder,
                       report: dict[str, Any], title: str, progress: bool = False) -> dict[str, Any]:
    """``report`` (what the run is) with the evaluation of ``agent`` in ``env``'s game against the
    ``evaluation`` section's baselines over ``final_deals`` duplicate deals, its summary (under ``title``)
    and verdict; the arena's own reports in ``arena/``, the whole in ``report.json`` and ``report.txt``.
    One writer for every backend's runs."""
    # Paths in the report are relative to the run folder: the report names no machine's layout.
    if evaluation.final_deals > 0:
        report.update(evaluate(agent, evaluation.baselines, variant=env.variant, num_players=env.num_players,
                               options=env.rules, deals=evaluation.final_deals, seed=evaluation.seed + 1,
                               workers=evaluation.workers, progress=progress))
        report["summary"] = [title] + summary_lines(report)
        report["verdict"] = verdict(report)
        arena = report.pop("arena", {})
        if arena:
            from agents.arena import write_outputs

            for name, result in arena.items():  # the arena's own report (result.json, report.md, a plot)
                write_outputs(result, run.path / "arena" / name)
                run.record_tree(f"arena/{name}")
            report["arena_reports"] = {name: f"arena/{name}" for name in arena}
    else:
        report["summary"] = [f"{title} (no final evaluation)"]
    run.write("report.json", json.dumps(report, indent=2))
    verdict_line = [report["verdict"]] if "verdict" in report else []
    run.write("report.txt", "\n".join([*report["summary"], *verdict_line]) + "\n")
    return report
