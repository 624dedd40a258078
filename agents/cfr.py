"""CFR+ on a small game's whole tree (:mod:`commerce_env.game_tree`), vectorised over the tree's levels.

CFR+ (Tammelin, 2014): regret matching on regrets floored at zero, the seats updated in turn, the
average strategy weighted by the iteration's number.  In a two-player zero-sum game the average
strategy's NashConv falls towards 0 (:func:`agents.exact.nash_conv`).  Each iteration sweeps the
tree twice per seat (reach down, values up), each sweep a few numpy operations per level, so an
iteration on the 850,000 nodes of the small trade-and-barter game takes a fraction of a second.
:meth:`CFRPlus.save` and :meth:`CFRPlus.load` let a long run stop and resume.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from commerce_env.files import atomic_write
from commerce_env.game_tree import GameTree

from .exact import reach, seat_values

__all__ = ["CFRPlus"]


class CFRPlus:
    """CFR+ over ``tree``: :meth:`iteration` runs one, :meth:`average` is the policy to evaluate."""

    def __init__(self, tree: GameTree):
        self.tree = tree
        self.iterations = 0
        shape = (tree.num_infosets, tree.max_actions)
        self.regrets = np.zeros(shape)
        self.strategy_sum = np.zeros(shape)
        self._legal = tree.info_actions >= 0
        below = np.arange(1, tree.num_nodes)
        decided = below[tree.player[tree.parent[below]] >= 0]  # the edges a seat chooses
        self._decided = decided
        self._decided_parent = tree.parent[decided]
        self._decided_seat = tree.player[self._decided_parent]
        self._decided_flat = tree.infoset[self._decided_parent].astype(np.int64) * tree.max_actions + tree.slot[decided]

    # ----------------------------------------------------------------- policy
    def current(self) -> np.ndarray:
        """Regret matching: each action in proportion to its positive regret, uniform where none is."""
        return _normalised(np.maximum(self.regrets, 0.0), self._legal)

    def average(self) -> np.ndarray:
        """The average strategy (uniform where a state was never reached): CFR+'s output."""
        return _normalised(self.strategy_sum, self._legal)

    # -------------------------------------------------------------- iterating
    def iteration(self) -> None:
        """One iteration: each seat in turn updates its regrets against the others' current strategy."""
        self.iterations += 1
        for seat in range(self.tree.num_players):
            self._update(seat)

    def run(self, iterations: int) -> None:
        for _ in range(iterations):
            self.iteration()

    def _update(self, seat: int) -> None:
        tree = self.tree
        strategy = self.current()
        edges = tree.chance.copy()
        edges[self._decided] = strategy.ravel()[self._decided_flat]
        mine = self._decided[self._decided_seat == seat]
        others_edges = edges.copy()
        others_edges[mine] = 1.0
        own_edges = np.ones(tree.num_nodes)
        own_edges[mine] = edges[mine]
        others, own = reach(tree, others_edges), reach(tree, own_edges)
        values = seat_values(tree, edges, seat)
        # Regrets: the value of each action against the value of the strategy, weighted by the others' reach.
        chosen = self._decided_seat == seat
        children, parents = self._decided[chosen], self._decided_parent[chosen]
        gains = np.bincount(self._decided_flat[chosen], others[parents] * (values[children] - values[parents]),
                            self.regrets.size).reshape(self.regrets.shape)
        rows = tree.info_player == seat
        self.regrets[rows] = np.maximum(self.regrets[rows] + gains[rows], 0.0)
        # The average: the strategy weighted by the seat's own reach and the iteration (CFR+'s linear average).
        reach_own = own[tree.info_node[rows]][:, None]
        self.strategy_sum[rows] += self.iterations * reach_own * strategy[rows]

    # ------------------------------------------------------------------ files
    def save(self, path: str | Path) -> None:
        """The solver's state, to resume with :meth:`load` (a ``.npz`` file, written atomically)."""
        import io

        buffer = io.BytesIO()
        np.savez_compressed(buffer, iterations=self.iterations, regrets=self.regrets,
                            strategy_sum=self.strategy_sum)
        atomic_write(Path(path), buffer.getvalue())

    def load(self, path: str | Path) -> None:
        """Resume from :meth:`save`'s file; a ``ValueError`` if it was saved for another tree."""
        with np.load(Path(path), allow_pickle=False) as saved:
            if saved["regrets"].shape != self.regrets.shape:
                raise ValueError(f"{path} holds a solver for another tree (shape {saved['regrets'].shape}, "
                                 f"not {self.regrets.shape})")
            self.iterations = int(saved["iterations"])
            self.regrets = saved["regrets"].astype(float)
            self.strategy_sum = saved["strategy_sum"].astype(float)


def _normalised(weights: np.ndarray, legal: np.ndarray) -> np.ndarray:
    total = weights.sum(axis=1, keepdims=True)
    uniform = legal / legal.sum(axis=1, keepdims=True)
    return np.where(total > 0, weights / np.where(total > 0, total, 1.0), uniform)
