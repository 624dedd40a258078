"""The search best response (agents/best_response.py, agents/belief.py, training/exploit_search.py):
search in one seat against a known agent, its worlds weighted by the agent's own choices (R11)."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import game_setups, setup_game

from agents.base import RandomAgent
from agents.belief import before_deal, dealt_again, replay, world_weight
from agents.best_response import SearchBestResponse
from agents.heuristics import GreedyAgent
from commerce_env.engine import new_game
from commerce_env.engine.base import HORSE
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import seat_view

# What a game keeps for itself, not its state: caches, the generator of later deals, its shared slot.
_NOT_STATE = ("rng", "lineage", "known_records", "_legal_cache", "_rng_shared")


def _state(game) -> dict:
    return {name: value for name, value in vars(game).items() if name not in _NOT_STATE}


def _views(variant: str, agent, count: int, seed: int = 0, me: int = 0) -> list:
    """``count`` views of seat ``me`` with a choice, ``agent`` in every other seat and greedy in ``me``."""
    rules, rng, views = make_rules(variant), random.Random(seed), []
    mine = GreedyAgent()
    while len(views) < count:
        game = new_game(rules, 4, seed=rng.randrange(2**31))
        while not game.over and len(views) < count:
            view = seat_view(game, game.current_player)
            if game.current_player == me and len(view.legal_actions) > 1 and view.phase != HORSE:
                views.append((game.clone(), view))
            game.apply((mine if game.current_player == me else agent).act(view))
    return views


def _in_a_deal(setup, play_seed: int, moves: int) -> tuple | None:
    """The game of ``setup`` after at most ``moves`` random legal actions, and the generator that chose
    them; None where the match is over or the horse is offered (after the deal's payments, R9.4)."""
    game = setup_game(setup)
    rng = random.Random(play_seed)
    for _ in range(moves):
        if game.over:
            break
        game.apply(rng.choice(game.legal_actions()))
    if game.over or game.phase == HORSE:
        return None
    return game, rng


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups(max_rounds=4), st.integers(0, 2**32 - 1), st.integers(0, 60))
def test_a_deal_dealt_again_and_replayed_is_the_game(setup, play_seed, moves):
    # R4.2, R5.3: the state before the deal, dealt its pack and stepped through its record, is the game,
    # every seat's view included; in every variant and option set.
    played = _in_a_deal(setup, play_seed, moves)
    if played is None:
        return
    game, _ = played
    again = dealt_again(before_deal(game), game)
    for _ in replay(again, game):
        pass
    assert _state(again) == _state(game)
    for seat in range(game.num_players):
        assert pickle.dumps(seat_view(again, seat)) == pickle.dumps(seat_view(game, seat))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_setups(max_rounds=4), st.integers(0, 2**32 - 1), st.integers(0, 60))
def test_the_batched_replay_reaches_the_worlds_the_search_samples(setup, play_seed, moves):
    # R11: each row, dealt its world's pack from the state before the deal and stepped through the
    # deal, is the world sample_worlds gives for the same numbers: every seat's observation and the mask.
    from agents.batched_search import BatchedRollouts
    from agents.best_response_rollouts import _Draws, _replay
    from commerce_env.observation import action_mask, encode

    played = _in_a_deal(setup, play_seed, moves)
    if played is None:
        return
    game, rng = played
    view = seat_view(game, rng.randrange(game.num_players))
    draws = _Draws(view, random.Random(play_seed), 5.0)
    packs, firsts = draws.draw(5)
    engine = BatchedRollouts().engine(view.rules, view.num_players, 5)
    places = np.arange(5)
    engine.load_games([before_deal(draws.first)] * 5, places, knowledge=True)
    engine.supply_packs(places, packs)
    silent = (np.full(view.num_players, -1), np.zeros(view.num_players, np.int64), np.zeros(view.num_players, bool))
    _replay(engine, places, draws.steps, firsts, view.seat, None, silent)
    for row, world in enumerate(view.sample_worlds(random.Random(play_seed), 5)):
        for seat in range(view.num_players):
            assert np.array_equal(engine.observe(seat, np.array([row]))[0], encode(world, seat))
        assert np.array_equal(engine.action_mask[row], action_mask(world, world.current_player))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("engine", ["batched", "readable"])
def test_it_never_sees_a_card_its_seat_has_not_seen(variant, engine):
    # R11: a game and a world that differs from it only in cards the seat has not seen get the same
    # choice, the same values and the same tally of worlds.
    for game, view in _views(variant, GreedyAgent(), 3, seed=1):
        lookalike = view.sample_world(random.Random(5))
        twin = seat_view(lookalike, view.seat)
        assert lookalike.hands != game.hands or lookalike.stock != game.stock
        first, second = (SearchBestResponse("greedy", worlds=4, seed=3, engine=engine) for _ in range(2))
        assert first.act(view) == second.act(twin)
        assert first.last_values == second.last_values
        assert (first.drawn, first.kept, first.trembled) == (second.drawn, second.kept, second.trembled)


@pytest.mark.parametrize("variant", ["trade_barter", "my_ship_sails", "widow"])
def test_the_worlds_without_weight_are_those_where_the_agent_would_have_played_otherwise(variant):
    # A deterministic agent: a world has a miss exactly where greedy, replayed there, chooses another
    # action than the one taken; the batched replay finds the same misses and weights as the readable one.
    from agents.batched import batched_agent
    from agents.batched_search import BatchedRollouts
    from agents.best_response_rollouts import _Draws, _kinds, _replay

    greedy, misses_seen = GreedyAgent(), set()
    for game, view in _views(variant, greedy, 6, seed=2):
        worlds = view.sample_worlds(random.Random(7), 12)
        start = before_deal(worlds[0])
        assert world_weight(start, game, view.seat, greedy) == (1.0, 0)  # the true deal: as the agent played it
        misses_seen.add(0)
        readable = [world_weight(start, world, view.seat, greedy) for world in worlds]
        for world, (weight, misses) in zip(worlds, readable, strict=True):
            again = dealt_again(start, world)
            otherwise = sum(greedy.act(seat_view(again, seat)) != action
                            for seat, action in replay(again, world) if seat != view.seat)
            assert misses == otherwise and (weight == 1.0) == (misses == 0)
            misses_seen.add(misses)
        draws = _Draws(view, random.Random(7), 5.0)
        packs, firsts = draws.draw(12)
        engine = BatchedRollouts().engine(view.rules, 4, 12)
        places = np.arange(12)
        engine.load_games([start] * 12, places, knowledge=False)
        engine.supply_packs(places, packs)
        batched = batched_agent("greedy", view.rules, 4)
        plays = _kinds(SearchBestResponse("greedy"), batched, view)
        weights, misses = _replay(engine, places, draws.steps, firsts, view.seat, batched, plays)
        assert misses.tolist() == [m for _, m in readable]
        assert weights == pytest.approx([w for w, _ in readable])
    assert len(misses_seen) > 1  # worlds as the agent would have played them, and worlds with misses


def test_the_exact_weighting_keeps_only_worlds_as_the_agent_played_them_and_a_tremble_the_fewest_misses():
    weights, misses = np.array([0.5, 0.25, 1.0, 0.125, 1.0]), np.array([2, 0, 1, 0, 3])
    exact = SearchBestResponse("greedy", worlds=3, tremble=0.0)
    kept, given = exact.keep(weights, misses)
    assert kept.tolist() == [1, 3] and given.tolist() == [0.25, 0.125]  # a world with a miss weighs nothing
    kept, given = exact.keep(weights, misses + 1)  # none as it played: the fewest misses
    assert kept.tolist() == [1, 3] and exact.trembled == 1
    soft = SearchBestResponse("greedy", worlds=3, tremble=0.2)
    kept, given = soft.keep(weights, misses)
    assert kept.tolist() == [1, 3, 2] and given == pytest.approx([0.25, 0.125, 1.0 / 4])  # each miss: 0.2 / 0.8
    assert (exact.drawn, exact.kept, soft.drawn, soft.kept) == (10, 4, 5, 3)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 5), st.integers(1, 12), st.integers(0, 2**32 - 1), st.sampled_from([None, 0, 2]),
       st.booleans())
def test_with_worlds_alike_it_chooses_as_the_search_does(actions, worlds, seed, default, deferred):
    # The weighted choice is the search's choice rule (best mean; a prior kept unless beaten by more
    # than `margin` standard errors) when every world weighs the same.
    from agents.search import SearchAgent

    rng = np.random.default_rng(seed)
    results = {a: rng.normal(0.0, 2.0, worlds) for a in range(actions)}  # no tie on a margin's edge
    if default is not None:
        default = min(default, actions - 1)
        if deferred:
            default = (lambda chosen: lambda: chosen)(default)
    searcher, responder = SearchAgent(), SearchBestResponse("greedy")
    weights = np.full(worlds, rng.uniform(0.1, 2.0))
    assert responder.choose_weighted(results, weights, default) == searcher.choose(results, default)
    assert responder.last_values == pytest.approx(searcher.last_values)


def test_a_random_agent_weighs_every_world_alike_and_a_network_by_its_softmax():
    from agents.batched import BatchedPolicy, BatchedRandom
    from agents.learned import load_agent

    game, view = _views("trade_barter", RandomAgent(seed=0), 1, seed=3)[0]
    world = view.sample_world(random.Random(1))
    start = before_deal(world)
    decisions = sum(seat != view.seat and len(again.legal_actions()) > 1
                    for again in [dealt_again(start, world)] for seat, _ in replay(again, world))
    weight, misses = world_weight(start, world, view.seat, RandomAgent())
    assert misses == 0 and decisions > 0 and weight < 1.0
    assert world_weight(start, view.sample_world(random.Random(2)), view.seat, RandomAgent())[0] == \
        pytest.approx(weight)  # the same legal counts in every world: no information
    network = load_agent("models/trade_barter", search=False, deterministic=False)
    probabilities = network.action_probabilities(view)
    assert probabilities.sum() == pytest.approx(1.0) and (probabilities[view.action_mask == 0] == 0).all()
    assert (probabilities[view.action_mask == 1] > 0).all()
    from commerce_env.vector import BatchEngine

    engine = BatchEngine("trade_barter", 4, 1, wait_for_packs=False)
    engine.load_games([game])
    batched = BatchedPolicy(network).action_probabilities_batch(engine, np.array([0]), np.array([view.seat]))
    assert batched[0] == pytest.approx(probabilities, rel=1e-5)
    uniform = BatchedRandom().action_probabilities_batch(engine, np.array([0]), np.array([view.seat]))
    assert uniform[0] == pytest.approx(RandomAgent().action_probabilities(view))


@pytest.mark.parametrize("continuation", ["greedy", "agent"])
@pytest.mark.parametrize("variant", ["trade_barter", "old_game"])
def test_the_batched_and_readable_engines_choose_alike_against_a_deterministic_agent(variant, continuation):
    # Greedy rollouts and greedy weights: the same worlds give the same values on either engine.
    agent = {"agent": "greedy", "quantile": 0.9}  # a greedy that stops later than the search's rollouts
    for _, view in _views(variant, GreedyAgent(quantile=0.9), 4, seed=4):
        batched = SearchBestResponse(agent, worlds=4, seed=9, continuation=continuation)
        readable = SearchBestResponse(agent, worlds=4, seed=9, engine="readable", continuation=continuation)
        assert batched.act(view) == readable.act(view)
        assert batched.last_values == pytest.approx(readable.last_values)


def test_its_own_later_moves_are_the_agents_with_that_continuation():
    # The rollouts of continuation="agent" ask the agent for every seat's later moves, its own too.
    asked = {"greedy": set(), "agent": set()}
    for continuation, seats in asked.items():
        class Spy(GreedyAgent):
            def act(self, view, seats=seats):
                seats.add(view.seat)
                return super().act(view)

        for _, view in _views("old_game", GreedyAgent(), 3, seed=2):
            SearchBestResponse(Spy(), worlds=4, seed=1, engine="readable", continuation=continuation).act(view)
    assert 0 not in asked["greedy"] and 0 in asked["agent"]  # _views' searching seat is 0
    assert asked["agent"] - {0} == asked["greedy"]
    with pytest.raises(ValueError, match="continuation"):
        SearchBestResponse("greedy", continuation="network")


@pytest.mark.parametrize("variant", ["trade_barter", "old_game"])
def test_with_that_continuation_it_keeps_the_agents_choice_unless_the_rollouts_beat_it(variant):
    # One step of policy improvement: the agent's own choice is the default it leaves only when sure.
    agent = GreedyAgent(quantile=0.9)
    for _, view in _views(variant, agent, 4, seed=6):
        sure = SearchBestResponse(agent, worlds=4, seed=3, continuation="agent", margin=1e9)
        assert sure.act(view) == agent.act(view)


def test_it_gains_more_against_random_than_against_greedy():
    from training.exploit_search import search_best_response

    against = {agent: search_best_response(agent, deals=120, worlds=4, seed=11) for agent in ("random", "greedy")}
    assert against["random"]["margin"] > against["greedy"]["margin"]
    for report in against.values():
        assert report["agent_in_seat"]["mean"] == pytest.approx(0.0)  # R4.3: the agent against itself
        low, high = report["ci95"]
        assert low <= report["margin"] <= high and report["decisions"] > 0


@pytest.mark.parametrize("argument, value", [("--worlds", "0"), ("--draws", "1"), ("--seed", "-3"),
                                             ("--tremble", "1"), ("--continuation", "network")])
def test_commerce_exploit_search_refuses_a_bad_setting_naming_it(argument, value):
    done = subprocess.run([sys.executable, "-m", "training.cli", "exploit", "--method", "search", "--agent",
                           "greedy", "--deals", "4", argument, value], capture_output=True, text=True)
    assert done.returncode == 2 and argument.strip("-") in done.stderr and value in done.stderr


def test_commerce_exploit_search_reports_the_margin():
    done = subprocess.run([sys.executable, "-m", "training.cli", "exploit", "--method", "search", "--agent",
                           "random", "--deals", "4", "--worlds", "2", "--continuation", "agent", "--json"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    import json

    report = json.loads(done.stdout.splitlines()[-1])
    assert report["method"] == "search" and report["agent"] == "random" and report["worlds"] == 2
    assert report["continuation"] == "agent"
    assert report["margin"] == pytest.approx(report["responder_mean"] - report["agent_in_seat"]["mean"])


def test_packs_given_as_an_array_deal_as_lists_do_and_a_bad_one_is_refused():
    from commerce_env.vector import BatchEngine

    rng = random.Random(4)
    packs = [rng.sample(range(52), 52) for _ in range(3)]

    def waiting() -> BatchEngine:
        engine = BatchEngine("trade_barter", 4, 3, wait_for_packs=True, deals=2)
        engine.reset(decks=[[pack] for pack in packs])
        engine.step(np.zeros(3, np.int64))  # R5.5: a knock ends each deal; the next waits for its pack
        return engine

    dealt = []
    for form in (packs, np.array(packs)):
        engine = waiting()
        engine.supply_packs(np.arange(3), form)
        dealt.append((engine.hands.copy(), engine.counters()))
    assert np.array_equal(dealt[0][0], dealt[1][0]) and np.array_equal(dealt[0][1], dealt[1][1])
    twice = np.array(packs)
    twice[0, 1] = twice[0, 0]
    for bad in (twice, np.array(packs)[:, :51], np.array(packs).astype(float)):
        engine = waiting()
        with pytest.raises(ValueError, match="packs must be one whole 52-card pack per game"):
            engine.supply_packs(np.arange(3), bad)
        assert engine.awaiting_pack.all()  # nothing dealt


class _Counted(GreedyAgent):
    """greedy, counting its decisions: in the arena's seats and in any rollout that plays it."""

    name = "counted_greedy"
    acts = 0

    def act(self, view):
        type(self).acts += 1
        return super().act(view)


def test_a_model_of_the_agent_plays_in_its_rollouts_while_the_agent_itself_is_measured():
    from training.exploit_search import search_best_response

    calls = {}
    for model in (None, "greedy"):
        _Counted.acts = 0
        report = search_best_response(_Counted(), deals=6, worlds=3, seed=5, model=model, engine="readable")
        calls[model] = _Counted.acts
        assert report["agent"] == "counted_greedy"
        assert report["modelled_as"] == ("counted_greedy" if model is None else "greedy")
    # Modelled as greedy, the agent plays only its own seats (and the baseline's table of itself);
    # modelled as itself, it also plays in every world the responder weighs and rolls out.
    assert 0 < calls["greedy"] < calls[None]


def test_commerce_exploit_refuses_a_model_as_of_two_agents_naming_it():
    done = subprocess.run([sys.executable, "-m", "training.cli", "exploit", "--agent", "search", "--model-as",
                           "greedy,random", "--deals", "4"], capture_output=True, text=True)
    assert done.returncode == 2 and "--model-as" in done.stderr and "greedy,random" in done.stderr
