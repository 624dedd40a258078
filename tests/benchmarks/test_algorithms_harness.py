"""The algorithms' harness (benchmarks/algorithms.py): every run cached per (algorithm, variant, seed),
measured at each tenth of its budget on the same deals, reported as the field reports."""

from __future__ import annotations

import json

import pytest

from benchmarks import algorithms, algorithms_report
from benchmarks.algorithms_report import reached, report

pytest.importorskip("rliable")


def test_a_run_is_measured_at_each_checkpoint_and_never_trained_twice(tmp_path, monkeypatch):
    calls = []

    def toy(run):  # an "algorithm" whose policy is a fixed network: the harness's side only
        from training.ppo import ActorCritic

        calls.append(run.seed)

        network = ActorCritic(algorithms_obs_size(run.variant), [8]).actor
        for steps in range(run.every, run.budget + 1, run.every):
            run.checkpoint(steps, network)

    monkeypatch.setitem(algorithms.ALGORITHMS, "toy", toy)
    for _ in range(2):
        cell = algorithms.run_cell("toy", "widow", 0, 40, 4, tmp_path / "scratch", tmp_path / "results",
                                   ("random",))
    assert calls == [0]  # the second call read the cache
    curve = [json.loads(line) for line in (cell / "curve.jsonl").read_text().splitlines()]
    assert [p["steps"] for p in curve] == [4 * k for k in range(1, 11)]  # every tenth of the budget
    assert all(set(p["margins"]) == {"random"} for p in curve)
    assert len({json.dumps(p["margins"]) for p in curve}) == 1  # one network, the same fixed deals each time
    algorithms.run_cell("toy", "widow", 0, 80, 4, tmp_path / "scratch", tmp_path / "results", ("random",))
    assert calls == [0, 0]  # another budget is another run


def test_a_run_that_stops_measuring_before_the_end_of_its_budget_is_not_recorded(tmp_path, monkeypatch):
    # its last point would stand in the table as the final policy's
    def stops_early(run):
        from training.ppo import ActorCritic

        network = ActorCritic(algorithms_obs_size(run.variant), [8]).actor
        for steps in range(run.every, run.budget - run.every + 1, run.every):  # no checkpoint in the last tenth
            run.checkpoint(steps, network)

    monkeypatch.setitem(algorithms.ALGORITHMS, "stops_early", stops_early)
    with pytest.raises(RuntimeError, match="last checkpoint is at 36 steps of 40"):
        algorithms.run_cell("stops_early", "widow", 0, 40, 4, tmp_path / "scratch", tmp_path / "results",
                            ("random",))
    assert not (tmp_path / "results" / "stops_early" / "widow" / "seed_0" / "run.json").exists()


def test_a_search_best_response_measures_the_final_policy_once_and_the_report_shows_it(tmp_path, monkeypatch):
    from benchmarks import algorithms_exploit
    from training.ppo import ActorCritic

    def toy(run):
        network = ActorCritic(algorithms_obs_size(run.variant), [8]).actor
        for steps in range(run.every, run.budget + 1, run.every):
            run.checkpoint(steps, network)

    monkeypatch.setitem(algorithms.ALGORITHMS, "toy", toy)
    scratch, results = tmp_path / "scratch", tmp_path / "results"
    cell = algorithms.run_cell("toy", "trade_barter", 0, 40, 4, scratch, results, ("random",))
    assert algorithms_exploit.final_checkpoint(scratch, "toy", "trade_barter", 0).name == "step_40"
    found = algorithms_exploit.exploit_cell(cell, scratch, deals=4)
    low, high = found["ci95"]
    assert found["steps"] == 40 and found["deals"] == 4 and low <= found["margin"] <= high

    def no_search(*args, **kwargs):
        raise AssertionError("measured again")

    monkeypatch.setattr("training.exploit_search.search_best_response", no_search)
    assert algorithms_exploit.exploit_cell(cell, scratch, deals=4) == found  # cached beside the curve
    assert algorithms_exploit.exploit_cell(cell, tmp_path / "elsewhere", deals=8) is None  # no checkpoint here
    assert algorithms_report._exploited(cell) == f"{found['margin']:+.3f} [{low:+.3f}, {high:+.3f}]"
    assert algorithms_report._exploited(tmp_path / "nothing") == "-"


def algorithms_obs_size(variant):
    import gymnasium

    import commerce_env  # noqa: F401

    envs = gymnasium.make_vec("commerce/Commerce-v0", num_envs=1, variant=variant, num_players=4,
                              opponents=["greedy"], features=algorithms.FEATURES)
    return envs.single_observation_space["observation"].shape[0]


def test_reaching_a_level_needs_the_whole_interval_above_zero():
    curve = [{"steps": 10, "margins": {"greedy": {"margin": 0.2, "ci95": [-0.1, 0.5]}}},
             {"steps": 20, "margins": {"greedy": {"margin": 0.3, "ci95": [0.01, 0.6]}}}]
    assert reached(curve, "greedy") == 20 and reached(curve, "search") is None


@pytest.mark.parametrize("algorithm", ["ppo", "dqn"])
def test_the_quick_smoke_run_ends_with_a_table(tmp_path, capsys, algorithm):
    assert algorithms.main(["--quick", "--variants", "trade_barter", "--algorithms", algorithm,
                            "--scratch", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "IQM" in printed and f"{algorithm} trade_barter: 1 seed(s)" in printed
    curve = (tmp_path / "quick_results" / algorithm / "trade_barter" / "seed_0" / "curve.jsonl").read_text()
    steps = [json.loads(line)["steps"] for line in curve.splitlines()]
    assert len(steps) >= 2 and steps == sorted(steps) and steps[-1] >= 8_192  # measured along the way and at the end
    assert report(tmp_path / "nothing", ["ppo"], ["widow"]) == ["no finished run in the cache yet"]


@pytest.mark.ray
def test_rllib_ppo_is_measured_at_its_checkpoints(tmp_path):
    pytest.importorskip("ray.rllib")
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(2)  # the learner runs in this process: on the config's one thread, as `commerce train`
    try:
        cell = algorithms.run_cell("rllib_ppo", "trade_barter", 0, 8_000, 4, tmp_path / "scratch",
                                   tmp_path / "results", ("random",))
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
    curve = [json.loads(line) for line in (cell / "curve.jsonl").read_text().splitlines()]
    steps = [p["steps"] for p in curve]
    assert len(steps) >= 2 and steps == sorted(steps) and steps[-1] >= 8_000
    assert all(set(p["margins"]) == {"random"} for p in curve)
    assert json.loads((cell / "run.json").read_text())["budget"] == 8_000


@pytest.mark.ray
def test_an_rllib_run_stopped_midway_goes_on_from_its_saved_state(tmp_path, monkeypatch):
    pytest.importorskip("ray.rllib")
    save_state, saved = algorithms.Run.save_state, []

    def save_then_stop(run, steps, save):
        save_state(run, steps, save)
        saved.append(steps)
        if len(saved) == 1:
            raise KeyboardInterrupt  # the machine stopped after the first checkpoint

    monkeypatch.setattr(algorithms.Run, "save_state", save_then_stop)
    starts, rllib_ppo = [], algorithms.ALGORITHMS["rllib_ppo"]
    monkeypatch.setitem(algorithms.ALGORITHMS, "rllib_ppo", lambda run: (starts.append(run.start), rllib_ppo(run)))
    arguments = ("rllib_ppo", "trade_barter", 0, 8_000, 4, tmp_path / "scratch", tmp_path / "results", ("random",))
    with pytest.raises(KeyboardInterrupt):
        algorithms.run_cell(*arguments)
    cell = algorithms.run_cell(*arguments)
    steps = [json.loads(line)["steps"] for line in (cell / "curve.jsonl").read_text().splitlines()]
    assert starts == [0, saved[0]]  # the second run restored the first's state
    assert steps[0] == saved[0] and steps == sorted(set(steps)) and steps[-1] >= 8_000
    assert json.loads((cell / "run.json").read_text())["budget"] == 8_000


def test_a_reference_is_measured_once_on_the_curves_deals_and_reported_as_a_line(tmp_path):
    pytest.importorskip("open_spiel")
    results = tmp_path / "results"
    path = algorithms.run_reference("openspiel:ismcts", "widow", 4, results, levels=("random",))
    measured = json.loads(path.read_text())
    assert measured["agent"] == "openspiel:ismcts" and set(measured["margins"]) == {"random"}
    stamp = path.stat().st_mtime_ns
    assert algorithms.run_reference("openspiel:ismcts", "widow", 4, results, levels=("random",)) == path
    assert path.stat().st_mtime_ns == stamp  # cached: not measured again
    itself = json.loads(algorithms.run_reference("random", "widow", 4, results, levels=("random",)).read_text())
    assert itself["margins"]["random"]["margin"] == 0.0  # one seat against three copies of itself


def _cell(results, algorithm, variant, seed, over_greedy):
    cell = results / algorithm / variant / f"seed_{seed}"
    cell.mkdir(parents=True)
    (cell / "run.json").write_text(json.dumps({"train_seconds": 60.0, "budget": 10, "deals": 4}))
    row = {"margin": over_greedy, "ci95": [over_greedy - 0.1, over_greedy + 0.1]}
    point = {"steps": 10, "margins": {"greedy": row, "search": row}}
    (cell / "curve.jsonl").write_text(json.dumps(point) + "\n")


def _unit(results, variant, greedy_over_random):
    folder = results / "references" / variant
    folder.mkdir(parents=True)
    (folder / "greedy.json").write_text(json.dumps({"agent": "greedy", "margins": {
        "random": {"margin": greedy_over_random, "ci95": [0, 1]}, "greedy": {"margin": 0.0, "ci95": [0, 0]}}}))


def test_scores_are_normalised_by_greedys_lead_over_random_and_sweep_seeds_stay_out(tmp_path):
    results = tmp_path / "results"
    _unit(results, "widow", 2.0)
    _unit(results, "pool", 0.5)
    for seed, (widow, pool) in enumerate([(1.0, 0.25), (1.0, 0.25), (1.0, 0.25)]):
        _cell(results, "ppo", "widow", seed, widow)
        _cell(results, "ppo", "pool", seed, pool)
    _cell(results, "ppo", "widow", algorithms_report.SWEEP_SEEDS, -5.0)  # a sweep's run: not reported
    scores, scaled = algorithms_report.normalised_scores(results, ["ppo"], ["widow", "pool", "old_game"])
    assert scaled == ["widow", "pool"]  # the old game has no unit measured
    assert scores["ppo"].shape == (3, 2) and (scores["ppo"] == 0.5).all()  # 1.0 / 2.0 and 0.25 / 0.5
    lines = report(results, ["ppo"], ["widow", "pool"])
    assert "+0.500 [+0.500, +0.500]" in lines[1] and "3 seed(s) x 2" in lines[1]
    assert any(line.startswith("ppo widow: 3 seed(s)") for line in lines)


def test_a_report_of_one_variant_still_publishes_the_whole_table(tmp_path, monkeypatch, capsys):
    # `--report --variants widow` prints widow's rows but must not write a page of widow alone
    results, docs = tmp_path / "results", tmp_path / "docs"
    monkeypatch.setattr(algorithms, "RESULTS", results)
    monkeypatch.setattr(algorithms_report, "DOCS", docs)
    for variant in ("widow", "pool"):
        _unit(results, variant, 1.0)
        _cell(results, "ppo", variant, 0, 0.5)
    assert algorithms.main(["--report", "--algorithms", "ppo", "--variants", "widow"]) == 0
    printed = capsys.readouterr().out
    assert "ppo widow:" in printed and "ppo pool:" not in printed  # the run's own choice, printed
    page = (docs / "algorithms.md").read_text()
    assert "| widow | `ppo` |" in page and "| pool | `ppo` |" in page
    assert {"widow", "pool"} <= set(json.loads((docs / "algorithms.json").read_text())["ppo"])


def test_the_aggregate_is_the_same_each_time_it_is_made_and_leaves_numpys_generator_alone():
    import numpy as np

    scores = {"a": np.random.default_rng(1).normal(size=(3, 5)), "b": np.random.default_rng(2).normal(size=(3, 5))}
    np.random.seed(7)
    expected_draw = np.random.random()
    np.random.seed(7)
    first = algorithms_report.iqm(scores)
    assert np.random.random() == expected_draw  # the caller's stream goes on as if iqm had not run
    assert algorithms_report.iqm(scores) == first


def test_a_run_stopped_midway_goes_on_from_its_saved_state(tmp_path, monkeypatch):
    # A run of hours, on a machine stopped without warning: an algorithm that saves its state at each
    # measured checkpoint (Run.save_state) goes on from the last; one that saves none starts again.
    calls = []

    def toy(run, stop_at=None, saves=True):
        from training.ppo import ActorCritic

        calls.append(run.start)
        network = ActorCritic(algorithms_obs_size(run.variant), [8]).actor
        for steps in range(run.start + run.every, run.budget + 1, run.every):
            run.checkpoint(steps, network)
            if saves:
                run.save_state(steps, lambda folder: folder.mkdir(parents=True))
            if steps == stop_at:
                raise KeyboardInterrupt

    def run(stop_at=None, saves=True, seed=0):
        monkeypatch.setitem(algorithms.ALGORITHMS, "toy", lambda r: toy(r, stop_at, saves))
        return algorithms.run_cell("toy", "widow", seed, 40, 4, tmp_path / "scratch", tmp_path / "results",
                                   ("random",))

    with pytest.raises(KeyboardInterrupt):
        run(stop_at=12)
    cell = run()
    assert calls == [0, 12]
    curve = [json.loads(line) for line in (cell / "curve.jsonl").read_text().splitlines()]
    assert [p["steps"] for p in curve] == [4 * k for k in range(1, 11)]  # each checkpoint once, in order
    seconds = [p["train_seconds"] for p in curve]
    assert seconds == sorted(seconds)  # the training time goes on from the stopped run's
    calls.clear()
    with pytest.raises(KeyboardInterrupt):
        run(stop_at=8, saves=False, seed=1)
    run(saves=False, seed=1)
    assert calls == [0, 0]  # no state: trained again from the start
