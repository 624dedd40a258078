"""The determinizer's constraints and needs are never stricter than the truth (docs/rules.md R11).

The search for hidden choices (``engine.hidden_moves``) refuses a choice that a
constraint or a need (``engine.hidden_needs``) rules out.  Each must hold in
the true deal itself, or the true deal, always one answer, could be refused:
here long deals of blind trades are replayed with the true hidden choices, and
at every step the true choice must be among those offered, play, and leave
every need met.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_rules_common import random_options

from commerce_env.engine import new_game
from commerce_env.engine.actions import DECLINE, KNOCK, OFFER
from commerce_env.engine.hidden_moves import _apply, _choices, _supplied, replay_steps
from commerce_env.rules import make_rules
from commerce_env.view import seat_view

BARTERS = range(OFFER, OFFER + 6)  # offer and give, any slot (R5.4, R7.2)


@st.composite
def long_deals(draw):
    """A deal of trade and barter or My Ship Sails with any R12 options, far into its rounds
    (``max_rounds`` 100 or 1,000, seldom a knock or a decline), and the seat that views it."""
    variant = draw(st.sampled_from(["trade_barter", "my_ship_sails"]))
    num_players = draw(st.integers(2, 12))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    options = random_options(rng, variant, num_players)
    options["max_rounds"] = draw(st.sampled_from([100, 1000]))
    try:
        rules = make_rules(variant, **options)
        rules.check_players(num_players)
    except ValueError:
        assume(False)
    game = new_game(rules, num_players, seed=rng.randrange(2**32))
    barters, stops = draw(st.floats(0, 1)), draw(st.sampled_from([0.0, 0.005, 0.02]))
    for _ in range(draw(st.integers(10, 400))):
        if game.over or game.deals_played:
            break
        legal = game.legal_actions()
        actions = legal if rng.random() < stops else [a for a in legal if a not in (KNOCK, DECLINE)]
        if rng.random() < barters:
            actions = [a for a in actions if a in BARTERS] or actions
        game.apply(rng.choice(actions or legal))
    assume(not game.over and game.current_player is not None and not game.deals_played)
    return game, draw(st.integers(0, num_players - 1))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deal=long_deals())
def test_the_true_deal_meets_every_constraint_and_need(deal):
    # R5.3, R5.4, R7.2, R11: whatever a seat saw, the deal as it really was is a consistent re-deal.
    assert_the_true_deal_is_replayable(*deal)


def assert_the_true_deal_is_replayable(game, seat):
    """At every step of the deal so far the true choice is offered, plays, and meets every need."""
    sampler = seat_view(game, seat).deal_sampler()
    start = max(i for i, entry in enumerate(game.record) if entry[1] == "deal")
    true_deal = game.record[start:]
    card_of = dict(enumerate(true_deal[0][2]))  # a position keeps its card: the true cards of every one
    world = sampler.first.copy()
    for index, (step, truth) in enumerate(zip(sampler.steps, replay_steps(true_deal), strict=True)):
        options = _choices(sampler.steps, index, world, seat, sampler.allowed, sampler.bottom)
        item = None
        if options != [None]:
            item = next(i for i in world.hands[step[1]] if card_of[i] == truth[2])
        assert item in options, (index, step)
        assert _apply(step, world, item, seat, sampler.bottom), (index, step)
        assert _supplied(world, sampler.needs.get(index + 1, ())), (index, step)


def test_a_card_the_seat_hands_a_neighbour_may_be_the_one_he_moves_later():
    # R7.2, R11: player 1 holds only cards seat 2 will see again, none free to go where his next blind
    # give sends it; then seat 2 barters him a card, and that is the one he gives on. Before that barter
    # he needs no free card of his own.
    game = new_game(make_rules("my_ship_sails", max_rounds=1000), 4, seed=4180913298)
    for action in [14, 15, 14, 17, 12, 16, 12, 15, 12, 15, 13, 16, 13, 17, 12, 17, 13, 16, 14, 15, 12, 16, 12, 16,
                   12, 17, 14, 16, 12, 16, 14, 15, 13, 16, 12, 17, 14, 15, 14, 16, 13, 17, 12, 15, 13, 15, 12, 17,
                   12, 17, 12, 17, 13, 15, DECLINE, 13, 15]:
        game.apply(action)
    assert_the_true_deal_is_replayable(game, 2)
