"""The workloads timed by the benchmarks: ours and our peers', each a
``run(seconds) -> units`` function (see :mod:`benchmarks.timing`).

Random legal play everywhere: the same ``agent_iter`` loop drives our env and
PettingZoo's, so the comparison is of the environments, not of the loops.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import numpy as np

from commerce_env.rules import VARIANTS  # noqa: F401 - the variants the workloads run, for their readers

from .timing import Run, until

NUM_PLAYERS = 4


# ------------------------------------------------------------------ hands
def all_three_card_hands() -> list[tuple[int, int, int]]:
    """The 22,100 three-card hands of a 52-card pack, each sorted."""
    return list(itertools.combinations(range(52), 3))


def hand_key_run() -> Run:
    """One hand at a time through the engine's lookup (:func:`hand_key`), all 22,100 hands per pass."""
    from commerce_env.hands import COMBINATIONS, hand_key

    hands = all_three_card_hands()
    combinations = frozenset(COMBINATIONS)
    hand_key(hands[0], combinations)  # build the table outside the timing

    def run(seconds: float) -> int:
        done, count = until(seconds), 0
        while not done():
            for hand in hands:
                hand_key(hand, combinations)
            count += len(hands)
        return count

    return run


def evaluate_run() -> Run:
    """One hand at a time through the public, validating :func:`evaluate`."""
    from commerce_env.hands import evaluate

    hands = all_three_card_hands()
    evaluate(hands[0])

    def run(seconds: float) -> int:
        done, count = until(seconds), 0
        while not done():
            for hand in hands[::10]:
                evaluate(hand)
            count += len(hands[::10])
        return count

    return run


def batched_run(copies: int = 10) -> Run:
    """Batches of ``copies`` x 22,100 hands through :func:`evaluate_batch` (numpy)."""
    from commerce_env.hands import evaluate_batch

    batch = np.tile(np.array(all_three_card_hands(), dtype=np.int64), (copies, 1))
    evaluate_batch(batch[:1])

    def run(seconds: float) -> int:
        done, count = until(seconds), 0
        while not done():
            evaluate_batch(batch)
            count += len(batch)
        return count

    return run


def rlcard_hand_run(num_hands: int = 2000, seed: int = 0) -> Run:
    """Peer: RLCard's hold'em evaluator (``Hand.evaluateHand``, 7 cards), one hand at a time."""
    from rlcard.games.limitholdem.utils import Hand

    pack = [suit + rank for suit in "SCDH" for rank in "23456789TJQKA"]
    rng = random.Random(seed)
    hands = [rng.sample(pack, 7) for _ in range(num_hands)]

    def run(seconds: float) -> int:
        done, count = until(seconds), 0
        while not done():
            for cards in hands[:200]:
                Hand(cards).evaluateHand()
            count += 200
        return count

    return run


# ----------------------------------------------------------------- engine
class EngineRun:
    """Random legal play through the engine alone: whole matches of ``variant``."""

    def __init__(self, variant: str, num_players: int = NUM_PLAYERS, seed: int = 0):
        from commerce_env.engine import new_game
        from commerce_env.rules import make_rules

        self.rules = make_rules(variant)
        self.num_players = num_players
        self.new_game = new_game
        self.rng = random.Random(seed)
        self.decisions = 0
        self.deals = 0

    def __call__(self, seconds: float) -> int:
        done, rng, decisions, deals = until(seconds), self.rng, 0, 0
        rules, n, new_game = self.rules, self.num_players, self.new_game
        while not done():
            game = new_game(rules, n, rng=rng)
            while not game.over:
                legal = game.legal_actions()
                game.apply(legal[int(rng.random() * len(legal))])
                decisions += 1
            deals += game.deals_dealt
        self.decisions += decisions
        self.deals += deals
        return decisions

    @property
    def deals_per_decision(self) -> float:
        return self.deals / self.decisions if self.decisions else float("nan")


class RLCardLeducRun:
    """Peer: random legal play through RLCard's raw Leduc hold'em game (no env)."""

    def __init__(self, seed: int = 0):
        from rlcard.games.leducholdem.game import LeducholdemGame

        self.game = LeducholdemGame()
        self.game.np_random = np.random.RandomState(seed)
        self.rng = random.Random(seed)
        self.decisions = 0
        self.deals = 0

    def __call__(self, seconds: float) -> int:
        done, rng, game, decisions, deals = until(seconds), self.rng, self.game, 0, 0
        while not done():
            game.init_game()
            while not game.is_over():  # RLCard's game
                legal = game.get_legal_actions()
                game.step(legal[int(rng.random() * len(legal))])
                decisions += 1
            deals += 1
        self.decisions += decisions
        self.deals += deals
        return decisions

    @property
    def deals_per_decision(self) -> float:
        return self.deals / self.decisions if self.decisions else float("nan")


# -------------------------------------------------------------------- env
def agent_iter_run(make_env: Callable[[], object], seed: int = 0) -> Run:
    """The standard PettingZoo loop with random legal actions; counts agent-steps
    (every ``step`` call, the ``None`` steps of finished agents included)."""
    env = make_env()
    rng = random.Random(seed)
    episode = itertools.count(seed)

    def run(seconds: float) -> int:
        done, steps = until(seconds), 0
        while not done():
            env.reset(seed=next(episode))
            for _agent in env.agent_iter():
                observation, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    action = None
                else:
                    legal = np.flatnonzero(observation["action_mask"])
                    action = int(legal[int(rng.random() * len(legal))])
                env.step(action)
                steps += 1
        return steps

    return run


def commerce_env_run(variant: str, num_players: int = NUM_PLAYERS) -> Run:
    import commerce_env

    return agent_iter_run(lambda: commerce_env.env(variant=variant, num_players=num_players))


def pettingzoo_run(name: str) -> Run:
    """Peer: a PettingZoo classic env (``leduc_holdem_v4``, ``texas_holdem_v4``) through ``env()``."""
    import importlib

    module = importlib.import_module(f"pettingzoo.classic.{name}")
    return agent_iter_run(module.env)


# ------------------------------------------------------------------ arena
def greedy_pair() -> list:
    """Two batchable agents, as an evaluation's learner and baseline: ``greedy`` and a
    more cautious greedy (knocks on a better hand), six seatings per duplicate group."""
    from agents.heuristics import GreedyAgent

    cautious = GreedyAgent(quantile=0.8)
    cautious.name = "greedy_0.8"
    return ["greedy", cautious]


class ArenaRun:
    """Duplicate deals between ``lineup`` (default four ``greedy``) through
    :func:`agents.arena.run_arena` on ``workers`` processes, on the local path or the batched
    one (``batched``); each run is sized to last about ``seconds`` by the runs before it, the
    first of them untimed (it also loads the batched engine's compiled code)."""

    def __init__(self, workers: int, variant: str = "trade_barter", num_players: int = NUM_PLAYERS,
                 batched: bool = False, lineup: list | None = None):
        from agents.arena import run_arena

        self.run_arena = run_arena
        self.lineup = lineup or ["greedy"]
        self.workers = workers
        self.variant = variant
        self.num_players = num_players
        self.batched = batched
        self.seed = 0
        self.rate = 0.0  # games (episodes) per second seen so far, to size the next run
        self._play(256 if batched else 8)

    def _play(self, games: int) -> dict:
        self.seed += 1
        result = self.run_arena(self.lineup, variant=self.variant, num_players=self.num_players, games=games,
                                seed=self.seed, workers=self.workers, progress=False, batched=self.batched)
        self.rate = max(self.rate, result["games_per_second"])
        return result

    def __call__(self, seconds: float) -> int:
        result = self._play(max(self.workers, int(self.rate * seconds)))
        return int(result["deals_played"])
