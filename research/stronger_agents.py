"""New against old: a built-in agent against its frozen previous version, on duplicate deals.

    python -m research.stronger_agents --agent expected_value --variant old_game --games 2400 --seed 1

The lineup is the live agent and its copy from :mod:`research.agent_versions`
alternating around the table (``new, old, new, old`` at four seats; every
arrangement of the two is one duplicate group).  It prints the arena's paired
difference per deal and, for match variants, the same statistics per match
(the mean per match, its bootstrap 95% CI and the paired p-value over
groups), and the search agents' decisions per second in this run.  Play with
``--workers 1`` under ``nice -n 10`` on a shared machine.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from agents.arena import ArenaSettings, _lineup_table, _run_groups, agent_names
from agents.base import Agent
from agents.specs import make_agent
from agents.stats import summarise
from commerce_env.rules import make_rules

from .agent_versions import VERSIONS


class Counted(Agent):
    """Wraps an agent to count its decisions and the seconds they take (for decisions/s)."""

    def __init__(self, agent: Agent, name: str):
        self.agent, self.name = agent, name
        self.decisions, self.seconds = 0, 0.0

    def reset(self, *args: Any, **kwargs: Any) -> None:
        self.agent.reset(*args, **kwargs)

    def act(self, view):
        started = time.perf_counter()
        action = self.agent.act(view)
        self.seconds += time.perf_counter() - started
        self.decisions += 1
        return action


def compare(agent: str, variant: str, games: int, seed: int, num_players: int = 4,
            options: dict[str, Any] | None = None, new: Agent | None = None, old: Agent | None = None) -> dict:
    """Play the live ``agent`` (or ``new``) against its previous version (or ``old``)."""
    new_agent = Counted(new or make_agent(agent), agent)
    old_agent = Counted(old or VERSIONS[agent](), f"{agent}_v1")
    lineup = [new_agent, old_agent]
    settings = ArenaSettings(variant=variant, num_players=num_players, options=options, seed=seed, progress=False)
    table, _ = _lineup_table(lineup, num_players)
    from agents.seating import seatings

    groups = -(-games // len(seatings(table)))
    started = time.perf_counter()
    records = [played for _, played in _run_groups(lineup, settings, groups, batched=False)]
    seconds = time.perf_counter() - started
    unique = list(dict.fromkeys(agent_names(lineup)))
    per_deal = summarise(records, unique, seed=seed)
    per_match = summarise([[(s, r, 1) for s, r, _ in group] for group in records], unique, seed=seed)
    return {
        "agent": agent, "variant": variant, "seed": seed, "groups": groups,
        "games": sum(len(g) for g in records), "seconds": seconds, "per_deal": per_deal["pairwise"][0],
        "per_match": per_match["pairwise"][0], "matches": make_rules(variant, **(options or {})).deals != 1,
        "decisions_per_second": {a.name: a.decisions / a.seconds if a.seconds else float("inf")
                                 for a in (new_agent, old_agent)},
    }


def line(result: dict) -> str:
    unit = "per_match" if result["matches"] else "per_deal"
    pair = result[unit]
    low, high = pair["ci95"]
    speed = ", ".join(f"{k} {v:,.0f}" for k, v in result["decisions_per_second"].items())
    return (f"{result['variant']}: {pair['a']} - {pair['b']} {unit.replace('_', ' ')} {pair['mean_difference']:+.3f} "
            f"[{low:+.3f}, {high:+.3f}] p={pair['p_value']:.2g}, {result['groups']} groups, "
            f"{result['games']} games, seed {result['seed']}; decisions/s: {speed}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agent", choices=sorted(VERSIONS), required=True)
    parser.add_argument("--variant", required=True)
    parser.add_argument("--games", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args(argv)
    print(line(compare(args.agent, args.variant, args.games, args.seed, args.players)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
