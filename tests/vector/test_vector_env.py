"""The batched agents, features and SB3 vector env over the batched engine.

Batched greedy and learned agents pick what their one-game versions pick on
the same states; batched ``hand_strength`` equals ``HandStrength``; the
vector env pays the learner its own rewards, rotates seats and gives
MaskablePPO the learner's mask.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

from agents.batched import BatchedGreedy, BatchedPolicy, batched_agent  # noqa: E402
from agents.heuristics import GreedyAgent  # noqa: E402
from agents.learned import LearnedAgent, expected_shapes  # noqa: E402
from commerce_env.cards import make_pack  # noqa: E402
from commerce_env.engine import new_game  # noqa: E402
from commerce_env.features import HandStrength  # noqa: E402
from commerce_env.observation import LAYOUT_VERSION, encode, observation_size  # noqa: E402
from commerce_env.rules import VARIANTS, make_rules  # noqa: E402
from commerce_env.vector import BatchEngine
from commerce_env.vector.features import BatchHandStrength  # noqa: E402
from commerce_env.view import seat_view  # noqa: E402
from training.vec_env import make_vec_env  # noqa: E402

OPTIONS = {"trade_barter": [{}, {"preset": "peel"}], "widow": [{}, {"allow_pass": False}],
           "my_ship_sails": [{}], "old_game": [{}], "pool": [{"deck_size": 32}]}


def lockstep_states(variant, options, n, games, seed, steps=60):
    """Yields (engine, refs) at every step of random matches played in both engines."""
    rng = random.Random(seed)
    rules = make_rules(variant, **options)
    pack = list(make_pack(rules.deck_size))
    decks, dealers = [], []
    for _ in range(games):
        mine = []
        for _ in range(12):
            rng.shuffle(pack)
            mine.append(list(pack))
        decks.append(mine)
        dealers.append(rng.randrange(n))
    refs = [new_game(rules, n, decks=d, dealer=dealer) for d, dealer in zip(decks, dealers, strict=True)]
    engine = BatchEngine(variant, n, games, **options)
    engine.reset(decks=decks, dealer=dealers)
    for _ in range(steps):
        live = np.array([not ref.over and ref.deals_dealt < 10 for ref in refs])
        if not live.any():
            return
        yield engine, refs, live
        actions = np.zeros(games, dtype=np.int64)
        for g, ref in enumerate(refs):
            if live[g]:
                actions[g] = rng.choice(ref.legal_actions())
                ref.apply(int(actions[g]))
        engine.step(actions, where=live)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("quantile, barter", [(0.6, False), (0.3, True), (0.9, False)])
def test_batched_greedy_picks_what_greedy_agent_picks(variant, quantile, barter):
    for options in OPTIONS.get(variant, [{}]):
        agent = BatchedGreedy(quantile=quantile, barter=barter)
        for engine, refs, live in lockstep_states(variant, options, 4, 6, f"greedy-{variant}-{quantile}"):
            games = np.flatnonzero(live)
            seats = engine.current_player[games]
            got = agent.act_batch(engine, games, seats)
            greedy = GreedyAgent(quantile=quantile, barter=barter)
            expected = [greedy.act(seat_view(refs[g], refs[g].current_player)) for g in games]
            assert got.tolist() == expected


@pytest.mark.parametrize("variant", VARIANTS)
def test_batched_hand_strength_equals_hand_strength(variant):
    for options in OPTIONS.get(variant, [{}]):
        rules = make_rules(variant, **options)
        one, batch = HandStrength(rules, 4), BatchHandStrength(rules, 4)
        checked = 0
        for engine, refs, _ in lockstep_states(variant, options, 4, 4, f"strength-{variant}", steps=30):
            for seat in range(4):
                vectors = engine.observe(seat)
                expected = np.stack([one(encode(ref, seat)) for ref in refs])
                np.testing.assert_allclose(batch(vectors), expected, rtol=1e-6, atol=1e-7)
                checked += int(expected[:, 0].astype(bool).sum())
        assert checked > 0


def _random_policy(variant, n, features, seed=0):
    rng = np.random.default_rng(seed)
    rules = make_rules(variant)
    size = observation_size(n) + 20 * len(features)
    weights = {name: rng.normal(0, 0.3, shape).astype(np.float32)
               for name, shape in expected_shapes(size, [16]).items()}
    meta = {"variant": variant, "num_players": n, "network": {"hidden": [16], "activation": "tanh"},
            "features": list(features), "rules": rules.options(), "observation_layout_version": LAYOUT_VERSION}
    return LearnedAgent(weights, meta)


@pytest.mark.parametrize("variant", ["trade_barter", "widow", "pool"])
def test_batched_policy_picks_what_the_learned_agent_picks(variant):
    agent = _random_policy(variant, 4, ["hand_strength"])
    batched = BatchedPolicy(agent)
    for engine, refs, live in lockstep_states(variant, {}, 4, 5, f"policy-{variant}", steps=30):
        games = np.flatnonzero(live)
        got = batched.act_batch(engine, games, engine.current_player[games])
        expected = [agent.act(seat_view(refs[g], refs[g].current_player)) for g in games]
        assert got.tolist() == expected


def test_resolver_knows_batchable_agents_and_names_the_others():
    assert isinstance(batched_agent("greedy"), BatchedGreedy)
    assert batched_agent({"agent": "greedy", "quantile": 0.8}).quantile == 0.8
    for name in ("expected_value", "search"):
        with pytest.raises(ValueError, match=f"{name}.*vec_env: dummy"):
            batched_agent(name)
    with pytest.raises(ValueError, match="unknown opponent 'nobody'"):
        batched_agent("nobody")
    from training.vec_env import BatchVecEnv

    # without a resolver the env finds the batched agents through their entry point (as make_vec_env did)
    found = BatchVecEnv("trade_barter", 4, 2, opponents=["greedy"])
    assert [type(o).__name__ for o in found.opponent_pool.entries] == ["BatchedGreedy"]
    env = make_vec_env("trade_barter", 4, 2, opponents=["greedy", {"agent": "greedy", "quantile": 0.8}])
    assert [type(o).__name__ for o in env.opponent_pool.entries] == ["BatchedGreedy", "BatchedGreedy"]
    with pytest.raises(ValueError, match="expected_value.*vec_env: dummy"):
        make_vec_env("trade_barter", 4, 2, opponents=["expected_value"])


def _play(env, steps, rng):
    """Random legal learner moves; per env, the rewards summed over each finished episode."""
    sums = np.zeros(env.num_envs)
    finished = []
    for _ in range(steps):
        masks = env.action_masks()
        assert masks.any(axis=1).all()
        _, rewards, dones, infos = env.step((rng.random(masks.shape) * masks).argmax(axis=1))
        sums += rewards
        for g in np.flatnonzero(dones):
            finished.append((g, sums[g], infos[g]))
            sums[g] = 0.0
    return finished


@pytest.mark.parametrize("variant, options", [("trade_barter", {"preset": "foster"}), ("widow", {}),
                                              ("pool", {"reward": "outcome"}), ("my_ship_sails", {})])
def test_vec_env_pays_the_learner_its_own_match_returns(variant, options):
    # The learner's rewards over an episode add up to its seat's match return (R4.5, R12 reward).
    env = make_vec_env(variant, 4, 8, opponents=["greedy", "random"], seed=3, resolver=batched_agent,
                       features=["hand_strength"], **options)
    obs = env.reset()
    assert obs.shape == (8, observation_size(4) + 20)
    engine = env.engine
    assert (engine.current_player == env.seats).all()  # every env waits for its learner
    assert np.array_equal(env.action_masks(), engine.action_mask.astype(bool))
    finished = _play(env, 150, np.random.default_rng(0))
    assert finished
    for g, total, info in finished:
        assert total == pytest.approx(info["returns"]), (g, info)
        assert info["terminal_observation"].shape == obs.shape[1:]
    assert (engine.current_player == env.seats).all()


def test_vec_env_rotates_seats():
    env = make_vec_env("trade_barter", 3, 4, opponents=["greedy"], seed=1, resolver=batched_agent)
    env.reset()
    seen = [[int(s)] for s in env.seats]
    rng = np.random.default_rng(1)
    for _ in range(120):
        masks = env.action_masks()
        _, _, dones, infos = env.step((rng.random(masks.shape) * masks).argmax(axis=1))
        for g in np.flatnonzero(dones):
            seen[g].append(int(env.seats[g]))
    for seats in seen:
        assert len(seats) > 3
        # the next seat each episode, except a redeal (the learner had no decision) keeps the seat
        assert all(b in (a, (a + 1) % 3) for a, b in zip(seats, seats[1:], strict=False))
        assert len(set(seats)) == 3


def test_maskable_ppo_trains_on_the_vec_env():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    env = make_vec_env("trade_barter", 4, 8, opponents=["greedy"], seed=0, resolver=batched_agent,
                       features=["hand_strength"], preset="foster")
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [16]})
    model.learn(512)
    assert model.num_timesteps >= 512


@pytest.mark.parametrize("variant", VARIANTS)
def test_compiled_opponent_loop_plays_greedy_matches_as_the_readable_engine(variant):
    # The compiled loop (greedy in every seat, no learner) ends each match exactly as GreedyAgent
    # playing through the readable engine does: the same returns and balances.
    from agents.batched import play_compiled

    rng = random.Random(f"compiled-{variant}")
    n, games = 4, 6
    rules = make_rules(variant)
    pack = list(make_pack(52))
    decks = [[rng.sample(pack, 52) for _ in range(40)] for _ in range(games)]
    dealers = [rng.randrange(n) for _ in range(games)]
    engine = BatchEngine(variant, n, games)
    engine.reset(decks=decks, dealer=dealers)
    agent = BatchedGreedy(quantile=0.6)
    specs = np.array([agent.compiled_spec(rules)], dtype=np.int64)
    earned = np.zeros(games)
    play_compiled(engine, np.full(games, -1), np.zeros((games, n), dtype=np.int64), specs, earned,
                  np.zeros(games, dtype=bool), np.zeros(games, dtype=bool))
    greedy = GreedyAgent(quantile=0.6)
    checked = 0
    for g in range(games):
        ref = new_game(rules, n, decks=decks[g], dealer=dealers[g])
        while not ref.over and ref.deals_dealt < 40:
            ref.apply(greedy.act(seat_view(ref, ref.current_player)))
        if ref.deals_dealt >= 40:
            continue  # a long freeze-out ran past the given packs
        assert engine.over[g]
        assert engine.returns()[g].tolist() == ref.returns()
        assert engine.balances()[g].tolist() == ref.balances()
        checked += 1
    assert checked >= games // 2


@pytest.mark.parametrize("variant", ["my_ship_sails", "pool"])
def test_vec_env_end_when_out_gives_each_first_episode_the_same_decisions_and_return(variant):
    # R4.6, R7.5, R9.4: once out, the learner has no decision and no payment left, so ending its
    # episode there (end_when_out) leaves every step's reward and the return as playing on would.
    from commerce_env.vector import kernels

    games = 16
    runs, ended_sooner = {}, {}
    for flag in (False, True):
        env = make_vec_env(variant, 4, games, opponents=["greedy", "random"], seed=5, resolver=batched_agent,
                           end_when_out=flag)
        env.reset()
        rewards = [[] for _ in range(games)]
        returns = [None] * games
        sooner = 0
        while any(r is None for r in returns):
            masks = env.action_masks()
            _, step_rewards, dones, infos = env.step(masks.argmax(axis=1))  # the lowest legal action
            for g in range(games):
                if returns[g] is None:
                    rewards[g].append(float(step_rewards[g]))
                    if dones[g]:
                        returns[g] = infos[g]["returns"]
                        sooner += infos[g]["terminal_observation"][kernels.O_PHASE + kernels.OVER] == 0  # still on
        runs[flag], ended_sooner[flag] = (rewards, returns), sooner
    assert runs[True] == runs[False]
    for g in range(games):
        assert sum(runs[True][0][g]) == pytest.approx(runs[True][1][g])
    assert ended_sooner[False] == 0 and ended_sooner[True] > 0
    with pytest.raises(ValueError, match="1 for end_when_out"):
        make_vec_env(variant, 4, 2, opponents=["greedy"], resolver=batched_agent, end_when_out=1)


def _twin_envs(num_envs=4):
    """Two vec envs in the same state, and the lowest legal action of each game."""
    envs = [make_vec_env("trade_barter", 3, num_envs, opponents=["greedy"], seed=4, resolver=batched_agent)
            for _ in range(2)]
    for env in envs:
        env.reset()
    return envs, envs[0].action_masks().argmax(axis=1)


@pytest.mark.parametrize("make_bad, named", [
    (lambda legal: legal + 0.7, r"actions\[0\].*\.7"),
    (lambda legal: np.where(np.arange(len(legal)) == 2, np.nan, legal), r"actions\[2\].*nan"),
    (lambda legal: np.where(np.arange(len(legal)) == 1, np.inf, legal), r"actions\[1\].*inf"),
    (lambda legal: np.full(len(legal), 1e300), r"actions\[0\].*1e\+300"),
    (lambda legal: np.array([str(a) for a in legal]), r"actions\[0\].*'\d+'"),
    (lambda legal: np.array([None, *legal[1:]], dtype=object), r"actions\[0\].*None"),
    (lambda legal: legal.astype(bool), r"actions\[0\].*(True|False)"),
    (lambda legal: legal[:-1], r"actions.*\(3,\)"),
    (lambda legal: legal.reshape(2, 2), r"actions.*\(2, 2\)"),
])
def test_vec_env_refuses_actions_that_are_not_action_numbers(make_bad, named):
    # Each refused with the bad value (or shape) named, and nothing changes: the env then
    # steps exactly as its twin that never saw the bad actions.
    (env, twin), legal = _twin_envs()
    with pytest.raises(ValueError, match=named):
        env.step(make_bad(legal))
    observations, rewards, dones, _ = env.step(legal)
    expected, expected_rewards, expected_dones, _ = twin.step(legal)
    np.testing.assert_array_equal(observations, expected)
    np.testing.assert_array_equal(rewards, expected_rewards)
    np.testing.assert_array_equal(dones, expected_dones)


@pytest.mark.parametrize("convert", [lambda a: a.astype(np.int32), lambda a: a.astype(np.uint8), list,
                                     lambda a: a.astype(np.float32)])
def test_vec_env_takes_integer_actions_and_whole_floats(convert):
    (env, twin), legal = _twin_envs()
    observations = env.step(convert(legal))[0]
    np.testing.assert_array_equal(observations, twin.step(legal)[0])


def test_the_first_compile_is_announced_and_later_runs_are_quiet(tmp_path):
    from training.vec_env import first_compile_notice

    assert first_compile_notice() is None  # this process already compiled (and cached) the kernels
    assert "numba" in first_compile_notice(tmp_path)  # a fresh install or an edit: nothing in its folder yet


@pytest.mark.parametrize("name, value", [("action_mask", "info"), ("autoreset_mode", "next_step")])
def test_the_sb3_vec_env_refuses_what_its_api_fixes(name, value):
    # SB3 reads masks through action_masks() and resets by its own contract.
    with pytest.raises(ValueError, match=f"{name}: the SB3 VecEnv takes none"):
        make_vec_env("widow", 4, 2, **{name: value})
