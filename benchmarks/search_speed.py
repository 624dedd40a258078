"""The search agent's decisions per second, batched beside readable rollouts, in one run.

``python -m benchmarks.search_speed``: for each variant, a fixed set of decisions
(the seat views of ``expected_value`` players' matches, 4 players, R12 defaults, every
decision with a choice) is put to these agents in turns (:func:`benchmarks.timing.interleaved`):

- ``search``: rollouts on the batched engine (24 worlds per decision);
- ``search(engine=readable)``: the same search with the readable engine's rollouts, the reference;
- ``search(worlds=96)``: the batched search with four times the worlds, to say how many
  worlds it affords in the readable search's time per decision (time is linear in worlds:
  a fixed cost per decision, the prior's, plus one per world, sampling it and rolling it out);
- ``expected_value``: the yardstick, the other strong built-in agent;
- the shipped model ``models/<variant>`` where there is one, and where it plays with
  test-time search (model.json ``search``) also with that search on the readable engine.

It also checks that both searches choose the same action at every decision (the same
seed per decision): the batched rollouts change where the rollouts run, nothing they do.
Rates are decisions per wall-clock second and per CPU-second of this process (the rate per
core); the ratio is the median of the round-by-round ratios, so load from other processes
falls on both alike.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from agents.heuristics import ExpectedValueAgent
from agents.search import SearchAgent
from commerce_env.engine import new_game
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import SeatView, seat_view

from .timing import Run, interleaved, paired_ratio, speed_arguments, until

MODELS = Path(__file__).resolve().parent.parent / "models"
NUM_PLAYERS = 4
WORLDS = 24  # the search's default
MORE_WORLDS = 96


def decisions(variant: str, count: int, seed: int = 0) -> list[SeatView]:
    """``count`` seat views with more than one legal action, from ``expected_value`` players' matches."""
    rules, rng, views = make_rules(variant), random.Random(seed), []
    player = ExpectedValueAgent()
    while len(views) < count:
        game = new_game(rules, NUM_PLAYERS, seed=rng.randrange(2**31))
        while not game.over and len(views) < count:
            view = seat_view(game, game.current_player)
            if len(view.legal_actions) > 1:
                views.append(view)
            game.apply(player.act(view))
    return views


def agent_run(agent, views: list[SeatView]) -> Run:
    """Decisions over ``views`` in turn, for about ``seconds``."""
    position = [0]

    def run(seconds: float) -> int:
        done, count = until(seconds), 0
        while not done():
            agent.act(views[position[0] % len(views)])
            position[0] += 1
            count += 1
        return count
    return run


def same_choices(views: list[SeatView], seed: int = 0) -> bool:
    """Whether both searches choose alike, with equal values, at every view (one seed per view)."""
    for i, view in enumerate(views):
        batched, readable = SearchAgent(seed=seed + i), SearchAgent(seed=seed + i, engine="readable")
        if batched.act(view) != readable.act(view) or batched.last_values != readable.last_values:
            return False
    return True


def shipped_model(variant: str, engine: str = "batched"):
    """The shipped ``models/<variant>`` as it plays (with its test-time search, if any, its rollouts
    on ``engine``), or None."""
    from agents.learned import load_agent
    from agents.model_files import read_model

    folder = MODELS / variant
    if not (folder / "model.json").is_file():
        return None
    search = read_model(folder, variant, NUM_PLAYERS)[1].get("search")
    setting = {**search, "engine": engine} if search is not None else False
    agent = load_agent(folder, variant=variant, num_players=NUM_PLAYERS, seed=1, search=setting)
    agent.reset(0, NUM_PLAYERS, make_rules(variant), seed=1)
    return agent


def affordable_worlds(batched: float, more: float, readable: float) -> float:
    """How many worlds the batched search plays in the readable search's time per decision, from
    its rates (decisions/s) at :data:`WORLDS` and :data:`MORE_WORLDS` worlds and the readable one's."""
    per_world = (1 / more - 1 / batched) / (MORE_WORLDS - WORLDS)
    if per_world <= 0:
        return float("nan")
    fixed = 1 / batched - WORLDS * per_world
    return (1 / readable - fixed) / per_world


def measure(variants: tuple[str, ...], repeats: int, seconds: float, views: int = 60) -> list[dict]:
    rows = []
    for variant in variants:
        chosen = decisions(variant, views)
        runs = {
            "search": agent_run(SearchAgent(seed=1), chosen),
            "search(engine=readable)": agent_run(SearchAgent(seed=1, engine="readable"), chosen),
            f"search(worlds={MORE_WORLDS})": agent_run(SearchAgent(worlds=MORE_WORLDS, seed=1), chosen),
            "expected_value": agent_run(ExpectedValueAgent(), chosen),
        }
        model = shipped_model(variant)
        if model is not None:
            runs["model"] = agent_run(model, chosen)
            if model.search is not None:
                runs["model, readable"] = agent_run(shipped_model(variant, "readable"), chosen)
        SearchAgent(worlds=1, seed=0).act(chosen[0])  # the kernels compiled (or loaded) before the timing
        series = interleaved(runs, repeats, seconds)
        batched, readable = series["search"], series["search(engine=readable)"]
        searching = model is not None and model.search is not None
        rows.append({
            "variant": variant,
            "search": batched.median,
            "readable": readable.median,
            "ratio": paired_ratio(batched, readable),
            "search_cpu": batched.cpu_median,
            "readable_cpu": readable.cpu_median,
            "cpu_ratio": batched.cpu_median / readable.cpu_median,
            "worlds_in_readable_time": affordable_worlds(batched.median, series[f"search(worlds={MORE_WORLDS})"].median,
                                                         readable.median),
            "expected_value": series["expected_value"].median,
            "model": series["model"].median if model is not None else None,
            "model_searches": searching,
            "model_readable": series["model, readable"].median if searching else None,
            "same_choices": same_choices(chosen[:20]),
            "decisions": len(chosen),
        })
    return rows


def main(argv: list[str] | None = None) -> None:
    args = speed_arguments(__doc__.splitlines()[0], VARIANTS, 4.0).parse_args(argv)
    rows = measure(tuple(args.variants), args.repeats, args.seconds)
    print(f"{'variant':<15}{'search':>10}{'readable':>10}{'ratio':>8}{'per CPU-s':>11}{'worlds':>8}"
          f"{'expected_value':>16}{'same choices':>14}{'shipped model':>22}")
    for row in rows:
        model = "none" if row["model"] is None else f"{row['model']:,.1f}" + (
            f" ({row['model'] / row['model_readable']:.1f}x)" if row["model_searches"] else "")
        print(f"{row['variant']:<15}{row['search']:>10,.1f}{row['readable']:>10,.1f}{row['ratio']:>7.1f}x"
              f"{row['cpu_ratio']:>10.1f}x{row['worlds_in_readable_time']:>8.0f}{row['expected_value']:>16,.1f}"
              f"{'yes' if row['same_choices'] else 'NO':>14}{model:>22}")
    print("decisions/s; ratio: search / search(engine=readable); worlds: the batched search's worlds in the "
          "readable search's time per decision; shipped model: with its test-time search, x its readable rollouts")
    if args.out is not None:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
