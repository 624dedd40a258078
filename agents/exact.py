"""Exact values on a small game's whole tree (:mod:`commerce_env.game_tree`): what a policy earns in
each seat, the best response to it, NashConv and exploitability, and the best responder's gain.

A *policy* here is a table, one row per information state, of the probabilities of its legal
actions (in ``tree.info_actions`` order).  :func:`policy_table` makes one from ``"random"``, from
an agent (its action at each information state's seat view, taken as its policy: exact for an
agent whose choice is a function of the view, as ``greedy``'s), or from a function of a seat view
returning probabilities.  Every value is exact: a sweep of the tree's levels with numpy, no
sampling.  Returns are per match, which in a small game is one deal.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from commerce_env.game_tree import GameTree
from commerce_env.policies import RandomPolicy, is_policy
from commerce_env.view import SeatView

__all__ = ["best_response", "expected_returns", "gains", "grouped_best_response", "nash_conv", "policy_table",
           "uniform"]

PolicyLike = Any  # "random", a table, an agent with act(view), or a function view -> probabilities


def uniform(tree: GameTree) -> np.ndarray:
    """Every legal action equally likely."""
    legal = tree.info_actions >= 0
    return legal / legal.sum(axis=1, keepdims=True)


def policy_table(tree: GameTree, policy: PolicyLike, seats: Collection[int] | None = None) -> np.ndarray:
    """``policy`` as a table over ``tree``'s information states (see the module docstring); with
    ``seats``, only the rows of those seats' information states are filled (the others uniform).

    ``policy``: ``"random"`` (or a :class:`~commerce_env.policies.RandomPolicy`): uniform; a table
    of the right shape; an agent with ``probabilities(view)``, or a function ``view ->
    probabilities`` (a mapping action -> probability, or 27 numbers indexed by action); any other
    agent spec or object with ``act(view) -> action``: that action with probability 1."""
    if isinstance(policy, str) and policy == "random" or isinstance(policy, RandomPolicy):
        return uniform(tree)
    if isinstance(policy, np.ndarray):
        return _checked(tree, policy)
    if isinstance(policy, (str, Mapping)):
        from agents import make_agent

        policy = make_agent(policy)
    table = uniform(tree)
    for infoset in range(tree.num_infosets):
        if seats is not None and int(tree.info_player[infoset]) not in seats:
            continue
        table[infoset] = 0.0
        view = tree.view(infoset)
        legal = tree.legal(infoset)
        if callable(getattr(policy, "probabilities", None)):  # an agent that says its probabilities
            table[infoset, :len(legal)] = _probabilities(policy.probabilities(view), legal, view)
        elif is_policy(policy):
            if callable(getattr(policy, "reset", None)):  # each state as a fresh match's (deals=1)
                policy.reset(view.seat, view.num_players, view.rules)
            action = policy.act(view)
            if action not in legal:
                raise ValueError(f"the agent chose {action!r}, not a legal action ({legal}) at {view.history}")
            table[infoset, legal.index(action)] = 1.0
        elif callable(policy):
            table[infoset, :len(legal)] = _probabilities(policy(view), legal, view)
        else:
            raise TypeError(f"a policy is 'random', a table, an agent or a function of a seat view, got {policy!r}")
    return table


def _probabilities(given: Any, legal: Sequence[int], view: SeatView) -> np.ndarray:
    if isinstance(given, Mapping):
        extra = set(given) - set(legal)
        if extra:
            raise ValueError(f"probabilities given for illegal actions {sorted(extra)} (legal: {list(legal)})")
        row = np.array([float(given.get(a, 0.0)) for a in legal])
    else:
        full = np.asarray(given, dtype=float)
        if full.shape != (27,):
            raise ValueError(f"probabilities are a mapping action -> p or 27 numbers, got shape {full.shape}")
        row = full[list(legal)]
        if not np.isclose(row.sum(), full.sum()):
            raise ValueError(f"probability on illegal actions at the view of seat {view.seat} ({view.history})")
    if not (np.all(row >= 0) and np.isclose(row.sum(), 1.0)):
        raise ValueError(f"probabilities must be non-negative and sum to 1, got {row.tolist()}")
    return row


def _checked(tree: GameTree, table: np.ndarray) -> np.ndarray:
    if table.shape != (tree.num_infosets, tree.max_actions):
        raise ValueError(f"a policy table for this tree has shape {(tree.num_infosets, tree.max_actions)}, "
                         f"got {table.shape}")
    return table


def edge_probabilities(tree: GameTree, table: np.ndarray) -> np.ndarray:
    """The probability of the edge into each node: chance's, or the policy's at the parent's decision."""
    edges = tree.chance.copy()
    below = np.flatnonzero(tree.parent >= 0)
    decided = below[tree.player[tree.parent[below]] >= 0]
    edges[decided] = table[tree.infoset[tree.parent[decided]], tree.slot[decided]]
    return edges


def reach(tree: GameTree, edges: np.ndarray, skip: int | None = None) -> np.ndarray:
    """The probability of reaching each node, leaving out the choices of seat ``skip`` (if given)."""
    if skip is not None:
        edges = edges.copy()
        below = np.flatnonzero(tree.parent >= 0)
        edges[below[tree.player[tree.parent[below]] == skip]] = 1.0
    out = np.ones(tree.num_nodes)
    for low, high in zip(tree.levels[1:-1], tree.levels[2:], strict=True):
        out[low:high] = out[tree.parent[low:high]] * edges[low:high]
    return out


def seat_values(tree: GameTree, edges: np.ndarray, seat: int) -> np.ndarray:
    """``seat``'s expected return at each node: one column of :func:`node_values`, all CFR's update needs."""
    values = tree.returns[:, seat].copy()
    levels = tree.levels
    for depth in range(len(levels) - 3, -1, -1):
        low, high = levels[depth], levels[depth + 1]
        children = slice(high, levels[depth + 2])
        values[low:high] += np.bincount(tree.parent[children] - low, edges[children] * values[children], high - low)
    return values


def node_values(tree: GameTree, edges: np.ndarray) -> np.ndarray:
    """Each seat's expected return at each node, ``(num_nodes, num_players)``."""
    return np.stack([seat_values(tree, edges, seat) for seat in range(tree.num_players)], axis=1)


def expected_returns(tree: GameTree, table: np.ndarray) -> np.ndarray:
    """Each seat's expected return when every seat plays ``table``."""
    return node_values(tree, edge_probabilities(tree, _checked(tree, table)))[0]


def best_response(tree: GameTree, table: np.ndarray, seat: int) -> tuple[float, np.ndarray]:
    """The best response of ``seat`` to ``table`` in the other seats: its expected return, and its
    choice (a slot of ``info_actions``) at each of its information states (-1 at the others')."""
    edges = edge_probabilities(tree, _checked(tree, table))
    others = reach(tree, edges, skip=seat)
    width = tree.max_actions
    best = np.full(tree.num_infosets, -1, dtype=np.int64)
    mine_info = tree.info_player == seat
    illegal = tree.info_actions < 0
    values = tree.returns[:, seat].copy()
    levels = tree.levels
    for depth in range(len(levels) - 3, -1, -1):
        low, high = levels[depth], levels[depth + 1]
        children = np.arange(high, levels[depth + 2])
        parents = tree.parent[children]
        mine = tree.player[parents] == seat
        weight = np.where(mine, 0.0, edges[children])
        values[low:high] += np.bincount(parents - low, weight * values[children], high - low)
        if not mine.any():
            continue
        chosen = children[mine]  # q(I, a): the value of each action summed over the state's nodes
        infosets = tree.infoset[tree.parent[chosen]]
        q = np.bincount(infosets * width + tree.slot[chosen], others[tree.parent[chosen]] * values[chosen],
                        tree.num_infosets * width).reshape(-1, width)
        q[illegal] = -np.inf
        at_level = np.unique(infosets)
        best[at_level] = q[at_level].argmax(axis=1)
        nodes = np.arange(low, high)
        deciding = nodes[tree.player[low:high] == seat]
        values[deciding] = values[tree.first_child[deciding] + best[tree.infoset[deciding]]]
    best[~mine_info] = -1
    return float(values[0]), best


def gains(tree: GameTree, table: np.ndarray) -> dict[str, Any]:
    """For each seat: the policy's return there when it plays every seat, the best response's, and
    the gain (their difference); the mean gain over seats (what a best responder in a rotating seat
    gains per deal); NashConv (the gains' sum) and exploitability (NashConv / players)."""
    own = expected_returns(tree, table)
    seats = []
    for seat in range(tree.num_players):
        value, _ = best_response(tree, table, seat)
        seats.append({"seat": seat, "policy": float(own[seat]), "best_response": value,
                      "gain": value - float(own[seat])})
    conv = sum(s["gain"] for s in seats)
    return {"seats": seats, "gain": conv / tree.num_players, "nash_conv": conv,
            "exploitability": conv / tree.num_players, "value_range": tree.value_range()}


def nash_conv(tree: GameTree, table: np.ndarray) -> float:
    """The sum over seats of what a best response gains over ``table`` (0 at a Nash equilibrium)."""
    return gains(tree, table)["nash_conv"]


def grouped_best_response(tree: GameTree, table: np.ndarray, seat: int, groups: np.ndarray,
                          sweeps: int = 20) -> tuple[float, np.ndarray]:
    """The best response of ``seat`` to ``table`` when it takes one action in each *group* of its
    information states (``groups[k]``, for each state ``k``; a group's states lie on one level of the
    tree and have the same legal actions): what a player who cannot tell a group's states apart (one
    playing from an observation that forgets) can gain.  Imperfect recall makes the best such play
    hard to find in general; this climbs to a local optimum: level by level from the deepest, each
    group takes its best action given every other choice (the levels' groups do not interact), until
    a sweep changes nothing.  So its value is one such a player reaches, at most the best response's.
    Returns the value and the chosen slot at each of the seat's information states (-1 elsewhere)."""
    _checked(tree, table)
    mine = np.flatnonzero(tree.info_player == seat)
    group = np.unique(np.asarray(groups)[mine], return_inverse=True)[1]
    exact = best_response(tree, table, seat)[1]
    first = np.empty(group.max() + 1, dtype=np.int64)
    first[group[::-1]] = mine[::-1]  # each group starts from the best response's choice at its first state
    choice = np.full(tree.num_infosets, -1, dtype=np.int64)
    choice[mine] = exact[first[group]]
    level = np.searchsorted(tree.levels, tree.info_node[mine], side="right") - 1
    count = int(group.max()) + 1
    for _ in range(sweeps):
        changed = False
        for depth in np.unique(level)[::-1]:
            members, of = mine[level == depth], group[level == depth]
            edges = edge_probabilities(tree, _with_choices(table, mine, choice))
            values, reached = node_values(tree, edges)[:, seat], reach(tree, edges)
            nodes = np.flatnonzero(np.isin(tree.infoset, members))
            where = group[np.searchsorted(mine, tree.infoset[nodes])]
            q = np.full((count, tree.max_actions), -np.inf)
            q[of] = np.where(tree.info_actions[members] >= 0, 0.0, -np.inf)
            for slot in range(tree.max_actions):  # each action's value summed over the group's nodes
                has = tree.num_actions[tree.infoset[nodes]] > slot
                np.add.at(q[:, slot], where[has], reached[nodes[has]] * values[tree.first_child[nodes[has]] + slot])
            best = q[of].argmax(axis=1)
            better = q[of, best] > q[of, choice[members]] + 1e-12
            if better.any():
                choice[members] = np.where(better, best, choice[members])
                changed = True
        if not changed:
            break
    value = float(expected_returns(tree, _with_choices(table, mine, choice))[seat])
    return value, choice


def _with_choices(table: np.ndarray, rows: np.ndarray, choice: np.ndarray) -> np.ndarray:
    """``table`` with ``rows`` replaced by the pure choices ``choice[rows]`` (slots)."""
    out = table.copy()
    out[rows] = 0.0
    out[rows, choice[rows]] = 1.0
    return out
