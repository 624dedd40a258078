"""No information leak (docs/rules.md R11) and the determinization that search agents use.

At random decision points of every variant the cards hidden from a seat are
re-dealt consistently with what it has seen (``seat_view(...).sample_world``); its observation
and the action mask must not change.  The re-deal itself is checked by
replaying it: the re-dealt pack and history must give the seat exactly the
observations it had in the true game.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import make_deck
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import assert_invariants, game_setups, setup_game

from commerce_env.cards import parse_cards
from commerce_env.engine import new_game
from commerce_env.engine.determinize import TIME_LIMIT
from commerce_env.observation import encode
from commerce_env.rules import make_rules
from commerce_env.view import seat_view


def determinize(game, seat, rng=None, time_limit=TIME_LIMIT):
    """A world sampled from what ``seat`` knows (R11), as ``sample_world`` samples it, the re-deal
    given ``time_limit`` seconds."""
    view, rng = seat_view(game, seat), rng or random.Random()
    if time_limit == TIME_LIMIT:
        return view.sample_world(rng)
    world_rng = random.Random(rng.getrandbits(64))  # as sample_worlds draws it
    return view.world_of(view.deal_sampler().sample(rng, time_limit), world_rng)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _play_to_points(game, rng, chance=0.3, limit=4):
    """Random legal play; yields the game at up to ``limit`` random decision points."""
    stops = 0
    while not game.over and stops < limit:
        if rng.random() < chance:
            stops += 1
            yield game
        game.apply(rng.choice(game.legal_actions()))


@SETTINGS
@given(game_setups(max_rounds=4), st.integers(0, 2**32 - 1))
def test_observation_and_mask_ignore_hidden_cards(setup, play_seed):
    # R11: nothing in an observation or the mask depends on a card the observer has not seen.
    game = setup_game(setup)
    total = game.total_value()
    rng = random.Random(play_seed)
    for point in _play_to_points(game, rng):
        for seat in range(point.num_players):
            seen = encode(point, seat)
            for _ in range(2):
                other = determinize(point, seat, rng)
                assert_invariants(other, total)
                assert np.array_equal(encode(other, seat), seen)
                assert other.legal_actions() == point.legal_actions()
                assert other.table == point.table  # face up (R6.1, R8.1)
                if point.sees_own_hand(seat):
                    assert other.hands[seat] == point.hands[seat]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups(max_rounds=4), st.integers(0, 2**32 - 1))
def test_a_redeal_depends_only_on_what_the_seat_knows(setup, play_seed):
    # R11 for search agents: two games that look alike to a seat give it the same re-deal.
    game = setup_game(setup)
    rng = random.Random(play_seed)
    for point in _play_to_points(game, rng, limit=3):
        seat = rng.randrange(point.num_players)
        lookalike = determinize(point, seat, rng)
        first = determinize(point, seat, random.Random(play_seed))
        second = determinize(lookalike, seat, random.Random(play_seed))
        for name in ("hands", "table", "stock", "discards", "record", "deal_pack", "offer"):
            assert getattr(first, name) == getattr(second, name), name
        assert first.rng.getstate() == second.rng.getstate() and first.decks == second.decks == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups(max_rounds=4), st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_many_worlds_at_once_are_the_worlds_sampled_one_by_one(setup, play_seed, count):
    # R11 for search: sample_worlds only saves work; the worlds and the numbers drawn are sample_world's.
    game = setup_game(setup)
    rng = random.Random(play_seed)
    for point in _play_to_points(game, rng, limit=3):
        view = seat_view(point, rng.randrange(point.num_players))
        one, many = random.Random(play_seed), random.Random(play_seed)
        singles = [view.sample_world(one) for _ in range(count)]
        together = view.sample_worlds(many, count)
        assert one.getstate() == many.getstate() and len(together) == count
        for first, second in zip(singles, together, strict=True):
            for name in ("hands", "table", "stock", "discards", "record", "offer"):
                assert getattr(first, name) == getattr(second, name), name
            assert first.rng.getstate() == second.rng.getstate()


def _replay(rules, num_players, dealer, pack, texts, seat):
    """The observations of ``seat`` along a match replayed from one pack and its action texts."""
    game = new_game(rules, num_players, decks=[pack], dealer=dealer)
    seen = [encode(game, seat).tobytes()]
    for actor, text in texts:
        assert game.current_player == actor
        game.apply(game.action_from_text(text, actor))
        seen.append(encode(game, seat).tobytes())
    return game, seen


@SETTINGS
@given(game_setups(max_rounds=4), st.integers(0, 2**32 - 1))
def test_a_redeal_replays_to_the_same_observations(setup, play_seed):
    # R11: the re-dealt deal is one the seat could be in: same public actions, same observations.
    rules, num_players, seed, dealer = setup
    game = new_game(rules, num_players, seed=seed, dealer=dealer)
    rng = random.Random(play_seed)
    observed = [[encode(game, s).tobytes()] for s in range(num_players)]
    while not game.over and game.deals_dealt == 1:  # the match's first deal: replayable from its pack
        if rng.random() < 0.3:
            seat = rng.randrange(num_players)
            other = determinize(game, seat, rng)
            replayed, seen = _replay(rules, num_players, dealer, other.deal_pack, other.history_texts(), seat)
            assert seen == observed[seat]
            assert replayed.hands == other.hands and replayed.table == other.table
            assert replayed.stock == other.stock and replayed.discards == other.discards
            assert replayed.record[1:] == other.record[1:] and replayed.offer == other.offer
        game.apply(rng.choice(game.legal_actions()))
        for s in range(num_players):
            observed[s].append(encode(game, s).tobytes())


@pytest.mark.parametrize("variant, num_players, options", [
    ("trade_barter", 7, {"discard": "bottom", "max_rounds": 20, "stand_after_trade": True}),
    ("trade_barter", 3, {"max_rounds": 20}),
    ("my_ship_sails", 4, {"max_rounds": 20, "deals": 1}),
    ("my_ship_sails", 12, {"deals": 1}),
])
def test_long_deals_redeal_consistently(variant, num_players, options):
    # R11 over long deals: many barters back and forth, bottom discards drawn again (R5.3).
    rules = make_rules(variant, **options)
    rng = random.Random(11)
    for seed in range(3):
        game = new_game(rules, num_players, seed=seed, dealer=0)
        observed = [[encode(game, s).tobytes()] for s in range(num_players)]
        while not game.over and game.deals_dealt == 1:
            if rng.random() < 0.25:
                seat = rng.randrange(num_players)
                other = determinize(game, seat, rng)
                _, seen = _replay(rules, num_players, 0, other.deal_pack, other.history_texts(), seat)
                assert seen == observed[seat]
            game.apply(rng.choice(game.legal_actions()))
            for s in range(num_players):
                observed[s].append(encode(game, s).tobytes())


def test_a_discard_drawn_back_from_under_the_stock_is_placed_where_it_was_discarded():
    # R5.3 with discard: bottom, R11: in a long deal the stock goes round; the cards seat 0 draws
    # back are the ones the other player discarded, face down, one stock's length earlier.  A re-deal
    # must put each there, not guess it (it failed after 1,000 tries at this point of this deal).
    rules = make_rules("trade_barter", deck_size=32, max_rounds=100, discard="bottom")
    game, rng = new_game(rules, 2, seed=1, dealer=0), random.Random(1)
    observed = [encode(game, 0).tobytes()]
    for _ in range(219):  # never a knock or a decline: the deal goes on
        actions = [a for a in game.legal_actions() if a not in (0, 4)]
        game.apply(rng.choice(actions or game.legal_actions()))
        observed.append(encode(game, 0).tobytes())
    assert not game.over and sum(kind == "ready_money" for _, kind, _, _ in game.record) > 60
    for k in range(3):
        other = determinize(game, 0, random.Random(k))
        _, seen = _replay(rules, 2, 0, other.deal_pack, other.history_texts(), 0)
        assert seen == observed


@pytest.mark.parametrize("num_players, moves, options, barters_only", [
    (4, 300, {"discard": "bottom"}, False),  # it failed after 1,000 tries at this point of each deal
    (12, 3000, {"discard": "table"}, True),  # it failed after 1,000 tries (35 s) at this point
], ids=["discards-under-the-stock", "barters-alone"])
def test_long_deals_of_hidden_moves_are_redealt(num_players, moves, options, barters_only):
    # R5.3, R5.4, R11 with R12's max_rounds far above its default: hundreds of face-down discards
    # and barters.  A re-deal must still be found, and replay to the seat's very observations.
    rules = make_rules("trade_barter", max_rounds=1000, **options)
    for seed in (1, 2):
        game, rng = new_game(rules, num_players, seed=seed, dealer=0), random.Random(seed)
        seat = rng.randrange(num_players)
        observed = [encode(game, seat).tobytes()]
        for _ in range(moves):  # never a knock or a decline: the deal goes on
            actions = [a for a in game.legal_actions() if (12 <= a < 18 if barters_only else a not in (0, 4))]
            game.apply(rng.choice(actions or game.legal_actions()))
            observed.append(encode(game, seat).tobytes())
        assert game.deals_dealt == 1 and not game.over
        other = determinize(game, seat, random.Random(seed), time_limit=None)  # found, however slow the machine
        _, seen = _replay(rules, num_players, 0, other.deal_pack, other.history_texts(), seat)
        assert seen == observed


def _tb_game(actions, **options):
    """4-player trade and barter, dealer 3 (eldest 0), from a fixed pack (R1.5), after ``actions``."""
    deck = make_deck(["2C 5D 9H", "3C 6D 10H", "4C 7D JH", "AS KS QS"], dealer=3)
    game = new_game(make_rules("trade_barter", **options), 4, decks=[deck], dealer=3)
    for text in actions:
        game.apply(game.action_from_text(text))
    return game


def test_a_card_given_away_may_since_have_been_discarded():
    # R5.3, R5.4, R11: seat 0 gave 2C to seat 1, who then traded a card face down for ready money;
    # seat 0 cannot tell whether 2C went to the discards, so the re-deals must put it in both places.
    game = _tb_game(["offer 2C", "give 6D", "ready_money 2C"])
    assert game.current_player == 2
    rng = random.Random(7)
    places = set()
    for _ in range(200):
        other = determinize(game, 0, rng)
        where = other.where_are_cards()[parse_cards("2C")[0]]
        places.add(where)
        assert other.hands[0] == game.hands[0]
    assert places == {"hand 1", "discards"}


def test_a_card_given_away_and_kept_is_only_where_it_can_be():
    # R5.4, R11: 2C went to seat 1 face down and seat 1 has moved no card since: it is still there.
    game = _tb_game(["offer 2C", "give 6D"])
    rng = random.Random(3)
    for _ in range(50):
        other = determinize(game, 0, rng)
        assert parse_cards("2C")[0] in other.hands[1]
        assert sorted(other.hands[0]) == sorted(game.hands[0])


def test_other_hands_and_the_stock_are_redealt():
    # R11: determinize hides what the seat has not seen: the other hands vary between samples.
    game = _tb_game([])
    rng = random.Random(5)
    others = {tuple(map(tuple, determinize(game, 0, rng).hands[1:])) for _ in range(20)}
    assert len(others) > 1


def test_the_widow_dealer_does_not_know_his_own_hand():
    # R6.2, R11: before his choice the dealer's own hand is hidden from him, so it is re-dealt.
    game = new_game(make_rules("widow"), 3, seed=4, dealer=2)
    assert game.current_player == 2 and not game.sees_own_hand(2)
    rng = random.Random(2)
    hands = {tuple(determinize(game, 2, rng).hands[2]) for _ in range(20)}
    assert len(hands) > 1
    game.apply(game.action_from_text("keep_hand"))
    assert {tuple(determinize(game, 2, rng).hands[2]) for _ in range(5)} == {tuple(game.hands[2])}


def test_cards_taken_from_the_widow_are_known_to_all():
    # R6.3, R11: an exchange is face up, so everyone knows the taken card is in the taker's hand.
    game = new_game(make_rules("widow"), 3, seed=9, dealer=2)
    game.apply(game.action_from_text("keep_hand"))
    taken = game.table[0]
    game.apply(game.action_from_text(f"exchange {game.hands[0][0]} {taken}"))
    rng = random.Random(1)
    for _ in range(20):
        assert taken in determinize(game, 1, rng).hands[0]


def test_bad_seat_is_refused():
    game = _tb_game([])
    for seat in (-1, 4, "0", True, None):
        with pytest.raises(ValueError, match="seat"):
            determinize(game, seat)
