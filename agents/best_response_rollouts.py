"""The search best response on the batched engine: every world of a decision replayed and rolled out together.

For one decision of :class:`agents.best_response.SearchBestResponse` whose
agent batches (:func:`agents.batched.batched_agent`), each drawn world is a
row of a :class:`commerce_env.vector.BatchEngine` per candidate action: every
row starts from the state before the deal (:func:`agents.belief.before_deal`),
is dealt its world's pack and steps through the deal's actions with its
world's cards (:func:`agents.belief.entry_actions`), while the agent's batched
probabilities of the actions its seats took (``action_probabilities_batch``)
weigh the worlds.  The worlds that weigh more than nothing then take their
candidate action and play the deal out in a compiled loop, the searching seat
by the search's greedy rollout policy and every other seat by the agent:
compiled where it is random or greedy (:func:`agents.batched.compiled_spec`),
else one ``act_batch`` call per move of the rows waiting for it (a network).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from commerce_env.engine.base import DEAL, SHOW, Game
from commerce_env.vector import access
from commerce_env.vector.python_random import shuffled_copies
from commerce_env.view import SeatView

from .batched import KIND_GREEDY, KIND_NONE, KIND_RANDOM
from .batched_search import MAX_ACTIONS, deal_values
from .belief import before_deal, entry_actions
from .greedy_kernels import PIPS, flush_ends_deal, greedy_choice

__all__ = ["weighed_batched"]


@njit(cache=True, error_model="numpy")
def _play_on(state, pips, ship, firsts, kinds, thresholds, barters, games, max_actions, waiting):
    """Each of ``games`` (in ``state``, a :class:`commerce_env.vector.access.KernelState`) takes
    ``firsts[k]``, then its seats play by ``kinds[seat]`` (random, or greedy at ``thresholds[seat]``
    with ``barters[seat]``) until its deal is over (the match over, the next pack awaited, the horse
    offered, R9.4) or a seat of kind ``KIND_NONE`` is to act: then ``waiting[k]`` is True.  Returns
    the first ``k`` whose first action is not legal (nothing played from it on), or -1."""
    rows, params, keys, masks = state  # once: see commerce_env.vector.access
    pack = np.empty(52, np.int64)
    for k in range(len(games)):
        g = games[k]
        first = firsts[k]
        waiting[k] = False
        if (access.is_over(rows, g) or access.awaits_pack(rows, g) or not 0 <= first < masks.shape[1]
                or not masks[g, first]):
            return k
        access.apply_action(rows, g, params, keys, masks, pack, first)
        for _ in range(max_actions):
            if access.is_over(rows, g) or access.awaits_pack(rows, g) or access.phase(rows, g) == access.HORSE:
                break
            seat = access.to_act(rows, g)
            kind = kinds[seat]
            if kind == KIND_NONE:
                waiting[k] = True
                break
            if kind == KIND_RANDOM:
                count = 0
                for a in range(masks.shape[1]):
                    count += masks[g, a]
                pick = access.random_below(rows, g, count)
                action = 0
                for a in range(masks.shape[1]):
                    if masks[g, a]:
                        if pick == 0:
                            action = a
                            break
                        pick -= 1
            else:
                c0, c1, c2 = access.hand(rows, g, params, seat)
                t0, t1, t2 = access.table(rows, g, params)
                action = greedy_choice(c0, c1, c2, t0, t1, t2, access.phase(rows, g), masks, g, keys, pips,
                                       thresholds[seat], ship, barters[seat])
            access.apply_action(rows, g, params, keys, masks, pack, action)
    return -1


class _Draws:
    """Worlds drawn as ``agents.search.sampled_worlds`` draws them (the same numbers from ``rng``),
    each kept as its deal's pack and record entries, no game made but the first (it gives the state
    before the deal, :func:`agents.belief.before_deal`).  Where the deal has no hidden choice left
    to chance (``DealSampler.shuffle_plan``: a face-up table) the packs are shuffled compiled and the
    entries, which then name only public cards, are the first world's."""

    def __init__(self, view: SeatView, rng: random.Random, time_limit: float):
        self.view, self.rng, self.time_limit = view, rng, time_limit
        self.sampler = None if view.deals_own_worlds() else view.deal_sampler()
        self.first: Game | None = None
        self.entries: Sequence[tuple] = ()

    def draw(self, count: int) -> tuple[np.ndarray, list[Sequence[tuple]]]:
        """``count`` more worlds: their packs ``(count, deck size)`` and their deal entries."""
        packs: list[Sequence[int]] = []
        entries: list[Sequence[tuple]] = []
        while len(packs) < count:
            plan = None if self.sampler is None or self.first is None else self.sampler.shuffle_plan()
            if plan is not None:
                left = count - len(packs)
                cards = np.empty((left, len(self.sampler.deck)), dtype=np.int64)
                for item, card in plan.places.cards.items():
                    cards[:, item] = card
                cards[:, plan.unwritten] = shuffled_copies(self.rng, plan.free, left, skip_bits=64)
                packs.extend(cards)
                entries.extend([self.entries] * left)
                break
            if self.sampler is None:  # a view that deals its worlds its own way
                world = self.view.sample_world(self.rng)
                pack, record = world.deal_pack, world.record[world.deal_start:]
            else:
                later = random.Random(self.rng.getrandbits(64))  # as sample_worlds draws it
                sampled = self.sampler.sample(self.rng, self.time_limit)
                pack, record = sampled.record[0][2], sampled.record[1:]
                world = self.view.world_of(sampled, later) if self.first is None else None
            if self.first is None:
                self.first, self.entries = world, record
            packs.append([int(card) for card in pack])
            entries.append(record)
        return np.asarray(packs, dtype=np.int64), entries


def _kinds(searcher: Any, batched: Any, view: SeatView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per seat, how it plays in the rollouts: the searching seat greedy at the search's rollout
    threshold; the others as the agent's compiled form, or ``KIND_NONE`` (its ``act_batch``)."""
    n = view.num_players
    spec = getattr(batched, "compiled_spec", lambda rules: None)(view.rules)
    kind, threshold, barter = (KIND_NONE, 0, 0) if spec is None else spec
    kinds, thresholds, barters = np.full(n, kind, np.int64), np.full(n, threshold, np.int64), np.full(n, bool(barter))
    kinds[view.seat], thresholds[view.seat], barters[view.seat] = KIND_GREEDY, searcher.rollout_threshold(view), \
        searcher.barter
    return kinds, thresholds, barters


def _replay(engine: Any, places: np.ndarray, entries: list[Sequence[tuple]], me: int,
            batched: Any | None) -> tuple[np.ndarray, np.ndarray]:
    """Step the rows ``places`` (one per world, just dealt) through their worlds' deal ``entries``.
    Returns each world's weight, the product of ``batched``'s probabilities of the actions the other
    seats took, and its misses, the number of those it gave no chance (each then counted at one in
    its legal actions instead: the limit of an agent that trembles to a random action).  Without
    ``batched``: weights 1, no misses."""
    weights = np.ones(len(places))
    misses = np.zeros(len(places), np.int64)
    actions = np.zeros(engine.num_games, np.int64)
    where = np.zeros(engine.num_games, np.bool_)
    where[places] = True
    for j, (actor, kind, _, _) in enumerate(entries[0]):
        if kind == SHOW or kind == DEAL:  # no decision (the deal's end)
            break
        chosen = entry_actions(engine.hands[places, actor], engine.table[places], [world[j] for world in entries])
        if batched is not None and actor != me:
            masks = engine.action_mask[places]
            choices = masks.sum(axis=1)
            asked = np.flatnonzero(choices > 1)  # a forced move says nothing
            if asked.size:
                probabilities = batched.action_probabilities_batch(engine, places[asked],
                                                                   np.full(asked.size, actor, np.int64))
                given = probabilities[np.arange(asked.size), chosen[asked]]
                missed = given <= 0.0
                misses[asked] += missed
                weights[asked] *= np.where(missed, 1.0 / choices[asked], given)
        actions[places] = chosen
        engine.step(actions, where)
    return weights, misses


def _roll_out(engine: Any, games: np.ndarray, firsts: np.ndarray, batched: Any,
              plays: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    """Play each of ``games`` from its first action to its deal's end (:func:`_play_on`), the agent's
    ``act_batch`` moving the rows that wait for it."""
    ship = flush_ends_deal(engine)
    waiting = np.zeros(len(games), np.bool_)
    for _ in range(MAX_ACTIONS):
        refused = _play_on(engine.kernel_state(), PIPS, ship, firsts, *plays, games, MAX_ACTIONS, waiting)
        if refused >= 0:  # a view's legal actions are legal in every world it deals (R11): a bug if not
            raise ValueError(f"rollout {refused}: action {int(firsts[refused])} is not legal in its world")
        if not waiting.any():
            return
        games = games[waiting]
        firsts = np.asarray(batched.act_batch(engine, games, engine.current_player[games]), dtype=np.int64)
        waiting = np.zeros(len(games), np.bool_)
    raise ValueError(f"rollouts still unfinished after {MAX_ACTIONS} moves of the agent")


def weighed_batched(searcher: Any, batched: Any, view: SeatView) -> tuple[dict[int, np.ndarray], np.ndarray]:
    """:meth:`agents.best_response.SearchBestResponse.weighed` on the batched engine (module docstring):
    worlds are drawn and replayed ``worlds`` at a time until ``worlds`` of them have no miss (or
    ``draws`` are drawn); the worlds with the fewest misses are kept, at most ``worlds``, and each is
    rolled out with every candidate action."""
    rollouts = searcher.batched_rollouts(view)
    actions = np.asarray(searcher.rollout_actions(view), dtype=np.int64)
    plays = _kinds(searcher, batched, view)
    knowledge = bool(plays[0].min() == KIND_NONE)  # an agent that reads observations needs what each seat knows
    draws = _Draws(view, searcher.rng, searcher.redeal_ms / 1000.0)
    start: Game | None = None
    weights, misses = np.empty(0), np.empty(0, np.int64)
    engine = rollouts.engine(view.rules, view.num_players, searcher.draws + searcher.worlds * len(actions))
    for size in searcher.batch_sizes():
        packs, entries = draws.draw(size)
        if start is None:
            start = before_deal(draws.first)
        at = len(weights)
        places = np.arange(at, at + size, dtype=np.int64)
        engine.load_games([start] * size, places, knowledge=knowledge)
        engine.supply_packs(places, packs.tolist())
        weight, missed = _replay(engine, places, entries, view.seat, batched if searcher.weighting else None)
        weights, misses = np.concatenate([weights, weight]), np.concatenate([misses, missed])
        if (misses == 0).sum() >= searcher.worlds:
            break
    kept = np.flatnonzero(misses == misses.min())[:searcher.worlds]
    searcher.count(len(weights), len(kept), int(misses.min()))
    rows = engine.kernel_state().rows[kept]  # the kept worlds, now, copied once per candidate action
    games = np.arange(len(weights), len(weights) + len(kept) * len(actions), dtype=np.int64)
    engine.load_rows(np.repeat(rows, len(actions), axis=0), games)
    _roll_out(engine, games, np.tile(actions, len(kept)), batched, plays)
    values = deal_values(view, engine, games).reshape(len(kept), len(actions))
    return {int(a): values[:, k].copy() for k, a in enumerate(actions)}, weights[kept]
