"""OpenSpiel's ``resample_from_infostate`` at a chance node between deals (R11): the world it
returns holds what the player knows and nothing else: the previous deal's unseen cards are dealt anew."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

import commerce_env.openspiel as cos  # noqa: E402
from commerce_env.cards import make_pack  # noqa: E402
from commerce_env.view import seat_view  # noqa: E402

PARAMS = {"players": 3, "max_rounds": 2, "deals": 3}


def between_deals(variant: str, pack: list[int], actions: list[int] | None = None, seed: int = 0):
    """The state after the first deal, dealt from ``pack``, at the chance node of the second;
    the players' actions are ``actions`` if given, else random ones (returned)."""
    state = pyspiel.load_game(cos.game_name(variant), PARAMS).new_initial_state()
    for card in pack:
        state.apply_action(card)
    rng = random.Random(seed)
    taken = []
    while not state.is_chance_node():
        action = actions[len(taken)] if actions is not None else rng.choice(state.legal_actions())
        state.apply_action(action)
        taken.append(action)
    assert state.engine.awaiting_pack and not state.is_terminal()
    return state, taken


def swapped_unseen(state, pack: list[int]) -> list[int]:
    """``pack`` with two cards swapped that stayed in the stock all the deal (seen by nobody)."""
    first, second = state.engine.stock[:2]
    other = list(pack)
    i, j = other.index(first), other.index(second)
    other[i], other[j] = other[j], other[i]
    return other


def fixed_sampler(value: float):
    return lambda: value


def some_pack(seed: int) -> list[int]:
    pack = [int(c) for c in make_pack(52)]
    random.Random(seed).shuffle(pack)
    return pack


@pytest.mark.parametrize("variant", ["trade_barter", "widow"])
def test_resample_between_deals_does_not_reveal_unseen_cards(variant):
    # R11: two matches that differ only in the previous deal's stock order, which nobody saw,
    # give the same resampled worlds for the same sampler.
    pack = some_pack(5)
    state, actions = between_deals(variant, pack)
    twin, _ = between_deals(variant, swapped_unseen(state, pack), actions)
    assert twin.engine.stock != state.engine.stock
    for seat in range(3):
        assert twin.information_state_string(seat) == state.information_state_string(seat)
        for value in (0.1, 0.6):
            world = state.resample_from_infostate(seat, fixed_sampler(value)).engine
            twin_world = twin.resample_from_infostate(seat, fixed_sampler(value)).engine
            assert world.stock == twin_world.stock
            assert world.hands == twin_world.hands
            assert world.record == twin_world.record


def test_resample_between_deals_redeals_the_previous_stock():
    pack = some_pack(11)
    state, _ = between_deals("trade_barter", pack)
    seat = 0
    worlds = [state.resample_from_infostate(seat, fixed_sampler(v / 10)).engine for v in range(1, 9)]
    assert any(w.stock != state.engine.stock for w in worlds)
    known = seat_view(state.engine, seat).history
    for world in worlds:  # the world holds what the seat knows: its own record of the match
        assert seat_view(world, seat).history == known
        assert world.counters == state.engine.counters and world.dealer == state.engine.dealer


def test_resampled_world_between_deals_plays_on_like_the_true_state():
    pack = some_pack(3)
    state, _ = between_deals("trade_barter", pack)
    seat = 1
    world = state.resample_from_infostate(seat, fixed_sampler(0.3))
    assert world.is_chance_node()
    assert world.information_state_string(seat) == state.information_state_string(seat)
    for card in some_pack(4):  # both deal the same next pack
        state.apply_action(card)
        world.apply_action(card)
    assert world.current_player() == state.current_player()
    assert world.legal_actions() == state.legal_actions()
    assert world.information_state_string(seat) == state.information_state_string(seat)


def test_resample_while_dealing_a_later_pack_hides_the_previous_deal():
    pack = some_pack(8)
    state, actions = between_deals("trade_barter", pack)
    twin, _ = between_deals("trade_barter", swapped_unseen(state, pack), actions)
    for s in (state, twin):
        for card in some_pack(9)[:5]:  # part of the second pack dealt
            s.apply_action(card)
    world = state.resample_from_infostate(2, fixed_sampler(0.7))
    twin_world = twin.resample_from_infostate(2, fixed_sampler(0.7))
    assert world.engine.stock == twin_world.engine.stock
    assert world.information_state_string(2) == state.information_state_string(2)
