"""Search's worlds as rows of the batched engine (commerce_env.vector.sampled): the rows of the
very worlds ``view.sample_worlds`` deals (R11), drawn with the same numbers."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from strategies import game_setups, setup_game  # noqa: E402

from commerce_env.engine import new_game  # noqa: E402
from commerce_env.rules import make_rules  # noqa: E402
from commerce_env.vector import BatchEngine  # noqa: E402
from commerce_env.vector import row as K  # noqa: E402, N812
from commerce_env.vector.load import game_row  # noqa: E402
from commerce_env.vector.sampled import sampled_rows  # noqa: E402
from commerce_env.view import seat_view  # noqa: E402


def rows_of_worlds(view, rng, count, engine):
    """What sampled_rows must give: each world of ``view.sample_worlds`` written by game_row."""
    offsets = engine.params.tolist()
    rows = [game_row(w, offsets, knowledge=False) for w in view.sample_worlds(rng, count)]
    return np.array(rows, dtype=np.int64).reshape(count, int(engine.params[K.P_WIDTH]))


def decision_views(game, rng, limit=4):
    """Seat views at up to ``limit`` random points of random legal play."""
    while not game.over and limit:
        if rng.random() < 0.3:
            limit -= 1
            yield seat_view(game, rng.randrange(game.num_players))
        game.apply(rng.choice(game.legal_actions()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups(max_rounds=4), st.integers(0, 2**32 - 1), st.integers(0, 8))
def test_the_rows_are_those_of_the_sampled_worlds(setup, play_seed, count):
    # R11: the rows hold exactly the worlds the readable search would sample, nothing else.
    rules, num_players = setup[0], setup[1]
    try:
        engine = BatchEngine(rules.variant, num_players, 1, rules=rules, wait_for_packs=True)
    except ValueError:
        assume(False)
    rng = random.Random(play_seed)
    for view in decision_views(setup_game(setup), rng):
        fast, slow = random.Random(play_seed), random.Random(play_seed)
        rows = sampled_rows(view, fast, count, engine.params)
        assert np.array_equal(rows, rows_of_worlds(view, slow, count, engine))
        assert fast.getstate() == slow.getstate()  # the same numbers drawn: later draws agree too


@pytest.mark.parametrize("variant, shuffles_only", [("widow", True), ("old_game", True), ("pool", True),
                                                    ("trade_barter", False), ("my_ship_sails", False)])
def test_the_shuffle_plan_serves_where_no_hidden_choice_is_drawn(variant, shuffles_only):
    # With a face-up table every move is seen (R6.3, R8.2): after one sample only the unseen cards'
    # shuffle is left.  Blind trades (R5.4, R7.2) and ready money (R5.3) leave hidden choices.
    rules = make_rules(variant)
    rng = random.Random(3)
    plans = []
    for seed in range(20):
        game = new_game(rules, 4, seed=seed)
        for _ in range(6):  # a few moves into the deal, so that hidden choices can have been made
            if game.over:
                break
            game.apply(rng.choice(game.legal_actions()))
        if game.over:
            continue
        sampler = seat_view(game, game.current_player).deal_sampler()
        sampler.sample(rng)
        plans.append(sampler.shuffle_plan() is not None)
    assert plans and (all(plans) if shuffles_only else not all(plans))


def test_bad_rows_places_views_and_counts_are_refused_naming_them():
    engine = BatchEngine("widow", 4, 3)
    width = int(engine.params[K.P_WIDTH])
    with pytest.raises(ValueError, match=r"rows must be int64 of shape \(games, "):
        engine.load_rows(np.zeros((2, 5), dtype=np.int64), [0, 1])
    with pytest.raises(ValueError, match="rows must be int64"):
        engine.load_rows(np.zeros((2, width)), [0, 1])  # floats would be cut to whole numbers
    for where in ([-1, 0], [0, 0], [0, 3], [True, False]):
        with pytest.raises(ValueError, match="where must"):
            engine.load_rows(np.zeros((2, width), dtype=np.int64), where)
    view = seat_view(new_game(make_rules("trade_barter"), 4, seed=1), 0)
    for other in (BatchEngine("trade_barter", 3, 2), BatchEngine("widow", 4, 2)):
        with pytest.raises(ValueError, match="cannot be games of this engine: it is trade_barter with 4"):
            other.sample_rows(view, random.Random(1), 2)
    same = BatchEngine("trade_barter", 4, 2)
    with pytest.raises(ValueError, match="bad value -1 for count; expected a whole number of at least 0"):
        same.sample_rows(view, random.Random(1), -1)
    with pytest.raises(ValueError, match="for count; expected a whole number"):
        view.sample_worlds(random.Random(1), -1)
    with pytest.raises(TypeError, match="rng must be a random.Random, got Generator"):
        view.sample_worlds(np.random.default_rng(1), 2)


def test_a_view_that_deals_its_own_worlds_gets_them_searched():
    # A subclass's sample_world (research's oracle hands search the true deal) is what search plays.
    import dataclasses

    from agents.search import SearchAgent
    from commerce_env.view import SeatView

    game = new_game(make_rules("widow"), 4, seed=5)
    view = seat_view(game, game.current_player)

    @dataclasses.dataclass(frozen=True, eq=False)
    class TrueDeal(SeatView):
        def sample_world(self, rng):
            return game.clone()

    true_view = TrueDeal(**{f.name: getattr(view, f.name) for f in dataclasses.fields(SeatView)})
    agent = SearchAgent(worlds=3, seed=0)
    assert agent.batched_rollouts(true_view) is not None
    plan = agent.rollout_plan(true_view)
    assert [w.hands for w in plan.worlds] == [game.hands] * 3
    assert not isinstance(agent.rollout_plan(view).worlds, list)  # a plain view: rows, re-dealt (R11)
    with pytest.raises(ValueError, match="TrueDeal deals its own worlds"):
        BatchEngine("widow", 4, 1).sample_rows(true_view, random.Random(0), 2)
