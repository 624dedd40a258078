"""Commerce as OpenSpiel games (commerce_env.openspiel) and OpenSpiel bots as agents (agents.openspiel)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel")

from helpers import make_deck  # noqa: E402
from openspiel_helpers import SMALL, load, packs, play_to_decision, random_play, some_decision  # noqa: E402
from strategies import option_sets  # noqa: E402

import commerce_env  # noqa: E402
import commerce_env.openspiel as cos  # noqa: E402
from commerce_env.cards import CARDS, make_pack  # noqa: E402
from commerce_env.engine import new_game  # noqa: E402
from commerce_env.rules import UNTIL_OUT, VARIANTS, make_rules  # noqa: E402


# ------------------------------------------------------------------ loading
def test_import_registers_every_variant():
    names = set(pyspiel.registered_names())
    for variant in VARIANTS:
        assert f"python_commerce_{variant}" in names


def test_import_commerce_env_never_imports_pyspiel():
    import subprocess
    import sys

    code = "import sys, commerce_env, commerce_env.engine; print('pyspiel' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


@pytest.mark.parametrize("variant", VARIANTS)
def test_defaults_are_r12(variant):
    # R12: the parameters' defaults are the rules' defaults.
    game = load(variant, players=4)
    assert game.num_players() == 4 and game.rules == make_rules(variant)
    assert game.num_distinct_actions() == 27 and game.max_chance_outcomes() == 52
    expected_deals = 0 if make_rules(variant).deals == UNTIL_OUT else make_rules(variant).deals
    assert game.get_parameters()["deals"] == expected_deals


@pytest.mark.parametrize("variant", VARIANTS)
def test_game_string_reloads_the_same_game(variant):
    params = {"players": 3, "dealer": 2, **SMALL.get(variant, {})}
    if variant != "my_ship_sails":
        params["combinations"] = "tricon+sequence+flush+point"
    game = load(variant, **params)
    again = pyspiel.load_game(str(game))
    assert again.rules == game.rules and again.num_players() == 3 and again.dealer == 2


@settings(max_examples=40, deadline=None)
@given(data=st.data(), variant=st.sampled_from(VARIANTS))
def test_parameters_from_rules_load_those_rules(data, variant):
    # R12: every option set has a parameter form that loads the same rules.
    rules = make_rules(variant, **data.draw(option_sets(variant)))
    params = cos.parameters_from_rules(rules, 2)
    assert cos.rules_from_parameters(variant, params)[0] == rules
    assert load(variant, **params).rules == rules


def test_until_out_horse_price_and_combinations_have_their_parameter_forms():
    game = load("pool", players=3, deals=0, entry=9, horse_price=-1, combinations="tricon+sequence+point")
    assert game.rules.deals == UNTIL_OUT and game.rules.horse_price == 3  # R9.4: entry // 3
    assert game.rules.combinations == frozenset({"tricon", "sequence", "point"})


def test_a_preset_sets_the_options_left_at_their_defaults():
    # R5.9: Peel's preset; an explicit non-default value still overrides it.
    peel = load("trade_barter", players=3, preset="peel")
    assert peel.rules.discard == "bottom" and peel.rules.stand_after_trade is True
    assert peel.rules == make_rules("trade_barter", preset="peel")
    mixed = load("trade_barter", players=3, preset="peel", dealer_pays="peel_each")
    assert mixed.rules.dealer_pays == "peel_each" and mixed.rules.discard == "bottom"


@pytest.mark.parametrize("params, word", [
    ({"players": 13}, "num_players=13"),
    ({"players": 8, "deck_size": 32}, "num_players=8"),
    ({"players": 3, "dealer": 3}, "dealer"),
    ({"players": 3, "tie_break": "coin"}, "tie_break"),
    ({"players": 3, "combinations": "tricon+straight"}, "straight"),
    ({"players": 3, "deals": -2}, "deals"),
])
def test_bad_parameters_are_errors_naming_them(params, word):
    with pytest.raises(Exception, match=word):
        load("trade_barter", **params)


def test_until_out_needs_lives():
    with pytest.raises(Exception, match="until_out"):
        load("old_game", players=3, deals=0)


# ---------------------------------------------------------- OpenSpiel's tests
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("params", [{"players": 4}, {"players": 2, "deck_size": 32}, {"players": 3, "deals": 2}])
def test_pyspiel_random_simulation_test_with_serialisation(variant, params):
    pyspiel.random_sim_test(load(variant, **params), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", VARIANTS)
def test_serialised_state_plays_on_as_the_original(variant):
    state = some_decision(variant, 3, 4, players=3)
    game = state.get_game()
    text = pyspiel.serialize_game_and_state(game, state)
    _, copy = pyspiel.deserialize_game_and_state(text)
    assert str(copy) == str(state) and copy.history() == state.history()
    rng_a, rng_b = random.Random(5), random.Random(5)
    assert random_play(copy, rng_a).returns() == random_play(state, rng_b).returns()


def test_clone_is_independent_and_goes_through_the_engine_clone(monkeypatch):
    state = some_decision("trade_barter", 1, 1, players=3)
    calls = []
    real = type(state.engine).clone
    monkeypatch.setattr(type(state.engine), "clone", lambda self: calls.append(1) or real(self))
    copy = state.clone()
    assert calls  # no generic deep copy of the engine
    before = str(state)
    copy.apply_action(copy.legal_actions()[0])
    assert str(state) == before and str(copy) != before


# --------------------------------------------------------------- chance
@pytest.mark.parametrize("variant", VARIANTS)
def test_chance_deals_the_pack_in_order(variant):
    # R1.5: choosing the cards of a pack top first deals exactly that pack.
    pack = packs(11, 1)[0]
    state = load(variant, players=3, dealer=1).new_initial_state()
    for k, card in enumerate(pack):
        assert state.is_chance_node()
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 52 - k and card in dict(outcomes)
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
        assert state.action_to_string(pyspiel.PlayerId.CHANCE, card) == str(CARDS[card])
        state.apply_action(card)
    engine = new_game(make_rules(variant), 3, decks=[pack], dealer=1)
    if not state.is_terminal():
        assert state.engine.hands == engine.hands and state.engine.table == engine.table
        assert state.engine.stock == engine.stock and state.current_player() == engine.current_player


def test_a_card_already_dealt_is_refused():
    state = load("old_game", players=2).new_initial_state()
    state.apply_action(5)
    with pytest.raises(Exception, match="not a card left"):
        state.apply_action(5)


def test_a_32_card_pack_deals_32_cards():
    state = load("widow", players=2, deck_size=32).new_initial_state()
    outcomes = [a for a, _ in state.chance_outcomes()]
    assert outcomes == sorted(int(c) for c in make_pack(32))


# ------------------------------------------------------ equal to the AEC env
def _play_against_env(variant: str, num_players: int, seed: int, options: dict) -> None:
    deck_size = options.get("deck_size", 52)
    match_packs = packs(seed, 300, deck_size)
    rng = random.Random(seed)
    env = commerce_env.env(variant=variant, num_players=num_players, **options)
    env.reset(seed=seed, options={"decks": [list(p) for p in match_packs], "dealer": 0})
    raw = env.unwrapped
    params = cos.parameters_from_rules(raw.rules, num_players)
    state = load(variant, **params).new_initial_state()
    cards = iter(c for p in match_packs for c in p)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        play_to_decision(state, cards)
        seat = raw.possible_agents.index(agent)
        assert state.current_player() == seat
        legal = state.legal_actions()
        assert legal == [int(a) for a in np.flatnonzero(observation["action_mask"])]
        texts = [state.action_to_string(seat, a) for a in legal]
        assert texts == [raw.decode_action(a, agent) for a in legal]  # R12 texts
        assert state.returns() == raw.game.returns()
        action = rng.choice(legal)
        state.apply_action(action)
        env.step(action)
    play_to_decision(state, cards)
    assert state.is_terminal()
    assert state.returns() == [totals[a] for a in env.possible_agents] == raw.game.returns()
    assert raw.game.deals_dealt <= len(match_packs)


@settings(max_examples=12, deadline=None)
@given(variant=st.sampled_from(VARIANTS), num_players=st.integers(2, 5), seed=st.integers(0, 2**31),
       reward=st.sampled_from(["counters", "outcome"]), deck_size=st.sampled_from([52, 32]))
def test_legal_texts_and_returns_equal_the_aec_env(variant, num_players, seed, reward, deck_size):
    _play_against_env(variant, num_players, seed, {"reward": reward, "deck_size": deck_size, **SMALL.get(variant, {})})


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_equals_the_aec_env_with_r12_defaults(variant):
    _play_against_env(variant, 3, 17, {})


def test_rewards_at_a_decision_are_what_was_paid_since_the_last():
    # R7.3: a dealt ship settles on a chance step; its transfers are paid at the next decision.
    rng = random.Random(2)
    state = load("my_ship_sails", players=3).new_initial_state()
    paid = [0.0] * 3
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        paid = [p + r for p, r in zip(paid, state.rewards(), strict=True)]
        assert paid == state.returns()
        state.apply_action(rng.choice(state.legal_actions()))
    paid = [p + r for p, r in zip(paid, state.rewards(), strict=True)]
    assert paid == state.returns() and sum(state.returns()) == 0  # R4.3


# ---------------------------------------------------------------- observers
@pytest.mark.parametrize("variant", VARIANTS)
def test_observers_see_only_what_the_seat_saw(variant):
    # R11: a world re-dealt from one seat's knowledge gives that seat the same strings and tensors.
    rng = random.Random(7)
    for trial in range(6):
        state = some_decision(variant, trial, rng.randrange(6), players=3)
        for seat in range(3):
            world = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
            assert world.information_state_string(seat) == state.information_state_string(seat)
            assert world.information_state_tensor(seat) == state.information_state_tensor(seat)
            assert world.observation_string(seat) == state.observation_string(seat)
            assert world.observation_tensor(seat) == state.observation_tensor(seat)
            assert world.current_player() == state.current_player()
            assert world.legal_actions() == state.legal_actions()
            assert world.history() == []  # the true chance outcomes are not carried over


def test_resampled_worlds_redeal_hidden_cards():
    state = some_decision("trade_barter", 4, 0, players=3)
    seat = state.current_player()
    others = [s for s in range(3) if s != seat]
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    hands = {tuple(tuple(state.resample_from_infostate(seat, sampler).engine.hands[s]) for s in others)
             for _ in range(10)}
    assert len(hands) > 1
    for _ in range(5):
        world = state.resample_from_infostate(seat, sampler)
        assert world.engine.hands[seat] == state.engine.hands[seat]


def test_information_string_names_own_cards_and_no_hidden_card():
    # R11: his own hand is in his string; another's hand is not, until the showdown.
    state = some_decision("trade_barter", 9, 0, players=3)
    seat = state.current_player()
    other = (seat + 1) % 3
    text = state.information_state_string(seat)
    for card in state.engine.hands[seat]:
        assert str(CARDS[card]) in text
    own_or_seen = set(state.engine.hands[seat])
    assert not any(f" {CARDS[c]}" in text for c in state.engine.hands[other] if c not in own_or_seen)
    assert state.information_state_string(other) != text


def _dealt(variant: str, deck: str, dealer: int, **params) -> pyspiel.State:
    from commerce_env.cards import parse_cards

    state = load(variant, dealer=dealer, **params).new_initial_state()
    for card in parse_cards(deck):
        state.apply_action(int(card))
    return state


def _act(state: pyspiel.State, text: str) -> None:
    seat = state.current_player()
    texts = {state.action_to_string(seat, a): a for a in state.legal_actions()}
    state.apply_action(texts[text])


def test_a_barter_shows_each_trader_the_card_he_receives_and_nobody_else():
    # R5.4, R11: a face-down offer and give are seen by the two traders only.
    deck = make_deck(["9H 10H JH", "4D KS AS", "5C 5D 9S", "7C 8C 9C"], dealer=3, stock="2C")
    state = _dealt("trade_barter", deck, 3, players=4)
    _act(state, "offer JH")  # seat 0 to seat 1
    assert "0 offer JH" in state.information_state_string(0)
    assert "JH" not in state.information_state_string(1)  # not before he gives (R5.4)
    _act(state, "give AS")
    assert "1 give AS" in state.information_state_string(0) and "0 offer JH" in state.information_state_string(1)
    for seat in (2, 3):
        text = state.information_state_string(seat)
        assert "0 offer" in text and "1 give" in text and "JH" not in text and "AS" not in text


def test_ready_money_shows_the_drawn_card_to_the_trader_only():
    # R5.3, R11: the discard is face down; the trader sees what he draws.
    deck = make_deck(["9H 10H JH", "4D KS AS", "5C 5D 9S", "7C 8C 9C"], dealer=3, stock="2C")
    state = _dealt("trade_barter", deck, 3, players=4)
    _act(state, "ready_money 9H")
    assert "0 ready_money 9H draws 2C" in state.information_state_string(0)
    observer = state.get_game().make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    observer.set_from(state, 0)
    row = observer.dict["deal_history"][0]  # actor 0 (4 seats), ready_money, 9H then 2C
    cards = 4 + 13
    assert row[cards + 7] and row[cards + 13 + 2] and row[cards + 17 + 0] and row[cards + 17 + 13 + 0]
    observer.set_from(state, 1)
    assert not observer.dict["deal_history"][0][cards:].any()
    for seat in (1, 2, 3):
        text = state.information_state_string(seat)
        assert "0 ready_money" in text and "2C" not in text and "9H" not in text


def test_the_widow_dealer_decides_blind():
    # R6.2: the dealer chooses before looking at his cards; a kept hand is seen afterwards.
    deck = make_deck(["9H 10H JH", "4D KS AS", "5C 5D 9S"], dealer=2, table="2C 3C 4C")
    state = _dealt("widow", deck, 2, players=3)
    assert state.current_player() == 2
    assert "dealt ?" in state.information_state_string(2) and "9S" not in state.information_state_string(2)
    assert "table 2C 3C 4C" in state.information_state_string(0)
    _act(state, "keep_hand")
    assert "keep_hand sees 5C 5D 9S" in state.information_state_string(2)
    assert "9S" not in state.information_state_string(0)


def test_observation_pieces_are_the_aec_layout():
    from commerce_env.observation import encode, layout

    state = some_decision("widow", 2, 3, players=4)
    observation = pyspiel.IIGObservationType(perfect_recall=False)
    observer = state.get_game().make_py_observer(observation)
    observer.set_from(state, 1)
    assert [name for name, _, _ in layout(4)] == list(observer.dict)
    assert np.array_equal(observer.tensor, encode(state.engine, 1))
    info = state.get_game().make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    info.set_from(state, 1)
    assert "deal_history" in info.dict and info.dict["deal_history"].shape[0] == state.get_game().deal_steps


def test_public_and_private_observers_split_the_observation():
    # R11: the private sections are what only the seat knows; the public ones what all know.
    from commerce_env.observation import encode, layout

    state = some_decision("trade_barter", 5, 2, players=3)
    game = state.get_game()
    full = encode(state.engine, 1)
    starts = {name: (start, length) for name, start, length in layout(3)}
    none, single = pyspiel.PrivateInfoType.NONE, pyspiel.PrivateInfoType.SINGLE_PLAYER
    public = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                                              private_info=none))
    private = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False, public_info=False,
                                                               private_info=single))
    public.set_from(state, 1)
    private.set_from(state, 1)
    assert set(private.dict) == {"hand", "hand_slots", "gave_left", "gave_right", "discarded"}
    assert set(public.dict) | set(private.dict) == set(starts) and not set(public.dict) & set(private.dict)
    for observer in (public, private):
        for name, piece in observer.dict.items():
            start, length = starts[name]
            assert np.array_equal(piece.ravel(), full[start:start + length])
    hand = " ".join(str(CARDS[c]) for c in state.engine.hands[1])
    assert hand in private.string_from(state, 1) and hand not in public.string_from(state, 1)


@pytest.mark.parametrize("obs_type", [
    dict(perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE),
    dict(perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS),
])
def test_observers_not_provided_are_refused_with_a_clear_error(obs_type):
    with pytest.raises(ValueError, match="unsupported observation type"):
        load("old_game", players=2).make_py_observer(pyspiel.IIGObservationType(**obs_type))


@pytest.mark.parametrize("variant", VARIANTS)
def test_openspiel_playthrough_runs(variant):
    # OpenSpiel's generate_playthrough calls every observer, string and tensor of a random match.
    from open_spiel.python.algorithms import generate_playthrough

    text = generate_playthrough.playthrough(f"python_commerce_{variant}(players=2,deck_size=32)", None)
    assert "Returns() = " in text and "IsTerminal() = True" in text
