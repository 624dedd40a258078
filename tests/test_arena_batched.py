"""The arena's batched path gives exactly the local path's result where it applies (issue 12, item 4)."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")
torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

import agents.arena_batched as arena_batched  # noqa: E402
from agents.arena import run_arena  # noqa: E402
from agents.heuristics import GreedyAgent  # noqa: E402
from agents.learned import load_agent, make_meta, save_model, weights_from_policy  # noqa: E402
from commerce_env.rules import make_rules  # noqa: E402
from commerce_env.single_agent import CommerceEnv  # noqa: E402

TIMINGS = ("seconds", "deals_per_second", "games_per_second")


def _result(**kwargs) -> dict:
    result = run_arena(progress=False, **kwargs)
    return {k: v for k, v in result.items() if k not in TIMINGS}


def _cautious() -> GreedyAgent:
    agent = GreedyAgent(quantile=0.8)
    agent.name = "greedy_0.8"
    return agent


@pytest.mark.parametrize("variant", ["trade_barter", "old_game"])
@pytest.mark.parametrize("duplicate", [True, False])
def test_batched_arena_equals_the_local_arena(variant, duplicate):
    # R5, R8 (single deals): same packs, same seatings, same decisions, same rewards.
    kwargs = dict(lineup=["greedy", _cautious()], variant=variant, num_players=4, games=120, seed=7,
                  duplicate=duplicate)
    assert _result(batched=True, **kwargs) == _result(batched=False, **kwargs)


@pytest.fixture
def model_folder(tmp_path):
    torch.set_num_threads(1)
    env = CommerceEnv(variant="trade_barter", num_players=4, opponents=["random"])
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, seed=0, device="cpu", n_steps=64, batch_size=64,
                                    policy_kwargs=dict(net_arch=[16]))
    weights, network = weights_from_policy(model.policy)
    return save_model(tmp_path / "m", weights, make_meta(make_rules("trade_barter"), 4, network),
                      use_safetensors=False)


def test_a_learned_model_plays_the_same_on_both_paths(model_folder):
    spec = f"model:{model_folder}"
    kwargs = dict(lineup=[spec, "greedy"], variant="trade_barter", num_players=4, games=96, seed=2)
    assert _result(batched=True, **kwargs) == _result(batched=False, **kwargs)
    agent = load_agent(model_folder)
    assert arena_batched.applies([agent, "greedy"], make_rules("trade_barter"))


@pytest.mark.parametrize("lineup, variant, options", [
    (["greedy", "random"], "trade_barter", {}),  # random draws its own numbers
    (["greedy", "search"], "old_game", {}),  # no batched form
    (["greedy"], "widow", {}),  # matches (R4.5): later packs are the engine's own
    (["greedy"], "my_ship_sails", {"deals": 1}),  # a dealt flush deals again (R7.3)
])
def test_the_batched_path_is_refused_where_it_would_change_the_result(lineup, variant, options):
    rules = make_rules(variant, **options)
    assert not arena_batched.applies(lineup, rules)
    with pytest.raises(ValueError, match="batched=True"):
        run_arena(lineup, variant=variant, num_players=4, options=options, games=24, progress=False, batched=True)


def test_the_arena_takes_the_batched_path_by_itself_where_it_applies(monkeypatch):
    calls = []
    real = arena_batched.play_groups

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(arena_batched, "play_groups", counting)
    run_arena(["greedy", _cautious()], variant="old_game", num_players=4, games=24, progress=False)
    assert calls == [1]
    run_arena(["greedy", "random"], variant="old_game", num_players=4, games=24, progress=False)
    assert calls == [1]  # random: the local path
