"""The engine's ``wait_for_packs`` hook: a caller deals each later pack (OpenSpiel's chance nodes)."""

from __future__ import annotations

import random

import pytest
from helpers import make_deck
from hypothesis import given, settings
from hypothesis import strategies as st

from commerce_env.cards import format_cards, make_pack
from commerce_env.engine import IllegalActionError, new_game
from commerce_env.rules import VARIANTS, make_rules


def _packs(rng: random.Random, count: int, deck_size: int = 52) -> list[tuple]:
    packs = []
    for _ in range(count):
        pack = list(make_pack(deck_size))
        rng.shuffle(pack)
        packs.append(tuple(pack))
    return packs


def test_waits_after_the_given_packs_and_deals_the_supplied_one():
    # R1.5: the supplied pack deals exactly as a pack given in decks would.
    rules = make_rules("old_game", deals=2)
    packs = _packs(random.Random(1), 2)
    waiting = new_game(rules, 3, decks=packs[:1], wait_for_packs=True)
    given_all = new_game(rules, 3, decks=packs)
    rng = random.Random(2)
    while not waiting.awaiting_pack:
        action = rng.choice(waiting.legal_actions())
        waiting.apply(action)
        given_all.apply(action)
    assert waiting.current_player is None and waiting.legal_actions() == [] and not waiting.over
    waiting.supply_pack(format_cards(packs[1]))
    assert not waiting.awaiting_pack
    assert waiting.hands == given_all.hands and waiting.table == given_all.table
    assert waiting.stock == given_all.stock and waiting.current_player == given_all.current_player


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_game_in_play_can_hand_its_later_packs_to_the_caller(variant):
    # await_later_packs: the current deal goes on as dealt (R1.5); the next one waits for its pack,
    # even though decks holds one, and is dealt as a game made with wait_for_packs deals it.
    rules = make_rules(variant, deals=3)
    rng = random.Random(variant)
    packs = _packs(rng, 3, rules.deck_size)
    while new_game(rules, 3, decks=packs[:1], dealer=1, wait_for_packs=True).awaiting_pack:  # R7.3: dealt ship
        packs = _packs(rng, 3, rules.deck_size)
    taken_over = new_game(rules, 3, decks=packs, dealer=1)
    waiting = new_game(rules, 3, decks=packs[:1], dealer=1, wait_for_packs=True)
    first = rng.choice(waiting.legal_actions())
    for game in (taken_over, waiting):
        game.apply(first)
    hands, record = [list(h) for h in taken_over.hands], list(taken_over.record)
    taken_over.await_later_packs()
    assert taken_over.hands == hands and taken_over.record == record and not taken_over.awaiting_pack
    while not waiting.awaiting_pack and not waiting.over:
        action = rng.choice(waiting.legal_actions())
        waiting.apply(action)
        taken_over.apply(action)
    assert (taken_over.awaiting_pack, taken_over.over) == (waiting.awaiting_pack, waiting.over)
    assert taken_over.awaiting_pack or taken_over.over
    if waiting.awaiting_pack:
        assert taken_over.current_player is None and taken_over.legal_actions() == []
        for game in (taken_over, waiting):
            game.supply_pack(format_cards(packs[2]))  # not decks' second pack: the one supplied
        assert taken_over.hands == waiting.hands and taken_over.table == waiting.table
        assert taken_over.current_player == waiting.current_player


def test_an_action_while_waiting_is_refused_and_changes_nothing():
    rules = make_rules("widow", deals=2)
    game = new_game(rules, 3, decks=_packs(random.Random(3), 1), wait_for_packs=True)
    rng = random.Random(4)
    while not game.awaiting_pack:
        game.apply(rng.choice(game.legal_actions()))
    before = game.clone().__dict__
    with pytest.raises(IllegalActionError, match="waits for the next deal's pack"):
        game.apply(0)
    assert game.counters == before["counters"] and game.record == before["record"]
    assert game.awaiting_pack


def test_bad_supply_is_an_error_naming_it_and_changes_nothing():
    rules = make_rules("trade_barter", deals=2)
    pack = _packs(random.Random(5), 1)
    game = new_game(rules, 2, decks=pack, wait_for_packs=True)
    with pytest.raises(ValueError, match="not waiting"):
        game.supply_pack(pack[0])
    rng = random.Random(6)
    while not game.awaiting_pack:
        game.apply(rng.choice(game.legal_actions()))
    with pytest.raises(ValueError, match="appears twice"):
        game.supply_pack("AS AS")
    assert game.awaiting_pack and game.deals_dealt == 1


def test_wait_for_packs_needs_the_first_pack():
    with pytest.raises(ValueError, match="first deal's pack"):
        new_game(make_rules("pool"), 3, wait_for_packs=True)


def test_a_clone_of_a_waiting_game_is_supplied_apart():
    rules = make_rules("my_ship_sails", deals=3)
    packs = _packs(random.Random(7), 3)
    game = new_game(rules, 3, decks=packs[:1], wait_for_packs=True)
    rng = random.Random(8)
    while not game.awaiting_pack:
        game.apply(rng.choice(game.legal_actions()))
    copy = game.clone()
    copy.supply_pack(packs[1])
    assert game.awaiting_pack and not copy.awaiting_pack
    assert game.deals_dealt + 1 == copy.deals_dealt


def test_a_dealt_ship_settles_on_supply_and_waits_again():
    # R7.3: a dealt flush settles before any decision; R4.5: it does not count toward deals.
    calm = make_deck(["2D 7H 9C", "3H 5S 9D", "3D 8H 10C"], dealer=0)
    game = new_game(make_rules("my_ship_sails", deals=2), 3, decks=[calm], wait_for_packs=True)
    rng = random.Random(9)
    while not game.awaiting_pack:
        game.apply(rng.choice(game.legal_actions()))
    played, dealt, lives = game.deals_played, game.deals_dealt, sum(game.counters)
    game.supply_pack(make_deck(["2D 7H 9C", "2H 5H 9H", "3D 8H 10C"], dealer=game.dealer))
    assert game.awaiting_pack and game.deals_played == played and game.deals_dealt == dealt + 1
    assert sum(game.counters) == lives  # R4.3: the antes went back to the winner


@settings(max_examples=25, deadline=None)
@given(variant=st.sampled_from(VARIANTS), players=st.integers(2, 5), seed=st.integers(0, 2**31))
def test_supplying_packs_one_by_one_plays_as_giving_them_all(variant, players, seed):
    # R1.5 / R4.5: the same packs give the same match, whoever hands them over.
    rules = make_rules(variant, deals=3)
    rng = random.Random(seed)
    packs = _packs(rng, 40)
    waiting = new_game(rules, players, decks=packs[:1], wait_for_packs=True)
    given_all = new_game(rules, players, decks=packs)
    supplied = 1
    while True:
        if waiting.awaiting_pack:  # also after the last action: a dealt ship may end the match (R7.3)
            waiting.supply_pack(packs[supplied])
            supplied += 1
            continue
        if given_all.over:
            break
        assert waiting.legal_actions() == given_all.legal_actions()
        action = rng.choice(given_all.legal_actions())
        waiting.apply(action)
        given_all.apply(action)
    assert waiting.over and not waiting.awaiting_pack
    assert waiting.history == given_all.history and waiting.returns() == given_all.returns()
    assert supplied == given_all.deals_dealt
