"""Seat views from the masked record kept beside the game (commerce_env.knowledge.known_record).

Each record entry is masked once per seat and kept; these tests check that a
view built that way pickles to exactly the bytes of one rebuilt from the whole
record (the straightforward recomputation, as seat views were made before the
cache), at every decision of random matches of every variant (R11), and that
the cache is rebuilt when the game gets a new record.
"""

from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import game_setups, setup_game

from commerce_env import knowledge, view
from commerce_env.engine import new_game
from commerce_env.engine.base import DEAL
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import seat_view


def _whole_record(game, seat):
    """The seat's record and history rebuilt from every entry, as ``seat_view`` did before the cache."""
    full = knowledge.seat_record(game, seat)
    return full, [(s, kind, cards) for s, kind, cards, _ in full if kind != DEAL]


def _recomputed_view(game, seat):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(view, "known_record", _whole_record)
        return seat_view(game, seat)


def _assert_same_bytes(game, seat):
    fresh = pickle.dumps(_recomputed_view(game, seat))
    assert pickle.dumps(seat_view(game, seat)) == fresh, f"seat {seat}, record entry {len(game.record)}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_view_of_a_whole_match_pickles_as_the_recomputed_one(variant):  # R11
    # The variants' own matches (until one is out where they keep lives: the long ones), every seat
    # at every decision.
    rules = make_rules(variant)
    game = new_game(rules, 4, rng=random.Random(2))  # My Ship Sails: 25 deals, 275 record entries
    rng = random.Random(2)
    while not game.over:
        for seat in range(4):
            _assert_same_bytes(game, seat)
        game.apply(rng.choice(game.legal_actions()))
    for seat in range(4):  # the match's end: the showdowns, phase over
        _assert_same_bytes(game, seat)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=game_setups(max_rounds=4), looks=st.integers(0, 2**32 - 1))
def test_views_asked_at_random_moments_pickle_as_the_recomputed_ones(setup, looks):  # R11
    # Any variant, options and player count; seats look at random moments, so the cache catches up
    # over gaps of any length, across deals.
    game = setup_game(setup)
    rng, when = random.Random(setup[2]), random.Random(looks)
    for _ in range(250):
        if game.over:
            break
        for seat in range(game.num_players):
            if when.random() < 0.3:
                _assert_same_bytes(game, seat)
        game.apply(rng.choice(game.legal_actions()))
    _assert_same_bytes(game, when.randrange(game.num_players))


def test_each_entry_is_masked_once_per_seat(monkeypatch):
    # The view's cost does not grow with the match: every seat's view at every decision masks
    # each record entry once for that seat, not the whole record each time.
    calls = []
    masked = knowledge.masked
    monkeypatch.setattr(knowledge, "masked", lambda entry, bit: calls.append(1) or masked(entry, bit))
    game = new_game(make_rules("my_ship_sails"), 4, rng=random.Random(2))
    rng, views = random.Random(2), 0
    while not game.over:
        for seat in range(4):
            seat_view(game, seat)
            views += 1
        game.apply(rng.choice(game.legal_actions()))
    assert game.deals_dealt > 10 and views > 500
    assert len(calls) <= 4 * len(game.record)


def test_a_new_record_gets_new_masks():
    # A clone, a new match on the same game (reset) and a record rewritten in place (as
    # tests/test_agents.py does to move hidden cards) each give the recomputed view.
    game = new_game(make_rules("widow"), 4, rng=random.Random(1))
    rng = random.Random(1)
    for _ in range(12):
        seat_view(game, game.current_player)
        game.apply(rng.choice(game.legal_actions()))
    twin = game.clone()
    twin.apply(rng.choice(twin.legal_actions()))
    for seat in range(4):
        _assert_same_bytes(twin, seat)
        _assert_same_bytes(game, seat)
    before = seat_view(game, 0)
    game._start_match(game.dealer)  # the engine starts a new match on the same object: a new record
    assert len(game.record) < len(before._past) + len(before._deal)
    for seat in range(4):
        _assert_same_bytes(game, seat)
    for _ in range(5):
        game.apply(rng.choice(game.legal_actions()))
    seat_view(game, 1)
    game.record[-2:] = [(s, kind, cards, tuple(0 for _ in seen)) for s, kind, cards, seen in game.record[-2:]]
    _assert_same_bytes(game, 1)  # nothing of the rewritten entries is seen now
