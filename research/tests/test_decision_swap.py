"""research.decision_swap: a model that hands one kind of decision to another agent."""

from __future__ import annotations

import random

import pytest

from agents.base import Agent
from agents.heuristics import GreedyAgent
from agents.play import play_game
from agents.specs import make_agent
from commerce_env.engine import new_game
from commerce_env.engine.actions import EXCHANGE, KNOCK
from commerce_env.engine.base import HORSE, WIDOW_CHOICE
from commerce_env.rules import make_rules
from research.decision_swap import SwapAgent, main, only_exchanges, parse_swap


class Recorder(Agent):
    """Plays ``inner`` and remembers (view, action) of every decision."""

    name = "recorder"

    def __init__(self, inner: Agent):
        self.inner, self.calls = inner, []

    def reset(self, seat, num_players, rules, seed=None):
        self.inner.reset(seat, num_players, rules, seed)

    def act(self, view):
        action = self.inner.act(view)
        self.calls.append((view, action))
        return action


def swapped_games(kind: str, variant: str, games: int = 6):
    """Seat 0 a SwapAgent over a random base; returns (base decisions, other decisions, played)."""
    base, other = Recorder(make_agent("random", seed=3)), Recorder(GreedyAgent())
    played = []

    class Watch(SwapAgent):
        def act(self, view):
            action = super().act(view)
            played.append(action)
            return action

    swap = Watch(base, other, kind)
    for g in range(games):
        game = new_game(make_rules(variant), 4, rng=random.Random(g))
        play_game(game, [swap, GreedyAgent(), GreedyAgent(), GreedyAgent()], [g, 1, 2, 3])
    return base.calls, other.calls, played, swap


def test_which_changes_only_which_exchange():
    # R8.2: an exchange with the table stays an exchange; a stand or pass is the base's own.
    calls, other_calls, played, swap = swapped_games("which", "old_game")
    asked = {id(view) for view, _ in other_calls}
    assert swap.swapped > 0
    for (view, mine), action in zip(calls, played, strict=True):
        exchanges = [a for a in view.legal_actions if a >= EXCHANGE]
        if mine < EXCHANGE or len(exchanges) < 2:
            assert action == mine
        else:
            assert action in exchanges
    for view, _ in other_calls:  # the other agent is only ever offered exchanges
        assert all(a >= EXCHANGE for a in view.legal_actions)
    assert len(asked) == len(other_calls)


def test_whether_plays_the_other_only_where_the_kinds_differ():
    # R8.2: exchange against stand or pass.
    calls, other_calls, played, _ = swapped_games("whether", "old_game")
    theirs = {id(view): action for view, action in other_calls}
    for (view, mine), action in zip(calls, played, strict=True):
        other = theirs.get(id(view))
        if other is not None and (other >= EXCHANGE) != (mine >= EXCHANGE):
            assert action == other
        else:
            assert action == mine


def test_knock_plays_the_other_only_where_one_of_them_knocks():
    # R6.3, R6.4: knock against exchange or pass.
    calls, other_calls, played, swap = swapped_games("knock", "widow", games=10)
    theirs = {id(view): action for view, action in other_calls}
    assert swap.swapped > 0
    for (view, mine), action in zip(calls, played, strict=True):
        other = theirs.get(id(view))
        if other is not None and (other == KNOCK) != (mine == KNOCK):
            assert action == other
        else:
            assert action == mine
    assert all(view.phase != WIDOW_CHOICE for view, _ in other_calls)


def test_blind_swap_touches_only_the_widow_dealers_choice():
    # R6.2: take the widow or keep the hand, unseen.
    calls, other_calls, played, _ = swapped_games("blind", "widow", games=10)
    assert other_calls and all(view.phase == WIDOW_CHOICE for view, _ in other_calls)
    theirs = {id(view): action for view, action in other_calls}
    for (view, mine), action in zip(calls, played, strict=True):
        assert action == (theirs[id(view)] if view.phase == WIDOW_CHOICE else mine)


def test_horse_swap_touches_only_the_horse():
    # R9.4: the horse choice is the other agent's, every other decision the base's.
    calls, other_calls, played, _ = swapped_games("horse", "pool", games=3)
    assert all(view.phase == HORSE for view, _ in other_calls)
    for (view, mine), action in zip(calls, played, strict=True):
        if view.phase != HORSE:
            assert action == mine


def test_only_exchanges_masks_the_rest():
    # R8.2
    game = new_game(make_rules("old_game"), 4, rng=random.Random(0))
    from commerce_env.view import seat_view

    view = only_exchanges(seat_view(game, game.current_player))
    assert view.legal_actions and all(a >= EXCHANGE for a in view.legal_actions)
    assert set(map(int, view.action_mask.nonzero()[0])) == set(view.legal_actions)


@pytest.mark.parametrize("variant", ["widow", "old_game", "pool"])
def test_expected_value_answers_an_exchange_when_only_exchanges_are_legal(variant):
    # R6.3, R8.2: shown only the exchanges (the "which" swap), it must pick one of them,
    # even where it would have stopped (a stand is not an action of the widow game at all)
    from agents.heuristics import ExpectedValueAgent
    from commerce_env.view import seat_view

    agent, asked = ExpectedValueAgent(), 0
    for g in range(12):
        game = new_game(make_rules(variant), 4, rng=random.Random(g))
        game.stop_after_deal()
        while not game.over:
            view = seat_view(game, game.current_player)
            if any(a >= EXCHANGE for a in view.legal_actions) and view.phase != WIDOW_CHOICE:
                narrowed = only_exchanges(view)
                assert agent.act(narrowed) in narrowed.legal_actions
                asked += 1
            game.apply(agent.act(view))
    assert asked > 20


@pytest.mark.parametrize("text", ["which", "which:", "peek:search", ":greedy"])
def test_bad_swap_is_named(text):
    with pytest.raises(ValueError, match="swap"):
        parse_swap(text)
    with pytest.raises(ValueError, match=repr(text).strip("'")):
        main(["--swaps", text, "--games", "1"])


def test_main_prints_a_row_per_swap(capsys):
    assert main(["--variant", "old_game", "--model", "greedy", "--opponent", "random", "--swaps",
                 "which:expected_value", "--games", "8", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "| none |" in out and "| which:expected_value |" in out
