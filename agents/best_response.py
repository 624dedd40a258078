"""A search best response: the search agent in one seat, against a known agent in the others.

It is :class:`agents.search.SearchAgent` with two changes that make it a
best response to a fixed agent (local best response, Lisý & Bowling 2017, with
the agent's own policy in the other seats, as in ISMCTS-BR, Timbers et al. 2022):

* the worlds it samples from its seat view (``view.sample_world``, R11) are
  weighted by how likely the agent's own choices of this deal were in each
  (:mod:`agents.belief`): a world where the agent would have played otherwise
  counts for nothing;
* its rollouts play the agent in every other seat; its own later moves in them
  are the search's rollout policy (greedy, at :meth:`SearchAgent.rollout_threshold`),
  or with ``continuation="agent"`` the agent's own, and its default choice (where the
  search starts from a prior) the agent's too: each decision is then one step of
  policy improvement over the agent (Bertsekas' rollout algorithm), which leaves the
  agent's choice only where the rollouts show another better.

It picks the action with the best weighted mean over the worlds, with no prior.
Worlds are drawn ``worlds`` at a time until ``worlds`` of them are as the agent
would have played them, at most ``draws`` in all.  Against a deterministic agent
few may be: the determinizer draws its hidden choices (which card it traded,
offered or gave) at random, and its hidden hand must be one it would have played
so.  The exact weighting (``tremble=0``) then rolls out only the worlds with the
fewest decisions the agent would have taken otherwise (its misses; none where any
world is as it played); by default (``tremble=0.2``) the ``worlds`` with the
fewest misses are rolled out, each miss weighing a world ``tremble / (1 -
tremble)`` times less, as if the agent took a random action now and then.  Against
``greedy`` that gained more than the exact weighting and than none, in the old
game and in trade and barter (:meth:`SearchBestResponse.keep`).  Where the agent
batches (random, greedy, a network alone: :func:`agents.batched.batched_agent`)
the replays and the rollouts run on the batched engine, all worlds together
(:mod:`agents.best_response_rollouts`); otherwise on the readable one, a seat
view per decision of the agent.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from commerce_env.checks import flag, one_of
from commerce_env.engine.base import Game
from commerce_env.engine.determinize import TIME_LIMIT, NoConsistentDealError
from commerce_env.rules import Rules
from commerce_env.view import SeatView

from .base import Agent, RandomAgent
from .belief import before_deal, world_weight
from .heuristics import number_argument, value_function
from .search import MAX_WORLDS, SearchAgent, rolled_out, rollout

__all__ = ["SearchBestResponse"]

CONTINUATIONS = ("greedy", "agent")  # who plays the responder's own later moves in its rollouts


class SearchBestResponse(SearchAgent):
    """The search's best response to ``agent`` (a spec or an agent object), ``worlds`` weighted
    worlds per decision drawn from at most ``draws`` (default twice ``worlds``); ``tremble`` how
    much less a world weighs for each decision the agent would have taken otherwise (0: nothing,
    the exact weighting; :meth:`keep`); the other arguments are the search's
    (:class:`agents.search.SearchAgent`).  ``weighting=False`` takes the worlds unweighted (the
    search with the agent's rollouts only); ``continuation``: who plays its own later moves in the
    rollouts, ``greedy`` (the search's rollout policy) or the ``agent``."""

    name = "search_best_response"

    def __init__(self, agent: Any, worlds: int = 24, draws: int | None = None, weighting: bool = True,
                 tremble: float = 0.2, rollout_quantile: float | None = None, barter: bool = True,
                 prior: bool | None = None, margin: float = 1.0, candidates: int | None = 4,
                 seed: int | None = None, engine: str = "batched", redeal_ms: float = 1000 * TIME_LIMIT,
                 continuation: str = "greedy"):
        super().__init__(worlds=worlds, rollout_quantile=rollout_quantile, barter=barter, prior=prior, margin=margin,
                         candidates=candidates, seed=seed, engine=engine, redeal_ms=redeal_ms)
        self.draws = 2 * self.worlds if draws is None else number_argument("draws", draws, 1, MAX_WORLDS, whole=True)
        if self.draws < self.worlds:
            raise ValueError(f"draws must be at least worlds ({self.worlds}), got {draws!r}")
        self.weighting = flag("weighting", weighting)
        self.continuation = one_of("continuation", continuation, CONTINUATIONS)
        self.tremble = number_argument("tremble", tremble, 0.0, 1.0)
        if self.tremble == 1.0:
            raise ValueError("tremble must be below 1, got 1.0")
        self.spec = agent
        # Its own copy of the agent (an object's state, a generator, stays the table's): made at the first reset.
        self.agent: Agent | None = copy.deepcopy(agent) if isinstance(agent, Agent) else None
        self._batched: dict[tuple[Rules, int], Any] = {}  # the agent's batched form (None: it has none)
        self._starts: dict[tuple, Game] = {}  # the state before the current deal (before_deal)
        self.start_row: tuple | None = None  # and its row on the batched engine (agents.best_response_rollouts)
        self.decisions = 0  # decisions searched
        self.seconds = 0.0  # spent searching them
        self.drawn = 0  # worlds drawn in all
        self.kept = 0  # worlds rolled out
        self.trembled = 0  # decisions where no world drawn had the agent's choices: the fewest misses kept

    def reset(self, seat: int, num_players: int, rules: Rules, seed: int | None = None) -> None:
        super().reset(seat, num_players, rules, seed)
        self._starts.clear()
        if self.agent is None:
            from .specs import make_agent

            self.agent = make_agent(self.spec, variant=rules.variant, num_players=num_players)
        self.agent.reset((seat + 1) % num_players, num_players, rules, None if seed is None else seed + 1)

    # ---------------------------------------------------------------- decide
    def default_action(self, view: SeatView, deferred: bool = False) -> int | Callable[[], int] | None:
        """The search's prior (:meth:`SearchAgent.default_action`), or with ``continuation="agent"`` the
        agent's own choice in this seat: what the responder keeps unless the rollouts beat it."""
        if self.continuation != "agent":
            return super().default_action(view, deferred)
        if self.agent is None:
            self.reset(view.seat, view.num_players, view.rules)
        return int(self.agent.act(view))

    def act(self, view: SeatView) -> int:
        action = self.immediate_action(view)
        if action is not None:
            return action
        started = time.perf_counter()
        try:
            default = self.default_action(view, deferred=True)
            results, weights = self.weighed(view, rolled_out(default))
            return self.choose_weighted(results, weights, default)
        except NoConsistentDealError:
            return self.fallback_action(view)
        finally:
            self.seconds += time.perf_counter() - started

    def choose_weighted(self, results: dict[int, np.ndarray], weights: np.ndarray,
                        default: int | Callable[[], int] | None = None) -> int:
        """:meth:`SearchAgent.choose` over weighted worlds: the best weighted mean (the lowest action
        among equals); with a ``default`` (the prior's), that unless the best beats it by more than
        ``margin`` standard errors of their weighted paired difference."""
        total = weights.sum()
        if not total > 0.0:  # every weight below a float's range: the worlds alike
            weights, total = np.ones(len(weights)), float(len(weights))
        shares = weights / total
        self.last_values = {a: float(values @ shares) for a, values in results.items()}
        best_value = max(self.last_values.values())
        best = min(a for a, value in self.last_values.items() if value >= best_value - 1e-12)
        if default is None:
            return best
        if callable(default):
            if all(self._beats_weighted(results[best] - results[a], shares) for a in results if a != best):
                return best
            default = default()
        return best if self._beats_weighted(results[best] - results[default], shares) else default

    def _beats_weighted(self, gain: np.ndarray, shares: np.ndarray) -> bool:
        """Whether the weighted mean of ``gain`` is above ``margin`` standard errors, the worlds
        counted by their effective number (Kish's: never with fewer than two)."""
        worlds = 1.0 / float(shares @ shares)
        if worlds < 2.0 - 1e-9:
            return False
        mean = float(gain @ shares)
        variance = float(((gain - mean) ** 2) @ shares) * worlds / (worlds - 1.0)
        return mean > self.margin * np.sqrt(variance / worlds)

    def weighed(self, view: SeatView, include: tuple[int, ...] = ()) -> tuple[dict[int, np.ndarray], np.ndarray]:
        """Each rolled-out action's (the candidates' and ``include``'s) result in each kept world, and
        the worlds' weights (``NoConsistentDealError`` where a world is not found within ``redeal_ms``)."""
        if self.agent is None:
            self.reset(view.seat, view.num_players, view.rules)
        self.decisions += 1
        batched = self.batched_agent(view)
        if batched is not None:
            from .best_response_rollouts import weighed_batched

            return weighed_batched(self, batched, view, include)
        return self._weighed_readable(view, include)

    def batched_agent(self, view: SeatView) -> Any:
        """The agent's batched form (:func:`agents.batched.batched_agent`) where it has one and the
        batched engine serves these rules, else None (the readable path)."""
        if self.batched_rollouts(view) is None:
            return None
        key = (view.rules, view.num_players)
        if key not in self._batched:
            try:
                from .batched import batched_agent

                spec = "random" if type(self.agent) is RandomAgent else self.agent  # its batched twin
                self._batched[key] = batched_agent(spec, view.rules, view.num_players)
            except (ImportError, ValueError, TypeError):
                self._batched[key] = None
        return self._batched[key]

    def before_deal(self, view: SeatView, world: Game) -> Game:
        """:func:`agents.belief.before_deal` of ``world``, kept for the other decisions of its deal (it
        is the state before the deal, the same for all; forgotten at the next match)."""
        key = (view.rules, view.num_players, view.deals_dealt, view.dealer, tuple(view.out), len(view._past),
               view._deal[0])
        if key not in self._starts:
            self._starts.clear()
            self._starts[key] = before_deal(world)
        return self._starts[key]

    def batch_sizes(self) -> Iterator[int]:
        """How many worlds each round draws: ``worlds`` at a time, ``draws`` in all."""
        drawn = 0
        while drawn < self.draws:
            size = min(self.worlds, self.draws - drawn)
            drawn += size
            yield size

    def keep(self, weights: np.ndarray, misses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Which of the worlds drawn (their weights and misses, :func:`agents.belief.world_weight`) are
        rolled out, and their weights: at most ``worlds``, the fewest misses first; with no
        ``tremble``, only those with the fewest, else each further miss weighs ``tremble / (1 -
        tremble)`` times less.  Tallied in :attr:`drawn`, :attr:`kept` and :attr:`trembled`."""
        fewest = int(misses.min())
        if self.tremble == 0.0:
            kept = np.flatnonzero(misses == fewest)[:self.worlds]
            weights = weights[kept]
        else:
            kept = np.argsort(misses, kind="stable")[:self.worlds]
            weights = weights[kept] * (self.tremble / (1.0 - self.tremble)) ** (misses[kept] - fewest)
        self.drawn += len(misses)
        self.kept += len(kept)
        self.trembled += fewest > 0
        return kept, weights

    # ------------------------------------------------------ readable engine
    def _weighed_readable(self, view: SeatView, include: tuple[int, ...]) -> tuple[dict[int, np.ndarray], np.ndarray]:
        """:meth:`weighed` on the readable engine: the worlds drawn as on the batched one, each
        weighed by a replay with seat views (:func:`agents.belief.world_weight`)."""
        worlds = view.world_stream(self.rng, self.redeal_ms / 1000.0)
        start: Game | None = None
        drawn: list[tuple[Game, float, int]] = []
        for size in self.batch_sizes():
            for _ in range(size):
                world = next(worlds)
                if not self.weighting:
                    drawn.append((world, 1.0, 0))
                    continue
                if start is None:
                    start = self.before_deal(view, world)
                drawn.append((world, *world_weight(start, world, view.seat, self.agent)))
            if sum(misses == 0 for _, _, misses in drawn) >= self.worlds:
                break
        kept, weights = self.keep(np.array([weight for _, weight, _ in drawn]),
                                  np.array([misses for _, _, misses in drawn], dtype=np.int64))
        threshold, value = self.rollout_threshold(view), value_function(view.engine, view.rules.combinations)
        own = self.agent if self.continuation == "agent" else None
        results = {a: np.array([rollout(drawn[k][0].clone(), view.seat, threshold, value, a, self.barter,
                                        others=self.agent, own=own) for k in kept])
                   for a in self.rollout_actions(view, include)}
        return results, weights
