"""Agents: legal play in every variant, R11 knowledge, determinization, the registry."""

import pickle
import random
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents import AGENTS, Agent, RandomAgent, make_agent
from agents.arena import play_game
from agents.heuristics import ExpectedValueAgent, GreedyAgent
from agents.search import SearchAgent
from commerce_env import observation as obs
from commerce_env.cards import CARDS, parse_cards
from commerce_env.engine import new_game
from commerce_env.engine.actions import GIVE, KEEP_HAND, KNOCK, OFFER, READY_MONEY, TAKE_WIDOW
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import seat_view

FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class LegalityChecker:
    """Wraps an agent and fails the test if it ever picks an action outside the mask."""

    def __init__(self, agent):
        self.agent, self.name, self.moves = agent, agent.name, 0

    def reset(self, *args):
        self.agent.reset(*args)

    def observe(self, seat, text):
        pass

    def act(self, view):
        action = self.agent.act(view)
        assert view["action_mask"][action] == 1, f"{self.name} chose illegal {action}"
        assert action in view.legal_actions
        self.moves += 1
        return action


# Options that open other phases: R5.6's stand-or-continue and R5.3's bottom discard (Peel),
# R6.3 without pass, R2.7's limited combinations.
OPTIONS = {
    "trade_barter": [{}, {"preset": "peel"}, {"dealer_pays": "peel_each", "stand_after_trade": True}],
    "widow": [{}, {"allow_pass": False}],
    "my_ship_sails": [{}],
    "old_game": [{}, {"combinations": ["tricon", "sequence", "point"]}],
    "pool": [{}],
}


def _short_match(variant):
    # R4.5: a match of a few deals keeps the property test fast in the lives variants.
    return {"deals": 3} if make_rules(variant).has_lives else {}


@pytest.mark.parametrize("variant", VARIANTS)
@FAST
@given(seed=st.integers(0, 2**31 - 1), players=st.integers(2, 5), data=st.data())
def test_agents_choose_only_legal_actions(variant, seed, players, data):  # R12 action table, R4.4
    options = data.draw(st.sampled_from(OPTIONS.get(variant, [{}])))
    rules = make_rules(variant, **_short_match(variant), **options)
    agents = [GreedyAgent(), ExpectedValueAgent(), SearchAgent(worlds=2), RandomAgent()]
    rng = random.Random(seed)
    rng.shuffle(agents)
    seats = [LegalityChecker(agents[s % len(agents)]) for s in range(players)]
    game = new_game(rules, players, rng=random.Random(seed))
    returns = play_game(game, seats, seeds=list(range(players)))
    assert game.over
    assert sum(returns) == pytest.approx(0.0)  # R4.3: nothing created or lost


def _play_random(game, moves, rng):
    for _ in range(moves):
        if game.over:
            break
        game.apply(rng.choice(game.legal_actions()))


def _twin_with_hidden_cards_permuted(game, seat, rng):
    """The same game as ``seat`` sees it, with every card of this deal hidden from it (R11) moved around.

    Cards the seat gave away keep their identity (it remembers them) even when
    it no longer knows where they are."""
    view = seat_view(game, seat)
    remembered = {card for card, _ in view.gave}
    hidden = [c for c in view.unseen if c not in remembered]
    shuffled = hidden[:]
    rng.shuffle(shuffled)
    mapping = dict(zip(hidden, shuffled, strict=True))
    twin = game.clone()

    def swap(cards):
        return [mapping.get(c, c) for c in cards]

    twin.hands = [sorted(swap(h)) for h in twin.hands]
    twin.stock, twin.discards = swap(twin.stock), swap(twin.discards)
    start = twin.deal_start - 1  # the current deal; earlier deals were shown (R11) and stay as they were
    twin.record[start:] = [(s, k, tuple(swap(c)), seen) for s, k, c, seen in twin.record[start:]]
    if twin.offer is not None:
        twin.offer = (twin.offer[0], mapping.get(twin.offer[1], twin.offer[1]))
    twin._legal_cache = None
    return twin, mapping


def _world_cards(world):
    return ([list(h) for h in world.hands], list(world.table), list(world.stock), list(world.discards),
            world.offer)


@pytest.mark.parametrize("variant", VARIANTS)
@FAST
@given(seed=st.integers(0, 2**31 - 1), moves=st.integers(0, 12))
def test_search_does_not_see_hidden_cards(variant, seed, moves):  # R11
    rng = random.Random(seed)
    game = new_game(make_rules(variant), 4, rng=random.Random(seed))
    _play_random(game, moves, rng)
    if game.over:
        return
    seat = game.current_player
    twin, mapping = _twin_with_hidden_cards_permuted(game, seat, rng)
    # The two games look the same from the seat (R11) ...
    assert (obs.encode(game, seat) == obs.encode(twin, seat)).all()
    first_view, second_view = seat_view(game, seat), seat_view(twin, seat)
    assert pickle.dumps(first_view) == pickle.dumps(second_view)
    # ... so the worlds it samples and the action it picks are the same.
    assert _world_cards(first_view.sample_world(random.Random(7))) == _world_cards(
        second_view.sample_world(random.Random(7)))
    first, second = SearchAgent(worlds=3, seed=5), SearchAgent(worlds=3, seed=5)
    assert first.act(first_view) == second.act(second_view)
    assert first.last_values == second.last_values
    for agent in (GreedyAgent(), ExpectedValueAgent()):
        assert agent.act(first_view) == agent.act(second_view)


@pytest.mark.parametrize("variant", VARIANTS)
def test_determinized_worlds_keep_what_the_seat_knows(variant):  # R11
    rng = random.Random(3)
    for trial in range(20):
        game = new_game(make_rules(variant), 4, rng=random.Random(trial))
        _play_random(game, trial % 9, rng)
        if game.over:
            continue
        seat = game.current_player
        info = seat_view(game, seat)
        world = info.sample_world(rng)
        assert len(world.where_are_cards()) == 52  # every card once
        assert world.table == game.table
        if game.sees_own_hand(seat):
            assert world.hands[seat] == game.hands[seat]
        for other, cards in enumerate(info.public_hands):
            assert set(cards) <= set(game.hands[other]) and set(cards) <= set(world.hands[other])
        assert [len(h) for h in world.hands] == [len(h) for h in game.hands]
        assert len(world.stock) == len(game.stock)


def test_worlds_vary_the_unseen_cards():  # determinization resamples what is hidden
    game = new_game(make_rules("trade_barter"), 4, rng=random.Random(1))
    seat = game.current_player
    rng = random.Random(0)
    view = seat_view(game, seat)
    others = {tuple(view.sample_world(rng).hands[(seat + 1) % 4]) for _ in range(20)}
    assert len(others) > 10


def test_widow_taker_hand_is_public():  # R6.2: the dealer's new hand is the face-up widow
    game = new_game(make_rules("widow"), 4, rng=random.Random(2))
    widow = sorted(game.table)
    game.apply(TAKE_WIDOW)
    eldest = game.current_player
    info = seat_view(game, eldest)
    assert info.public_hands[game.dealer] == tuple(widow)
    assert info.sample_world(random.Random(0)).hands[game.dealer] == widow


def test_bartered_card_is_known_until_the_neighbour_trades():  # R5.4, R11
    game = new_game(make_rules("trade_barter"), 4, rng=random.Random(4))
    trader = game.current_player
    offered = game.hands[trader][0]
    game.apply(OFFER + 0)
    neighbour = game.current_player
    game.apply(GIVE + 0)
    assert seat_view(game, trader).public_hands[neighbour] == (offered,)
    assert game.current_player == neighbour  # R5.4: the turn passes to the neighbour
    game.apply(READY_MONEY + 0)  # a face-down trade: the card may be gone
    assert seat_view(game, trader).public_hands[neighbour] == ()


def _game_with(variant, pack, **options):
    cards = list(parse_cards(pack))
    rest = [c for c in CARDS if c not in cards]
    return new_game(make_rules(variant, **options), 4, decks=[cards + rest], dealer=3)


def test_greedy_and_expected_value_knock_with_a_tricon():  # R2.1, R5.5
    # R1.5: one card at a time from the eldest (seat 0); seat 0 gets AS AH AD.
    game = _game_with("trade_barter", "AS 2C 3D 4H AH 5C 6D 7H AD 8C 9D JH")
    assert game.hands[0] == sorted(parse_cards("AS AH AD"))
    for agent in (GreedyAgent(), ExpectedValueAgent(), SearchAgent(worlds=8, seed=1)):
        assert agent.act(seat_view(game, 0)) == KNOCK


def test_greedy_takes_the_exchange_that_makes_a_tricon():  # R6.3
    game = _game_with("widow", "AS 3C 3D 4H AH 5C 6D 7H 2C 8C 9D JH AD 10C 5S")
    game.apply(KEEP_HAND)  # the dealer (seat 3) keeps his hand; seat 0 acts
    action = GreedyAgent().act(seat_view(game, 0))
    assert game.action_text(action, 0) == "exchange 2C AD"


def test_registry_and_specs(monkeypatch):
    assert {"random", "greedy", "expected_value", "search"} <= set(AGENTS)
    assert make_agent("search", worlds=3).worlds == 3
    with pytest.raises(ValueError, match="unknown agent 'bogus'"):
        make_agent("bogus")
    with pytest.raises(ValueError, match="worlds"):
        make_agent("search", worlds=0)
    with pytest.raises(TypeError, match="agent spec"):
        make_agent(3)
    loaded = []
    import agents.learned

    monkeypatch.setattr(agents.learned, "load_agent", lambda path, **kw: loaded.append(path) or RandomAgent())
    make_agent("model:runs/x")
    make_agent("runs/y/model.json")
    assert loaded == ["runs/x", "runs/y/model.json"]
    monkeypatch.undo()
    with pytest.raises(ValueError, match="bad arguments .*bogus.* for the model 'runs/x'"):  # checked before loading
        make_agent({"agent": "model:runs/x", "bogus": 1})
    monkeypatch.setitem(sys.modules, "agents.learned", None)  # as if the module were missing
    with pytest.raises(ValueError, match="agents.learned is not available"):
        make_agent("model:runs/x")


def test_search_with_a_time_budget_scores_every_legal_action():
    game = new_game(make_rules("widow"), 4, rng=random.Random(6))
    game.apply(KEEP_HAND)
    agent = SearchAgent(ms=5, seed=0, candidates=None)  # candidates=None: no exchange left out
    action = agent.act(seat_view(game, game.current_player))
    assert action in game.legal_actions()
    assert set(agent.last_values) == set(game.legal_actions())
    assert action == max(agent.last_values, key=lambda a: (agent.last_values[a], -a))  # plain search here


def test_greedy_trades_its_least_useful_card():  # R5.3, R5.4
    # Seat 0 holds 2C, 3D, 5D, a weak point (R2.5): the two diamonds are the promising pair, the 2C goes.
    game = _game_with("trade_barter", "2C 3H 4S 6D 3D 6H 7S 8C 5D JH QS 10C")
    assert game.hands[0] == sorted(parse_cards("2C 3D 5D"))
    assert game.action_text(GreedyAgent().act(seat_view(game, 0)), 0) == "ready_money 2C"
    assert game.action_text(GreedyAgent(barter=True).act(seat_view(game, 0)), 0) == "offer 2C"


@pytest.mark.parametrize("variant", VARIANTS)
def test_search_leaves_the_real_game_untouched(variant):
    rng = random.Random(8)
    game = new_game(make_rules(variant), 4, rng=random.Random(8))
    _play_random(game, 4, rng)
    if game.over:
        return
    caches = ("rng", "_legal_cache", "lineage", "known_records")  # the record's masks: a view fills them
    before = {k: repr(v) for k, v in game.__dict__.items() if k not in caches}
    rng_state = game.rng.getstate()
    SearchAgent(worlds=4, seed=0).act(seat_view(game, game.current_player))
    assert {k: repr(v) for k, v in game.__dict__.items() if k not in caches} == before
    assert game.rng.getstate() == rng_state


class _Listener(Agent):
    """Records what it is told of every action; plays the first legal action."""

    def __init__(self):
        self.heard: list[tuple[int, str]] = []

    def reset(self, seat, num_players, rules, seed=None):
        self.seat = seat

    def observe(self, seat, text):
        self.heard.append((seat, text))

    def act(self, view):
        return int(np.flatnonzero(view["action_mask"])[-1])  # offers and gives when it can


def test_observe_hides_face_down_cards_of_others():  # R11: discards and bartered cards are face down
    game = new_game(make_rules("trade_barter", max_rounds=2), 3, seed=5)
    listeners = [_Listener() for _ in range(3)]
    play_game(game, listeners)
    told_anything = False
    for listener in listeners:
        for index, (actor, text) in enumerate(listener.heard):
            verb = text.split()[0]
            received = verb == "give" and listener.heard[index - 1][0] == listener.seat
            if verb in ("offer", "give", "ready_money") and actor != listener.seat and not received:
                assert text == verb  # no card named
                told_anything = True
            if received:  # R11: the trader takes the neighbour's card and sees it
                assert len(text.split()) == 2
            if actor == listener.seat and verb in ("offer", "give", "ready_money"):
                assert len(text.split()) == 2  # his own card is his to know
    assert told_anything
