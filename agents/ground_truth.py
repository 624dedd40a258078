"""Ground truth for best responses: the exact gain of a best response against a policy on a small game
(:mod:`commerce_env.small_game`), which a learned best response (``commerce exploit``,
:mod:`training.exploit`) or a search best response should reach 90% of.

>>> exact = exact_gain("greedy", "trade_barter")          # the whole tree, walked once per process
>>> exact["gain"]                                           # per deal, the mean over the two seats
>>> check_best_response(0.61, (0.55, 0.67), exact)          # a best response's measured margin

A best responder in a rotating seat, measured as its margin over the policy in that seat, estimates
``exact["gain"]``: the mean over seats of (the best response's return - the policy's own return
there).  A responder that can be written as a policy (a network, a table) is measured exactly with
:func:`responder_gain`, with no sampling at all.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from commerce_env.game_tree import GameTree, build_tree, view_key
from commerce_env.rules import DEFAULT_VARIANT
from commerce_env.small_game import small_game
from commerce_env.view import SeatView

from .base import Agent
from .cfr import CFRPlus
from .exact import PolicyLike, expected_returns, gains, policy_table

__all__ = ["TableAgent", "check_best_response", "exact_gain", "responder_gain", "small_tree", "solve"]

TARGET = 0.9  # the share of the exact gain a best response should reach


@functools.lru_cache(maxsize=2)
def small_tree(variant: str) -> GameTree:
    """The whole tree of ``variant``'s small game (built once per process: 1 to 5 minutes)."""
    return build_tree(small_game(variant))


def solve(variant: str, iterations: int, tree: GameTree | None = None) -> CFRPlus:
    """CFR+ run ``iterations`` times on ``variant``'s small game."""
    solver = CFRPlus(tree if tree is not None else small_tree(variant))
    solver.run(iterations)
    return solver


def exact_gain(policy: PolicyLike, variant: str = DEFAULT_VARIANT, *, tree: GameTree | None = None) -> dict[str, Any]:
    """The exact best response to ``policy`` (``"random"``, an agent spec or object, a function of a
    seat view, a table: :func:`agents.exact.policy_table`) in ``variant``'s small game: for each
    seat the policy's return, the best response's and the gain; ``gain``, their mean over seats
    (what a best responder in a rotating seat gains per deal); NashConv and exploitability."""
    tree = tree if tree is not None else small_tree(variant)
    result = gains(tree, policy_table(tree, policy))
    result.update(variant=tree.game.variant, game=tree.game.name, seat_names=_seat_names(tree))
    return result


def responder_gain(policy: PolicyLike, responder: PolicyLike, variant: str = DEFAULT_VARIANT, *,
                   tree: GameTree | None = None) -> dict[str, Any]:
    """What ``responder`` gains, exactly, playing one seat against ``policy`` in the others: for each
    seat its return there minus the policy's own, and the mean over seats (``gain``)."""
    tree = tree if tree is not None else small_tree(variant)
    table = policy_table(tree, policy)
    own = expected_returns(tree, table)
    seats = []
    for seat in range(tree.num_players):
        mixed = table.copy()
        rows = tree.info_player == seat
        mixed[rows] = policy_table(tree, responder, seats=(seat,))[rows]
        value = float(expected_returns(tree, mixed)[seat])
        seats.append({"seat": seat, "policy": float(own[seat]), "responder": value, "gain": value - float(own[seat])})
    return {"seats": seats, "gain": sum(s["gain"] for s in seats) / tree.num_players,
            "variant": tree.game.variant, "game": tree.game.name}


def check_best_response(margin: float, ci95: Sequence[float], exact: dict[str, Any],
                        target: float = TARGET) -> dict[str, Any]:
    """A best response's measured margin (per deal, with its 95% interval) against the exact gain:
    the share it reaches, with its interval, and whether it reaches ``target`` (point estimate)."""
    best = exact["gain"]
    if best <= 0:
        raise ValueError(f"the exact gain is {best:.4g}: nothing to reach (the policy is not exploitable)")
    low, high = ci95
    return {"margin": margin, "ci95": [low, high], "exact_gain": best, "share": margin / best,
            "share_ci95": [low / best, high / best], "target": target, "reaches": margin >= target * best,
            "reaches_at_95": low >= target * best}


def _seat_names(tree: GameTree) -> list[str]:
    """Seat 0 deals (R3.1): in two-player games seat 1 is the eldest hand."""
    return ["dealer" if s == 0 else "eldest" if s == 1 else f"seat {s}" for s in range(tree.num_players)]


class TableAgent(Agent):
    """A policy table over a small game's information states (CFR's average, say), played from seat
    views: the view's information state (:func:`commerce_env.game_tree.view_key`, any dealer),
    then an action drawn with the table's probabilities."""

    name = "table"

    def __init__(self, tree: GameTree, table: np.ndarray, seed: int | None = None, name: str = "table"):
        if table.shape != (tree.num_infosets, tree.max_actions):
            raise ValueError(f"the table's shape {table.shape} is not the tree's "
                             f"{(tree.num_infosets, tree.max_actions)}")
        self.tree, self.table, self.name = tree, table, name
        self.index = tree.view_keys()
        self.rng = random.Random(seed)

    def reset(self, seat: int, num_players: int, rules: Any, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    def probabilities(self, view: SeatView) -> dict[int, float]:
        """The table's row for ``view``: action -> probability; a ``ValueError`` for a view of another game."""
        infoset = self.index.get(view_key(view))
        if infoset is None:
            raise ValueError(f"seat {view.seat}'s view is no information state of {self.tree.game.name}")
        legal = self.tree.legal(infoset)
        return dict(zip(legal, self.table[infoset, :len(legal)].tolist(), strict=True))

    def act(self, view: SeatView) -> int:
        row = self.probabilities(view)
        return self.rng.choices(list(row), weights=list(row.values()))[0]
