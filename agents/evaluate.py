"""The learner against baselines on duplicate deals: what training evaluates with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from commerce_env.rules import DEFAULT_PLAYERS, DEFAULT_VARIANT

from .arena import AgentSpec, agent_names, run_arena
from .specs import read_spec


def evaluate_agent(agent_or_spec: AgentSpec, opponents: Sequence[AgentSpec], *, variant: str = DEFAULT_VARIANT,
                   num_players: int = DEFAULT_PLAYERS, options: dict[str, Any] | None = None, deals: int = 1000,
                   seed: int = 0, workers: int = 1, progress: bool = False) -> dict:
    """The learner in one seat against ``opponents`` (repeated to fill the others), on duplicate deals.

    Returns the learner's mean reward per deal and its 95% CI, and for each
    opponent the mean difference (learner - opponent) per deal, its 95% CI
    and p-value, keyed by its name at the table (``search(worlds=96)`` for a mapping,
    :func:`agents.specs.spec_name`); ``result`` holds the full arena result.
    """
    if not opponents:
        raise ValueError("evaluate_agent needs at least one opponent")
    learner: AgentSpec = read_spec(agent_or_spec)  # "search(worlds=96)" as on the command line
    opponents = [read_spec(spec) for spec in opponents]
    learner_name = agent_names([learner])[0]
    if learner_name in agent_names(list(opponents)):
        raise ValueError(f"the learner {learner_name!r} is also among the opponents; give it another name")
    others = [opponents[k % len(opponents)] for k in range(num_players - 1)]
    result = run_arena([learner, *others], variant=variant, num_players=num_players, options=options,
                       deals=deals, seed=seed, workers=workers, progress=progress)
    mine = result["agents"][learner_name]
    versus = {}
    for p in result["pairwise"]:
        if learner_name in (p["a"], p["b"]):
            sign = 1.0 if p["a"] == learner_name else -1.0
            other = p["b"] if sign > 0 else p["a"]
            intervals = {level: list(p[level]) if sign > 0 else [-p[level][1], -p[level][0]]
                         for level in ("ci95", "ci99")}
            versus[other] = {"difference": sign * p["mean_difference"], **intervals, "p_value": p["p_value"]}
    return {"name": learner_name, "mean": mine["mean"], "ci95": mine["ci95"], "win_rate": mine["win_rate"],
            "vs": versus, "deals_per_second": result["deals_per_second"], "result": result}
