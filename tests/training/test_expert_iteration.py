"""Expert iteration (training.expert_iteration): the targets are the search's choices, a resumed
run goes on from where it stopped, every round is measured on the same deals, and the stop rule
sets aside rounds that do not improve."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from test_training_config import VALUES  # noqa: E402

from agents.learned import load_agent  # noqa: E402
from agents.search import SearchAgent  # noqa: E402
from commerce_env.rules import VARIANTS  # noqa: E402
from training import expert_iteration, expert_rounds  # noqa: E402
from training.config import validate  # noqa: E402
from training.expert_data import Collector, ExpertDecisions  # noqa: E402
from training.expert_rounds import accepted_round, improves, read_record, stalled  # noqa: E402
from training.train import train  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "train"


def tiny(tmp_path, **section) -> dict:
    """A config of a few seconds: single deals of the widow game (R6, R12 ``deals: 1``), a 16-unit
    network, 4 worlds per search."""
    return {"name": "ei", "seed": 3, "output": str(tmp_path / "run"),
            "env": {"variant": "widow", "num_players": 4, "rules": {"deals": 1}},
            "training": {"n_envs": 1, "vec_env": "dummy", "progress_bar": False},
            "policy": {"net_arch": [16]}, "ppo": {"n_steps": 16, "batch_size": 16},
            "evaluation": {"final_deals": 0},
            "expert_iteration": {"rounds": 1, "decisions_per_round": 24, "parts": 2, "worlds": 4, "games": 4,
                                 "epochs": 1, "batch_size": 32, "measure_deals": 8, "measure_opponent": "greedy",
                                 **section}}


@pytest.fixture
def model(tiny_model, tmp_path):
    return tiny_model("widow", 4, tmp_path / "model", seed=1, deals=1)


@pytest.fixture
def fake_measures(monkeypatch):
    """The measures' arena replaced by a fixed margin (``margin[0]``); every call's settings kept."""
    calls, margin = [], [0.1]

    def evaluate_agent(learner, opponents, **settings):
        from agents.specs import spec_name

        calls.append({"learner": spec_name(learner), "opponent": spec_name(opponents[0]), **settings})
        row = {"difference": margin[0], "ci95": [margin[0] - 0.05, margin[0] + 0.05],
               "ci99": [margin[0] - 0.07, margin[0] + 0.07], "p_value": 0.5}
        return {"mean": 0.0, "vs": {spec_name(opponents[0]): row}, "deals_per_second": 1.0}

    monkeypatch.setattr("agents.evaluate.evaluate_agent", evaluate_agent)
    return calls, margin


def test_the_kept_actions_are_the_searchs_choices(model, tmp_path, monkeypatch):
    chosen, values = [], []
    choose = SearchAgent.choose

    def spy(self, results, default):
        action = choose(self, results, default)
        chosen.append(action)
        values.append(dict(self.last_values))
        return action

    monkeypatch.setattr(SearchAgent, "choose", spy)
    config = validate(tiny(tmp_path))
    data = Collector(model, config).collect(30, seed=4)
    assert len(data) >= 30
    assert data.actions.tolist() == chosen  # every search decision kept, in order, none other
    assert data.masks[np.arange(len(data)), data.actions].all()
    for row, rolled in zip(data.values, values, strict=True):
        assert sorted(np.flatnonzero(~np.isnan(row)).tolist()) == sorted(rolled)
        assert all(row[a] == pytest.approx(v) for a, v in rolled.items())
    visit = data.targets("visit", 1.0)
    assert (visit.argmax(axis=1) == data.actions).all() and np.allclose(visit.sum(axis=1), 1)
    soft = data.targets("value", 0.05)
    assert np.allclose(soft.sum(axis=1), 1) and (soft[np.isnan(data.values)] == 0).all()
    best = np.nanargmax(data.values, axis=1)
    assert (soft[np.arange(len(data)), best] >= soft.max(axis=1) - 1e-6).all()


def test_a_match_over_before_any_decision_is_passed_over(tiny_model, tmp_path, monkeypatch):
    # R7.3: a dealt ship settles the deal before anyone decides, and can end a match at once (R7.5)
    import random

    import commerce_env.engine as engine
    from commerce_env.rules import make_rules

    rules = make_rules("my_ship_sails")
    games = (engine.new_game(rules, 4, dealer=seed % 4, rng=random.Random(seed)) for seed in range(50_000))
    over = next(game for game in games if game.over)
    made, new_game = [], engine.new_game

    def first_over(*args, **kwargs):
        made.append(1)
        return over if len(made) == 1 else new_game(*args, **kwargs)

    monkeypatch.setattr(engine, "new_game", first_over)
    model = tiny_model("my_ship_sails", 4, tmp_path / "model", seed=1)
    config = validate({**tiny(tmp_path), "env": {"variant": "my_ship_sails", "num_players": 4}})
    data = Collector(model, config).collect(8, seed=5)
    assert len(made) > 1 and len(data) >= 8


def test_collection_is_deterministic_for_a_seed_and_saves_plain_arrays(model, tmp_path):
    config = validate(tiny(tmp_path))
    first = Collector(model, config).collect(12, seed=8)
    again = ExpertDecisions.load(io.BytesIO(Collector(model, config).collect(12, seed=8).to_bytes()))
    for name in ("observations", "masks", "actions", "returns"):
        assert np.array_equal(getattr(first, name), getattr(again, name))
    assert np.array_equal(first.values, again.values, equal_nan=True)


def test_network_rollouts_value_every_candidate(model, tmp_path):
    config = validate(tiny(tmp_path, rollout_policy="network"))
    data = Collector(model, config).collect(6, seed=2)
    rolled = ~np.isnan(data.values)
    assert rolled[np.arange(len(data)), data.actions].all()
    assert np.isfinite(data.values[rolled]).all()


def test_a_warm_start_begins_from_the_models_network(tiny_model, tmp_path, fake_measures):
    start = tiny_model("widow", 4, tmp_path / "start", seed=9, deals=1)
    config = validate(tiny(tmp_path, warm_start=str(start), rounds=1))
    train(config, quiet=True)
    ours, theirs = load_agent(tmp_path / "run/rounds/round_000/model"), load_agent(start)
    x = np.random.default_rng(0).random((5, ours.layers[0][0].shape[0])).astype(np.float32)
    assert np.allclose(ours.logits(x), theirs.logits(x), atol=1e-6)


def test_a_resumed_run_goes_on_from_the_next_round(tmp_path, monkeypatch, fake_measures):
    calls = []
    collect = expert_iteration.collect_round

    def spy(folder, config, decisions, seed):
        calls.append(seed)
        return collect(folder, config, decisions, seed)

    monkeypatch.setattr(expert_iteration, "collect_round", spy)
    train(validate(tiny(tmp_path, rounds=1)), quiet=True)
    first = (tmp_path / "run/rounds.jsonl").read_text()
    parts = {p.name: p.read_bytes() for p in (tmp_path / "run/rounds/round_001").glob("part_*.npz")}
    assert len(calls) == 2
    train(validate(tiny(tmp_path, rounds=2)), resume=True, quiet=True)
    record = read_record(tmp_path / "run")
    assert [entry["round"] for entry in record] == [0, 1, 2]
    assert (tmp_path / "run/rounds.jsonl").read_text().startswith(first)  # round 1 untouched
    assert {p.name: p.read_bytes() for p in (tmp_path / "run/rounds/round_001").glob("part_*.npz")} == parts
    assert len(calls) == 4 and len(set(calls)) == 4  # round 2's two parts only, with seeds of their own


def test_a_run_stopped_in_a_collection_loses_only_the_part_under_way(tmp_path, monkeypatch, fake_measures):
    calls = []
    collect = expert_iteration.collect_round

    def stop_at_second(folder, config, decisions, seed):
        calls.append(seed)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return collect(folder, config, decisions, seed)

    monkeypatch.setattr(expert_iteration, "collect_round", stop_at_second)
    with pytest.raises(KeyboardInterrupt):
        train(validate(tiny(tmp_path)), quiet=True)
    assert [p.name for p in (tmp_path / "run/rounds/round_001").glob("part_*.npz")] == ["part_0.npz"]
    train(validate(tiny(tmp_path)), resume=True, quiet=True)
    assert calls[2:] == [calls[1]]  # only the part that was under way, with the same seed
    assert [entry["round"] for entry in read_record(tmp_path / "run")] == [0, 1]


def test_every_round_is_measured_on_the_same_deals(tmp_path, fake_measures):
    calls, _ = fake_measures
    train(validate(tiny(tmp_path, rounds=2, measure_deals=12, measure_seed=77)), quiet=True)
    settings = [{k: v for k, v in call.items() if k not in ("learner", "opponent")} for call in calls]
    assert len(calls) == 5  # round 0 against greedy; rounds 1 and 2 against greedy and their start
    assert all(s == settings[0] for s in settings) and settings[0]["deals"] == 12 and settings[0]["seed"] == 77
    previous = [call for call in calls if call["opponent"] != "greedy"]
    assert [call["learner"] != call["opponent"] for call in previous] == [True, True]
    assert "round_001" in previous[1]["opponent"] and "round_002" in previous[1]["learner"]


def test_rounds_that_do_not_improve_are_set_aside_and_stop_the_run(tmp_path, fake_measures):
    _, margin = fake_measures
    margin[0] = -0.1
    report = train(validate(tiny(tmp_path, rounds=5, patience=2)), quiet=True)
    record = read_record(tmp_path / "run")
    assert [entry["round"] for entry in record] == [0, 1, 2]
    assert [entry["started_from"] for entry in record[1:]] == [0, 0]  # round 2 starts again from round 0
    assert report["expert_iteration"] == {"rounds": 2, "kept": 0, "stopped": "stalled"}
    exported = load_agent(tmp_path / "run/model", search=False)
    start = load_agent(tmp_path / "run/rounds/round_000/model")
    x = np.random.default_rng(1).random((3, start.layers[0][0].shape[0])).astype(np.float32)
    assert np.allclose(exported.logits(x), start.logits(x))


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_variants_config_runs_a_round(variant, tmp_path, fake_measures):
    # The trainer runs from a config on every variant: its own, shrunk to a round of a few decisions.
    import yaml

    config = yaml.safe_load((CONFIGS / f"expert_iteration_{variant}.yaml").read_text())
    assert config["env"]["variant"] == variant
    config.update(output=str(tmp_path / "run"), evaluation={"final_deals": 0})
    config["training"]["progress_bar"] = False
    config["expert_iteration"].update(rounds=1, decisions_per_round=8, parts=1, worlds=2, games=2, epochs=1,
                                      measure_deals=2)
    report = train(validate(config), quiet=True)
    assert report["expert_iteration"]["rounds"] == 1
    assert [entry["round"] for entry in read_record(tmp_path / "run")] == [0, 1]


def test_the_stop_rule():
    row = {"margin": 0.02, "ci95": [-0.01, 0.05]}
    assert improves({"vs_previous": row}, {}, "mean", "start")
    assert not improves({"vs_previous": row}, {}, "interval", "start")
    assert improves({}, {}, "interval", "both")  # nothing measured: kept


def test_a_round_can_be_judged_by_its_margin_against_the_opponent():
    # a round ahead of its start head to head but further behind `search` than its start was
    start = {"vs_opponent": {"margin": -0.17, "ci95": [-0.26, -0.08]}}
    worse = {"vs_previous": {"margin": 0.03, "ci95": [-0.06, 0.12]},
             "vs_opponent": {"margin": -0.31, "ci95": [-0.41, -0.23]}}
    better = {"vs_previous": {"margin": -0.01, "ci95": [-0.09, 0.07]},
              "vs_opponent": {"margin": -0.10, "ci95": [-0.19, -0.01]}}
    assert improves(worse, start, "mean", "start") and not improves(worse, start, "mean", "opponent")
    assert improves(better, start, "mean", "opponent") and not improves(better, start, "interval", "opponent")
    assert not improves(worse, start, "mean", "both") and not improves(better, start, "mean", "both")


def test_the_opponent_rule_sets_aside_rounds_that_lose_more_to_the_opponent(tmp_path, fake_measures):
    _, margin = fake_measures  # every measure the same margin: no round beats round 0 against the opponent
    train(validate(tiny(tmp_path, rounds=3, patience=1, improve_against="opponent")), quiet=True)
    record = read_record(tmp_path / "run")
    assert [entry["accepted"] for entry in record] == [True, False]
    record = [{"round": 0, "accepted": True}, {"round": 1, "accepted": True}, {"round": 2, "accepted": False}]
    assert accepted_round(record) == 1 and stalled(record, 1) and not stalled(record, 2)


@pytest.mark.parametrize(("key", "value"), [("target", "visits"), ("rollout_policy", "random"),
                                            ("worlds", 0), ("opponents", []), ("temperature", 0)])
def test_a_bad_value_is_refused_naming_it(tmp_path, key, value):
    with pytest.raises(ValueError, match=f"expert_iteration.{key}"):
        validate(tiny(tmp_path, **{key: value}))


def test_a_warm_start_of_another_network_is_refused(model, tmp_path):
    config = tiny(tmp_path, warm_start=str(model))
    config["policy"]["net_arch"] = [32]
    with pytest.raises(ValueError, match="expert_iteration.warm_start"):
        validate(config)


def test_the_record_names_no_folder_of_the_machine(tmp_path, fake_measures):
    train(validate(tiny(tmp_path)), quiet=True)
    text = (tmp_path / "run/rounds.jsonl").read_text()
    assert str(tmp_path) not in text
    assert json.loads(text.splitlines()[1])["round"] == 1
    assert expert_rounds.RECORD == "rounds.jsonl"


EXPERT_KEYS = ["rounds", "decisions_per_round", "worlds", "margin", "rollout_policy", "target", "temperature",
               "explore", "opponents", "games", "parts", "window", "epochs", "learning_rate", "ppo_steps",
               "warm_start", "measure_deals", "measure_opponent", "measure_seed", "improve_by", "improve_against",
               "patience"]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(EXPERT_KEYS), value=VALUES)
def test_any_value_is_accepted_or_refused_naming_its_key(tmp_path, key, value):
    try:
        validate(tiny(tmp_path, **{key: value}))
    except ValueError as error:
        assert f"expert_iteration.{key}" in str(error), str(error)


def test_ppo_fine_tuning_follows_a_rounds_fit(tmp_path, fake_measures):
    train(validate(tiny(tmp_path, ppo_steps=32)), quiet=True)
    fitted = json.loads((tmp_path / "run/rounds/round_001/fit.json").read_text())
    assert fitted["ppo_seconds"] > 0
    assert json.loads((tmp_path / "run/rounds/round_001/model/model.json").read_text())["trained_steps"] >= 32
    assert json.loads((tmp_path / "run/rounds/round_000/model/model.json").read_text())["trained_steps"] == 0


def test_network_rollouts_play_each_row_to_its_deals_end_with_the_networks_choices(model, monkeypatch):
    # R4.4: a deal ends; the rows stop there (the match over, the next pack awaited, or the horse, R9.4).
    import random

    from agents.batched import BatchedPolicy
    from commerce_env.engine import new_game
    from commerce_env.rules import make_rules
    from commerce_env.vector import access
    from commerce_env.view import seat_view
    from training.expert_rollouts import NetworkRollouts

    rules = make_rules("widow", deals=1)
    game = new_game(rules, 4, rng=random.Random(5))
    view = seat_view(game, game.current_player)
    rollouts = NetworkRollouts(load_agent(model))
    asked = []
    act_batch = BatchedPolicy.act_batch
    monkeypatch.setattr(BatchedPolicy, "act_batch",
                        lambda self, engine, games, seats: asked.append(len(games)) or act_batch(self, engine, games,
                                                                                                 seats))
    search = SearchAgent(worlds=6, seed=1)
    plan = search.rollout_plan(view, rng=random.Random(2))
    plan.worlds = rollouts.sample(view, random.Random(2), 6)
    results = rollouts.run([plan])[0]
    assert sorted(results) == sorted(plan.actions) and all(len(v) == 6 for v in results.values())
    engine = rollouts.engine(rules, 4, 1)
    rows = np.arange(6 * len(plan.actions))
    ended = engine.over[rows] | engine.awaiting_pack[rows] | (engine.phase[rows] == access.HORSE)
    assert ended.all() and asked and max(asked) <= len(rows)
