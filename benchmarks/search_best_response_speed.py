"""The search best response's decisions per second beside the plain search's, in one run.

``python -m benchmarks.search_best_response_speed``: for each variant and each
agent (``random`` and ``greedy``, which batch, and ``expected_value``, which does
not), a fixed set of decisions (seat 0's views in matches of ``expected_value``
in seat 0 against the agent in the others, 4 players, R12 defaults, every
decision with a choice) is put in turns (:func:`benchmarks.timing.interleaved`)
to:

- ``search_best_response``: against that agent, 24 worlds a decision (at most 48 drawn);
- ``search``: the plain search, 24 worlds, its rollouts on the batched engine.

The ratio is the median of the round-by-round ratios of decisions per second
(above 1: the best response is the faster), so load from other processes falls
on both alike.  Also given: the worlds the best response drew and kept per
decision, and the share of decisions where no world drawn was as the agent
played it (a deterministic agent's choices rule out most worlds drawn).
"""

from __future__ import annotations

import json
import random

from agents.best_response import SearchBestResponse
from agents.heuristics import ExpectedValueAgent
from agents.search import SearchAgent
from agents.specs import make_agent
from commerce_env.engine import new_game
from commerce_env.engine.base import HORSE
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import SeatView, seat_view

from .search_speed import agent_run
from .timing import interleaved, paired_ratio, speed_arguments

NUM_PLAYERS = 4
AGENTS = ("random", "greedy", "expected_value")


def decisions(variant: str, agent: str, count: int, seed: int = 0) -> list[SeatView]:
    """``count`` views of seat 0 with more than one legal action, ``expected_value`` in seat 0 and
    ``agent`` in the others."""
    rules, rng, views = make_rules(variant), random.Random(seed), []
    mine, theirs = ExpectedValueAgent(), make_agent(agent)
    while len(views) < count:
        game = new_game(rules, NUM_PLAYERS, seed=rng.randrange(2**31))
        while not game.over and len(views) < count:
            view = seat_view(game, game.current_player)
            if game.current_player == 0 and len(view.legal_actions) > 1 and view.phase != HORSE:
                views.append(view)
            game.apply((mine if game.current_player == 0 else theirs).act(view))
    return views


def measure(variants: tuple[str, ...], agents: tuple[str, ...], repeats: int, seconds: float,
            views: int = 40) -> list[dict]:
    rows = []
    for variant in variants:
        rules = make_rules(variant)
        for agent in agents:
            chosen = decisions(variant, agent, views)
            responder = SearchBestResponse(agent, seed=1)
            responder.reset(0, NUM_PLAYERS, rules, seed=1)
            search = SearchAgent(seed=1)
            responder.act(chosen[0])  # the kernels compiled (or loaded) before the timing
            search.act(chosen[0])
            responder.decisions = responder.drawn = responder.kept = responder.trembled = 0
            series = interleaved({"search_best_response": agent_run(responder, chosen),
                                  "search": agent_run(search, chosen)}, repeats, seconds)
            ours, peer = series["search_best_response"], series["search"]
            searched = max(responder.decisions, 1)
            rows.append({"variant": variant, "agent": agent, "search_best_response": ours.median,
                         "search": peer.median, "ratio": paired_ratio(ours, peer),
                         "cpu_ratio": ours.cpu_median / peer.cpu_median,
                         "batched": responder.batched_agent(chosen[0]) is not None,
                         "drawn_per_decision": responder.drawn / searched,
                         "kept_per_decision": responder.kept / searched,
                         "trembled_share": responder.trembled / searched, "decisions": len(chosen)})
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = speed_arguments(__doc__.splitlines()[0], VARIANTS, 3.0)
    parser.add_argument("--agents", nargs="+", choices=AGENTS, default=list(AGENTS))
    args = parser.parse_args(argv)
    rows = measure(tuple(args.variants), tuple(args.agents), args.repeats, args.seconds)
    print(f"{'variant':<15}{'agent':<16}{'engine':<10}{'best response':>14}{'search':>9}{'ratio':>8}"
          f"{'per CPU-s':>11}{'drawn':>7}{'kept':>6}{'trembled':>10}")
    for row in rows:
        print(f"{row['variant']:<15}{row['agent']:<16}{'batched' if row['batched'] else 'readable':<10}"
              f"{row['search_best_response']:>14,.1f}{row['search']:>9,.1f}{row['ratio']:>7.2f}x"
              f"{row['cpu_ratio']:>10.2f}x{row['drawn_per_decision']:>7.1f}{row['kept_per_decision']:>6.1f}"
              f"{row['trembled_share']:>9.0%}")
    print("decisions/s; ratio: search_best_response / search (above 1: the best response is the faster); drawn, "
          "kept: worlds per decision; trembled: decisions where no world drawn had the agent's choices")
    if args.out is not None:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
