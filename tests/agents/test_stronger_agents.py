"""The expected-value agent uses what its seat knows (R11) and what is at stake."""

import random

import pytest
from helpers import make_deck
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.heuristics import ExpectedValueAgent, WinModel, finished_seats, life_shares, life_value
from agents.search import SearchAgent, deal_value
from commerce_env.cards import parse_cards
from commerce_env.engine import new_game
from commerce_env.engine.actions import BUY_HORSE, EXCHANGE, KEEP_HAND, NO_HORSE, PASS, STAND
from commerce_env.engine.base import HORSE
from commerce_env.rules import make_rules
from commerce_env.view import seat_view

OTHERS = ["2D 3H 5S", None, "4C 6D 8S", "3C 7H 10S"]  # seat 1's hand goes in the gap


def _old_game(hand, table, variant="old_game"):
    hands = [h if h is not None else hand for h in OTHERS]
    deck = parse_cards(make_deck(hands, 3, table=table))  # R1.5: dealer 3, seat 0 is the eldest
    return new_game(make_rules(variant), 4, decks=[deck], dealer=3)


def test_expected_value_takes_the_tricon_on_the_table_before_it_stands():  # R2.1, R8.2
    game = _old_game("KS KH 7D", "KD 7C 4S")
    game.apply(STAND)  # seat 0 stands: seat 1 acts
    view = seat_view(game, 1)
    assert view.action_text(ExpectedValueAgent().act(view)) == "exchange 7D KD"


def test_expected_value_keeps_drawing_with_a_pair_while_the_others_draw():  # R2.4, R2.3, R8.2
    # Two kings: strong against random hands, but with one exchange each the others often make a
    # flush (R2.3) from the table.  No exchange gains and a stand would end its turns, so it
    # swaps a 7 for a 7 (losing nothing) and keeps drawing.
    game = _old_game("KS KH 7D", "7C 4S 2H")
    game.apply(PASS)  # seat 0 passes: seat 1 acts
    view = seat_view(game, 1)
    action = ExpectedValueAgent().act(view)
    assert action >= EXCHANGE
    assert view.hand_value(_after(view, action)) == view.hand_value(view.hand)


def _after(view, action):
    own, slot = divmod(action - EXCHANGE, 3)
    cards = list(view.hand)
    cards[own] = view.table[slot]
    return cards


def test_expected_value_stands_with_a_sequence():  # R2.2, R8.2
    game = _old_game("JD 10D 9D", "6H 8C 2S")
    game.apply(PASS)
    view = seat_view(game, 1)
    assert ExpectedValueAgent().act(view) == STAND


def test_a_card_taken_from_the_table_is_counted_in_the_takers_hand():  # R8.2, R11
    game = _old_game("KS KH 7D", "AS 7C 4S")
    game.apply(EXCHANGE + 0)  # seat 0 takes the AS, face up, for its 2D
    view = seat_view(game, 1)
    assert parse_cards("AS")[0] in view.public_hands[0]
    model = WinModel(view)
    unseen = len(view.unseen)
    # Seat 0's hands are the AS and two unseen cards; seats 2 and 3 hold any three unseen cards.
    assert [len(keys) for keys in model.opponent_keys] == [unseen * (unseen - 1) // 2] + [
        unseen * (unseen - 1) * (unseen - 2) // 6] * 2


def test_opponents_who_still_draw_are_harder_to_beat():  # R8.2: they may still exchange with the table
    game = _old_game("KS KH 7D", "AS 7C 4S")
    view = seat_view(game, 0)
    value = view.hand_value(view.hand)
    still = WinModel(view, improving=[1, 2, 3])
    fixed = WinModel(view)
    assert float(still.win_probability(value)) < float(fixed.win_probability(value))


def test_who_stood_or_passed_is_read_from_this_deals_history():  # R8.2
    game = _old_game("KS KH 7D", "AS 7C 4S")
    game.apply(STAND)
    game.apply(PASS)
    view = seat_view(game, 2)
    assert finished_seats(view) == {0, 1}
    assert finished_seats(view, ("stand",)) == {0}
    widow = new_game(make_rules("widow"), 4, seed=1)
    widow.apply(KEEP_HAND)
    widow.apply(PASS)  # R6.3: a widow pass lets one turn go; he still plays
    assert finished_seats(seat_view(widow, widow.current_player)) == set()


def test_life_shares_by_hand():  # R9.3, R9.5: one life lost per deal, the last with lives takes the pool
    assert life_shares((1, 1)) == pytest.approx((0.5, 0.5))
    # Two lives against one: the first loser is either, then 50-50 at (1, 1).
    assert life_shares((2, 1)) == pytest.approx((0.75, 0.25))
    assert life_shares((0, 2, 2)) == pytest.approx((0.0, 0.5, 0.5))


@settings(max_examples=40, deadline=None)
@given(lives=st.lists(st.integers(0, 4), min_size=2, max_size=5).filter(lambda x: sum(1 for n in x if n) >= 1))
def test_life_shares_are_a_distribution_that_grows_with_lives(lives):  # R9.5
    shares = life_shares(tuple(lives))
    assert sum(shares) == pytest.approx(1.0)
    for seat, n in enumerate(lives):
        if n == 0:
            assert shares[seat] == 0.0
        more = list(lives)
        more[seat] += 1
        assert life_shares(tuple(more))[seat] >= shares[seat] - 1e-12
        if n:
            assert life_value(lives, seat, 48) >= -1e-9  # losing a life never helps


def _horse_view(horse_price):
    """The first R9.4 horse offer of a pool match played by expected-value agents."""
    rules = make_rules("pool", horse_price=horse_price)
    for seed in range(50):
        game = new_game(rules, 4, rng=random.Random(seed))
        agents = [ExpectedValueAgent() for _ in range(4)]
        while not game.over and game.phase != HORSE:
            seat = game.current_player
            game.apply(agents[seat].act(seat_view(game, seat)))
        if game.phase == HORSE:
            return seat_view(game, game.current_player)
    raise AssertionError("no horse offer in 50 matches")


def test_expected_value_weighs_the_horse_against_its_share_of_the_pool():  # R9.4
    # At the first player's going out the others still hold several lives: a life bought for a
    # third of the entry is worth less than it costs ...
    view = _horse_view(None)
    assert sum(view.counters) >= 4
    assert ExpectedValueAgent().act(view) == NO_HORSE
    # ... and worth buying when it costs next to nothing.
    assert ExpectedValueAgent().act(_horse_view(0)) == BUY_HORSE


def test_search_rolls_out_the_stops_and_the_best_exchanges():  # R8.2
    game = _old_game("KS KH 7D", "AS 7C 4S")
    view = seat_view(game, 0)
    agent = SearchAgent(worlds=2, seed=0, candidates=3)
    agent.act(view)
    exchanges = [a for a in view.legal_actions if a >= EXCHANGE]
    best = sorted((view.hand_value(_after(view, a)) for a in exchanges), reverse=True)[:3]
    tried = [a for a in agent.last_values if a >= EXCHANGE]
    assert {STAND, PASS} <= set(agent.last_values)
    assert len(tried) == 3
    assert sorted((view.hand_value(_after(view, a)) for a in tried), reverse=True) == best


def test_search_values_the_pool_by_the_chance_of_outlasting_the_others():  # R9.5
    game = new_game(make_rules("pool"), 4, seed=3)
    game.counters[:] = [1, 3, 3, 3]
    game.money[:] = [-12, -12, -12, -12]
    shares = life_shares((1, 3, 3, 3))
    assert deal_value(game, 0) == pytest.approx(-12 + game.pool * shares[0])
    assert sum(deal_value(game, s) for s in range(4)) == pytest.approx(-48 + game.pool)
    assert deal_value(game, 0) < deal_value(game, 1)


def test_expected_value_fishes_for_a_ship_with_a_middling_suit_pair():  # R7.2, R7.3, R7.4
    # 10 9 of spades: 19 pips, ahead of most hands now, but a decline ends nothing and the
    # others still exchange; it offers the odd card to draw toward a flush.
    hands = ["10S 9S 2D", "2C 3H 5S", "4C 6D 8S", "3C 7H 10D"]
    game = new_game(make_rules("my_ship_sails"), 4, decks=[parse_cards(make_deck(hands, 3))], dealer=3)
    view = seat_view(game, 0)
    assert view.action_text(ExpectedValueAgent().act(view)) == "offer 2D"
    assert view.action_text(ExpectedValueAgent(decline_threshold=0.35).act(view)) == "decline"
