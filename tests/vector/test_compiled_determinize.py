"""The hidden moves of blind trades re-drawn compiled (commerce_env.vector.determinize and
.hidden_moves, the twins of commerce_env.engine.determinize and .hidden_moves): the very worlds
``DealSampler.sample_places`` draws (R11), from the same numbers of the same generator."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from strategies import game_setups, setup_game  # noqa: E402

from commerce_env.engine import ENGINES, new_game  # noqa: E402
from commerce_env.engine.phases import OVER  # noqa: E402
from commerce_env.rules import VARIANTS, make_rules  # noqa: E402
from commerce_env.vector.determinize import compiles, sample_places  # noqa: E402
from commerce_env.vector.load import game_row  # noqa: E402
from commerce_env.view import seat_view  # noqa: E402

BLIND = [v for v in VARIANTS if ENGINES[v].blind_trades]  # R5.4, R7.2: the variants with hidden choices


def python_places(sampler, rng, count):
    """What sample_places must give: each world after the 64 bits of its later deals' generator."""
    worlds = []
    for _ in range(count):
        rng.getrandbits(64)
        worlds.append(sampler.sample_places(rng))
    return worlds


def assert_same_worlds(got, worlds):
    for r, places in enumerate(worlds):
        assert got.cards[r].tolist() == [places.cards[i] for i in range(len(places.cards))]
        for seat, items in places.hands.items():
            assert got.hands[r, seat, :got.hand_sizes[seat]].tolist() == items
        assert got.stock[r].tolist() == places.stock
        assert got.discards[r].tolist() == places.discards
        assert got.offer[r] == (-1 if places.offer is None else places.offer)


def blind_view(setup, play_seed, moves):
    """A seat view ``moves`` random legal moves into a match of ``setup``, or None when it is over."""
    game, rng = setup_game(setup), random.Random(play_seed)
    for _ in range(moves):
        if game.over:
            return None
        game.apply(rng.choice(game.legal_actions()))
    view = seat_view(game, rng.randrange(game.num_players))
    return None if view.phase == OVER else view


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BLIND).flatmap(lambda v: game_setups(v, max_rounds=4)), st.integers(0, 2**32 - 1),
       st.integers(0, 60), st.integers(1, 12))
def test_the_compiled_worlds_are_the_python_ones(setup, play_seed, moves, count):
    # R11 (with R5.3's ready money, R5.4 and R7.2's blind trades, R7.3's flushes of the past):
    # every card where Python puts it, and the generator left where Python leaves it.
    view = blind_view(setup, play_seed, moves)
    assume(view is not None)
    fast, slow = view.deal_sampler(), view.deal_sampler()
    a, b = random.Random(play_seed), random.Random(play_seed)
    fast.sample(a)
    slow.sample(b)
    assume(compiles(fast, a, view.num_players))
    assert_same_worlds(sample_places(fast, a, count, view.num_players), python_places(slow, b, count))
    assert a.getstate() == b.getstate()


@pytest.mark.parametrize("variant", BLIND)
def test_late_in_a_deal_the_worlds_agree_and_are_compiled(variant):
    # Deep into deals, where trades and ready money have hidden many choices (R5.3, R5.4, R7.2).
    rules, compiled = make_rules(variant), 0
    for seed in range(40):
        rng = random.Random(seed)
        game, views = new_game(rules, 3 + seed % 4, seed=seed), []
        while not game.over:  # the last views of a match, the deepest into its deal
            views.append(seat_view(game, rng.randrange(game.num_players)))
            game.apply(rng.choice(game.legal_actions()))
        for view in views[-6:]:
            fast, slow = view.deal_sampler(), view.deal_sampler()
            a, b = random.Random(seed), random.Random(seed)
            fast.sample(a)
            slow.sample(b)
            if compiles(fast, a, view.num_players) and len(fast.steps) >= 4:
                compiled += 1
                assert_same_worlds(sample_places(fast, a, 16, view.num_players), python_places(slow, b, 16))
                assert a.getstate() == b.getstate()
    assert compiled >= 40


def test_what_it_does_not_compile_is_left_to_python():
    view = seat_view(new_game(make_rules("trade_barter"), 4, seed=2), 0)
    sampler = view.deal_sampler()
    assert compiles(sampler, random.Random(1), 4)

    class Drawing(random.Random):  # a generator that may draw otherwise
        pass

    assert not compiles(sampler, Drawing(1), 4)
    widow = new_game(make_rules("widow"), 4, seed=2)
    widow.apply(widow.legal_actions()[0])  # the eldest takes or keeps the widow (R6.2): not compiled
    assert not compiles(seat_view(widow, 1).deal_sampler(), random.Random(1), 4)


def test_before_any_move_each_world_only_shuffles_the_unseen_cards():
    # No move yet, so no hidden choice: the search finds that once and each world is a shuffle (R11).
    view = seat_view(new_game(make_rules("my_ship_sails"), 4, seed=7), 0)
    fast, slow = view.deal_sampler(), view.deal_sampler()
    a, b = random.Random(3), random.Random(3)
    got = sample_places(fast, a, 5, 4)
    assert_same_worlds(got, python_places(slow, b, 5))
    assert len({tuple(row) for row in got.cards.tolist()}) == 5
    assert np.all(got.cards[:, got.hands[0, 0]] == got.cards[0, got.hands[0, 0]])  # its own hand, seen


@pytest.mark.parametrize("seed, back, discard", [(284, 2, "table"), (328, 1, "table"), (91, 1, "bottom"),
                                                 (344, 2, "bottom")])
def test_a_card_seen_again_is_routed_as_in_python(seed, back, discard):
    # Matches where the seat gave a card away and saw it again (R5.3, R5.4): some hidden choices
    # are forced so that it can travel back (engine.hidden_moves.constraints).
    rules, rng = make_rules("trade_barter", discard=discard), random.Random(seed)
    game, views = new_game(rules, 3 + seed % 4, seed=seed), []
    while not game.over:
        views.append(seat_view(game, rng.randrange(game.num_players)))
        game.apply(rng.choice(game.legal_actions()))
    view = views[-back]
    fast, slow = view.deal_sampler(), view.deal_sampler()
    assert fast.allowed  # the case this test is about
    a, b = random.Random(seed), random.Random(seed)
    fast.sample(a)
    slow.sample(b)
    assert compiles(fast, a, view.num_players)
    assert_same_worlds(sample_places(fast, a, 16, view.num_players), python_places(slow, b, 16))
    assert a.getstate() == b.getstate()


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_unseen_cards_are_placed_as_in_python(data):
    # R7.3: no hand of the past may have been a flush; the unseen cards are placed as Python places
    # them, failing (False) or refusing (None) alike, on any world.
    from commerce_env.engine import determinize as python
    from commerce_env.engine.hidden_moves import first_world
    from commerce_env.vector import determinize as compiled
    from commerce_env.vector import hidden_moves as M  # noqa: N812
    from commerce_env.vector.python_random import random_state

    deck = data.draw(st.lists(st.integers(0, 51), min_size=6, max_size=14, unique=True))
    positions = len(deck)
    world = first_world([None] * positions, [0, 1], 0, True)
    written = data.draw(st.lists(st.integers(0, positions - 1), unique=True, max_size=positions))
    cards = data.draw(st.permutations(deck))
    for item, card in zip(written, cards, strict=False):
        world.write(item, card)
    triple = st.lists(st.integers(0, positions - 1), min_size=3, max_size=3, unique=True).map(tuple)
    hands = data.draw(st.lists(triple, min_size=1, max_size=6))
    world.flush_checks = (tuple(hands), None)
    lay = M.world_layout(2, positions, len(hands))
    w = M.world_array(world, lay)
    seed = data.draw(st.integers(0, 2**32 - 1))
    fast, slow = random.Random(seed), random.Random(seed)
    mt, at, _ = random_state(fast)
    scratch = [np.empty(positions, np.int64) for _ in range(3)]
    got = compiled._write_unseen(w, lay, np.array(sorted(deck), np.int64), True, mt, at, *scratch)
    expected = python._write_unseen(world, deck, slow)
    assert got == {True: 1, False: 0, None: -1}[expected]
    placed = w[lay[M.W_CARD_OF]:lay[M.W_CARD_OF] + positions].tolist()
    assert placed == [world.card_of.get(i, -1) for i in range(positions)]
    assert mt.tolist() == list(slow.getstate()[1][:624]) and at[0] == slow.getstate()[1][624]


def test_a_deal_too_long_for_the_compiled_stack_is_sampled_in_python(monkeypatch):
    # R12's max_rounds allows deals of thousands of trades; their worlds come from Python, alike.
    from commerce_env.vector import BatchEngine, determinize, sampled

    rules, rng = make_rules("my_ship_sails", max_rounds=1000), random.Random(5)
    game = new_game(rules, 4, seed=5)
    for _ in range(12):
        game.apply(rng.choice(game.legal_actions()))
    view = seat_view(game, game.current_player)
    assert compiles(view.deal_sampler(), random.Random(1), 4)
    monkeypatch.setattr(determinize, "MAX_STACK_BYTES", 1000)
    assert not compiles(view.deal_sampler(), random.Random(1), 4)
    engine = BatchEngine("my_ship_sails", 4, 1, rules=rules, wait_for_packs=True)
    called = []
    monkeypatch.setattr(sampled, "sample_places", lambda *args: called.append(args))
    fast, slow = random.Random(9), random.Random(9)
    rows = sampled.sampled_rows(view, fast, 6, engine.params)
    expected = [game_row(w, engine.params.tolist(), knowledge=False) for w in view.sample_worlds(slow, 6)]
    assert not called and np.array_equal(rows, np.array(expected)) and fast.getstate() == slow.getstate()


def test_a_search_out_of_budget_starts_again_as_in_python(monkeypatch):
    # A long trade and barter deal (R12's max_rounds) with discards under the stock (R5.3) and
    # barters (R5.4) whose hidden choices the first search fails to settle within its budget:
    # both start again with new draws, alike.
    from commerce_env.engine import determinize as python

    rules, rng = make_rules("trade_barter", max_rounds=1000, discard="bottom"), random.Random(20)
    game = new_game(rules, 4, seed=20)
    for _ in range(150):  # barters and ready money, never a knock or a decline: the deal goes on
        actions = [a for a in game.legal_actions() if a not in (0, 4)]
        game.apply(rng.choice(actions or game.legal_actions()))
    view = seat_view(game, game.current_player)
    searches = []
    search = python.search
    monkeypatch.setattr(python, "search", lambda *args: searches.append(search(*args)) or searches[-1])
    fast, slow = view.deal_sampler(), view.deal_sampler()
    a, b = random.Random(20), random.Random(20)
    assert compiles(fast, a, 4)
    got, expected = sample_places(fast, a, 16, 4), python_places(slow, b, 16)
    assert any(world is None for world, _ in searches)  # the case this test is about, among these worlds
    assert_same_worlds(got, expected)
    assert a.getstate() == b.getstate()


def test_discards_drawn_back_from_under_the_stock_are_placed_as_in_python():
    # R5.3 (discard: bottom): the cards the seat draws back fix the other player's hidden discards.
    rules, rng = make_rules("trade_barter", deck_size=32, max_rounds=100, discard="bottom"), random.Random(1)
    game = new_game(rules, 2, seed=1, dealer=0)
    for _ in range(219):  # never a knock or a decline: the stock goes round several times
        actions = [a for a in game.legal_actions() if a not in (0, 4)]
        game.apply(rng.choice(actions or game.legal_actions()))
    view = seat_view(game, 0)
    fast, slow = view.deal_sampler(), view.deal_sampler()
    assert any(step[0] == 0 and step[1] == 1 and step[2] is not None for step in fast.steps)  # marked
    a, b = random.Random(4), random.Random(4)
    fast.sample(a)
    slow.sample(b)
    assert compiles(fast, a, 2)
    assert_same_worlds(sample_places(fast, a, 8, 2), python_places(slow, b, 8))
    assert a.getstate() == b.getstate()
