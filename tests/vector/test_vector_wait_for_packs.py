"""The batched engine's ``wait_for_packs``: a caller deals each later pack, as with the readable
engine's ``wait_for_packs`` / ``supply_pack`` (the arena's batched path gives the readable
engine's own shuffles this way)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_rules_common import random_options

pytest.importorskip("numba")

from commerce_env.cards import format_cards, make_pack  # noqa: E402
from commerce_env.engine import new_game  # noqa: E402
from commerce_env.observation import action_mask, encode  # noqa: E402
from commerce_env.rules import VARIANTS, make_rules  # noqa: E402
from commerce_env.vector import BatchEngine  # noqa: E402


def _shuffled(rules, rng):
    pack = list(make_pack(rules.deck_size))
    rng.shuffle(pack)
    return pack


def _check_same(engine, refs, n, where):
    players, masks = engine.current_player, engine.action_mask
    views = [engine.observe(s) for s in range(n)]
    assert engine.awaiting_pack.tolist() == [ref.awaiting_pack for ref in refs], where
    assert engine.over.tolist() == [ref.over for ref in refs], where
    assert engine.deals_played.tolist() == [ref.deals_played for ref in refs], where
    assert engine.deals_dealt.tolist() == [ref.deals_dealt for ref in refs], where
    for g, ref in enumerate(refs):
        seat = ref.current_player
        assert players[g] == (-1 if seat is None else seat), (where, g)
        expected = np.zeros(27, np.int8) if seat is None else action_mask(ref, seat)
        assert np.array_equal(masks[g], expected), (where, g)
        if not ref.awaiting_pack:
            for s in range(n):
                assert np.array_equal(views[s][g], encode(ref, s)), (where, g, s)
    assert np.array_equal(engine.balances(), np.array([ref.balances() for ref in refs]))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(3))
def test_supplied_packs_play_as_the_readable_engine(variant, seed):
    # R1.5, R4.5, R7.3: every later deal (a dealt flush's re-deal too) from the caller's pack.
    rng = random.Random(f"wait-{variant}-{seed}")
    n = rng.choice([2, 3, 4, 6])
    options = random_options(rng, variant, n)
    rules = make_rules(variant, **options)
    games = 4
    refs = [new_game(rules, n, decks=[_shuffled(rules, rng)], dealer=g % n, wait_for_packs=True)
            for g in range(games)]
    engine = BatchEngine(variant, n, games, rules=rules, wait_for_packs=True)
    engine.reset(decks=[list(ref.decks) for ref in refs], dealer=[g % n for g in range(games)])
    for g, ref in enumerate(refs):
        assert list(engine.rewards[g]) == ref.take_rewards()
    supplied = 0
    for steps in range(3000):
        _check_same(engine, refs, n, (options, n, steps))
        waiting = [g for g, ref in enumerate(refs) if ref.awaiting_pack]
        if waiting:
            packs = [_shuffled(rules, rng) for _ in waiting]
            texts = [format_cards(pack) for pack in packs]  # texts and card lists both accepted
            engine.supply_packs(waiting, [texts[0], *packs[1:]])
            for g, pack in zip(waiting, packs, strict=True):
                refs[g].supply_pack(pack)
            supplied += len(waiting)
            rewards = engine.rewards
            for g in waiting:  # the others' rewards are untouched, as by reset_games
                assert list(rewards[g]) == refs[g].take_rewards(), (options, n, g, steps)
        else:
            live = [not ref.over for ref in refs]
            if not any(live):
                break
            actions = np.zeros(games, dtype=np.int64)
            for g, ref in enumerate(refs):
                if live[g]:
                    actions[g] = rng.choice(ref.legal_actions())
                    ref.apply(int(actions[g]))
            engine.step(actions)
            rewards = engine.rewards
            for g, ref in enumerate(refs):
                assert list(rewards[g]) == ref.take_rewards(), (options, n, g, steps)
    assert all(ref.over for ref in refs)
    assert np.array_equal(engine.returns(), np.array([ref.returns() for ref in refs]))
    if rules.deals != 1:
        assert supplied > 0  # matches of more than one deal needed packs


def test_a_waiting_game_takes_no_action_and_others_play_on():
    rules = make_rules("trade_barter", deals=2)
    engine = BatchEngine("trade_barter", 3, 2, rules=rules, wait_for_packs=True)
    pack = list(make_pack(52))
    engine.reset(decks=[[pack], [pack, pack]])
    for _ in range(100):
        if engine.awaiting_pack[0]:
            break
        engine.step(np.where(engine.current_player >= 0, 0, 0))  # knock (R5.5) ends each deal
    assert engine.awaiting_pack.tolist() == [True, False]  # game 1 had its second pack
    assert engine.current_player[0] == -1 and not engine.action_mask[0].any() and not engine.over[0]
    before = engine._st.copy()
    engine.step(np.zeros(2, dtype=np.int64))  # game 0 waits: its action is ignored
    assert np.array_equal(engine._st[0], before[0])
    engine.supply_packs([0], [pack])
    assert not engine.awaiting_pack[0] and engine.current_player[0] >= 0


@pytest.mark.parametrize("games, packs, named", [
    ([1], [list(range(52))], "not waiting"),
    ([0, 0], [list(range(52))] * 2, "repeat"),
    ([0], [], "one pack per game"),
    ([0], [[1, 2, 3]], "packs\\[0\\]"),
    ([5], [list(range(52))], "indices"),
])
def test_bad_supplies_are_named_and_change_nothing(games, packs, named):
    rules = make_rules("trade_barter", deals=2)
    engine = BatchEngine("trade_barter", 3, 2, rules=rules, wait_for_packs=True)
    engine.reset(decks=[[list(range(52))], [list(range(52))] * 2])
    while not engine.awaiting_pack[0]:
        engine.step(np.zeros(2, dtype=np.int64))
    before = engine._st.copy()
    with pytest.raises(ValueError, match=named):
        engine.supply_packs(games, packs)
    assert np.array_equal(engine._st, before)


def test_without_wait_for_packs_nothing_waits():
    engine = BatchEngine("widow", 3, 8, seed=1)
    engine.reset()
    while not engine.over.all():
        engine.step(engine.action_mask.argmax(axis=1))
        assert not engine.awaiting_pack.any()
    with pytest.raises(ValueError, match="wait_for_packs"):
        BatchEngine("widow", 3, 8, wait_for_packs=1)
