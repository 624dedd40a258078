"""``python -m benchmarks.seeds``: several training seeds judged together, on a size a test can afford."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.stats import stratified_bootstrap
from benchmarks import seeds


def tiny_run(tiny_model, folder, seed):
    """A run folder as `commerce train` leaves it: config.yaml, model/, eval_history.jsonl (untrained net)."""
    tiny_model("old_game", 4, folder / "model", seed=seed)
    (folder / "config.yaml").write_text(f"seed: {seed}\n")
    point = {"steps": 1000 * (seed + 1), "opponents": {"greedy": {"diff": 0.1 * seed}}}
    (folder / "eval_history.jsonl").write_text(json.dumps(point) + "\n")
    return folder


def test_seeds_report_per_seed_the_aggregate_and_ship_the_best(tmp_path, tiny_model):
    runs = [tiny_run(tiny_model, tmp_path / f"run{s}", s) for s in range(2)]
    out, shipped = tmp_path / "out", tmp_path / "models" / "old_game"
    argv = ["--variant", "old_game", "--runs", *map(str, runs), "--games", "16", "--opponents", "random,greedy",
            "--out", str(out), "--ship", str(shipped)]
    assert seeds.main(argv) == 0
    report = json.loads((out / "seeds.json").read_text())
    assert [row["training_seed"] for row in report["seeds"]] == [0, 1]
    for row in report["seeds"]:
        assert set(row["vs"]) == {"random", "greedy"}
        assert row["worst_margin"] == min(v["difference"] for v in row["vs"].values())
    best = report["seeds"][report["best"]]
    assert best["worst_margin"] == max(row["worst_margin"] for row in report["seeds"])
    assert (shipped / "model.json").read_bytes() == (runs[report["best"]] / "model" / "model.json").read_bytes()
    # The aggregate pools both seeds' duplicate groups: its mean is the mean of the per-seed group margins.
    for opponent, agg in report["aggregate"].items():
        groups = [row["vs"][opponent]["groups"] for row in report["seeds"]]
        assert agg["scores"] == sum(groups) and agg["strata"] == 2
        assert agg["mean_ci"][0] <= agg["mean"] <= agg["mean_ci"][1]
        # seeds.json holds each seed's groups: the aggregate is made again from them alone.
        again = stratified_bootstrap([np.asarray(row["vs"][opponent]["group_margins"]) for row in report["seeds"]],
                                     weights=[np.asarray(row["vs"][opponent]["group_deals"])
                                              for row in report["seeds"]], seed=report["seed"])
        assert again["mean"] == pytest.approx(agg["mean"]) and again["mean_ci"] == pytest.approx(agg["mean_ci"])
        for row in report["seeds"]:
            versus = row["vs"][opponent]
            assert len(versus["group_margins"]) == len(versus["group_deals"]) == versus["groups"]
    text = (out / "seeds.md").read_text()
    assert "best of 2 seeds" in text and "(best, shipped)" in text and "IQM" in text
    assert (out / "training.png").read_bytes()[:4] == b"\x89PNG"
    # A second --ship onto the shipped model is refused (nothing replaced without --force), before playing.
    before = (shipped / "model.json").read_bytes()
    assert seeds.main(argv) == 2
    assert (shipped / "model.json").read_bytes() == before


def test_a_folder_without_a_model_is_refused_naming_it(tmp_path, capsys):
    assert seeds.main(["--variant", "old_game", "--runs", str(tmp_path)]) == 2
    assert str(tmp_path) in capsys.readouterr().err


def test_seed_margins_are_model_minus_opponent_per_group():
    report = {"result": {"agents": {"m": {"group_means": [1.0, 0.5]}, "o": {"group_means": [0.25, 0.5]}}}}
    assert seeds.margins(report, "m", "o").tolist() == [0.75, 0.0]
    assert stratified_bootstrap([np.array([0.75, 0.0])], samples=10)["mean"] == pytest.approx(0.375)



def test_seeds_are_judged_on_other_deals_than_the_benchmark_pages(tmp_path, tiny_model, capsys):
    # Group g of an arena seed is the same deals whatever the number of groups, so choosing the
    # best seed on the page's arena seed would choose it on the first games that then measure it.
    from benchmarks import suite

    runs = [tiny_run(tiny_model, tmp_path / f"run{s}", s) for s in range(2)]
    argv = ["--variant", "old_game", "--runs", *map(str, runs), "--games", "8", "--opponents", "random",
            "--out", str(tmp_path / "out")]
    assert seeds.main(argv) == 0
    assert json.loads((tmp_path / "out" / "seeds.json").read_text())["seed"] != suite.BENCHMARK_SEED
    text = (tmp_path / "out" / "seeds.md").read_text()  # nothing shipped without --ship, and it says so
    assert "shipped" not in text.replace("no model was shipped", "") and "**(best)**" in text
    capsys.readouterr()
    argv += ["--seed", str(suite.BENCHMARK_SEED), "--ship", str(tmp_path / "shipped")]
    assert seeds.main(argv) == 0
    assert "benchmark page's arena seed" in capsys.readouterr().err


def test_the_shipped_model_may_be_one_of_the_seeds(tmp_path, tiny_model):
    """A seed whose run folder is gone is given as the shipped model folder itself; when it is the best,
    shipping it onto itself leaves it as it was (it used to fail on copying a file onto itself)."""
    shipped = tiny_model("old_game", 4, tmp_path / "models" / "old_game", seed=0)
    before = {name: (shipped / name).read_bytes() for name in seeds.MODEL_FILES if (shipped / name).is_file()}
    seeds.ship(shipped, shipped, force=True)
    assert {name: (shipped / name).read_bytes() for name in before} == before
    assert all((shipped / name).is_file() for name in before)


def test_an_opponent_with_arguments_is_measured_under_its_setting(tmp_path, tiny_model, capsys):
    # --opponents "greedy(quantile=0.9)": that greedy, reported by its name at the table
    run = tiny_run(tiny_model, tmp_path / "run0", 0)
    out = tmp_path / "out"
    assert seeds.main(["--variant", "old_game", "--runs", str(run), "--games", "16", "--opponents",
                       "greedy(quantile=0.9),greedy", "--out", str(out)]) == 0
    report = json.loads((out / "seeds.json").read_text())
    assert report["opponents"] == ["greedy(quantile=0.9)", "greedy"]
    margins = {name: row["group_margins"] for name, row in report["seeds"][0]["vs"].items()}
    assert margins["greedy(quantile=0.9)"] != margins["greedy"]  # a different agent, not plain greedy
    assert seeds.main(["--variant", "old_game", "--runs", str(run), "--games", "16", "--opponents",
                       "greedy(quantile=2)", "--out", str(tmp_path / "bad")]) == 2
    assert "quantile" in capsys.readouterr().err and not (tmp_path / "bad").exists()
