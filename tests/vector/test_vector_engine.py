"""The batched engine against the readable one (docs/architecture.md).

Random matches with given packs are played in lockstep through
``commerce_env.vector.BatchEngine`` and ``commerce_env.engine``: at every
step the same player to act, the same mask, the same observation of every
seat and the same rewards (R1-R12; the option sets are those of the
reference comparison in test_rules_common.py).  Property tests: counters
conserved (R4.3) and every card in exactly one place (R1.5), per game.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import option_sets
from test_rules_common import random_options

pytest.importorskip("numba")

from commerce_env.cards import format_cards, make_pack  # noqa: E402
from commerce_env.engine import new_game  # noqa: E402
from commerce_env.observation import action_mask, encode  # noqa: E402
from commerce_env.rules import OPTION_BOUNDS, OPTIONS, VARIANTS, VARIANTS_WITH_LIVES, make_rules  # noqa: E402
from commerce_env.vector import BatchEngine  # noqa: E402
from commerce_env.view import seat_view  # noqa: E402

PACKS = 30  # packs given per game; play stops before a game would need more


def _setup(rules, n, games, rng, packs=PACKS):
    pack = list(make_pack(rules.deck_size))
    decks, dealers = [], []
    for _ in range(games):
        mine = []
        for _ in range(packs):
            rng.shuffle(pack)
            mine.append(list(pack))
        decks.append(mine)
        dealers.append(rng.randrange(n))
    return decks, dealers


def known_hands(view):
    """52 indicators per other seat, from the seat's left: the cards ``view.public_hands`` holds (R11)."""
    out = np.zeros(52 * (view.num_players - 1), dtype=np.float32)
    for j in range(1, view.num_players):
        for card in view.public_hands[(view.seat + j) % view.num_players]:
            out[(j - 1) * 52 + card] = 1.0
    return out


def _check_same(engine, refs, n, where=""):
    """Current player, mask and every seat's observation of each game equal the readable engine's."""
    players = engine.current_player
    masks = engine.action_mask
    views = [engine.observe(s) for s in range(n)]
    for g, ref in enumerate(refs):
        seat = ref.current_player
        assert players[g] == (-1 if seat is None else seat), (where, g)
        expected = np.zeros(27, np.int8) if seat is None else action_mask(ref, seat)
        assert np.array_equal(masks[g], expected), (where, g, ref.phase)
        for s in range(n):
            assert np.array_equal(views[s][g], encode(ref, s)), (where, g, s)
    for s in range(n):  # R11: the cards each seat knows to be in the other hands (view.public_hands)
        known = engine.known_cards(s)
        for g, ref in enumerate(refs):
            assert np.array_equal(known[g], known_hands(seat_view(ref, s))), (where, g, s, ref.phase)
    for s in range(n):  # nothing left for the seat: over, or out for good (R4.6, R9.4)
        assert engine.finished_for(s).tolist() == [ref.finished_for(s) for ref in refs], (where, s)
    assert np.array_equal(engine.balances(), np.array([ref.balances() for ref in refs]))
    assert np.array_equal(engine.pool, [ref.pool for ref in refs])


def _play_lockstep(variant, seed, games=4, n=None, options=None, max_steps=None):
    """Random legal play of ``games`` matches in both engines, compared at every step (at most
    ``max_steps`` of them); the number of steps."""
    rng = random.Random(f"vector-{variant}-{seed}")
    if n is None:
        n = rng.choice([2, 3, 4, 5, 7, 12])
    if options is None:
        options = random_options(rng, variant, n)
    rules = make_rules(variant, **options)
    decks, dealers = _setup(rules, n, games, rng)
    refs = [new_game(rules, n, decks=d, dealer=dealer) for d, dealer in zip(decks, dealers, strict=True)]
    engine = BatchEngine(variant, n, games, **options)
    engine.reset(decks=decks, dealer=dealers)
    for g, ref in enumerate(refs):  # a deal settled during reset (R7.3) pays at once
        assert engine.rewards[g] == pytest.approx(ref.take_rewards())
    steps = 0
    while True:
        _check_same(engine, refs, n, (options, n, steps))
        live = [not ref.over and ref.deals_dealt < PACKS - 3 for ref in refs]
        if not any(live) or steps == max_steps:
            break
        actions = np.zeros(games, dtype=np.int64)
        for g, ref in enumerate(refs):
            if live[g]:
                actions[g] = rng.choice(ref.legal_actions())
                ref.apply(int(actions[g]))
        engine.step(actions, where=np.array(live))
        rewards = engine.rewards
        for g, ref in enumerate(refs):
            expected = ref.take_rewards() if live[g] else [0.0] * n
            assert list(rewards[g]) == expected, (options, n, g, steps)  # exact: same floats
        steps += 1
    assert np.array_equal(engine.returns(), np.array([ref.returns() for ref in refs]))
    return steps


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(8))
def test_random_matches_agree_with_the_readable_engine(variant, seed):
    # R1-R12: random options, packs, dealers and legal moves; every step compared.
    assert _play_lockstep(variant, seed) > 0


def _extreme_options(variant, end):
    """Every numeric option of ``variant`` at its lowest (end 0) or highest (end 1) value (R12)."""
    return {name: bounds[end] for name, bounds in OPTION_BOUNDS.items() if name in OPTIONS[variant]}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("end", [0, 1], ids=["lowest", "highest"])
@pytest.mark.parametrize("n", [2, 12])
def test_matches_at_the_option_bounds_agree_with_the_readable_engine(variant, end, n):
    # R12: at the bounds of the numeric options (entry 10**9 and deals 10,000 included) the int64 kernels
    # give exactly the readable engine's balances, observations and rewards.
    options = _extreme_options(variant, end)
    assert _play_lockstep(variant, f"bounds-{end}", n=n, options=options, max_steps=300) > 0


@pytest.mark.parametrize("variant", sorted(VARIANTS_WITH_LIVES))
def test_matches_with_lives_until_out_at_the_highest_bounds_agree(variant):
    # R9.2-R9.5, R12: matches with lives played until a player is out, at the highest numeric options.
    options = {**_extreme_options(variant, 1), "deals": "until_out"}
    assert _play_lockstep(variant, "bounds-until-out", n=3, options=options, max_steps=300) > 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_restarting_finished_games_leaks_nothing(variant):
    # R4.5: a batch of finished and running games; restarting the finished ones (with new packs)
    # gives exactly the fresh readable match, and leaves the running ones as they were.
    rng = random.Random(f"restart-{variant}")
    n = 3
    options = {"deals": 1} if variant in ("trade_barter", "old_game") else {"deals": 2}
    rules = make_rules(variant, **options)
    games = 6
    decks, dealers = _setup(rules, n, games, rng, packs=6)
    refs = [new_game(rules, n, decks=d, dealer=dealer) for d, dealer in zip(decks, dealers, strict=True)]
    engine = BatchEngine(variant, n, games, **options)
    engine.reset(decks=decks, dealer=dealers)
    for g, ref in enumerate(refs):
        assert list(engine.rewards[g]) == ref.take_rewards()
    restarted = 0
    for step in range(400):
        _check_same(engine, refs, n, step)
        finished = [g for g, ref in enumerate(refs) if ref.over]
        if finished:
            fresh, fresh_dealers = _setup(rules, n, len(finished), rng, packs=6)
            engine.reset_games(finished, decks=fresh, dealer=fresh_dealers)
            for k, g in enumerate(finished):
                refs[g] = new_game(rules, n, decks=fresh[k], dealer=fresh_dealers[k])
                assert list(engine.rewards[g]) == refs[g].take_rewards()
                assert engine.returns()[g].tolist() == refs[g].returns()
            restarted += len(finished)
            _check_same(engine, refs, n, ("after restart", step))
        actions = np.zeros(games, dtype=np.int64)
        live = np.array([ref.deals_dealt < 5 for ref in refs])
        for g, ref in enumerate(refs):
            if live[g]:
                actions[g] = rng.choice(ref.legal_actions())
                ref.apply(int(actions[g]))
        engine.step(actions, where=live)
        for g, ref in enumerate(refs):
            assert list(engine.rewards[g]) == (ref.take_rewards() if live[g] else [0.0] * n)
    assert restarted > 0


def test_an_illegal_action_names_game_and_action_and_changes_nothing():
    # R5.3: no ready money from an empty stock; here simply an action not in the mask.
    engine = BatchEngine("trade_barter", 4, 3, seed=1)
    engine.reset()
    before = engine._st.copy(), engine.action_mask, engine.rewards
    actions = np.zeros(3, dtype=np.int64)
    actions[2] = 18  # an exchange: no table in trade and barter
    with pytest.raises(ValueError, match=r"game 2: illegal action 18 \(exchange"):
        engine.step(actions)
    with pytest.raises(ValueError, match="game 0: illegal action 99"):
        engine.step(np.array([99, 0, 0]))
    with pytest.raises(ValueError, match="shape"):
        engine.step(np.zeros(2, dtype=np.int64))
    assert np.array_equal(engine._st, before[0])
    assert np.array_equal(engine.action_mask, before[1]) and np.array_equal(engine.rewards, before[2])


def test_finished_games_ignore_actions_and_report_minus_one():
    engine = BatchEngine("trade_barter", 2, 2, seed=3)
    engine.reset()
    for _ in range(200):
        if engine.over.all():
            break
        mask = engine.action_mask
        actions = np.where(engine.over, 26, np.argmax(mask, axis=1))  # 26 is illegal, but ignored where over
        engine.step(actions)
    assert engine.over.all()
    assert (engine.current_player == -1).all() and not engine.action_mask.any()
    engine.step(np.array([5, 7]))  # ignored
    assert not engine.rewards.any()


@pytest.mark.parametrize("bad, named", [
    ([["AS"]], "lacks"), ("AS KD", "one list of packs"), ([["AS AS"]], "twice"), ([[], []], "one list"),
    ([[[0] * 52]], "twice"), ([[[float(c) for c in range(52)]]], "got 0.0"),
    ([[[True] + list(range(1, 52))]], "got True"), ([[list(range(1, 53))]], "index"),
])
def test_bad_decks_are_named_and_change_nothing(bad, named):
    engine = BatchEngine("trade_barter", 2, 1, seed=0)
    engine.reset()
    before = engine._st.copy()
    with pytest.raises(ValueError, match=named):
        engine.reset(decks=bad)
    assert np.array_equal(engine._st, before)


def test_bad_construction_is_named():
    with pytest.raises(ValueError, match="num_players=13"):
        BatchEngine("trade_barter", 13, 4)
    with pytest.raises(ValueError, match="num_games"):
        BatchEngine("trade_barter", 4, 0)
    with pytest.raises(ValueError, match="tie_brake"):
        BatchEngine("trade_barter", 4, 2, tie_brake="dealer")
    with pytest.raises(ValueError, match="dealer"):
        BatchEngine("trade_barter", 4, 2).reset(dealer=4)


def test_given_text_packs_deal_as_the_readable_engine():
    # R1.5: a pack in text, top card first, gives the same deal in both engines.
    rules = make_rules("widow")
    pack = list(make_pack(52))
    random.Random(5).shuffle(pack)
    text = format_cards(pack)
    ref = new_game(rules, 4, decks=[text], dealer=2)
    engine = BatchEngine("widow", 4, 1)
    engine.reset(decks=[[text]], dealer=2)
    assert engine.hands[0].tolist() == [list(h) for h in ref.hands]
    assert engine.table[0].tolist() == list(ref.table)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1))
def test_counters_are_conserved_and_every_card_is_somewhere_once(data, variant, seed):
    # R4.3: counters (or money) plus pool constant; R1.5: every card of the pack in one place; per game.
    options = data.draw(option_sets(variant, max_rounds=4))
    rules = make_rules(variant, **options)
    n = data.draw(st.integers(2, 12 if rules.deck_size == 52 else 7))
    games = 5
    engine = BatchEngine(variant, n, games, seed=seed, **options)
    engine.reset(dealer=np.arange(games) % n)
    start = engine.total_value()
    pack = set(make_pack(rules.deck_size))
    rng = np.random.default_rng(seed)
    for _ in range(60):
        for g in range(games):
            assert set(engine.card_places(g)) == pack
        assert np.array_equal(engine.total_value(), start)
        if engine.over.all():
            break
        mask = engine.action_mask
        engine.step((rng.random(mask.shape) * mask).argmax(axis=1))
        if rules.has_lives:
            assert (engine.counters() >= 0).all()  # R4.6


def test_import_commerce_env_does_not_load_numba():
    # docs/architecture.md layering: the batched engine is an optional integration beside the env.
    import subprocess
    import sys

    code = ("import sys, commerce_env, commerce_env.aec_env, commerce_env.single_agent; "
            "print([m for m in sys.modules if m.split('.')[0] == 'numba' or m == 'commerce_env.vector'])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
