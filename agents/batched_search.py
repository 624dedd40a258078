"""The search agent's rollouts on the batched engine (docs/architecture.md).

A determinized search is a batch problem: every sampled world times every
candidate action is one rollout, and all of them are independent.  Here each
is one game of a :class:`commerce_env.vector.BatchEngine`: the worlds (readable
games from ``view.sample_world``, as :mod:`agents.search` samples them) are
loaded into its rows (``load_games``), each row takes its candidate action,
and a compiled loop plays every row to the end of its deal with the greedy
policy for everyone (:func:`agents.greedy_kernels.greedy_choice`, the numba twin of
:func:`agents.heuristics.greedy_action`).  A row's result is
:func:`agents.search.deal_value`'s change, as the readable rollout's; the
batched engine plays exactly as the readable one and the greedy twins choose
alike, so both give the same results, float for float.

The batched engine cannot stop a match after a deal as the readable rollout
does (``Game.stop_after_deal``); its games wait for the next deal's pack
instead (``wait_for_packs`` with no pack given), which changes no balance.  In
pool commerce the end of the match would share the pool out (R9.5) where the
readable rollout values it by ``life_shares``; so the rows of a variant with
lives play under ``deals="until_out"``, where the match ends only when one
player holds all lives, and then the pool is his: the same value.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from commerce_env.engine.base import Game
from commerce_env.engine.determinize import TIME_LIMIT
from commerce_env.rules import UNTIL_OUT, Rules
from commerce_env.vector import BatchEngine, access
from commerce_env.vector.compiled import inlined, kernel
from commerce_env.view import SeatView

from .greedy_kernels import PIPS, flush_ends_deal, greedy_move
from .heuristics import life_shares

MAX_ACTIONS = 2000  # per rollout, as the readable rollout's cap (a deal ends long before, R4.4)
MAX_ROWS = 8192  # rollouts played at once: at most some 40 MB of rows with 12 players, 16 MB with 4


@inlined
def takes_first(rows, g, params, keys, masks, pack, first):
    """Whether game ``g`` can take a rollout's ``first`` action (its match on, no pack awaited, ``first``
    legal); if so, taken."""
    if (access.is_over(rows, g) or access.awaits_pack(rows, g) or not 0 <= first < masks.shape[1]
            or not masks[g, first]):
        return False
    access.apply_action(rows, g, params, keys, masks, pack, first)
    return True


@inlined
def deal_goes_on(rows, g):
    """Whether a rollout of game ``g`` plays on: its deal not over (the match over, the next pack
    awaited, or the horse offered, R9.4, which comes after the deal's payments)."""
    return not (access.is_over(rows, g) or access.awaits_pack(rows, g) or access.phase(rows, g) == access.HORSE)


@kernel
def _greedy_to_deal_end(state, pips, ship, firsts, thresholds, barters, games, max_actions):
    """Each of ``games`` (in ``state``, a :class:`commerce_env.vector.access.KernelState`) takes its
    first action ``firsts[k]``, then every player follows the greedy policy (``thresholds[k]``,
    ``barters[k]``) until its deal is over: the match over, the next deal awaited, or the horse
    offered (R9.4, which comes after the deal's payments).  Returns the first ``k`` whose first
    action is not legal (nothing played from it on), or -1."""
    rows, params, keys, masks = state  # once: see commerce_env.vector.access
    pack = np.empty(52, np.int64)
    for k in range(len(games)):
        g = games[k]
        if not takes_first(rows, g, params, keys, masks, pack, firsts[k]):
            return k
        for _ in range(max_actions):
            if not deal_goes_on(rows, g):
                break
            action = greedy_move(rows, g, params, keys, masks, pips, access.to_act(rows, g), thresholds[k], ship,
                                 barters[k])
            access.apply_action(rows, g, params, keys, masks, pack, action)
    return -1


@dataclass
class Rollouts:
    """One decision's rollouts: every world of ``worlds`` with every action of ``actions``,
    the greedy players stopping at ``threshold`` (and bartering rather than trading for
    ready money with ``barter``), valued for the seat of ``view``.  The worlds are readable
    games (``view.sample_worlds``), or the same worlds as rows of the batched engine
    (:meth:`BatchedRollouts.sample`)."""

    view: SeatView
    worlds: list[Game] | np.ndarray
    actions: list[int]
    threshold: int
    barter: bool


def rollout_rules(rules: Rules) -> Rules:
    """The rules the rows play under: ``rules``, with ``deals="until_out"`` where the variant
    keeps lives (see the module docstring)."""
    return replace(rules, deals=UNTIL_OUT) if rules.has_lives else rules


def _money_values(seat: int, lives: np.ndarray, money: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """:func:`agents.search.deal_value` of ``seat`` where lives are not money (R9), one per row of
    ``lives``, ``money`` and ``pool``, in the same float steps: money plus pool times its share."""
    kinds, which = np.unique(lives, axis=0, return_inverse=True)
    shares = np.array([life_shares(tuple(int(x) for x in row))[seat] for row in kinds])
    return money.astype(np.float64) + pool.astype(np.float64) * shares[which.reshape(-1)]


def deal_values(view: SeatView, engine: BatchEngine, rows: np.ndarray) -> np.ndarray:
    """What the seat of ``view`` gained in each of ``rows`` since ``view`` (:func:`agents.search.deal_value`'s
    change, as the readable rollout's), one float per row."""
    seat = view.seat
    if view.engine.plays_for_money:
        start = view.money[seat] + view.pool * life_shares(tuple(view.counters))[seat]
        return _money_values(seat, engine.counters()[rows], engine.money()[rows, seat], engine.pool[rows]) - start
    return engine.counters()[rows, seat].astype(np.float64) - float(view.counters[seat])


class BatchedRollouts:
    """Runs :class:`Rollouts` on batched engines: one per set of rules and players, kept from
    call to call (rows are reloaded, never remade) and grown when a call needs more rows."""

    def __init__(self) -> None:
        self._engines: dict[tuple[Rules, int], BatchEngine] = {}

    def engine(self, rules: Rules, num_players: int, rows: int) -> BatchEngine:
        """A batched engine of at least ``rows`` games for these rules (``ValueError`` where
        the batched engine refuses them)."""
        key = (rules, num_players)
        engine = self._engines.get(key)
        if engine is None or engine.num_games < rows:
            size = max(rows, 2 * engine.num_games if engine is not None else 64)
            engine = self._engines[key] = BatchEngine(rules.variant, num_players, size, rules=rollout_rules(rules),
                                                      wait_for_packs=True)
        return engine

    def sample(self, view: SeatView, rng: random.Random, count: int,
               time_limit: float | None = TIME_LIMIT) -> np.ndarray | list[Game]:
        """The worlds ``view.sample_worlds(rng, count)`` gives, drawn alike, as rows of the
        engine that rolls them out (:meth:`commerce_env.vector.BatchEngine.sample_rows`);
        ``NoConsistentDealError`` where a re-deal finds none within ``time_limit`` seconds."""
        if view.deals_own_worlds():  # a view that deals its worlds its own way: readable games, loaded
            return view.sample_worlds(rng, count)
        return self.engine(view.rules, view.num_players, 1).sample_rows(view, rng, count, time_limit)

    def run(self, decisions: Sequence[Rollouts]) -> list[dict[int, np.ndarray]]:
        """Each decision's result of each action in each world (an array per action, the
        worlds in order), rolled out together on one engine per set of rules, at most
        :data:`MAX_ROWS` rows at a time (a bigger decision in parts, by worlds)."""
        pieces: dict[tuple[Rules, int], list[tuple[int, Rollouts]]] = {}
        for index, decision in enumerate(decisions):
            per_run = max(1, MAX_ROWS // len(decision.actions))
            for start in range(0, len(decision.worlds), per_run):
                piece = replace(decision, worlds=decision.worlds[start:start + per_run])
                pieces.setdefault((decision.view.rules, decision.view.num_players), []).append((index, piece))
        parts: list[list[dict[int, np.ndarray]]] = [[] for _ in decisions]
        for (rules, n), group in pieces.items():
            batch: list[tuple[int, Rollouts]] = []
            rows = 0
            for item in [*group, None]:
                size = 0 if item is None else len(item[1].worlds) * len(item[1].actions)
                if batch and (item is None or rows + size > MAX_ROWS):
                    for (index, _), result in zip(batch, self._run_group(rules, n, [p for _, p in batch]),
                                                  strict=True):
                        parts[index].append(result)
                    batch, rows = [], 0
                if item is not None:
                    batch.append(item)
                    rows += size
        return [{a: np.concatenate([part[a] for part in got]) for a in decision.actions}
                for decision, got in zip(decisions, parts, strict=True)]

    def play_rows(self, engine: BatchEngine, firsts: np.ndarray, thresholds: np.ndarray, barters: np.ndarray,
                  rows: np.ndarray) -> int:
        """Each of ``rows`` takes its first action ``firsts[k]``, then everyone plays to the end of its deal:
        the greedy policy here (a subclass may roll out with another policy).  Returns the first ``k``
        whose first action is not legal, or -1."""
        return _greedy_to_deal_end(engine.kernel_state(), PIPS, flush_ends_deal(engine), firsts, thresholds,
                                   barters, rows, MAX_ACTIONS)

    def _run_group(self, rules: Rules, n: int, decisions: list[Rollouts]) -> list[dict[int, np.ndarray]]:
        sizes = [len(d.worlds) * len(d.actions) for d in decisions]
        total = sum(sizes)
        engine = self.engine(rules, n, total)
        actions = np.empty(total, np.int64)
        thresholds = np.empty(total, np.int64)
        barters = np.empty(total, np.bool_)
        at = 0
        for decision, size in zip(decisions, sizes, strict=True):
            places = np.arange(at, at + size, dtype=np.int64)
            count = len(decision.actions)
            if isinstance(decision.worlds, np.ndarray):
                engine.load_rows(np.repeat(decision.worlds, count, axis=0), places)
            else:  # one row per action: each world loaded once, copied; the greedy players read no memory (R11)
                engine.load_games([w for w in decision.worlds for _ in range(count)], places, knowledge=False)
            actions[at:at + size] = np.tile(decision.actions, len(decision.worlds))
            thresholds[at:at + size] = decision.threshold
            barters[at:at + size] = decision.barter
            at += size
        rows = np.arange(total, dtype=np.int64)
        refused = self.play_rows(engine, actions, thresholds, barters, rows)
        if refused >= 0:  # a view's legal actions are legal in every world it deals (R11): a bug if not
            raise ValueError(f"rollout {refused}: action {int(actions[refused])} is not legal in its world")
        out, at = [], 0
        for decision, size in zip(decisions, sizes, strict=True):
            values = deal_values(decision.view, engine, rows[at:at + size])
            values = values.reshape(len(decision.worlds), len(decision.actions))
            out.append({a: values[:, k].copy() for k, a in enumerate(decision.actions)})
            at += size
        return out


def use_rollouts(search: Any, rollouts: BatchedRollouts) -> None:
    """Make ``search`` (an :class:`agents.search.SearchAgent`) draw its worlds and play every rollout,
    batched together or alone, on ``rollouts``: one set of engines for a caller that runs the
    rollouts of several decisions together, with its own players (a subclass's ``play_rows``)."""
    search._rollouts = rollouts
