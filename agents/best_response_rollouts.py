"""The search best response on the batched engine: every world of a decision replayed and rolled out together.

For one decision of :class:`agents.best_response.SearchBestResponse` whose
agent batches (:func:`agents.batched.batched_agent`), each drawn world is a row
of a :class:`commerce_env.vector.BatchEngine`: every row starts from the state
before the deal (:func:`agents.belief.before_deal`), is dealt its world's pack
and steps through the deal's actions with its world's cards, while the agent's
probabilities of the actions its seats took weigh the worlds: compiled where
the agent is random or greedy (its ``compiled_spec``), else its
``action_probabilities_batch`` at each step (a network).  The worlds are drawn
as the search draws them (the same numbers), compiled where the search's are
(:func:`commerce_env.vector.determinize.sample_places`, which also gives the
card each hidden choice moved: what the replay needs).  The kept worlds are
copied once per candidate action and play the deal out in a compiled loop, the
searching seat by the search's greedy rollout policy and every other seat by
the agent (one ``act_batch`` call per move of the rows waiting for a network).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from commerce_env.engine.actions import EXCHANGE
from commerce_env.engine.base import DEAL, SHOW, Game
from commerce_env.vector import access
from commerce_env.vector.compiled import kernel
from commerce_env.vector.determinize import chosen_positions, compiles, sample_places
from commerce_env.vector.python_random import shuffled_copies
from commerce_env.view import SeatView

from .batched import KIND_GREEDY, KIND_NONE, KIND_RANDOM, scripted_move
from .batched_search import MAX_ACTIONS, deal_goes_on, deal_values, takes_first
from .belief import EXCHANGED, SINGLE, entry_code
from .greedy_kernels import PIPS, flush_ends_deal, greedy_choice

__all__ = ["weighed_batched"]


@kernel
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
        waiting[k] = False
        if not takes_first(rows, g, params, keys, masks, pack, firsts[k]):
            return k
        for _ in range(max_actions):
            if not deal_goes_on(rows, g):
                break
            seat = access.to_act(rows, g)
            if kinds[seat] == KIND_NONE:
                waiting[k] = True
                break
            action = scripted_move(rows, g, params, keys, masks, pips, seat, kinds[seat], thresholds[seat], ship,
                                   barters[seat])
            access.apply_action(rows, g, params, keys, masks, pack, action)
    return -1


@kernel
def _replay_rows(state, pips, ship, places, actors, codes, bases, seconds, firsts, me, kind, threshold, barter,
                 actions, weights, misses, move):
    """Step each of ``places`` through the deal's actions: step ``j`` by seat ``actors[j]``, named as
    :func:`agents.belief.entry_code` says (``codes[j]``, ``bases[j]``) by the card ``firsts[k, j]``
    of world ``k`` and the table card ``seconds[j]``; ``actions[k, j]`` gets the action.  Where
    ``kind`` is random or greedy (``threshold``, ``barter``), each decision of a seat but ``me``
    with a choice weighs the world (``weights``, ``misses``: :func:`agents.belief.world_weight`).
    Without ``move`` the actions are only found (one step), not taken.  Returns the first ``k`` whose
    action is not legal, or -1."""
    rows, params, keys, masks = state
    pack = np.empty(52, np.int64)
    for k in range(len(places)):
        g = places[k]
        for j in range(len(actors)):
            actor = actors[j]
            c0, c1, c2 = access.hand(rows, g, params, actor)
            t0, t1, t2 = access.table(rows, g, params)
            action = bases[j]
            if codes[j] != SINGLE:
                card = firsts[k, j]
                own = 0 if c0 == card else 1 if c1 == card else 2 if c2 == card else -1
                if own < 0:
                    return k
                if codes[j] == EXCHANGED:
                    slot = 0 if t0 == seconds[j] else 1 if t1 == seconds[j] else 2 if t2 == seconds[j] else -1
                    if slot < 0:
                        return k
                    action = EXCHANGE + 3 * own + slot
                else:
                    action += own
            if not 0 <= action < masks.shape[1] or not masks[g, action]:
                return k
            actions[k, j] = action
            if not move:
                continue
            if kind != KIND_NONE and actor != me:
                count = 0
                for a in range(masks.shape[1]):
                    count += masks[g, a]
                if count > 1:
                    if kind == KIND_RANDOM:
                        weights[k] /= count
                    elif greedy_choice(c0, c1, c2, t0, t1, t2, access.phase(rows, g), masks, g, keys, pips,
                                       threshold, ship, barter) != action:
                        misses[k] += 1
                        weights[k] /= count
            access.apply_action(rows, g, params, keys, masks, pack, action)
    return -1


class _Steps:
    """The deal's actions as the replay reads them (public: the same in every world): each step's
    seat, how its entry names its action (:func:`agents.belief.entry_code`) and the table card an
    exchange takes."""

    def __init__(self, entries: Sequence[tuple]):
        entries = list(entries)
        end = next((j for j, entry in enumerate(entries) if entry[1] in (SHOW, DEAL)), len(entries))
        entries = entries[:end]  # no decision after the deal's end
        self.actors = np.array([entry[0] for entry in entries], dtype=np.int64)
        coded = [entry_code(entry[1]) for entry in entries]
        self.codes = np.array([code for code, _ in coded], dtype=np.int64)
        self.bases = np.array([base for _, base in coded], dtype=np.int64)
        self.seconds = np.array([entry[2][1] if code == EXCHANGED else -1
                                 for entry, (code, _) in zip(entries, coded, strict=True)], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.actors)


class _Draws:
    """Worlds drawn as ``SeatView.world_stream`` draws them (the same numbers from ``rng``), each
    kept as its deal's pack and, per step of the deal, the first card its record entry names (-1:
    none): the first as a readable game (it gives the state before the deal and the deal's steps),
    the others compiled where the search's are (``sample_places``, or a shuffle where no hidden
    choice is left to chance), else by the readable determinizer."""

    def __init__(self, view: SeatView, rng: random.Random, time_limit: float):
        self.view, self.rng, self.time_limit = view, rng, time_limit
        self.sampler = None if view.deals_own_worlds() else view.deal_sampler()
        self.first: Game | None = None
        self.steps: _Steps | None = None

    def draw(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """``count`` more worlds: their packs ``(count, deck size)`` and first cards ``(count, steps)``."""
        packs: list[np.ndarray] = []
        firsts: list[np.ndarray] = []
        while sum(map(len, packs)) < count:
            left = count - sum(map(len, packs))
            placed = self._compiled(left)
            if placed is not None:
                packs.append(placed[0])
                firsts.append(placed[1])
                continue
            if self.sampler is None:  # a view that deals its worlds its own way
                world = self.view.sample_world(self.rng)
                pack, record = world.deal_pack, world.record[world.deal_start:]
            else:
                later = random.Random(self.rng.getrandbits(64))  # as sample_worlds draws it
                sampled = self.sampler.sample(self.rng, self.time_limit)
                pack, record = sampled.record[0][2], sampled.record[1:]
                world = self.view.world_of(sampled, later) if self.first is None else None
            if self.first is None:
                self.first, self.steps = world, _Steps(record)
            packs.append(np.array([pack], dtype=np.int64))
            named = zip(record[:len(self.steps)], self.steps.codes, strict=True)
            firsts.append(np.array([[entry[2][0] if code != SINGLE else -1 for entry, code in named]], dtype=np.int64))
        return np.concatenate(packs), np.concatenate(firsts).reshape(count, len(self.steps))

    def _compiled(self, count: int) -> tuple[np.ndarray, np.ndarray] | None:
        """``count`` worlds drawn compiled, or None where the readable determinizer draws them."""
        sampler = self.sampler
        if sampler is None or self.first is None:
            return None
        deck, steps = len(sampler.deck), len(self.steps)
        plan = sampler.shuffle_plan()
        if plan is not None:  # no hidden choice left to chance: a shuffle of the unseen cards
            cards = np.empty((count, deck), dtype=np.int64)
            for item, card in plan.places.cards.items():
                cards[:, item] = card
            cards[:, plan.unwritten] = shuffled_copies(self.rng, plan.free, count, skip_bits=64)
            chosen = np.broadcast_to(chosen_positions(sampler.searched, sampler.steps)[:steps], (count, steps))
        elif compiles(sampler, self.rng, self.view.num_players):
            placed = sample_places(sampler, self.rng, count, self.view.num_players, self.time_limit)
            cards, chosen = placed.cards, placed.chosen[:, :steps]
        else:
            return None
        firsts = np.where(chosen >= 0, np.take_along_axis(cards, np.maximum(chosen, 0), axis=1), -1)
        return cards[:, :deck], firsts


def _kinds(searcher: Any, batched: Any, view: SeatView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per seat, how it plays in the rollouts: the others as the agent's compiled form, or ``KIND_NONE``
    (its ``act_batch``); the searching seat greedy at the search's rollout threshold, or as the others
    with ``continuation="agent"``."""
    n = view.num_players
    spec = getattr(batched, "compiled_spec", lambda rules: None)(view.rules)
    kind, threshold, barter = (KIND_NONE, 0, 0) if spec is None else spec
    kinds, thresholds, barters = np.full(n, kind, np.int64), np.full(n, threshold, np.int64), np.full(n, bool(barter))
    if searcher.continuation == "greedy":
        kinds[view.seat], thresholds[view.seat], barters[view.seat] = KIND_GREEDY, searcher.rollout_threshold(view), \
            searcher.barter
    return kinds, thresholds, barters


def _replay(engine: Any, places: np.ndarray, steps: _Steps, firsts: np.ndarray, me: int, batched: Any | None,
            plays: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Step the rows ``places`` (one per world, just dealt) through the deal; each world's weight and
    misses (:func:`agents.belief.world_weight`; without ``batched`` weights 1, no misses).  A random or
    greedy agent is asked in the compiled replay, another (a network) at each step."""
    weights, misses = np.ones(len(places)), np.zeros(len(places), np.int64)
    actions = np.zeros((len(places), len(steps)), np.int64)
    kinds, thresholds, barters = plays
    other = (me + 1) % len(kinds)
    kind = KIND_NONE if batched is None else int(kinds[other])
    ship = flush_ends_deal(engine)

    def run(start: int, stop: int, kind: int, move: bool = True) -> None:
        refused = _replay_rows(engine.kernel_state(), PIPS, ship, places, steps.actors[start:stop],
                               steps.codes[start:stop], steps.bases[start:stop], steps.seconds[start:stop],
                               np.ascontiguousarray(firsts[:, start:stop]), me, kind, int(thresholds[other]),
                               bool(barters[other]), actions[:, start:stop], weights, misses, move)
        if refused >= 0:  # the determinizer deals only worlds where the record is legal (R11): a bug if not
            raise ValueError(f"world {refused}: its deal cannot be replayed")

    if batched is None or kind != KIND_NONE:
        run(0, len(steps), kind)
        return weights, misses
    for j, actor in enumerate(steps.actors):  # a network: its probabilities before each of its decisions
        if actor != me:
            run(j, j + 1, KIND_NONE, move=False)
            choices = engine.action_mask[places].sum(axis=1)
            asked = np.flatnonzero(choices > 1)  # a forced move says nothing
            if asked.size:
                given = batched.action_probabilities_batch(engine, places[asked], np.full(asked.size, actor))
                given = given[np.arange(asked.size), actions[asked, j]]
                missed = given <= 0.0
                misses[asked] += missed
                weights[asked] *= np.where(missed, 1.0 / choices[asked], given)
        run(j, j + 1, KIND_NONE)
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


def _start_row(searcher: Any, engine: Any, view: SeatView, world: Game, knowledge: bool) -> np.ndarray:
    """The row of the state before the deal (``searcher.before_deal``), kept with it for the deal's
    other decisions."""
    start = searcher.before_deal(view, world)
    kept = searcher.start_row
    if kept is None or kept[0] is not start or kept[1] is not engine or kept[2] != knowledge:
        engine.load_games([start], [0], knowledge=knowledge)
        kept = searcher.start_row = (start, engine, knowledge, engine.kernel_state().rows[0].copy())
    return kept[3]


def weighed_batched(searcher: Any, batched: Any, view: SeatView,
                    include: tuple[int, ...] = ()) -> tuple[dict[int, np.ndarray], np.ndarray]:
    """:meth:`agents.best_response.SearchBestResponse.weighed` on the batched engine (module docstring):
    worlds are drawn and replayed ``worlds`` at a time until ``worlds`` of them have no miss (or
    ``draws`` are drawn); the worlds with the fewest misses are kept, at most ``worlds``, and each is
    rolled out with every candidate action."""
    rollouts = searcher.batched_rollouts(view)
    actions = np.asarray(searcher.rollout_actions(view, include), dtype=np.int64)
    plays = _kinds(searcher, batched, view)
    knowledge = bool(plays[0].min() == KIND_NONE)  # an agent that reads observations needs what each seat knows
    draws = _Draws(view, searcher.rng, searcher.redeal_ms / 1000.0)
    start: np.ndarray | None = None  # the row of the state before the deal
    weights, misses = np.empty(0), np.empty(0, np.int64)
    engine = rollouts.engine(view.rules, view.num_players, searcher.draws + searcher.worlds * len(actions))
    for size in searcher.batch_sizes():
        packs, firsts = draws.draw(size)
        places = np.arange(len(weights), len(weights) + size, dtype=np.int64)
        if start is None:
            start = _start_row(searcher, engine, view, draws.first, knowledge)
        engine.load_rows(np.repeat(start[None], size, axis=0), places)
        engine.supply_packs(places, packs)
        weight, missed = _replay(engine, places, draws.steps, firsts, view.seat,
                                 batched if searcher.weighting else None, plays)
        weights, misses = np.concatenate([weights, weight]), np.concatenate([misses, missed])
        if (misses == 0).sum() >= searcher.worlds:
            break
    kept, weights = searcher.keep(weights, misses)
    rows = engine.kernel_state().rows[kept]  # the kept worlds, now, copied once per candidate action
    games = np.arange(len(misses), len(misses) + len(kept) * len(actions), dtype=np.int64)
    engine.load_rows(np.repeat(rows, len(actions), axis=0), games)
    _roll_out(engine, games, np.tile(actions, len(kept)), batched, plays)
    values = deal_values(view, engine, games).reshape(len(kept), len(actions))
    return {int(a): values[:, k].copy() for k, a in enumerate(actions)}, weights
