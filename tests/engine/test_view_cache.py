"""Seat views and observations from what the game keeps of the record as it goes
(commerce_env.knowledge.seat_knowledge, deal_memories).

Each record entry is read once per seat as the record grows, and a view holds
chains of what was read (commerce_env.chain); these tests check that a view
built that way pickles to exactly the bytes of one rebuilt from the whole
record (the straightforward recomputation, as seat views were made before
anything was kept), and that an observation and a legal set equal theirs
rebuilt from scratch, at every decision of random matches of every variant
and at random points of random long deals (R11), and that what is kept is
made anew when the game gets a new record.
"""

from __future__ import annotations

import copy
import pickle
import random
import sys
from bisect import bisect_left

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import game_setups, option_sets, setup_game

from commerce_env import knowledge, observation
from commerce_env.engine import new_game
from commerce_env.engine.actions import KNOCK, PASS, STAND
from commerce_env.engine.base import DEAL, HORSE
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import SeatView, seat_view


def _passed_through(deal, seat):
    """``(card, to seat)`` of each card ``seat`` gave this deal and the cards it discarded (R11),
    read from its masked record of the deal."""
    gave, discarded = [], []
    for index in range(1, len(deal)):
        actor, kind, cards, _ = deal[index]
        if kind == "ready_money" and actor == seat:
            discarded.append(cards[0])
        elif kind == "give":
            trader = deal[index - 1][0]
            if actor == seat:
                gave.append((cards[0], trader))
            elif trader == seat:
                gave.append((cards[1], actor))
    return gave, discarded


def _recomputed_view(game, seat):
    """The seat's view rebuilt from the whole record, as ``seat_view`` made it before anything was kept."""
    full = knowledge.seat_record(game, seat)
    history = [(s, kind, cards) for s, kind, cards, _ in full if kind != DEAL]
    deal = full[game.deal_start - 1:]
    sees = bool(game.hands[seat]) and game.sees_own_hand(seat)
    hand = tuple(game.hands[seat]) if sees else ()
    places = knowledge.public_places(deal, seat)
    public = [[] for _ in range(game.num_players)]
    for card, holder in places.items():
        public[holder].append(card)
    mine = knowledge.placed_discards(deal, seat, game.rules.discard == "bottom")
    known = set(hand) | set(game.table) | set(mine) | set(places)
    gave, discarded = _passed_through(deal, seat)
    fresh = copy.copy(game)  # without what the game keeps (copy drops it): the observation from scratch
    fresh._legal_cache = None
    state = game.public_state()
    current = game.current_player
    return SeatView(
        seat=seat, num_players=game.num_players, rules=state[bisect_left(state, ("rules",))][1], phase=game.phase,
        current_player=current, dealer=game.dealer, order=tuple(game.order), hand=hand, table=tuple(game.table),
        stock_size=len(game.stock), pool=game.pool, counters=tuple(game.counters), money=tuple(game.money),
        out=tuple(game.out), rounds_done=game.rounds_done, deals_played=game.deals_played,
        deals_dealt=game.deals_dealt, offer_from=None if game.offer is None else game.offer[0],
        gave=tuple(gave), discarded=tuple(discarded), public_hands=tuple(tuple(sorted(c)) for c in public),
        unseen=tuple(c for c in game.pack if c not in known), history=tuple(history),
        legal_actions=tuple(fresh.legal_actions()) if current == seat else (),
        observation=observation.encode(fresh, seat), action_mask=observation.action_mask(fresh, seat),
        _deal=tuple(deal), _past=tuple(full[:game.deal_start - 1]), _state=state)


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
    # tests/agents/test_agents.py does to move hidden cards) each give the recomputed view.
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


def test_copies_of_a_game_share_its_masked_entries():
    # Memory: a replay keeps a clone after every action (commerce_env.replay); their views hold one
    # set of masked tuples between them, not one each, and still pickle as the recomputed ones.
    game = new_game(make_rules("pool", deals=2), 4, rng=random.Random(5))
    rng, states = random.Random(5), []
    while not game.over and len(states) < 40:
        states.append(game.clone())
        game.apply(rng.choice(game.legal_actions()))
    views = [seat_view(state, 2) for state in states]
    first, last = views[0], views[-1]
    assert len(last._past) + len(last._deal) > len(first._past) + len(first._deal)
    shared = [*first._past, *first._deal]
    assert all(a is b for a, b in zip(shared, [*last._past, *last._deal], strict=False))
    for state in states[::7]:
        _assert_same_bytes(state, 2)


# ------------------------------------------------------------------ long deals
def _steady(game, rng):
    """A random legal action, but a knock, a stand or a pass only when there is nothing else: the
    deal runs its rounds (R4.4) unless a flush ends it (R7.3)."""
    legal = game.legal_actions()
    going_on = [a for a in legal if a not in (KNOCK, STAND, PASS)]
    return rng.choice(going_on or legal)


@st.composite
def long_deals(draw):
    """``(rules, num_players, seed)``: any variant and options, up to 12 players, many rounds a deal."""
    variant = draw(st.sampled_from(VARIANTS))
    options = {**draw(option_sets(variant)), "max_rounds": draw(st.integers(20, 150))}
    rules = make_rules(variant, **options)
    return rules, draw(st.integers(2, 12 if rules.deck_size == 52 else 7)), draw(st.integers(0, 2**32 - 1))


def _assert_observation_shows_what_passed_through(game, seat):  # R11
    """The observation's gave_left, gave_right and discarded sections, against the seat's record."""
    gave, discarded = _passed_through(knowledge.seat_record(game, seat, game.deal_start - 1), seat)
    expected = {name: np.zeros(52, dtype=np.float32) for name in ("gave_left", "gave_right", "discarded")}
    left = game.left_of(seat) if seat in game.position else -1
    for card, to in gave:
        expected["gave_left" if to == left else "gave_right"][card] = 1.0
    for card in discarded:
        expected["discarded"][card] = 1.0
    vector = observation.encode(game, seat)
    for name, start, length in observation.layout(game.num_players):
        if name in expected:
            assert np.array_equal(vector[start:start + length], expected[name]), name


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=long_deals(), looks=st.integers(0, 2**32 - 1))
def test_long_deals_give_the_views_observations_and_legal_sets_rebuilt_from_scratch(setup, looks):  # R11
    # Deals of hundreds to thousands of actions in every variant: the player to act gets his view
    # and observation at every decision (as the arena and the AEC env ask), other seats at random
    # moments (gaps of any length); at random points each equals its rebuild from the whole record,
    # and so does a copy of the game made earlier and looked at late (a replay's states).
    rules, num_players, seed = setup
    game = new_game(rules, num_players, rng=random.Random(seed))
    rng, when = random.Random(seed), random.Random(looks)
    copies = []
    for _ in range(2500):
        if game.over:
            break
        seat_view(game, game.current_player)
        observation.encode(game, game.current_player)
        if when.random() < 0.01:
            for seat in range(num_players):
                if when.random() < 0.5:
                    _assert_same_bytes(game, seat)
                    _assert_observation_shows_what_passed_through(game, seat)
            fresh = copy.copy(game)
            fresh._legal_cache = None
            assert game.legal_actions() == fresh.legal_actions()
        if when.random() < 0.002:
            copies.append(game.clone())
        game.apply(_steady(game, rng))
    for seat in range(num_players):
        _assert_same_bytes(game, seat)
    for kept in copies:
        _assert_same_bytes(kept, when.randrange(num_players))


def _lines_run(call):
    """How many lines of Python ``call()`` runs: the work it does, counted, not timed."""
    count = [0]

    def tracer(frame, event, arg):
        if event == "line":
            count[0] += 1
        return tracer

    before = sys.gettrace()
    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(before)
    return count[0]


def test_a_view_and_an_observation_cost_no_more_late_in_a_long_deal():
    # The work of a seat view, an observation and a legal set at every decision, over 60 decisions
    # early in a deal and 60 decisions 3,000 actions later, as lines of Python run: the same
    # within a margin (once it read the whole deal for each: 20 times as many late).
    game = new_game(make_rules("trade_barter", max_rounds=1000), 4, rng=random.Random(4))
    rng = random.Random(4)

    def work():
        seat = game.current_player
        fresh = game.legal_actions()
        seat_view(game, seat)
        observation.encode(game, seat)
        return fresh

    def window():
        lines = 0
        for _ in range(60):
            lines += _lines_run(work)
            game.apply(_steady(game, rng))
        return lines

    while game.actions_taken < 200:
        work()
        game.apply(_steady(game, rng))
    early = window()
    while game.actions_taken < 3200:
        work()
        game.apply(_steady(game, rng))
    assert game.deals_dealt == 1 and not game.over
    late = window()
    assert late < 1.5 * early, (early, late)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=game_setups(max_rounds=3), moves=st.integers(0, 30), play=st.integers(0, 2**32 - 1))
def test_a_game_cut_back_to_before_its_deal_remembers_nothing_of_the_deal(setup, moves, play):  # R11
    """``agents.belief.before_deal`` keeps the deal's start past the end of a record cut before the deal's
    entry: what each seat remembers of the deal is then nothing, kept or recomputed (it read the whole
    match's last deal before)."""
    from agents.belief import before_deal

    game = setup_game(setup)
    rng = random.Random(play)
    first_deal = game.deal_start
    for _ in range(5000):  # into a later deal, whose cut-back record holds the deal before it
        if game.over or game.awaiting_pack or game.deal_start > first_deal:
            break
        game.apply(rng.choice(game.legal_actions()))
    for _ in range(moves):
        if game.over or game.awaiting_pack:
            break
        game.apply(rng.choice(game.legal_actions()))
    assume(not game.over and not game.awaiting_pack)
    if game.phase == HORSE:  # R9.4: offered after the deal's payments, so no deal is in play to cut back
        with pytest.raises(ValueError, match="no deal in play"):
            before_deal(game)
        return
    cut = before_deal(game)
    kept = knowledge.deal_memories(cut)
    for seat in range(cut.num_players):
        gave, discarded = knowledge.deal_memory(cut, seat)
        memory = kept[seat]
        assert (list(memory.gave_once) if memory else []) == list(dict.fromkeys(gave))
        assert (list(memory.discarded_once) if memory else []) == list(dict.fromkeys(discarded))
