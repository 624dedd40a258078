"""The search's choice rule (docs/agents.md): the best mean, or the prior's action unless
the best beats it by ``margin`` standard errors; a prior asked only when it can matter
chooses exactly as one asked first."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agents.search import SearchAgent, rolled_out
from commerce_env.engine import new_game
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import seat_view


def _never_asked() -> int:
    raise AssertionError("the prior was asked though the rollouts decided")


@st.composite
def _results(draw):
    """Rollout results of 2-6 actions in 1-6 worlds, small whole numbers so that ties and
    equal paired differences are common."""
    actions = draw(st.lists(st.integers(0, 30), min_size=2, max_size=6, unique=True))
    worlds = draw(st.integers(1, 6))
    values = st.lists(st.integers(-3, 3), min_size=worlds, max_size=worlds)
    return {a: np.array(draw(values), dtype=np.float64) for a in actions}


@settings(max_examples=400, deadline=None)
@given(results=_results(), margin=st.sampled_from([0.0, 0.5, 1.0, 2.0]), data=st.data())
def test_a_deferred_prior_chooses_as_one_asked_first(results, margin, data):
    # The rule is unchanged when the prior is asked lazily: whichever action the prior would
    # name, the choice is the same, and the prior is asked only when its answer could change it.
    default = data.draw(st.sampled_from(sorted(results)))
    agent = SearchAgent(margin=margin)
    eager = agent.choose(results, default)
    asked = []
    lazy = agent.choose(results, lambda: asked.append(default) or default)
    assert lazy == eager
    if not asked:  # the best beat every other action: no prior could have kept another
        assert all(agent.choose(results, other) == lazy for other in results)


def test_the_prior_is_not_asked_when_one_action_beats_every_other():
    results = {3: np.array([2.0, 2.5, 1.5, 2.0]), 5: np.array([0.0, 0.5, -0.5, 0.0]), 7: np.array([1.0, 1.0, 0.0, 0.5])}
    assert SearchAgent(margin=1.0).choose(results, _never_asked) == 3


@pytest.mark.parametrize("results", [
    {3: np.array([1.0, 2.0]), 5: np.array([1.0, 2.0])},  # a tie: the prior keeps its own
    {3: np.array([2.0, 0.0, 2.0]), 5: np.array([0.0, 1.0, 0.0])},  # a best within the margin of another
    {3: np.array([5.0]), 5: np.array([0.0])},  # one world: never enough to leave the prior
])
def test_the_prior_is_asked_when_the_rollouts_leave_the_choice_open(results):
    assert SearchAgent(margin=1.0).choose(results, lambda: 5) == 5


def _blind_trade_decision(variant: str, seed: int, steps: int):
    """A seat view of ``variant`` after ``steps`` random actions with a choice to make, or None."""
    rng = random.Random(seed)
    game = new_game(make_rules(variant), rng.choice([2, 3, 4, 6]), seed=seed)
    for _ in range(steps):
        if game.over:
            return None
        game.apply(rng.choice(game.legal_actions()))
    if game.over or game.current_player is None:
        return None
    view = seat_view(game, game.current_player)
    return view if len(view.legal_actions) > 1 else None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10**6), steps=st.integers(0, 30),
       prior=st.sampled_from([None, True]), engine=st.sampled_from(["batched", "readable"]))
def test_search_acts_as_with_its_prior_asked_first(variant, seed, steps, prior, engine):
    # R11 views of every variant; the prior is the expected-value agent where trades are blind
    # (or asked for): the search's action is the one the rule gives with the prior asked first.
    if engine == "batched":
        pytest.importorskip("numba")
    view = _blind_trade_decision(variant, seed, steps)
    assume(view is not None)
    lazy, eager = (SearchAgent(worlds=5, seed=seed, prior=prior, engine=engine) for _ in range(2))
    action = lazy.act(view)
    if eager.immediate_action(view) is None:
        default = eager.default_action(view)
        assert rolled_out(default) == (() if default is None else (default,))
        assert action == eager.choose(eager.evaluate(view, rolled_out(default)), default)
        assert lazy.last_values == eager.last_values
    assert action in view.legal_actions
