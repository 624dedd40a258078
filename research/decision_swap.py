"""Which of a model's decisions cost it its games: ``python -m research.decision_swap``.

The model plays the arena's standard lineup against one opponent on
duplicate deals, once as itself and once per *swap*: a copy of the model
that hands one kind of decision to another agent and plays the rest itself.
All runs use the same deals (one arena seed), so a swap that closes the gap
to the opponent points at the decisions the model gets wrong.  The swaps:

* ``which:AGENT``: when the model exchanges with the face-up table (R6.3,
  R8.2), AGENT picks the exchange: it is shown the exchanges as the only
  legal actions; if it still answers with something else, the exchange that
  leaves the best hand now is played (``fallbacks`` counts these).
* ``whether:AGENT``: when AGENT would exchange and the model would not, or
  the other way round, AGENT's action is played.
* ``knock:AGENT``: when AGENT would knock and the model would not, or the
  other way round, AGENT's action is played (R5.2, R6.3, R6.4).
* ``blind:AGENT``: the widow dealer's blind choice, take the widow or keep
  the hand (R6.2).
* ``duel:AGENT``: every decision of a deal with two players left in.
* ``horse:AGENT``: the first player out's horse (R9.4).

A swap is a probe, not an agent to ship: it says where to look.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

import numpy as np

from agents.arena import run_arena
from agents.base import Agent
from agents.heuristics import best_exchange, value_function
from agents.specs import make_agent
from commerce_env.engine.actions import EXCHANGE, KNOCK
from commerce_env.engine.base import HORSE, WIDOW_CHOICE
from commerce_env.rules import Rules
from commerce_env.view import SeatView
from research.margin_table import margin_row, print_rows

KINDS = ("which", "whether", "knock", "blind", "duel", "horse")


def parse_swap(text: str) -> tuple[str, str]:
    """``"which:search"`` -> ``("which", "search")``; anything else is an error naming it."""
    kind, _, agent = text.partition(":")
    if kind not in KINDS or not agent:
        raise ValueError(f"a swap is KIND:AGENT with KIND one of {', '.join(KINDS)}, got {text!r}")
    return kind, agent


def only_exchanges(view: SeatView) -> SeatView:
    """The same view with the exchanges as its only legal actions."""
    exchanges = tuple(a for a in view.legal_actions if a >= EXCHANGE)
    mask = np.zeros_like(view.action_mask)
    mask[list(exchanges)] = 1
    return dataclasses.replace(view, legal_actions=exchanges, action_mask=mask)


class SwapAgent(Agent):
    """``base`` everywhere except the decisions of one ``kind``, which ``other`` makes."""

    name = "model"

    def __init__(self, base: Agent, other: Agent, kind: str):
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        self.base, self.other, self.kind = base, other, kind
        self.swapped = 0  # decisions where other's action was played and differed from base's
        self.fallbacks = 0  # "which": other did not answer with an exchange

    def reset(self, seat: int, num_players: int, rules: Rules, seed: int | None = None) -> None:
        for agent in (self.base, self.other):
            if hasattr(agent, "reset"):
                agent.reset(seat, num_players, rules, seed)

    def act(self, view: SeatView) -> int:
        mine = self.base.act(view)
        choice = self._choice(view, mine)
        self.swapped += choice != mine
        return choice

    def _choice(self, view: SeatView, mine: int) -> int:
        if self.kind == "horse":
            return self.other.act(view) if view.phase == HORSE else mine
        if view.phase == HORSE:
            return mine
        if self.kind == "duel":
            return self.other.act(view) if sum(not out for out in view.out) == 2 else mine
        if self.kind == "blind":
            return self.other.act(view) if view.phase == WIDOW_CHOICE else mine
        if self.kind == "knock":
            if KNOCK not in view.legal_actions or view.phase == WIDOW_CHOICE:
                return mine
            theirs = self.other.act(view)
            return theirs if (theirs == KNOCK) != (mine == KNOCK) else mine
        exchanges = [a for a in view.legal_actions if a >= EXCHANGE]
        if not exchanges:
            return mine
        if self.kind == "which":
            if mine < EXCHANGE or len(exchanges) < 2:
                return mine
            theirs = self.other.act(only_exchanges(view))
            if theirs in exchanges:
                return theirs
            self.fallbacks += 1
            return best_exchange(view.hand, view.table, exchanges,
                                 value_function(view.engine, view.rules.combinations))[0]
        theirs = self.other.act(view)  # "whether"
        return theirs if (theirs >= EXCHANGE) != (mine >= EXCHANGE) else mine


def swap_run(model: str, swap: str | None, opponent: str, variant: str, games: int, seed: int,
             workers: int) -> dict[str, Any]:
    """One arena run of the model (with ``swap``, or none) against ``opponent``."""
    base = make_agent(model, variant=variant, num_players=4)
    if swap is None:
        learner: Agent = _Named(base)
    else:
        kind, other = parse_swap(swap)
        learner = SwapAgent(base, make_agent(other, variant=variant, num_players=4), kind)
    result = run_arena([learner, opponent], variant=variant, games=games, seed=seed, workers=workers,
                       progress=False)
    return {"swap": swap or "none", **margin_row(result, "model")}


class _Named(Agent):
    """The model itself, under the name the report looks for."""

    name = "model"

    def __init__(self, base: Agent):
        self.base = base

    def reset(self, seat: int, num_players: int, rules: Rules, seed: int | None = None) -> None:
        if hasattr(self.base, "reset"):
            self.base.reset(seat, num_players, rules, seed)

    def act(self, view: SeatView) -> int:
        return self.base.act(view)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="pool")
    parser.add_argument("--model", default="model:models/pool", help="any agent spec; a model as model:<path>")
    parser.add_argument("--opponent", default="search")
    parser.add_argument("--swaps", nargs="*", default=["which:search", "which:expected_value", "which:greedy",
                                                       "whether:search", "duel:search", "horse:expected_value"])
    parser.add_argument("--games", type=int, default=96)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    for swap in args.swaps:
        parse_swap(swap)  # every bad swap is named before anything runs
    print(f"{args.variant}: {args.model} (with each swap) minus {args.opponent}, per deal, 95% intervals, "
          f"arena seed {args.seed}")
    rows = (swap_run(args.model, swap, args.opponent, args.variant, args.games, args.seed, args.workers)
            for swap in [None, *args.swaps])
    print_rows("swap", ((row["swap"], row) for row in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
