"""One illegal-action path with a true mask after it, and values that are no action
number refused with a clear error that changes nothing."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import commerce_env
from agents.arena import run_arena
from agents.base import Agent, RandomAgent
from commerce_env import observation as obs
from commerce_env.engine import IllegalActionError
from commerce_env.engine.base import PHASES
from commerce_env.single_agent import CommerceEnv

NOT_ACTIONS = [12.7, "12", np.float32(14.9), None, 10**30, -1, True, 3.0]


def _phase(vector: np.ndarray) -> str:
    start = dict((name, begin) for name, begin, _ in obs.layout((len(vector) - 323) // 21))["phase"]
    return PHASES[int(np.argmax(vector[start:start + len(PHASES)]))]


def _snapshot(game) -> bytes:
    """The game's state, leaving out the cache of legal actions (filled on demand)."""
    return pickle.dumps({k: v for k, v in vars(game).items() if k != "_legal_cache"})


def _illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(np.asarray(mask) == 0)[0])


@pytest.mark.parametrize("make", [commerce_env.env, commerce_env.raw_env])
@pytest.mark.parametrize("variant", ["trade_barter", "widow", "old_game"])
def test_terminate_ends_the_match_and_the_mask_is_empty(make, variant):
    # R4.5: the terminate convention ends the match; afterwards nothing is legal for anyone
    # and every observation is of a match that is over.
    env = make(variant=variant, num_players=3, illegal_action="terminate")
    env.reset(seed=2)
    offender = env.agent_selection
    env.step(_illegal(env.observe(offender)["action_mask"]))
    assert all(env.terminations.values())
    assert env.unwrapped.game.over
    for agent in env.possible_agents:
        observed = env.observe(agent)
        assert not observed["action_mask"].any(), agent
        assert _phase(observed["observation"]) == "over"
    rewards = {}
    for agent in env.agent_iter():
        rewards[agent] = env.last()[1]
        env.step(None)
    assert rewards[offender] == -1.0
    assert all(r == 0.0 for a, r in rewards.items() if a != offender)


@pytest.mark.parametrize("mode", ["raise", "terminate"])
@pytest.mark.parametrize("bad", NOT_ACTIONS, ids=repr)
def test_aec_env_refuses_what_is_no_action_number_in_both_modes(mode, bad):
    env = commerce_env.env(variant="trade_barter", num_players=4, illegal_action=mode)
    env.reset(seed=1)
    before = _snapshot(env.unwrapped.game), env.agent_selection
    with pytest.raises(ValueError, match=repr(bad).replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        env.step(bad)
    assert (_snapshot(env.unwrapped.game), env.agent_selection) == before
    assert not any(env.terminations.values())


def test_aec_env_takes_numpy_integers():
    env = commerce_env.env(variant="trade_barter", num_players=4)
    env.reset(seed=1)
    legal = np.flatnonzero(env.last()[0]["action_mask"])
    env.step(np.int64(legal[0]))
    assert len(env.unwrapped.history) == 1


@pytest.mark.parametrize("mode", ["raise", "terminate"])
@pytest.mark.parametrize("bad", NOT_ACTIONS, ids=repr)
def test_single_agent_step_accepts_only_integers(mode, bad):
    env = CommerceEnv(variant="trade_barter", num_players=4, opponents=["random"], illegal_action=mode)
    env.reset(seed=4)
    before = _snapshot(env.game)
    with pytest.raises(ValueError) as error:
        env.step(bad)
    assert repr(bad) in str(error.value)
    assert _snapshot(env.game) == before  # nothing changed: the learner may still act
    legal = np.flatnonzero(env.action_masks())
    env.step(np.int32(legal[0]))


def test_single_agent_terminate_leaves_an_empty_mask_and_an_over_observation():
    env = CommerceEnv(variant="widow", num_players=4, opponents=["random"], illegal_action="terminate")
    env.reset(seed=0)
    observation, reward, terminated, _, info = env.step(_illegal(env.action_masks()))
    assert terminated and reward == -1.0 and info["illegal_action"]
    assert not env.action_masks().any()
    assert _phase(observation) == "over"
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("bad_options", [{"deck": "AS AS"}, {"dealer": 9}, {"seat": 7}, {"bogus": 1},
                                         {"deck": "AS", "decks": ["AS"]}])
@pytest.mark.parametrize("seed", [None, 11])
def test_failed_single_agent_reset_changes_nothing(bad_options, seed):
    def fresh() -> CommerceEnv:
        env = CommerceEnv(variant="trade_barter", num_players=4, opponents=["random"])
        env.reset(seed=5)
        return env

    tried, untouched = fresh(), fresh()
    before = _snapshot(tried.game)
    with pytest.raises(ValueError):
        tried.reset(seed=seed, options=bad_options)
    assert _snapshot(tried.game) == before
    # the next episodes are the ones the env would have dealt had the bad call not happened
    for _ in range(3):
        a, info_a = tried.reset()
        b, info_b = untouched.reset()
        assert np.array_equal(a, b) and info_a == info_b


class _Returns(Agent):
    name = "floaty"

    def __init__(self, value):
        self.value = value

    def act(self, observation, game=None):
        return self.value


@pytest.mark.parametrize("value", [9.0, "9", None, np.float64(12)], ids=repr)
def test_arena_names_an_agent_that_returns_no_action_number(value):
    with pytest.raises(ValueError, match="floaty"):
        run_arena([_Returns(value), "random"], variant="trade_barter", num_players=2, games=2, progress=False)


class _Counting(RandomAgent):
    name = "counting"
    calls = 0

    def act(self, view):
        type(self).calls += 1
        return super().act(view)


@pytest.mark.parametrize("bad", [{"seed": -1}, {"seed": 1.5}, {"seed": "x"}, {"workers": 0}, {"games": 0},
                                 {"games": 2.5}, {"duplicate": "yes"}, {"games": 2, "deals": 2}])
def test_arena_checks_its_arguments_before_playing(bad):
    _Counting.calls = 0
    kwargs = {"games": 4, **bad}
    with pytest.raises(ValueError):
        run_arena([_Counting(), "random"], variant="trade_barter", num_players=2, progress=False, **kwargs)
    assert _Counting.calls == 0


def test_arena_warns_when_there_are_too_few_duplicate_groups(tmp_path):
    small = run_arena(["random", "greedy"], variant="trade_barter", num_players=2, games=4, progress=False,
                      out_dir=tmp_path)
    assert small["groups"] == 2 and small["warnings"]
    assert "not meaningful" in (tmp_path / "report.md").read_text()
    large = run_arena(["random", "greedy"], variant="trade_barter", num_players=2, games=60, progress=False)
    assert large["groups"] == 30 and large["warnings"] == []


def test_engine_still_raises_illegal_for_a_legal_number_that_is_not_legal_now():
    env = commerce_env.raw_env(variant="trade_barter", num_players=4)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal:"):
        env.step(_illegal(env.observe(env.agent_selection)["action_mask"]))


def test_sb3_make_vec_env_defaults_work():
    # SB3's make_vec_env asks gymnasium.make for render_mode="rgb_array".
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env(commerce_env.GYM_ENV_ID, n_envs=2, seed=0,
                       env_kwargs={"variant": "trade_barter", "num_players": 4, "opponents": ["random"]})
    observations = vec.reset()
    assert observations.shape == (2, obs.observation_size(4))
    vec.close()


def test_arena_never_replaces_files_in_a_users_folder_without_being_told(tmp_path):
    mine = tmp_path / "report.md"
    mine.write_text("my notes")
    _Counting.calls = 0
    with pytest.raises(ValueError, match="--force"):
        run_arena([_Counting(), "random"], variant="trade_barter", num_players=2, games=4, progress=False,
                  out_dir=tmp_path)
    assert mine.read_text() == "my notes" and _Counting.calls == 0  # refused before playing
    (tmp_path / "other.txt").write_text("keep")
    run_arena(["random", "greedy"], variant="trade_barter", num_players=2, games=4, progress=False,
              out_dir=tmp_path, overwrite=True)
    assert mine.read_text().startswith("# Arena") and (tmp_path / "other.txt").read_text() == "keep"


@pytest.mark.parametrize("variant", ["trade_barter", "old_game", "widow"])
def test_a_player_who_has_not_acted_is_last_none_not_passed(variant):
    # R8.2 / R6.3: `passed` means a pass; before anyone acts, every block says `last_none`.
    from commerce_env.engine.actions import KINDS
    from commerce_env.observation import PLAYER_FEATURES, PLAYER_FIELDS

    env = commerce_env.raw_env(variant=variant, num_players=3)
    env.reset(seed=0)
    vector = env.observe(env.agent_selection)["observation"]
    start = dict((name, begin) for name, begin, _ in obs.layout(3))["players"]
    for k in range(3):
        block = vector[start + k * PLAYER_FEATURES:start + (k + 1) * PLAYER_FEATURES]
        assert block[PLAYER_FIELDS.index("passed")] == 0.0
        assert block[PLAYER_FIELDS.index("last_none")] == 1.0
        assert block[7:7 + len(KINDS)].sum() == 0.0
