"""Stateful fuzzing of the engine: random legal and illegal actions in every variant.

A hypothesis ``RuleBasedStateMachine`` plays matches of random variants, option
sets (R12) and player counts (R1.4) with random legal actions, out-of-range
numbers, wrong types, unmasked actions and bad texts.  After every step the
invariants hold (R4.3 counters and money, R1.5 every card in one place, R4.4 a
bounded deal, the mask); a refused action leaves the state exactly as it was.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from strategies import deal_decision_bound, game_setups, invariant_violations, setup_game, snapshot

from commerce_env.engine import IllegalActionError
from commerce_env.engine.actions import NUM_ACTIONS

WRONG_TYPES = st.one_of(
    st.none(), st.booleans(), st.floats(allow_nan=True), st.text(max_size=8), st.binary(max_size=4),
    st.lists(st.integers(0, 26), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
    st.complex_numbers(max_magnitude=30),
)
WORDS = ["knock", "stand", "continue", "pass", "decline", "take_widow", "keep_hand", "buy_horse", "no_horse",
         "ready_money", "offer", "give", "exchange", "KNOCK", "offer offer", "", " "]
CARD_TOKENS = ["AS", "10H", "TH", "th", "2c", "1S", "11D", "AX", "A", "S", "10", "ZZ", "QQ", "0C", "♠A", "AS,KD"]
TEXTS = st.one_of(
    st.text(max_size=20),
    st.builds(" ".join, st.lists(st.sampled_from(WORDS + CARD_TOKENS), min_size=1, max_size=4)),
)


class EngineMachine(RuleBasedStateMachine):
    """One match at a time; a new one when it ends."""

    def __init__(self):
        super().__init__()
        self.game = None

    @initialize(setup=game_setups(max_rounds=4))
    def new_match(self, setup):
        self.game = setup_game(setup)
        self.total = self.game.total_value()
        self.deal, self.in_deal = self.game.deals_dealt, 0

    def _refused_unchanged(self, attempt, errors=(ValueError, TypeError)):
        before = snapshot(self.game)
        with pytest.raises(errors):
            attempt()
        assert snapshot(self.game) == before, "a refused action changed the state"

    @precondition(lambda self: self.game.over)
    @rule(setup=game_setups(max_rounds=4))
    def next_match(self, setup):
        self.new_match(setup)

    @precondition(lambda self: not self.game.over)
    @rule(data=st.data())
    def legal_action(self, data):  # R12: every masked action is accepted
        game = self.game
        action = data.draw(st.sampled_from(game.legal_actions()))
        dealer = game.dealer
        game.apply(action)
        if game.deals_dealt == self.deal + 1 and not game.over:
            self.check_new_deal(dealer)
        if game.deals_dealt != self.deal:
            self.deal, self.in_deal = game.deals_dealt, 0
        else:
            self.in_deal += 1
            assert self.in_deal <= deal_decision_bound(game), "a deal outlasted its bound (R4.4)"

    def check_new_deal(self, old_dealer):
        """R3.2, R4.5: the deal passes left to the next player still in; R5.2, R6.2, R8.2: who acts first."""
        game = self.game
        n = game.num_players
        in_game = [s for s in ((old_dealer + k) % n for k in range(1, n + 1)) if not game.out[s]]
        assert game.dealer == in_game[0]
        assert game.order == [s for s in ((game.dealer + k) % n for k in range(1, n + 1)) if not game.out[s]]
        if game.variant == "widow":
            assert (game.phase, game.current_player) == ("widow_choice", game.dealer)
        else:
            assert (game.phase, game.current_player) == ("act", game.order[0])
        assert game.record[game.deal_start:] == []

    @rule(action=st.one_of(st.integers(0, NUM_ACTIONS - 1), st.integers(-10**6, 10**6), st.integers()))
    def unmasked_or_out_of_range_number(self, action):
        if not self.game.over and action in self.game.legal_actions():
            return
        self._refused_unchanged(lambda: self.game.apply(action), IllegalActionError)

    @rule(value=WRONG_TYPES)
    def wrong_type(self, value):  # a bool is no action number either
        self._refused_unchanged(lambda: self.game.apply(value))

    @rule(text=TEXTS)
    def bad_text(self, text):  # R12 texts: a bad one is a ValueError naming it, a good one round-trips
        game = self.game
        before = snapshot(game)
        try:
            action = game.action_from_text(text)
        except (ValueError, TypeError):
            pass
        else:
            assert 0 <= action < NUM_ACTIONS
            if not game.over and action in game.legal_actions():
                assert game.action_from_text(game.action_text(action)) == action
        assert snapshot(game) == before

    @precondition(lambda self: not self.game.over)
    @rule()
    def texts_round_trip(self):  # R12: each legal action has a canonical text naming it
        game = self.game
        for action in game.legal_actions():
            assert game.action_from_text(game.action_text(action)) == action

    @precondition(lambda self: not self.game.over)
    @rule(data=st.data())
    def clone_plays_the_same(self, data):  # search agents: a clone is independent and identical
        game = self.game
        twin = game.clone()
        assert snapshot(twin) == snapshot(game)
        action = data.draw(st.sampled_from(game.legal_actions()))
        before = snapshot(game)
        twin.apply(action)
        assert snapshot(game) == before

    @invariant()
    def invariants_hold(self):
        if self.game is not None:
            problems = invariant_violations(self.game, self.total)
            assert not problems, "; ".join(problems)


EngineMachine.TestCase.settings = settings(
    max_examples=30, stateful_step_count=40, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestEngineFuzz = EngineMachine.TestCase

SlowEngineMachine = type("SlowEngineMachine", (EngineMachine,), {})
SlowEngineMachine.TestCase.settings = settings(
    max_examples=500, stateful_step_count=200, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestEngineFuzzLong = pytest.mark.slow(SlowEngineMachine.TestCase)
