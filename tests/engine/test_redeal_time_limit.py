"""A re-deal that finds no consistent world gives up at its time limit, and search then plays its
fallback (docs/agents.md): some very long deals of blind trades (R5.3, R5.4, R12's ``max_rounds``)
have no re-deal the determinizer can find (R11), and it once searched for minutes before saying so."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.heuristics import ExpectedValueAgent
from agents.search import SearchAgent
from commerce_env.engine import determinize, new_game
from commerce_env.engine.actions import DECLINE, KNOCK
from commerce_env.engine.determinize import MAX_ATTEMPTS, NoConsistentDealError
from commerce_env.rules import make_rules
from commerce_env.view import seat_view

LIMIT = 0.05  # seconds: a small part of what the attempts take (each some milliseconds in Python)


def long_deal(moves: int = 400, seed: int = 4):
    """The view of the player to act ``moves`` actions into one deal of trade and barter, 4 players,
    discards under the stock (R5.3), ``max_rounds`` 1000 (R12), never a knock or a decline (R4.4):
    with these arguments a deal in which the determinizer finds no re-deal."""
    rules = make_rules("trade_barter", max_rounds=1000, discard="bottom")
    game, rng = new_game(rules, 4, seed=seed), random.Random(seed)
    for _ in range(moves):
        actions = [a for a in game.legal_actions() if a not in (KNOCK, DECLINE)]
        game.apply(rng.choice(actions or game.legal_actions()))
    assert game.deals_dealt == 1 and not game.over
    return seat_view(game, game.current_player)


@pytest.fixture(scope="module")
def view():
    return long_deal()


def test_a_re_deal_that_finds_nothing_gives_up_at_its_time_limit(view):
    # R11: the limit, not the attempts, ends it; a RuntimeError still, as before.
    sampler = view.deal_sampler()
    sampler.prepare()  # the constraints and needs, worked out before the clock starts
    with pytest.raises(NoConsistentDealError) as caught:
        sampler.sample(random.Random(0), time_limit=LIMIT)
    assert 0 < caught.value.attempts < MAX_ATTEMPTS
    assert isinstance(caught.value, RuntimeError)


def test_sample_world_gives_up_at_the_default_limit(view):
    # The reproducer itself: seat_view(...).sample_world(rng) searched its 1,000 attempts for minutes.
    with pytest.raises(NoConsistentDealError) as caught:
        view.sample_world(random.Random(0))
    assert caught.value.attempts < MAX_ATTEMPTS


def test_the_compiled_re_deal_gives_up_alike(view):
    # The compiled twin (commerce_env.vector.determinize) draws the same worlds as the Python one:
    # it finds none in all its attempts, and gives up at the limit as the Python one does.
    pytest.importorskip("numba")
    from commerce_env.vector import BatchEngine
    from commerce_env.vector.determinize import compiles, sample_places

    sampler = view.deal_sampler()
    sampler.prepare()
    assert compiles(sampler, random.Random(0), 4)
    with pytest.raises(NoConsistentDealError) as caught:
        sample_places(sampler, random.Random(0), 1, 4, time_limit=None)
    assert caught.value.attempts == MAX_ATTEMPTS  # a deal with no re-deal to find, not a slow one
    with pytest.raises(NoConsistentDealError) as caught:
        sample_places(sampler, random.Random(0), 1, 4, time_limit=LIMIT)
    assert 0 < caught.value.attempts < MAX_ATTEMPTS
    engine = BatchEngine("trade_barter", 4, 1, rules=view.rules, wait_for_packs=True)
    with pytest.raises(NoConsistentDealError):
        engine.sample_rows(view, random.Random(0), 4, time_limit=LIMIT)


@pytest.mark.parametrize("engine", ["readable", "batched"])
def test_search_plays_the_expected_value_choice_where_no_world_is_found(view, engine):
    # docs/agents.md: the fallback, on both of search's engines.
    if engine == "batched":
        pytest.importorskip("numba")
    agent = SearchAgent(worlds=8, seed=1, engine=engine, redeal_ms=LIMIT * 1000)
    assert len(view.legal_actions) > 1
    action = agent.act(view)
    assert action == ExpectedValueAgent().act(view) and action in view.legal_actions
    assert agent.fallbacks == 1 and agent.last_values == {}


def test_the_batched_arena_falls_back_as_the_local_arena(monkeypatch):
    # The arena's batched path asks search for its worlds itself: it plays the same fallback.
    pytest.importorskip("numba")
    from agents.arena import run_arena

    def never(self, rng, time_limit):
        raise NoConsistentDealError(1, time_limit)
    monkeypatch.setattr(determinize.DealSampler, "_placed", never)
    results = []
    for batched in (True, False):
        result = run_arena(["search(worlds=2)", "greedy"], variant="trade_barter", num_players=2, games=8, seed=3,
                           batched=batched, progress=False)
        assert result["crash"] is None and result["games"] == 8
        results.append({k: v for k, v in result.items() if k not in ("seconds", "deals_per_second",
                                                                      "games_per_second")})
    assert results[0] == results[1]


def test_working_out_the_constraints_is_within_the_limit(view):
    # In the longest deals the constraints and needs alone take seconds: the limit covers them, and a
    # sampler that gave up keeps nothing, so a later call with more time works them out.
    sampler = view.deal_sampler()
    with pytest.raises(NoConsistentDealError) as caught:
        sampler.prepare(1e-9)
    assert caught.value.attempts == 0
    sampler.prepare(None)
    assert sampler.needs and sampler.allowed


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["trade_barter", "my_ship_sails"]), st.integers(0, 2**16), st.integers(0, 60))
def test_a_limit_changes_nothing_where_a_world_is_found(variant, seed, moves):
    # R11: the same re-deal and the same numbers drawn, with or without a limit.
    rules = make_rules(variant, max_rounds=100)
    game, rng = new_game(rules, 4, seed=seed), random.Random(seed)
    for _ in range(moves):
        if game.over or game.deals_played:
            break
        game.apply(rng.choice([a for a in game.legal_actions() if a not in (KNOCK, DECLINE)] or game.legal_actions()))
    if game.over:
        return
    view = seat_view(game, game.current_player)
    a, b = random.Random(seed), random.Random(seed)
    assert view.deal_sampler().sample(a, time_limit=None) == view.deal_sampler().sample(b, time_limit=60)
    assert a.getstate() == b.getstate()


@pytest.mark.parametrize("bad", [0, -1, math.nan, True, "1", [1]])
def test_a_bad_time_limit_is_refused_naming_it(bad):
    sampler = long_deal(moves=5).deal_sampler()
    with pytest.raises(ValueError, match="time_limit"):
        sampler.sample(random.Random(0), time_limit=bad)


@pytest.mark.parametrize("bad", [0, -1, math.nan, True, "never", [1], 10**9])
def test_a_bad_redeal_budget_is_refused_naming_it(bad):
    with pytest.raises(ValueError, match="redeal_ms"):
        SearchAgent(redeal_ms=bad)
