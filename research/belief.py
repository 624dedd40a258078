"""Does reading the others' hands from their choices help ``search``? ``python -m research.belief``.

``search`` deals its worlds uniformly among those consistent with what its
seat has seen (R11): an opponent who just took the 7 of hearts from the widow
is as likely to hold a pair of sevens as not.  This probe weighs each sampled
world by how likely a learned policy makes every choice the other players
made this deal, had their hands been the world's (replayed through the
world from the deal's pack, :func:`deal_choices`), and plays ``search`` on
those weights in one of two ways: the same worlds with weighted means
(``draws=1``), or importance resampling, ``draws`` times as many worlds
sampled and ``worlds`` of them kept by weight (each distinct world rolled
out once and counted as often as it was kept).  With no belief it is
``search``'s plain argmax (the widow game's, docs/agents.md) on the same
worlds.

:func:`true_deal_rank` says whether the belief knows anything: where, among
sampled worlds, the true deal's weight ranks (0.5 for a belief that knows
nothing).  The arena rows say whether ``search`` can use it.

A probe in benchmarks/, not an agent: it needs a model of the variant, and
what it measured is in docs/agents.md ("What each seat knows").
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

import numpy as np

from agents.arena import run_arena
from agents.heuristics import value_function
from agents.learned import LearnedAgent, load_agent
from agents.search import SearchAgent, rollout
from commerce_env.engine import new_game
from commerce_env.engine.base import HORSE, Game
from commerce_env.features import append_features
from commerce_env.rules import make_rules
from commerce_env.view import SeatView, seat_view
from research.margin_table import margin_row, print_rows


def deal_start(world: Game) -> tuple[Game, list[tuple]]:
    """``world`` as it was when its current deal was dealt, and the deal's record entries since.

    The deal's pack is the record's ``deal`` entry (in a sampled world, the sampled pack), so
    dealing it again and taking the entries' actions rebuilds the world exactly (tested)."""
    start = world.deal_start
    entries = list(world.record[start:])
    game = world.clone()
    game.record = list(world.record[:start - 1])
    game.deals_dealt -= 1
    game.actions_taken -= len(entries)
    if game.antes:  # R4.2: the ante of this deal is paid again by _start_deal
        for seat in world.order:
            game.counters[seat] += 1
            game.pool -= 1
    game._supplied_pack = world.record[start - 1][2]
    game._start_deal()
    return game, entries


def replay_deal(world: Game, visit: Any = None) -> Game:
    """Replay ``world``'s current deal from its pack; ``visit(game, action)`` before each action.
    Returns the replayed game, equal to ``world``."""
    game, entries = deal_start(world)
    for actor, kind, cards, _ in entries:
        actions = [a for a in game.legal_actions() if game.record_entry(a)[1:3] == (kind, cards)]
        if game.current_player != actor or len(actions) != 1:
            raise AssertionError(f"entry {(actor, kind, cards)} is not one legal action of seat "
                                 f"{game.current_player}: {actions}")
        if visit is not None:
            visit(game, actions[0])
        game.apply(actions[0])
    return game


def deal_choices(world: Game, seat: int) -> list[tuple[SeatView, int]]:
    """Each choice another player made this deal, seeing his hand: his seat view then (in this
    world) and the action he took."""
    choices = []

    def visit(game: Game, action: int) -> None:
        actor = game.current_player
        if actor != seat and game.sees_own_hand(actor) and len(game.legal_actions()) > 1:
            choices.append((seat_view(game, actor), action))

    replay_deal(world, visit)
    return choices


class NetworkBelief:
    """The log-likelihood of the others' choices this deal in each world, under a learned policy
    (its action probabilities at ``temperature``, mixed with ``eps`` of the uniform choice)."""

    def __init__(self, model: LearnedAgent, temperature: float = 1.0, eps: float = 0.0):
        if not temperature > 0:
            raise ValueError(f"temperature must be positive, got {temperature!r}")
        if not 0.0 <= eps <= 1.0:
            raise ValueError(f"eps must lie in [0, 1], got {eps!r}")
        self.model, self.temperature, self.eps = model, temperature, eps

    def log_weights(self, view: SeatView, worlds: list[Game]) -> np.ndarray:
        inputs, masks, actions, owners = [], [], [], []
        model = self.model
        for index, world in enumerate(worlds):
            for other, action in deal_choices(world, view.seat):
                inputs.append(append_features(model.model_input(other.observation), model.feature_builders))
                masks.append(np.asarray(other.action_mask, dtype=bool))
                actions.append(action)
                owners.append(index)
        log_weights = np.zeros(len(worlds))
        if not inputs:
            return log_weights
        mask = np.stack(masks)
        scores = model.logits(np.stack(inputs)).astype(np.float64) / self.temperature
        scores[~mask] = -np.inf
        scores -= scores.max(axis=1, keepdims=True)
        probabilities = np.exp(scores)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        chosen = probabilities[np.arange(len(actions)), actions]
        chosen = (1.0 - self.eps) * chosen + self.eps / mask.sum(axis=1)
        np.add.at(log_weights, np.array(owners), np.log(np.maximum(chosen, 1e-300)))
        return log_weights


class BeliefSearch(SearchAgent):
    """``search``'s plain argmax over worlds weighted by a belief (see the module docstring)."""

    def __init__(self, belief: NetworkBelief | None = None, draws: int = 1, name: str = "belief", **kwargs: Any):
        if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
            raise ValueError(f"draws must be a whole number >= 1, got {draws!r}")
        if draws > 1 and belief is None:
            raise ValueError("draws > 1 resamples by a belief: give one")
        super().__init__(prior=False, **kwargs)
        self.belief, self.draws, self.name = belief, draws, name
        self.weights = np.ones(1)  # the last decision's world weights
        self.distinct: list[int] = []  # distinct worlds kept at each resampling

    def evaluate(self, view: SeatView, include: tuple[int, ...] = ()) -> dict[int, np.ndarray]:
        """Each candidate action's result in each world (rows share worlds); ``self.weights``
        the worlds' weights, summing to 1.  The worlds are sampled in ``search``'s order."""
        legal = self.candidate_actions(view)
        legal += [a for a in include if a not in legal]
        worlds = [view.sample_world(self.rng) for _ in range(self.worlds * self.draws)]
        weights = np.full(len(worlds), 1.0 / len(worlds))
        if self.belief is not None:
            log_weights = self.belief.log_weights(view, worlds)
            weights = np.exp(log_weights - log_weights.max())
            weights /= weights.sum()
        if self.draws > 1:  # systematic resampling, with replacement
            marks = (self.rng.random() + np.arange(self.worlds)) / self.worlds
            picked = np.minimum(np.searchsorted(np.cumsum(weights), marks), len(worlds) - 1)
            kept, counts = np.unique(picked, return_counts=True)
            worlds, weights = [worlds[i] for i in kept], counts / counts.sum()
            self.distinct.append(len(kept))
        self.weights = weights
        threshold = self.rollout_threshold(view)
        value = value_function(view.engine, view.rules.combinations)
        return {a: np.array([rollout(w.clone(), view.seat, threshold, value, a, self.barter) for w in worlds])
                for a in legal}

    def act(self, view: SeatView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if view.phase == HORSE:  # R9.4, as search
            return self.prior.act(view)
        results = self.evaluate(view)
        self.last_values = {a: float(r @ self.weights) for a, r in results.items()}
        best = max(self.last_values.values())
        return min(a for a, value in self.last_values.items() if value >= best - 1e-12)


def true_deal_rank(variant: str, belief: NetworkBelief, matches: int, seed: int, worlds: int = 48,
                   player: str = "search") -> dict[str, float]:
    """Where the true deal's weight ranks among ``worlds`` sampled ones (0 lowest, 1 highest, ties
    half), averaged over the decisions of ``matches`` matches of ``player`` at every seat at which
    the weights differ; and the sampled weights' effective sample size, as a share of ``worlds``."""
    from agents import make_agent

    rng = random.Random(seed)
    ranks, shares = [], []
    for match in range(matches):
        game = new_game(make_rules(variant), 4, seed=seed * 100_003 + match)
        players = [make_agent(player, seed=seed * 4 * matches + 4 * match + s) for s in range(4)]
        while not game.over:
            seat = game.current_player
            view = seat_view(game, seat)
            if view.phase != HORSE and len(view.legal_actions) > 1:
                log_weights = belief.log_weights(view, [view.sample_world(rng) for _ in range(worlds)]
                                                 + [game.clone()])
                sampled, true = log_weights[:-1], log_weights[-1]
                if np.ptp(log_weights) > 0:
                    ranks.append(float((sampled < true).mean() + 0.5 * (sampled == true).mean()))
                    w = np.exp(sampled - sampled.max())
                    w /= w.sum()
                    shares.append(float(1.0 / (w ** 2).sum() / worlds))
            game.apply(players[seat].act(view))
    return {"decisions": len(ranks), "rank": float(np.mean(ranks)) if ranks else float("nan"),
            "ess_share": float(np.mean(shares)) if shares else float("nan")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="widow")
    parser.add_argument("--model", default="models/widow", help="the policy that models the others")
    parser.add_argument("--opponent", default="search")
    parser.add_argument("--games", type=int, default=480)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worlds", type=int, default=24)
    parser.add_argument("--temperature", type=float, nargs="*", default=[1.0])
    parser.add_argument("--draws", type=int, nargs="*", default=[1, 10])
    parser.add_argument("--rank-matches", type=int, default=40)
    args = parser.parse_args(argv)
    model = load_agent(args.model, variant=args.variant, search=False)
    for temperature in args.temperature:
        rank = true_deal_rank(args.variant, NetworkBelief(model, temperature), args.rank_matches, args.seed)
        print(f"temperature {temperature}: the true deal's rank among 48 sampled worlds {rank['rank']:.3f} "
              f"(0.5: no knowledge), weights' effective sample size {rank['ess_share']:.1%} of the worlds, "
              f"{rank['decisions']} decisions of {args.rank_matches} matches")
    agents = [BeliefSearch(worlds=args.worlds, name="uniform")]
    for temperature in args.temperature:
        for draws in args.draws:
            agents.append(BeliefSearch(NetworkBelief(model, temperature), draws, worlds=args.worlds,
                                       name=f"belief(temperature={temperature}, draws={draws})"))
    print(f"{args.variant}: each agent minus {args.opponent} per deal, {args.worlds} worlds rolled out, "
          f"arena seed {args.seed}; paired: minus `uniform` on the same duplicate groups")
    rows, uniform = [], None
    for agent in agents:
        result = run_arena([agent, args.opponent], variant=args.variant, games=args.games, seed=args.seed,
                           workers=args.workers, progress=False)
        row = margin_row(result, agent.name)
        groups = _group_margins(result, agent.name)
        if uniform is None:
            uniform = groups
        else:
            row["paired"] = _paired(groups - uniform)
        rows.append((agent.name, row))
    print_rows("in the one seat", rows)
    for name, row in rows[1:]:
        mean, low, high, p = row["paired"]
        print(f"{name} minus uniform, paired: {mean:+.4f} [{low:+.4f}, {high:+.4f}] (95%), p {p:.2g}")
    return 0


def _group_margins(result: dict, name: str) -> np.ndarray:
    """Per duplicate group: ``name``'s mean per deal minus the other agent's."""
    from benchmarks.seeds import margins

    return margins({"result": result}, name, next(a for a in result["agents"] if a != name))


def _paired(differences: np.ndarray) -> tuple[float, float, float, float]:
    """The mean of paired group differences, its 95% bootstrap interval and the paired p-value."""
    from agents.stats import bootstrap_ci, paired_test

    low, high = bootstrap_ci(differences)
    return float(differences.mean()), low, high, paired_test(differences)


if __name__ == "__main__":
    sys.exit(main())
