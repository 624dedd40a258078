"""Determinized Monte Carlo search (see docs/agents.md).

For each decision the agent samples worlds consistent with what its seat has
seen (``view.sample_world``, R11: the whole deal and its hidden choices dealt
anew), plays every legal action in each world on a copy of it, finishes the
deal with fast rollouts (every player follows
:func:`agents.heuristics.greedy_action`), and picks the action with the best
mean result; with blind trades it keeps the expected-value agent's choice
unless another action is clearly better.  All actions are scored on the same
worlds (common random numbers), so their differences are much less noisy than
their values.  The budget is a number of worlds per decision, or milliseconds.
Where no world consistent with the view is found in time (some very long deals,
``NoConsistentDealError``) it plays the expected-value agent's choice instead.

Where the rollouts run is ``engine``: ``"batched"`` (the default) plays every
world and action of a decision together on the batched engine
(:mod:`agents.batched_search`); ``"readable"`` plays them one by one on copies
of the sampled worlds (:func:`rollout`), the reference.  Both sample the same
worlds from the same seed and give the same results, so they choose alike.
"""

from __future__ import annotations

import math
import random
import time
import warnings
from collections.abc import Callable
from functools import partial
from itertools import islice

import numpy as np

from commerce_env.checks import whole_number
from commerce_env.engine.actions import EXCHANGE
from commerce_env.engine.base import HORSE, Game
from commerce_env.engine.determinize import TIME_LIMIT, NoConsistentDealError
from commerce_env.rules import Rules
from commerce_env.view import SeatView, seat_view

from .base import Agent
from .heuristics import (
    ExpectedValueAgent,
    Value,
    flag_argument,
    greedy_action,
    life_shares,
    number_argument,
    quantile_key,
    value_function,
)

MAX_WORLDS = 10_000
"""The most worlds a decision may sample: beyond it one decision takes minutes."""
MAX_MS = 60_000
"""The longest time budget of a decision, in milliseconds (a minute)."""
ENGINES = ("batched", "readable")
"""Where the rollouts run: the batched engine, or the readable one (the reference)."""
WORLDS_PER_CHUNK = 8
"""With a time budget (``ms``), the batched rollouts sample and play this many worlds between looks at the clock."""
_WARNED: set[str] = set()  # the reasons already given for rolling out on the readable engine


def _warn_once(reason: str) -> None:
    """Say once per reason why a batched search rolls out on the readable engine."""
    if reason not in _WARNED:
        _WARNED.add(reason)
        warnings.warn(f"search: {reason}; its rollouts run on the readable engine", RuntimeWarning, stacklevel=3)


def deal_value(game: Game, seat: int) -> float:
    """What ``seat`` holds, in reward units: counters, or, where lives are not money
    (pool commerce, R9), money plus its share of the pool: the chance that its lives
    outlast everyone's (R9.5, :func:`agents.heuristics.life_shares`)."""
    if not game.plays_for_money:
        return float(game.counters[seat])
    return game.money[seat] + game.pool * life_shares(tuple(game.lives))[seat]


def rollout(world: Game, seat: int, threshold: int, value: Value, first: int | None = None,
            barter: bool = False, max_actions: int = 2000, others: Agent | None = None,
            own: Agent | None = None) -> float:
    """Take ``first`` in ``world``, then play to the end of its deal with the greedy
    policy for everyone (or, with ``others``, that agent, given seat views, for every
    seat but ``seat``: a best response's rollout; with ``own``, that agent for ``seat``'s
    later moves too); the change of ``seat``'s holdings (the deal's payments, before the
    next ante).  ``world`` is used up."""
    start = deal_value(world, seat)
    world.stop_after_deal()
    if first is not None:
        world.apply(first)
    for _ in range(max_actions):
        if world.over:
            break
        player = world.current_player
        agent = own if player == seat else others
        if agent is None:
            world.apply(greedy_action(world, player, threshold, value, barter))
        else:
            world.apply(agent.act(seat_view(world, player)))
    return deal_value(world, seat) - start


class SearchAgent(Agent):
    """Determinized Monte Carlo with greedy rollouts; ``worlds`` (at most :data:`MAX_WORLDS`)
    or ``ms`` (at most :data:`MAX_MS`) per decision; the rollouts run on the batched engine, or
    with ``engine="readable"`` on the readable one (the module docstring).

    With a ``prior`` the search starts from the expected-value agent's choice
    and switches to another action only when the rollouts, on the same worlds,
    show it better by more than ``margin`` standard errors of the paired
    difference; without, it takes the plain argmax.  The default (``None``)
    uses the prior in the variants with blind trades (trade and barter, My Ship
    Sails), where greedy rollouts are the weakest model of the other players,
    and not with a face-up table, where the plain search measured better
    (docs/agents.md).

    A re-deal of the hidden cards that finds no consistent world within
    ``redeal_ms`` milliseconds gives up (some very long deals); the decision is
    then the expected-value agent's (:meth:`fallback_action`).
    """

    name = "search"

    def __init__(self, worlds: int = 24, ms: float | None = None, rollout_quantile: float | None = None,
                 barter: bool = True, prior: bool | None = None, margin: float = 1.0, candidates: int | None = 4,
                 seed: int | None = None, engine: str = "batched", redeal_ms: float = 1000 * TIME_LIMIT):
        self.worlds = number_argument("worlds", worlds, 1, MAX_WORLDS, whole=True)
        self.ms = None if ms is None else number_argument("ms", ms, 0, MAX_MS, above_low=True)
        # A hand has 3 cards and the table 3: at most 9 exchanges to choose among (R6.3, R8.2).
        self.candidates = None if candidates is None else number_argument("candidates", candidates, 1, 9, whole=True)
        self.rollout_quantile = (None if rollout_quantile is None
                                 else number_argument("rollout_quantile", rollout_quantile, 0.0, 1.0))
        self.barter = flag_argument("barter", barter)
        self.margin = number_argument("margin", margin, 0.0, math.inf)
        self.use_prior = flag_argument("prior", prior, optional=True)
        self.prior = ExpectedValueAgent()
        if seed is not None:
            whole_number("seed (or None)", seed)
        self.rng = random.Random(None if seed is None else int(seed))
        if not isinstance(engine, str) or engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        self.engine = engine
        self.redeal_ms = number_argument("redeal_ms", redeal_ms, 0, MAX_MS, above_low=True)
        self.fallbacks = 0  # decisions played by fallback_action
        self._rollouts = None  # agents.batched_search.BatchedRollouts, made at the first batched decision
        self._refusals: dict[tuple, str | None] = {}  # (rules, players): why the batched engine cannot serve
        self.last_values: dict[int, float] = {}  # action -> mean result at the last decision

    def reset(self, seat: int, num_players: int, rules: Rules, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)

    def rollout_threshold(self, view: SeatView) -> int:
        """The hand value at which the rollouts' players stop: the ``rollout_quantile`` of all
        hands, by default 0.9 where a stand leaves the others drawing (R8.2, so stopping
        early is costly) and 0.6 otherwise."""
        quantile = self.rollout_quantile
        if quantile is None:
            quantile = 0.9 if view.engine.pass_ends_turns else 0.6
        return quantile_key(view.engine, view.rules.combinations, quantile)

    def candidate_actions(self, view: SeatView) -> list[int]:
        """The actions worth a rollout: every one, except that of the exchanges with a
        face-up table (R6.3, R8.2) only the ``candidates`` leaving the best hands now."""
        legal = list(view.legal_actions)
        exchanges = [a for a in legal if a >= EXCHANGE]
        if self.candidates is None or len(exchanges) <= self.candidates or not view.engine.has_table:
            return legal

        def after(action: int) -> int:
            own, slot = divmod(action - EXCHANGE, 3)
            cards = list(view.hand)
            cards[own] = view.table[slot]
            return view.hand_value(cards)

        kept = sorted(exchanges, key=after, reverse=True)[:self.candidates]
        return [a for a in legal if a < EXCHANGE or a in kept]

    def rollout_actions(self, view: SeatView, include: tuple[int, ...] = ()) -> list[int]:
        """The candidate actions and those of ``include``, each rolled out in every world."""
        legal = self.candidate_actions(view)
        return legal + [a for a in include if a not in legal]

    def batched_rollouts(self, view: SeatView):
        """The batched engine's rollouts (:class:`agents.batched_search.BatchedRollouts`), or None
        where they cannot serve: the engine is ``readable``, or the batched engine is not
        installed or refuses these rules (said once per reason)."""
        if self.engine != "batched":
            return None
        key = (view.rules, view.num_players)
        if key not in self._refusals:
            self._refusals[key] = self._batched_refusal(view)
        why = self._refusals[key]
        if why is not None:
            _warn_once(why)
            return None
        return self._rollouts

    def _batched_refusal(self, view: SeatView) -> str | None:
        """Why the batched engine cannot roll out for this view's rules and players, or None."""
        try:
            from .batched_search import BatchedRollouts
        except ImportError as error:  # the extra `vector` (numba) is not installed
            return f"the batched engine needs the extra `vector` ({error})"
        if self._rollouts is None:
            self._rollouts = BatchedRollouts()
        try:
            self._rollouts.engine(view.rules, view.num_players, 1)
        except ValueError as error:
            return f"the batched engine refuses {view.variant} with {view.num_players} players ({error})"
        return None

    def rollout_plan(self, view: SeatView, include: tuple[int, ...] = (), worlds: int | None = None,
                     rng: random.Random | None = None, actions: list[int] | None = None):
        """One decision's rollouts for the batched engine (:class:`agents.batched_search.Rollouts`):
        ``worlds`` (default :attr:`worlds`) worlds sampled from the view with ``rng`` (default
        the agent's), exactly as the readable search samples them (as rows of the batched
        engine where it serves), and ``actions`` (default those of :meth:`rollout_actions`)."""
        from .batched_search import Rollouts

        count = self.worlds if worlds is None else worlds
        rng = self.rng if rng is None else rng
        rollouts = self.batched_rollouts(view)
        limit = self.redeal_ms / 1000.0
        sampled = (list(islice(view.world_stream(rng, limit), count)) if rollouts is None
                   else rollouts.sample(view, rng, count, limit))
        return Rollouts(view, sampled, self.rollout_actions(view, include) if actions is None else actions,
                        self.rollout_threshold(view), self.barter)

    def evaluate(self, view: SeatView, include: tuple[int, ...] = (),
                 rng: random.Random | None = None) -> dict[int, np.ndarray]:
        """Each candidate action's (and each of ``include``'s) result in each world sampled with
        ``rng`` (default the agent's; rows share worlds).  ``NoConsistentDealError`` where a world
        is not found within ``redeal_ms``."""
        deadline = None if self.ms is None else time.perf_counter() + self.ms / 1000.0
        rng = self.rng if rng is None else rng
        rollouts = self.batched_rollouts(view)
        if rollouts is not None:
            return self._evaluate_batched(rollouts, view, include, deadline, rng)
        legal = self.rollout_actions(view, include)
        engine, combos = view.engine, view.rules.combinations
        threshold = self.rollout_threshold(view)
        value = value_function(engine, combos)
        results: dict[int, list[float]] = {a: [] for a in legal}
        worlds = view.world_stream(rng, self.redeal_ms / 1000.0)
        while True:
            world = next(worlds)
            for action in legal:
                results[action].append(rollout(world.clone(), view.seat, threshold, value, action, self.barter))
            if deadline is None:
                if len(results[legal[0]]) >= self.worlds:
                    break
            elif time.perf_counter() >= deadline:
                break
        return {a: np.array(v) for a, v in results.items()}

    def _evaluate_batched(self, rollouts, view: SeatView, include: tuple[int, ...], deadline: float | None,
                          rng: random.Random) -> dict[int, np.ndarray]:
        """:meth:`evaluate` on the batched engine: all worlds at once (in parts of at most
        ``MAX_ROWS`` rollouts, memory), or with a time budget :data:`WORLDS_PER_CHUNK` at a
        time until it is spent."""
        from .batched_search import MAX_ROWS

        actions = self.rollout_actions(view, include)
        per_run = max(1, MAX_ROWS // len(actions))
        parts: list[dict[int, np.ndarray]] = []
        left = self.worlds
        while True:
            count = min(left, per_run) if deadline is None else WORLDS_PER_CHUNK
            parts += rollouts.run([self.rollout_plan(view, include, count, rng, actions)])
            left -= count
            if (left <= 0) if deadline is None else time.perf_counter() >= deadline:
                break
        return {a: np.concatenate([part[a] for part in parts]) for a in parts[0]}

    def immediate_action(self, view: SeatView) -> int | None:
        """The action where no rollout is needed (one legal action; the horse, R9.4), else None."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        if view.phase == HORSE:  # R9.4: after the deal; the rollouts stop at its end
            return self.prior.act(view)
        return None

    def default_action(self, view: SeatView, deferred: bool = False) -> int | Callable[[], int] | None:
        """The prior's action where the search starts from it (``prior``), else None.  With
        ``deferred``, where every legal action is rolled out anyway (so the prior's is too), a
        function that gives it instead: :meth:`choose` asks it only when the rollouts leave the
        choice open, and the prior is as costly as a third of a batched decision."""
        use_prior = self.use_prior
        if use_prior is None:
            use_prior = view.engine.blind_trades
        if not use_prior:
            return None
        if deferred and len(self.candidate_actions(view)) == len(view.legal_actions):
            return partial(self.prior.act, view)
        return self.prior.act(view)

    def choose(self, results: dict[int, np.ndarray], default: int | Callable[[], int] | None) -> int:
        """The choice rule: the best mean (the lowest action among equals); with a ``default``,
        that unless the best beats it by more than ``margin`` standard errors of the difference.
        A deferred ``default`` (:meth:`default_action`) is asked only if the best does not beat
        every other action so: else the best is chosen whichever the default is."""
        self.last_values = {a: float(v.mean()) for a, v in results.items()}
        best_value = max(self.last_values.values())
        best = min(a for a in results if self.last_values[a] >= best_value - 1e-12)
        if default is None:
            return best
        if callable(default):
            if all(self._beats(results[best], results[a]) for a in results if a != best):
                return best
            default = default()
        return best if self._beats(results[best], results[default]) else default

    def _beats(self, best: np.ndarray, other: np.ndarray) -> bool:
        """Whether ``best`` beats ``other`` by more than ``margin`` standard errors of their
        paired difference (never with one world)."""
        gain = best - other
        return len(gain) > 1 and gain.mean() > self.margin * gain.std(ddof=1) / np.sqrt(len(gain))

    def fallback_action(self, view: SeatView) -> int:
        """The action where no world consistent with the view was found within ``redeal_ms``
        (``NoConsistentDealError``, some very long deals): the prior's, which needs no re-deal
        (the expected-value agent's; a learned model's own where it searches; docs/agents.md);
        counted in :attr:`fallbacks`."""
        self.fallbacks += 1
        self.last_values = {}
        return self.prior.act(view)

    def act(self, view: SeatView) -> int:
        action = self.immediate_action(view)
        if action is not None:
            return action
        default = self.default_action(view, deferred=True)
        try:
            results = self.evaluate(view, rolled_out(default))
        except NoConsistentDealError:
            return self.fallback_action(view)
        return self.choose(results, default)


def rolled_out(default: int | Callable[[], int] | None) -> tuple[int, ...]:
    """The actions to roll out beside the candidates: a default known before the rollouts
    (:meth:`SearchAgent.default_action`)."""
    return (default,) if isinstance(default, int) else ()
