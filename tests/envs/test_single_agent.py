"""The single-agent Gymnasium env: registration, checkers, masks, seats, the learner's own reward."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest

from agents.base import Agent, RandomAgent
from commerce_env import observation as obs
from commerce_env.cards import format_cards, make_pack, parse_cards
from commerce_env.engine.actions import KNOCK, NUM_ACTIONS, OFFER, READY_MONEY
from commerce_env.rules import VARIANTS
from commerce_env.single_agent import ENV_ID, CommerceEnv


class Scripted(Agent):
    """Plays the first action of its script that is legal, else knocks (or the first legal action)."""

    def __init__(self, script=()):
        self.script = list(script)

    def act(self, observation, game=None):
        legal = np.flatnonzero(observation["action_mask"])
        while self.script:
            action = self.script.pop(0)
            if action in legal:
                return int(action)
        return KNOCK if KNOCK in legal else int(legal[0])


def pack(first: str) -> str:
    """A full 52-card pack (R1.5, top first) beginning with the cards of ``first``."""
    head = list(parse_cards(first))
    return format_cards(head + [c for c in make_pack(52) if c not in head])


def test_gymnasium_make_builds_the_env_with_options():
    env = gymnasium.make(ENV_ID, variant="widow", num_players=3, allow_pass=False)
    inner = env.unwrapped
    assert isinstance(inner, CommerceEnv)
    assert (inner.rules.variant, inner.num_players, inner.rules.allow_pass) == ("widow", 3, False)
    assert env.observation_space.shape == (obs.observation_size(3),)


def test_importing_the_env_loads_neither_torch_nor_sb3():
    code = ("import sys, commerce_env.single_agent as s; s.CommerceEnv().reset(seed=0); "
            "bad = [m for m in ('torch', 'stable_baselines3', 'sb3_contrib') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[2])


@pytest.mark.parametrize("variant", VARIANTS)
def test_gymnasium_and_sb3_checkers_pass(variant):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unbounded Box warning: counters have no bound (R4.3)
        check_env(CommerceEnv(variant=variant, num_players=3), skip_render_check=True)
        sb3_check_env(CommerceEnv(variant=variant, num_players=3), warn=False)


@pytest.mark.parametrize("variant", VARIANTS)
def test_mask_is_the_learners_legal_actions_and_rewards_add_up_to_its_return(variant):
    env = CommerceEnv(variant=variant, num_players=4, opponents=["random"])
    rng = np.random.default_rng(1)
    for episode in range(20):
        observation, info = env.reset(seed=episode)
        total = -info["carried"]  # paid by matches skipped at reset (no learner decision)
        while True:
            game = env.game
            assert game.current_player == env.seat == info["seat"]
            mask = env.action_masks()
            assert np.flatnonzero(mask).tolist() == game.legal_actions()
            assert np.array_equal(observation, obs.encode(game, env.seat))
            observation, reward, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(mask)))
            total += reward
            assert not truncated
            if terminated:
                break
        # the sum of the step rewards is the learner's own match return, not another seat's
        assert total == pytest.approx(game.returns()[env.seat]) == pytest.approx(info["returns"])


def test_learner_reward_is_its_own_in_a_scripted_deal():
    # R5.3, R5.5, R5.7, R5.8 (foster): dealer seat 0, eldest seat 1 trades for ready money, the
    # learner (seat 2) holds three aces and knocks.
    deck = pack("2C AS 3C 4C 5D AH 7D 8D 9H AD JH QS KC")
    env = CommerceEnv(num_players=4, opponents=[Scripted([READY_MONEY])], seat=2)
    observation, info = env.reset(seed=0, options={"deck": deck, "dealer": 0})
    assert info["seat"] == 2 and env.game.hands[2] == sorted(parse_cards("AS AH AD"))
    assert env.game.history_texts() == [(1, "ready_money 2C")]
    _, reward, terminated, _, info = env.step(KNOCK)
    assert terminated
    # ante -1, the pool of 4, and the dealer (a point, not a tricon) pays the winner one: +4.
    # Seat 1 has -2, the dealer -1, seat 3 -1: a neighbour's reward would differ.
    assert reward == 4.0
    assert env.game.returns() == [-1.0, -2.0, 4.0, -1.0]


def test_learner_reward_includes_what_opponents_moves_pay_after_its_decision():
    # R5.3: the learner (seat 1, eldest) trades for ready money (pays the dealer one),
    # then seat 2 knocks at once (R5.5): the learner's reward comes from that knock's showdown.
    deck = pack("2C AS 3C 4C 5D AH 7D 8D 9H AD JH QS KC")
    env = CommerceEnv(num_players=4, opponents=[Scripted()], seat=1)
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    _, reward, terminated, _, _ = env.step(READY_MONEY)  # discards 2C, takes KC
    assert terminated
    returns = env.game.returns()
    assert reward == returns[1] == -2.0  # ante, one counter to the dealer; seat 2's aces win
    assert returns[2] == 4.0


def test_seat_rotates_each_episode_and_can_be_fixed():
    env = CommerceEnv(num_players=3, opponents=["random"])
    seats = []
    env.reset(seed=5)
    seats.append(env.seat)
    for _ in range(5):
        env.reset()
        seats.append(env.seat)
    assert seats == [0, 1, 2, 0, 1, 2]
    env.reset(options={"seat": 1})
    assert env.seat == 1


def test_same_seed_same_episode():
    env = CommerceEnv(num_players=4, opponents=["random"], seat="random")
    first, _ = env.reset(seed=11)
    hands = [list(h) for h in env.game.hands]
    second, _ = env.reset(seed=11)
    assert np.array_equal(first, second) and hands == env.game.hands


@pytest.mark.parametrize("kwargs, word", [
    (dict(seat=4), "seat"), (dict(seat="left"), "seat"), (dict(opponents=[]), "opponents"),
    (dict(opponents=["nobody"]), "nobody"), (dict(opponent_weights=[1.0, 2.0]), "opponent_weights"),
    (dict(snapshot_share=1.5), "snapshot_share"), (dict(illegal_action="ignore"), "illegal_action"),
    (dict(variant="poker"), "poker"), (dict(combinations=["quads"]), "quads"),
])
def test_bad_arguments_are_refused_by_name(kwargs, word):
    with pytest.raises(ValueError, match=word):
        CommerceEnv(num_players=4, **kwargs)


def test_bad_reset_options_change_nothing():
    env = CommerceEnv(num_players=4)
    env.reset(seed=3)
    before = [list(h) for h in env.game.hands]
    with pytest.raises(ValueError, match="shuffle"):
        env.reset(options={"shuffle": True})
    with pytest.raises(ValueError, match="seat"):
        env.reset(options={"seat": 9})
    assert env.game.hands == before


def test_illegal_action_ends_the_episode_with_a_penalty_or_raises():
    env = CommerceEnv(num_players=4)
    env.reset(seed=0)
    illegal = next(a for a in range(NUM_ACTIONS) if not env.action_masks()[a])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    strict = CommerceEnv(num_players=4, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(illegal)


def test_opponents_are_drawn_from_the_pool_by_weight():
    a, b = RandomAgent(), RandomAgent()
    env = CommerceEnv(num_players=4, opponents=[a, b], opponent_weights=[1.0, 0.0])
    for episode in range(10):
        env.reset(seed=episode)
        assert all(agent is a for s, agent in enumerate(env.seat_agents) if s != env.seat)


def test_hand_strength_features_match_the_engine_and_read_no_hidden_card():
    from itertools import combinations

    from commerce_env.hands import hand_key

    env = CommerceEnv(num_players=4, opponents=["random"], features=["hand_strength"], seat=0)
    base = obs.observation_size(4)
    observation, _ = env.reset(seed=4, options={"deck": pack("2C 9H 4D 5S 2D 9S 6C 7C 2H"), "dealer": 3})
    game = env.game
    assert game.hands[0] == sorted(parse_cards("2C 2D 2H"))  # R1.5: dealer 3, seat 0 is eldest
    extra = observation[base:]
    keys = sorted(hand_key(c, game.rules.combinations) for c in combinations(range(52), 3))
    mine = hand_key(game.hands[0], game.rules.combinations)
    below = sum(k < mine for k in keys)
    equal = sum(k == mine for k in keys)
    assert extra[0] == pytest.approx((below + equal / 2) / len(keys))  # percentile among all hands
    assert extra[1] == pytest.approx(extra[0] ** 3)
    assert extra[2 + 5] == 1.0 and extra[2:8].sum() == 1.0  # R2.1 tricon
    # R11: the features of seat 0 do not change when the hidden hands of others are swapped
    builder = env.feature_builders[0]
    game.hands[1], game.hands[2] = game.hands[2], game.hands[1]
    assert np.array_equal(builder(obs.encode(game, 0)), extra)


def test_unknown_features_are_refused():
    with pytest.raises(ValueError, match="x_ray"):
        CommerceEnv(num_players=4, features=["x_ray"])


def test_each_seat_has_its_own_opponent_instance_and_listeners_hear_every_action():
    env = CommerceEnv(num_players=4, opponents=["random"], seat=0)
    env.reset(seed=2)
    others = [a for s, a in enumerate(env.seat_agents) if s != 0]
    assert len({id(a) for a in others}) == 3

    class Listener(Scripted):
        def __init__(self):
            super().__init__([OFFER])
            self.heard = []

        def observe(self, seat, text):
            self.heard.append((seat, text))

    listener = Listener()
    env = CommerceEnv(num_players=3, opponents=[listener], seat=1)
    env.reset(seed=0, options={"dealer": 2})  # R3.1: seat 0 is eldest and offers to seat 1 (R5.4)
    assert env.game.phase == "reply" and listener.heard[0][0] == 0
    assert listener.heard[0][1].startswith("offer ")
    env.step(KNOCK)
    assert listener.heard[-1] == (1, "knock")


def test_the_env_pickles_and_deep_copies_mid_episode():
    import copy
    import pickle

    env = CommerceEnv(num_players=4, opponents=["greedy", "random"], features=["hand_strength"])
    env.reset(seed=8)
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        action = int(np.flatnonzero(env.action_masks())[0])
        assert np.array_equal(twin.action_masks(), env.action_masks())
        mine, theirs = copy.deepcopy(env).step(action), twin.step(action)
        assert np.array_equal(mine[0], theirs[0]) and mine[1:4] == theirs[1:4]


def test_import_commerce_env_registers_the_gymnasium_id():
    import subprocess
    import sys

    code = ("import gymnasium, commerce_env; "
            "e = gymnasium.make('commerce/Commerce-v0', variant='old_game', num_players=3); "
            "e.reset(seed=1); print(type(e.unwrapped).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "CommerceEnv"


def _first_episode(variant, seed, end_when_out, **options):
    """One episode with the learner taking its lowest legal action: (rewards, the game at its end)."""
    env = CommerceEnv(variant=variant, num_players=4, opponents=["greedy", "random"], end_when_out=end_when_out,
                      **options)
    env.reset(seed=seed)
    rewards = []
    while True:
        _, reward, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        rewards.append(reward)
        if terminated:
            return rewards, env.game, info


@pytest.mark.parametrize("variant, options", [("my_ship_sails", {}), ("pool", {}),
                                              ("widow", {"match_end": "freeze_out"})])
def test_end_when_out_ends_the_episode_when_the_learner_is_out_with_the_same_return(variant, options):
    # R4.6, R6.5, R7.5: an out player gets no more decisions or payments; R9.4: nor after the horse.
    # So ending the episode there gives the learner the same decisions and rewards as playing on.
    sooner = 0
    for seed in range(12):
        played_on, full_game, _ = _first_episode(variant, seed, False, **options)
        rewards, game, info = _first_episode(variant, seed, True, **options)
        assert rewards == played_on  # the same decisions, the same rewards step by step
        assert full_game.over and game.finished_for(info["seat"])
        assert info["returns"] == full_game.returns()[info["seat"]] == pytest.approx(sum(rewards))
        if not game.over:
            sooner += 1
            assert game.out[info["seat"]] and game.current_player != info["seat"]
            assert not np.any(obs.action_mask(game, info["seat"]))
    assert sooner > 0  # some learners went out before the match's end


def test_end_when_out_changes_nothing_with_outcome_rewards_and_is_checked():
    # DESIGN: outcome rewards are paid at the match's end, so the episode lasts the whole match.
    for seed in range(6):
        _, game, _ = _first_episode("my_ship_sails", seed, True, reward="outcome")
        assert game.over
    with pytest.raises(ValueError, match="'yes' for end_when_out"):
        CommerceEnv(variant="pool", end_when_out="yes")
