"""The speed-ups change nothing observable: each fast path against the plain version."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.utils import wrappers

import commerce_env
from commerce_env import observation as obs
from commerce_env.engine import new_game
from commerce_env.engine.actions import KINDS
from commerce_env.engine.base import HORSE, REPLY
from commerce_env.engine.shuffle import FAST, shuffled
from commerce_env.hands import COMBINATIONS, evaluate_batch, hand_key, hand_keys
from commerce_env.knowledge import deal_memory
from commerce_env.rules import VARIANTS, make_rules


def plain_encode(game, seat):
    """The observation written one element at a time, as first written (R11)."""
    n = game.num_players
    vector = np.zeros(obs.observation_size(n), dtype=np.float32)
    offsets = {name: start for name, start, _ in obs.layout(n)}

    def card_slots(start, cards):
        for i, card in enumerate(cards):
            vector[start + i * obs.CARD_FEATURES + (card >> 2)] = 1.0
            vector[start + i * obs.CARD_FEATURES + 13 + (card & 3)] = 1.0

    hand = game.hands[seat]
    if hand and game.sees_own_hand(seat):
        vector[hand] = 1.0
        card_slots(offsets["hand_slots"], hand)
    card_slots(offsets["table_slots"], game.table)
    left = game.left_of(seat) if seat in game.position else -1
    gave, discarded = deal_memory(game, seat)
    for card, to in gave:
        vector[(offsets["gave_left"] if to == left else offsets["gave_right"]) + card] = 1.0
    for card in discarded:
        vector[offsets["discarded"] + card] = 1.0
    from commerce_env.engine.base import PHASES

    vector[offsets["phase"] + PHASES.index(game.phase)] = 1.0
    flags = offsets["flags"]
    vector[flags] = float(bool(hand) and game.sees_own_hand(seat))
    vector[flags + 1] = float(game.phase == REPLY and game.current_player == seat)
    vector[flags + 2] = len(game.stock) / 52.0
    vector[flags + 3] = game.pool * obs.SCALE
    vector[flags + 4] = game.rounds_done / game.rules.max_rounds
    vector[flags + 5] = float(game.phase == HORSE)
    for k in range(n):
        other = (seat + k) % n
        base = offsets["players"] + k * obs.PLAYER_FEATURES
        vector[base] = game.counters[other] * obs.SCALE
        vector[base + 1] = game.money[other] * obs.SCALE
        vector[base + 2] = float(game.out[other])
        vector[base + 3] = float(other == game.dealer)
        vector[base + 4] = float(other == game.current_player)
        vector[base + 5] = float(other in getattr(game, "stood", ()))
        vector[base + 6] = float(other in getattr(game, "passed", ()))
        kind = game.last_kind[other]
        vector[base + obs.PLAYER_FIELDS.index("last_none" if kind < 0 else f"last_{KINDS[kind]}")] = 1.0
    return vector


@pytest.mark.parametrize("variant", VARIANTS)
def test_fast_observation_equals_the_plain_one(variant):  # R11: the same vector, element for element
    rng = random.Random(variant)
    for num_players in (2, 4, 7):
        game = new_game(make_rules(variant), num_players, seed=rng.randrange(10**6))
        while not game.over:
            for seat in range(num_players):
                assert np.array_equal(obs.encode(game, seat), plain_encode(game, seat))
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
        for seat in range(num_players):
            assert np.array_equal(obs.encode(game, seat), plain_encode(game, seat))


def test_encode_into_a_buffer_clears_it_first():
    game = new_game(make_rules("old_game"), 3, seed=1)
    buffer = np.full(obs.observation_size(3), 7.0, dtype=np.float32)
    assert obs.encode(game, 1, out=buffer) is buffer
    assert np.array_equal(buffer, plain_encode(game, 1))


def test_shuffled_is_random_shuffle():  # R1.5: a seed gives the same packs as before
    assert FAST  # this Python shuffles as the fast path expects
    for seed in range(200):
        for size in (52, 32):
            mine, theirs = random.Random(seed), random.Random(seed)
            expected = list(range(size))
            theirs.shuffle(expected)
            assert shuffled(range(size), mine) == expected
            assert mine.getstate() == theirs.getstate()


def test_shuffled_falls_back_for_other_generators():
    class Counting(random.Random):
        calls = 0

        def shuffle(self, x):
            Counting.calls += 1
            super().shuffle(x)

    cards = shuffled(range(52), Counting(3))
    assert Counting.calls == 1 and sorted(cards) == list(range(52))


def test_hand_tables_match_the_direct_computation():  # R2: every ordered triple, repeats included
    grid = np.indices((52, 52, 52)).reshape(3, -1).T
    for combinations in ({"tricon", "sequence", "point"}, set(COMBINATIONS), {"flush"}, {"pair"}):
        direct = hand_keys(grid, flush="flush" in combinations, pair="pair" in combinations)
        assert np.array_equal(evaluate_batch(grid, combinations), direct)
        names = frozenset(combinations) | {"tricon", "sequence", "point"}
        sample = grid[::977]
        assert [hand_key(tuple(t), names) for t in sample.tolist()] == direct[::977].tolist()


def test_cached_masks_are_fresh_copies():
    from commerce_env.engine import new_game
    from commerce_env.observation import action_mask
    from commerce_env.rules import make_rules

    game = new_game(make_rules("trade_barter"), 3, seed=2)
    seat, legal = game.current_player, game.legal_actions()
    first = action_mask(game, seat)
    first[:] = 0
    second = action_mask(game, seat)
    assert second.dtype == np.int8 and np.flatnonzero(second).tolist() == legal
    assert not action_mask(game, (seat + 1) % 3).any()  # not his turn: nothing legal


def test_env_wrapper_behaves_like_pettingzoos():
    ours = commerce_env.env(variant="widow", num_players=3)
    theirs = wrappers.OrderEnforcingWrapper(commerce_env.raw_env(variant="widow", num_players=3))
    assert isinstance(ours, wrappers.OrderEnforcingWrapper) and str(ours) == str(theirs)
    for env in (ours, theirs):
        for name in ("agents", "agent_selection"):
            with pytest.raises(AttributeError, match="before reset"):
                getattr(env, name)
        with pytest.raises(AttributeError, match="before reset"):
            env.last()
        env.reset(seed=5)
    rng = random.Random(0)
    for agent in ours.agent_iter():
        assert agent == theirs.agent_selection and ours.agents == theirs.agents
        mine, other = ours.last(), theirs.last()
        assert np.array_equal(mine[0]["observation"], other[0]["observation"]) and mine[1:] == other[1:]
        if mine[2] or mine[3]:
            action = None
        else:
            legal = np.flatnonzero(mine[0]["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
        ours.step(action)
        theirs.step(action)
    assert not theirs.agents
