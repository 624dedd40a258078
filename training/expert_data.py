"""A round's data of expert iteration: ``search`` with the network as its prior plays whole
matches, and at each decision of the learner's seats its choice and action values are kept.

The games are readable ones, ``games`` of them at once; the rollouts of every search decision
of a step are played together on the batched engine (as the arena plays a lineup that searches,
:mod:`agents.arena_batched`), with greedy rollouts or the network's (:mod:`training.expert_rollouts`).
Decisions with one legal action, the horse (R9.4, no rollout) and those where no world was
found in time are not kept: the search has no opinion there.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from commerce_env.engine.actions import NUM_ACTIONS


@dataclass
class ExpertDecisions:
    """The search's decisions: what the seat saw, what it might do, what the search chose, the
    mean rollout result of each action it rolled out (NaN for the others), and the outcome."""

    observations: np.ndarray  # (n, size) float32: the network's input (observation and features)
    masks: np.ndarray  # (n, 27) bool: the legal actions
    actions: np.ndarray  # (n,) int64: the search's choice
    values: np.ndarray  # (n, 27) float32: each rolled-out action's mean result, NaN elsewhere
    returns: np.ndarray  # (n,) float32: the seat's reward from this decision to the match's end

    def __len__(self) -> int:
        return len(self.actions)

    @staticmethod
    def concatenate(parts: list[ExpertDecisions]) -> ExpertDecisions:
        return ExpertDecisions(*(np.concatenate([getattr(p, f.name) for p in parts])
                                 for f in fields(ExpertDecisions)))

    def to_bytes(self) -> bytes:
        """Plain arrays in an ``.npz`` (read back without unpickling: :meth:`load`)."""
        import io

        buffer = io.BytesIO()
        np.savez_compressed(buffer, **{f.name: getattr(self, f.name) for f in fields(self)})
        return buffer.getvalue()

    @staticmethod
    def load(path: str | Path) -> ExpertDecisions:
        with np.load(path, allow_pickle=False) as data:
            return ExpertDecisions(*(data[f.name] for f in fields(ExpertDecisions)))

    def targets(self, target: str, temperature: float) -> np.ndarray:
        """``(n, 27)`` the fit's target distributions: one-hot on the search's choice (``visit``),
        or a softmax of the action values at ``temperature`` over the actions rolled out (``value``)."""
        out = np.zeros((len(self), NUM_ACTIONS), dtype=np.float32)
        if target == "visit":
            out[np.arange(len(self)), self.actions] = 1.0
            return out
        rolled = ~np.isnan(self.values)
        scaled = np.where(rolled, self.values, -np.inf) / temperature
        scaled -= scaled.max(axis=1, keepdims=True)
        weights = np.where(rolled, np.exp(scaled), 0.0)
        return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


class _Table:
    """One match being played: the game, the learner's seats, the other seats' agents, each seat's
    generator for its search's worlds, and the rows kept so far (their returns filled at the end)."""

    def __init__(self, game: Any, learner: set[int], others: dict[int, Any], rngs: list[random.Random]):
        self.game, self.learner, self.others, self.rngs = game, learner, others, rngs
        self.earned = np.asarray(game.take_rewards(), dtype=np.float64)
        self.kept: list[tuple[int, int, float]] = []  # (row, seat, earned before)


class Collector:
    """Plays matches of the learner's search and keeps its decisions (:meth:`collect`).

    ``model``: the network's safe model folder; ``rollout_policy``: ``greedy`` or ``network``."""

    def __init__(self, model: str | Path, config: Any):
        from agents.batched_search import BatchedRollouts, use_rollouts
        from agents.learned import load_agent
        from commerce_env.features import feature_builders

        env, section = config.env, config.expert_iteration
        self.section, self.num_players = section, env.num_players
        self.rules = env.make_rules()
        self.agent = load_agent(model, variant=env.variant, num_players=env.num_players,
                                search={"worlds": section.worlds, "margin": section.margin})
        self.search = self.agent.search
        if section.rollout_policy == "network":
            from .expert_rollouts import NetworkRollouts

            self.rollouts = NetworkRollouts(self.agent)
        else:
            self.rollouts = BatchedRollouts()
        use_rollouts(self.search, self.rollouts)  # its worlds are drawn as rows of the same engines
        self.builders = feature_builders(list(env.features), self.rules, env.num_players)
        self.searched = 0  # search decisions made (kept or not), for the rate

    def _table(self, rng: random.Random, match: int) -> _Table:
        from agents import make_agent
        from commerce_env.engine import new_game

        n = self.num_players
        game = new_game(self.rules, n, dealer=rng.randrange(n), rng=random.Random(rng.getrandbits(64)))
        seeds = [rng.getrandbits(32) for _ in range(n)]
        opponents = self.section.opponents
        learner = set(range(n)) if opponents is None else {match % n}
        others = {}
        for seat in range(n):
            if seat not in learner:
                agent = make_agent(rng.choice(opponents), variant=self.rules.variant, num_players=n)
                agent.reset(seat, n, self.rules, seeds[seat])
                others[seat] = agent
        return _Table(game, learner, others, [random.Random(s) for s in seeds])

    def collect(self, decisions: int, seed: int) -> ExpertDecisions:
        """At least ``decisions`` kept decisions, from whole matches (those under way when the count
        is reached are played out); deterministic for a seed."""
        from agents.arena_batched import fits
        from agents.search import rolled_out
        from commerce_env import observation as obs
        from commerce_env.engine.determinize import NoConsistentDealError
        from commerce_env.features import append_features
        from commerce_env.view import seat_view

        rng = random.Random(seed)
        rows: list[np.ndarray] = []
        masks: list[np.ndarray] = []
        actions: list[int] = []
        values: list[np.ndarray] = []
        outcomes: list[tuple[int, float]] = []  # (row, the seat's return from it)
        tables: list[_Table] = []
        matches = 0
        search = self.search
        while True:
            while len(tables) < self.section.games and len(actions) < decisions:
                table = self._table(rng, matches)
                matches += 1
                if not table.game.over:  # a match a dealt ship ends before any decision has none to keep (R7.3)
                    tables.append(table)
            if not tables:
                break
            chosen: list[int | None] = []
            waiting: list[tuple[int, int, Any, np.ndarray, np.ndarray]] = []
            plans = []
            for k, table in enumerate(tables):
                game = table.game
                seat = game.current_player
                view = seat_view(game, seat)
                if seat not in table.learner:
                    chosen.append(int(table.others[seat].act(view)))
                    continue
                action = search.immediate_action(view)
                if action is None:
                    default = search.default_action(view, deferred=True)
                    include = rolled_out(default)
                    vector = append_features(obs.encode(game, seat), self.builders).astype(np.float32)
                    mask = obs.action_mask(game, seat).astype(bool)
                    try:
                        if fits(search, view, include):
                            plans.append(search.rollout_plan(view, include, rng=table.rngs[seat]))
                            waiting.append((k, seat, default, vector, mask))
                        else:
                            results = search.evaluate(view, include, table.rngs[seat])
                            action = self._keep(table, seat, search.choose(results, default), vector, mask,
                                                (rows, masks, actions, values), rng)
                    except NoConsistentDealError:
                        action = search.fallback_action(view)
                chosen.append(action)
            for (k, seat, default, vector, mask), results in zip(waiting, self.rollouts.run(plans), strict=True):
                chosen[k] = self._keep(tables[k], seat, search.choose(results, default), vector, mask,
                                       (rows, masks, actions, values), rng)
            for table, action in zip(tables, chosen, strict=True):
                table.game.apply(action)
                table.earned += np.asarray(table.game.take_rewards(), dtype=np.float64)
            for table in [t for t in tables if t.game.over]:
                tables.remove(table)
                for row, seat, before in table.kept:
                    outcomes.append((row, float(table.earned[seat] - before)))
        returns = np.zeros(len(actions), dtype=np.float32)
        for row, value in outcomes:
            returns[row] = value
        size = len(self.agent.layers[0][0]) if not rows else rows[0].shape[0]
        return ExpertDecisions(np.stack(rows) if rows else np.zeros((0, size), np.float32),
                               np.stack(masks) if masks else np.zeros((0, NUM_ACTIONS), bool),
                               np.asarray(actions, dtype=np.int64),
                               np.stack(values) if values else np.zeros((0, NUM_ACTIONS), np.float32), returns)

    def _keep(self, table: _Table, seat: int, choice: int, vector: np.ndarray, mask: np.ndarray,
              store: tuple[list, list, list, list], rng: random.Random) -> int:
        """Keep one search decision; the action the seat plays (a random legal one at ``explore``)."""
        rows, masks, actions, values = store
        self.searched += 1
        table.kept.append((len(actions), seat, float(table.earned[seat])))
        rows.append(vector)
        masks.append(mask)
        actions.append(int(choice))
        row = np.full(NUM_ACTIONS, np.nan, dtype=np.float32)
        for action, value in self.search.last_values.items():
            row[action] = value
        values.append(row)
        if self.section.explore and rng.random() < self.section.explore:
            return int(rng.choice(np.flatnonzero(mask).tolist()))
        return int(choice)


def collect_round(model: str | Path, config: Any, decisions: int, seed: int) -> tuple[ExpertDecisions, dict]:
    """One part of a round's data, and what it cost (seconds, search decisions per second)."""
    started = time.monotonic()
    collector = Collector(model, config)
    data = collector.collect(decisions, seed)
    seconds = time.monotonic() - started
    return data, {"decisions": len(data), "seconds": seconds,
                  "search_decisions_per_second": collector.searched / seconds if seconds > 0 else None}
