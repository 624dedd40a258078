"""The search agent's decisions per second, in one run, beside ``expected_value``.

``python -m benchmarks.search_speed``: for each variant, a fixed set of decisions
(the seat views of ``expected_value`` players' matches, 4 players, R12 defaults, every
decision with a choice) is put to three agents in turns (:func:`benchmarks.timing.interleaved`):

- ``search``: the agent as it is (24 worlds per decision);
- ``search, value per call``: the same agent with its rollouts valuing hands the way they
  did before ``Game.value_function`` (``engine.value_of(cards, combinations)`` per hand,
  through :func:`commerce_env.hands.hand_key`), to show what the lookup bought;
- ``expected_value``: the yardstick, the other strong built-in agent;
- the shipped model ``models/<variant>`` where there is one: its network alone is far
  faster than either, and with test-time search (model.json ``search``, as in pool
  commerce) it plays at about ``search``'s pace, which this column shows.

It also checks that the two searches choose the same action at every decision (the
same seed per decision), so the speed-up changes nothing they do.  Rates are decisions
per wall-clock second; the ratio is the median of the round-by-round ratios, so load
from other processes falls on both alike.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from agents import search as search_module
from agents.heuristics import ExpectedValueAgent
from agents.search import SearchAgent
from commerce_env.engine import new_game
from commerce_env.rules import make_rules
from commerce_env.view import SeatView, seat_view

from .timing import Run, interleaved, paired_ratio, speed_arguments, until

VARIANTS = ("trade_barter", "widow", "my_ship_sails", "old_game", "pool")
MODELS = Path(__file__).resolve().parent.parent / "models"
NUM_PLAYERS = 4


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


@contextmanager
def value_per_call() -> Iterator[None]:
    """The search's rollouts value hands with ``engine.value_of`` per call (the earlier way)."""
    def slow(engine, combos):
        value_of = engine.value_of
        return lambda cards: value_of(cards, combos)

    with mock.patch.object(search_module, "value_function", slow):
        yield


def agent_run(agent, views: list[SeatView], slow_value: bool = False) -> Run:
    """Decisions over ``views`` in turn, for about ``seconds``."""
    position = [0]

    def run(seconds: float) -> int:
        done, count = until(seconds), 0
        with value_per_call() if slow_value else _nothing():
            while not done():
                agent.act(views[position[0] % len(views)])
                position[0] += 1
                count += 1
        return count
    return run


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def same_choices(views: list[SeatView], seed: int = 0) -> bool:
    """Whether the search chooses alike with either valuation at every view (one seed per view)."""
    for i, view in enumerate(views):
        fast = SearchAgent(seed=seed + i).act(view)
        with value_per_call():
            slow = SearchAgent(seed=seed + i).act(view)
        if fast != slow:
            return False
    return True


def shipped_model(variant: str):
    """The shipped ``models/<variant>`` as it plays (with its test-time search, if any), or None."""
    from agents.learned import load_agent

    folder = MODELS / variant
    if not (folder / "model.json").is_file():
        return None
    agent = load_agent(folder, variant=variant, num_players=NUM_PLAYERS, seed=1)
    agent.reset(0, NUM_PLAYERS, make_rules(variant), seed=1)
    return agent


def measure(variants: tuple[str, ...], repeats: int, seconds: float, views: int = 60) -> list[dict]:
    rows = []
    for variant in variants:
        chosen = decisions(variant, views)
        runs = {
            "search": agent_run(SearchAgent(seed=1), chosen),
            "search, value per call": agent_run(SearchAgent(seed=1), chosen, slow_value=True),
            "expected_value": agent_run(ExpectedValueAgent(), chosen),
        }
        model = shipped_model(variant)
        if model is not None:
            runs["model"] = agent_run(model, chosen)
        series = interleaved(runs, repeats, seconds)
        rows.append({
            "variant": variant,
            "search": series["search"].median,
            "value_per_call": series["search, value per call"].median,
            "expected_value": series["expected_value"].median,
            "model": series["model"].median if model is not None else None,
            "model_searches": model is not None and model.search is not None,
            "speedup": paired_ratio(series["search"], series["search, value per call"]),
            "same_choices": same_choices(chosen[:20]),
            "decisions": len(chosen),
        })
    return rows


def main(argv: list[str] | None = None) -> None:
    args = speed_arguments(__doc__.splitlines()[0], VARIANTS, 4.0).parse_args(argv)
    rows = measure(tuple(args.variants), args.repeats, args.seconds)
    print(f"{'variant':<15}{'search (dec/s)':>16}{'value per call':>16}{'speed-up':>10}"
          f"{'expected_value':>16}{'same choices':>14}{'shipped model':>16}")
    for row in rows:
        model = "none" if row["model"] is None else (
            f"{row['model']:,.1f}{' (search)' if row['model_searches'] else ''}")
        print(f"{row['variant']:<15}{row['search']:>16,.1f}{row['value_per_call']:>16,.1f}"
              f"{row['speedup']:>9.2f}x{row['expected_value']:>16,.1f}{'yes' if row['same_choices'] else 'NO':>14}"
              f"{model:>16}")
    if args.out is not None:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
