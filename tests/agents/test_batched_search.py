"""``search`` on the batched engine against ``search(engine=readable)`` (docs/architecture.md).

A readable game loaded into a :class:`commerce_env.vector.BatchEngine`
(``load_games``) plays on exactly as the readable engine; the batched search,
given the same sampled worlds (the same seed), picks the readable search's
action; it decides from the seat view only; its action is always legal.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_rules_common import random_options
from test_vector_engine import _check_same, _setup

pytest.importorskip("numba")

from agents import make_agent  # noqa: E402
from agents.batched_search import BatchedRollouts, Rollouts  # noqa: E402
from agents.heuristics import value_function  # noqa: E402
from agents.search import SearchAgent, rollout  # noqa: E402
from commerce_env.engine import new_game  # noqa: E402
from commerce_env.rules import VARIANTS, make_rules  # noqa: E402
from commerce_env.vector import BatchEngine  # noqa: E402
from commerce_env.vector import row as K  # noqa: E402, N812 - the row's names read as K.G_RNG
from commerce_env.view import seat_view  # noqa: E402

PACKS = 8


def _random_state(variant: str, seed: int, steps: int, n: int | None = None):
    """A readable match of ``variant`` with random options and packs, after ``steps`` random legal actions."""
    rng = random.Random(f"load-{variant}-{seed}")
    n = n or rng.choice([2, 3, 4, 5, 7])
    options = random_options(rng, variant, n)
    rules = make_rules(variant, **options)
    (decks,), (dealer,) = _setup(rules, n, 1, rng, packs=PACKS)
    game = new_game(rules, n, decks=decks, dealer=dealer)
    for _ in range(steps):
        if game.over or game.deals_dealt >= PACKS - 2:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game, options, rng


# ------------------------------------------------------------ load_games
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10**6), steps=st.integers(0, 60))
def test_a_loaded_game_plays_on_as_the_readable_engine(variant, seed, steps):
    # R1-R12: any state of any variant (mid-deal, mid-match, over), loaded, then stepped with the
    # same random actions: the same player, mask, observations, known cards, rewards and balances.
    game, options, rng = _random_state(variant, seed, steps)
    n = game.num_players
    game.take_rewards()
    engine = BatchEngine(variant, n, 1, **options)
    engine.load_games([game])
    refs = [game]
    for step in range(200):
        _check_same(engine, refs, n, (options, step))
        assert np.array_equal(engine.returns()[0], game.returns())
        if game.over:
            break
        action = rng.choice(game.legal_actions())
        game.apply(action)
        engine.step(np.array([action]))
        if game.deals_dealt > PACKS:  # past the given packs each engine shuffles its own (R7.3: maybe many)
            break
        assert list(engine.rewards[0]) == game.take_rewards()


def test_load_games_refuses_what_it_cannot_represent_and_changes_nothing():
    game, options, _ = _random_state("trade_barter", 1, 3, n=3)
    engine = BatchEngine("trade_barter", 3, 2, **options)
    engine.reset()
    before = engine._st.copy()
    stopping = game.clone()
    stopping.stop_after_deal()
    other, _, _ = _random_state("widow", 1, 3, n=3)
    for games, bad in (([game, stopping], r"games\[1\].*stop_after_deal"), ([other], r"games\[0\].*widow"),
                       ([object()], r"games\[0\].*object")):
        with pytest.raises(ValueError, match=bad):
            engine.load_games(games)
    with pytest.raises(ValueError, match="where"):
        engine.load_games([game], where=[5])
    with pytest.raises(ValueError, match="where"):
        engine.load_games([game, game], where=[1, 1])
    assert np.array_equal(engine._st, before)


def test_a_game_loaded_many_times_gives_equal_rows_and_keeps_each_rows_generator():
    game, options, _ = _random_state("old_game", 2, 5, n=4)
    engine = BatchEngine("old_game", 4, 3, seed=7, **options)
    generators = engine._st[:, K.G_RNG].copy()
    engine.load_games([game, game, game])
    assert np.array_equal(engine._st[:, K.G_RNG], generators)
    assert (engine.hands == engine.hands[0]).all() and (engine.action_mask == engine.action_mask[0]).all()


# ------------------------------------------------------------------ search
def _decision(variant: str, seed: int, steps: int):
    """A seat view with a choice to make (more than one legal action), or None."""
    game, _, _ = _random_state(variant, seed, steps)
    if game.over or game.current_player is None:
        return None, None
    view = seat_view(game, game.current_player)
    return (view, game) if len(view.legal_actions) > 1 else (None, None)


decisions = st.tuples(st.sampled_from(VARIANTS), st.integers(0, 10**6), st.integers(0, 40))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decision=decisions)
def test_b_rollouts_on_the_same_worlds_give_the_readable_results(decision):
    # Fixed worlds, deterministic greedy rollouts: each action's result in each world is the readable
    # rollout's, float for float (R4.3: counters; R9.5: pool commerce's money and pool shares).
    view, _ = _decision(*decision)
    assume(view is not None and view.phase != "horse")
    agent = SearchAgent(engine="readable")
    worlds = [view.sample_world(random.Random(k)) for k in range(5)]
    actions = agent.rollout_actions(view, (view.legal_actions[-1],))
    threshold, value = agent.rollout_threshold(view), value_function(view.engine, view.rules.combinations)
    expected = {a: [rollout(w.clone(), view.seat, threshold, value, a, agent.barter) for w in worlds] for a in actions}
    got = BatchedRollouts().run([Rollouts(view, worlds, actions, threshold, agent.barter)])[0]
    assert {a: v.tolist() for a, v in got.items()} == expected


def test_a_first_action_that_is_not_legal_is_refused_naming_it():
    # The seat's legal actions are legal in every world it deals (R11); anything else is a bug, said.
    view = seat_view(new_game(make_rules("widow"), 4, seed=3), 0)
    illegal = next(a for a in range(27) if a not in view.legal_actions)
    worlds = view.sample_worlds(random.Random(1), 2)
    with pytest.raises(ValueError, match=f"rollout 0: action {illegal} is not legal in its world"):
        BatchedRollouts().run([Rollouts(view, worlds, [illegal], 0, True)])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decision=decisions, seed=st.integers(0, 2**32))
def test_b_the_batched_search_chooses_as_the_readable_one(decision, seed):
    # The same seed samples the same worlds in both (view.sample_world): same values, same choice.
    view, _ = _decision(*decision)
    assume(view is not None)
    batched, readable = SearchAgent(worlds=6, seed=seed), SearchAgent(worlds=6, seed=seed, engine="readable")
    assert batched.act(view) == readable.act(view)
    assert batched.last_values == readable.last_values


def test_c_rollouts_see_only_what_the_seat_has_seen():
    # R11: two live games that differ only in cards the seat has not seen (the second is a world
    # sampled from the first's view) give the same values and choice for the same seed.
    for variant in VARIANTS:
        for seed in range(20):
            view, game = _decision(variant, seed, 6)
            if view is None or view.phase == "horse":
                continue
            other = view.sample_world(random.Random(seed))
            if sorted(map(sorted, other.hands)) == sorted(map(sorted, game.hands)) and other.stock == game.stock:
                continue  # nothing hidden differs: no evidence either way
            twin = seat_view(other, view.seat)
            first, second = SearchAgent(worlds=5, seed=seed), SearchAgent(worlds=5, seed=seed)
            assert first.act(view) == second.act(twin)
            assert first.last_values == second.last_values
            break
        else:
            pytest.fail(f"no {variant} decision with hidden cards found")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decision=decisions, seed=st.integers(0, 2**32), worlds=st.integers(1, 5))
def test_d_the_batched_search_acts_legally_in_every_variant(decision, seed, worlds):
    view, _ = _decision(*decision)
    assume(view is not None)
    assert SearchAgent(worlds=worlds, seed=seed).act(view) in view.legal_actions


def test_decisions_bigger_than_one_run_are_played_in_parts_with_the_same_results(monkeypatch):
    # Memory: at most MAX_ROWS rollouts at once; a decision split by worlds, decisions packed together.
    import agents.batched_search as batched_search

    monkeypatch.setattr(batched_search, "MAX_ROWS", 7)
    views = [v for v in (_decision("widow", s, 5)[0] for s in range(40)) if v is not None][:3]
    for seed, view in enumerate(views):
        batched, readable = SearchAgent(worlds=5, seed=seed), SearchAgent(worlds=5, seed=seed, engine="readable")
        assert batched.act(view) == readable.act(view) and batched.last_values == readable.last_values
    agent = SearchAgent(engine="readable")
    plans = [Rollouts(v, [v.sample_world(random.Random(k)) for k in range(3)], agent.rollout_actions(v),
                      agent.rollout_threshold(v), True) for v in views]
    together = BatchedRollouts().run(plans)
    for plan, got in zip(plans, together, strict=True):
        alone = BatchedRollouts().run([plan])[0]
        assert {a: v.tolist() for a, v in got.items()} == {a: v.tolist() for a, v in alone.items()}


def test_a_time_budget_plays_whole_chunks_of_worlds_and_acts_legally():
    view = next(v for v in (_decision("old_game", s, 3)[0] for s in range(50)) if v is not None)
    agent = SearchAgent(ms=1, seed=3)
    assert agent.act(view) in view.legal_actions
    assert len(agent.evaluate(view)[view.legal_actions[0]]) % 8 == 0


def test_engine_argument_names_where_rollouts_run():
    assert make_agent("search").engine == "batched"
    assert make_agent("search(engine=readable)").engine == "readable"
    assert make_agent({"agent": "search", "engine": "readable", "worlds": 7}).worlds == 7
    with pytest.raises(ValueError, match="'numpy'"):
        make_agent({"agent": "search", "engine": "numpy"})


def test_where_the_batched_engine_cannot_serve_the_search_falls_back_and_says_so_once(monkeypatch):
    import agents.search as search_module

    def refuse(self, rules, num_players, rows):
        raise ValueError(f"no room for {rules.variant}")

    monkeypatch.setattr(BatchedRollouts, "engine", refuse)
    monkeypatch.setattr(search_module, "_WARNED", set())
    view = next(v for v in (_decision("widow", s, 4)[0] for s in range(60)) if v is not None)
    batched, readable = SearchAgent(worlds=3, seed=1), SearchAgent(worlds=3, seed=1, engine="readable")
    with pytest.warns(RuntimeWarning, match="no room for widow"):
        assert batched.act(view) == readable.act(view)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert batched.act(view) == readable.act(view)
        assert batched.last_values == readable.last_values


# ------------------------------------------------------------------- arena
TIMINGS = ("seconds", "deals_per_second", "games_per_second")


def _arena(**kwargs) -> dict:
    from agents.arena import run_arena

    return {k: v for k, v in run_arena(progress=False, **kwargs).items() if k not in TIMINGS}


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_batched_arena_plays_search_with_the_local_result(variant):
    # R4.5: matches of two deals where the variant plays matches; every seat's worlds from its own seed.
    options = {"deals": 2} if make_rules(variant).has_lives else {}
    lineup = [{"agent": "search", "worlds": 2}, {"agent": "search", "worlds": 2, "engine": "readable"}, "greedy"]
    kwargs = dict(lineup=lineup, variant=variant, num_players=3, options=options, games=6, seed=11)
    assert _arena(batched=True, **kwargs) == _arena(batched=False, **kwargs)


def test_the_batched_arena_plays_decisions_too_big_for_one_run_alone(monkeypatch):
    import agents.batched_search as batched_search

    monkeypatch.setattr(batched_search, "MAX_ROWS", 20)  # 6 worlds: too many for one run, each alone
    kwargs = dict(lineup=[{"agent": "search", "worlds": 6}, {"agent": "search", "worlds": 2}, "greedy"],
                  variant="old_game", num_players=3, games=6, seed=2)
    assert _arena(batched=True, **kwargs) == _arena(batched=False, **kwargs)


def test_the_batched_arena_plays_a_model_with_test_time_search_with_the_local_result(tiny_model):
    import json

    folder = tiny_model("pool", 3)
    meta = json.loads((folder / "model.json").read_text())
    (folder / "model.json").write_text(json.dumps({**meta, "search": {"worlds": 2, "margin": 0.5}}))
    readable = {"agent": f"model:{folder}", "search": {"worlds": 2, "margin": 0.5, "engine": "readable"}}
    assert make_agent(readable).search.engine == "readable" and make_agent(f"model:{folder}").search.engine == "batched"
    kwargs = dict(lineup=[f"model:{folder}", readable, "greedy"], variant="pool", num_players=3,
                  options={"deals": 2}, games=6, seed=4)
    result = _arena(batched=True, **kwargs)
    assert result == _arena(batched=False, **kwargs)
    assert len(result["agents"]) == 3


def test_a_search_lineup_on_several_processes_stays_on_the_local_path():
    from agents.arena_batched import applies, searches

    assert searches(["greedy", "search"]) and searches([{"agent": "search", "worlds": 3}])
    assert not searches(["greedy", {"agent": "greedy", "quantile": 0.8}])
    assert applies(["search", "greedy"], make_rules("widow"))
    assert not applies([{"agent": "search", "ms": 5}, "greedy"], make_rules("widow"))


# -------------------------------------------------------------- benchmark
def test_the_benchmark_report_puts_search_beside_its_readable_rollouts(monkeypatch, tmp_path):
    import json

    import benchmarks.__main__ as bench
    from benchmarks import search_speed

    monkeypatch.setattr(search_speed, "VARIANTS", ("old_game",))
    monkeypatch.setattr(search_speed, "MODELS", tmp_path / "no models")
    out = tmp_path / "bench.json"
    assert bench.main(["--seconds", "0.05", "--repeats", "1", "--only", "search", "--json", str(out)]) == 0
    rows = {row["name"]: row for row in json.loads(out.read_text())["rows"]}
    speed = rows["search, old_game (4 players)"]
    assert speed["peer"] == "search(engine=readable)" and speed["value"] > 0 and speed["ratio"] > 0
    assert speed["note"] == "same choices: yes"
    assert rows["search, old_game: worlds in search(engine=readable)'s time per decision"]["peer_value"] == 24
