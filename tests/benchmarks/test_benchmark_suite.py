"""``python -m benchmarks.suite``: the benchmark table, on a size a test can afford."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import pytest

from benchmarks import suite


@pytest.fixture
def models(tmp_path, tiny_model):
    """A folder of shipped models holding an (untrained) old-game model."""
    tiny_model("old_game", 4, tmp_path / "models" / "old_game")
    return tmp_path / "models"


def test_suite_writes_the_table_with_the_model_against_every_built_in_agent(tmp_path, models, monkeypatch):
    monkeypatch.setattr(suite, "QUICK", {"table_games": 24, "model_games": 8, "match_games": 8})
    monkeypatch.setattr(suite, "BUILT_IN", ("expected_value", "greedy", "random"))  # search is slow for a test
    out, md = tmp_path / "bench", tmp_path / "benchmark.md"
    seeds = out / "old_game" / "seeds"
    seeds.mkdir(parents=True)
    (seeds / "seeds.md").write_text("Training seeds: 3 runs\n\n![training curves](training.png)\n")
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\nintro\n{suite.README_START}\nold headline\n{suite.README_END}\n\n## More\n")
    assert suite.main(["--quick", "--variants", "trade_barter", "--workers", "1", "--readme", str(readme),
                       "--models", str(models), "--out", str(out), "--markdown", str(md)]) == 0
    # A later command for another variant keeps the first one's section in the page.
    assert suite.main(["--quick", "--variants", "old_game", "--workers", "1", "--readme", str(readme),
                       "--models", str(models), "--out", str(out), "--markdown", str(md)]) == 0
    report = json.loads((out / "suite.json").read_text())
    old = report["variants"]["old_game"]
    assert set(old["built_in"]["agents"]) == {"expected_value", "greedy", "random"}
    assert set(old["model"]) == {"expected_value", "greedy", "random"}
    for row in old["model"].values():
        assert row["ci99"][0] <= row["ci95"][0] <= row["difference"] <= row["ci95"][1] <= row["ci99"][1]
    assert set(report["variants"]) == {"old_game"}  # this command's own report
    text = md.read_text()
    assert text.index("## trade_barter") < text.index("## old_game")  # both sections, in the usual order
    assert "--variants trade_barter" in text and "--variants old_game" in text
    assert "![training curves](bench/old_game/seeds/training.png)" in text  # relative to the page
    headline = next(line for line in text.splitlines() if line.startswith("| old_game |"))
    assert "not shown: fewer than 20000 games" in headline or "| no |" in headline  # 8 games prove nothing
    assert "too few for the 99%-over-20000 claim" in text
    # The README's headline block is the page's headline; the rest of the README is untouched.
    new = readme.read_text()
    assert new.startswith("# Title\n\nintro\n") and new.endswith("\n\n## More\n") and "old headline" not in new
    assert headline in new and "| trade_barter |" in new
    assert "| old_game |" in text and "no shipped model" in text
    assert "not meaningful" in text  # a quick run says its samples are too small
    assert (out / "old_game" / "built_in" / "mean_reward.png").is_file()
    assert report["versions"]["numpy"] != "not installed"
    assert "## Where the models fall short" in text and "| old_game | greedy |" in text
    # --write-only remakes the page from the saved sections, playing nothing.
    md.unlink()
    assert suite.main(["--write-only", "--readme", str(readme), "--out", str(out), "--markdown", str(md)]) == 0
    assert md.read_text() == text
    assert suite.main(["--write-only", "--out", str(tmp_path / "empty"), "--markdown", str(md)]) == 2


def test_a_readme_without_the_headline_markers_is_left_alone(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    assert not suite.update_readme(readme, {})
    assert readme.read_text() == "# no markers\n"
    readme.write_text(f"{suite.README_END}\n{suite.README_START}\n")  # out of order
    assert not suite.update_readme(readme, {})


@pytest.fixture
def small_suite(tmp_path, models, monkeypatch):
    """A two-agent, quick suite over the old game: (out folder, page, the common arguments)."""
    monkeypatch.setattr(suite, "QUICK", {"table_games": 24, "model_games": 8, "match_games": 8})
    monkeypatch.setattr(suite, "BUILT_IN", ("greedy", "random"))
    out, md, readme = tmp_path / "bench", tmp_path / "benchmark.md", tmp_path / "README.md"
    common = ["--quick", "--variants", "old_game", "--workers", "1", "--readme", str(readme),
              "--models", str(models), "--out", str(out), "--markdown", str(md)]
    return out, md, common


def test_model_only_replays_the_model_and_keeps_the_saved_built_in_table(small_suite, models, monkeypatch):
    out, md, common = small_suite
    assert suite.main(["--model-only", *common]) == 2  # nothing saved yet: refused, nothing written
    assert not md.exists()
    assert suite.main(["--seed", "4", *common]) == 0
    first = json.loads((out / "old_game" / "section.json").read_text())
    calls = []
    monkeypatch.setattr(suite, "table_round_robin", lambda *a, **k: calls.append(a))
    assert suite.main(["--model-only", "--seed", "6", *common]) == 0
    assert calls == []  # the built-in agents were not played again
    second = json.loads((out / "old_game" / "section.json").read_text())
    assert second["built_in"] == first["built_in"]
    assert second["built_in_made"]["seed"] == 4 and second["seed"] == 6
    text = md.read_text()
    assert "replayed only the model" in text and "--seed 4" in text and "--seed 6" in text
    meta = json.loads((models / "old_game" / "model.json").read_text())
    assert second["model_file"]["weights_sha256"] == meta["weights_sha256"]
    assert f"`{meta['weights_sha256'][:12]}`" in text  # the page says which model file it played


def test_table_only_replays_the_built_in_table_and_keeps_the_saved_model_games(small_suite, models,
                                                                              monkeypatch):
    out, md, common = small_suite
    assert suite.main(["--table-only", *common]) == 2  # nothing saved yet: refused, nothing written
    assert not md.exists() and not out.exists()
    assert suite.main(["--seed", "4", *common]) == 0
    first = json.loads((out / "old_game" / "section.json").read_text())
    calls = []
    monkeypatch.setattr(suite, "model_versus", lambda *a, **k: calls.append(a))
    assert suite.main(["--table-only", "--seed", "6", *common]) == 0
    assert calls == []  # the model was not played again
    second = json.loads((out / "old_game" / "section.json").read_text())
    assert second["model"] == first["model"] and second["model_file"] == first["model_file"]
    assert second["model_made"]["seed"] == 4 and second["seed"] == 6 and "built_in_made" not in second
    assert second["built_in"]["seed"] == 6 and second["built_in"] != first["built_in"]  # played anew
    text = md.read_text()
    assert "replayed only the built-in table" in text and "--seed 4" in text and "--seed 6" in text
    # Other weights in models/ than the saved games played: refused by name, nothing changed.
    meta_path = models / "old_game" / "model.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "weights_sha256": "0" * 64}))
    page = md.read_text()
    with pytest.raises(SystemExit):  # both options at once: argparse refuses
        suite.main(["--table-only", "--model-only", *common])
    assert suite.main(["--table-only", "--seed", "8", *common]) == 2
    assert json.loads((out / "old_game" / "section.json").read_text()) == second and md.read_text() == page


def test_table_only_refusal_names_the_two_weights(tmp_path, models):
    out = tmp_path / "bench"
    (out / "old_game").mkdir(parents=True)
    (out / "old_game" / "section.json").write_text(json.dumps(
        {"built_in": {}, "model": {}, "model_file": {"weights_sha256": "abc"}, "command": "c", "seed": 1,
         "quick": True, "versions": {}}))
    with pytest.raises(ValueError, match="played weights abc, but .*old_game holds [0-9a-f]{64}"):
        suite.saved_model(out, "old_game", models)


def test_shortfalls_name_every_opponent_the_model_does_not_beat_and_why():
    def row(low, high, games):
        return {"difference": (low + high) / 2, "ci95": [low, high], "ci99": [low, high], "p_value": 0.5,
                "games": games}
    sections = {
        "trade_barter": {"model": {"greedy": row(0.1, 0.3, 20000), "search": row(-0.02, 0.05, 20000)}},
        "widow": {"model": {"search": row(-0.3, -0.1, 2000), "greedy": row(0.2, 0.4, 480)}},
        "pool": {},
    }
    lines = suite.shortfalls(sections)
    text = "\n".join(lines)
    assert lines[0].startswith("## ")  # a heading, then what is under it
    assert "| trade_barter | greedy |" not in text  # beaten at 99% on the full sample
    assert "| trade_barter | search | +0.015 | [-0.020, +0.050] | 20000 | level at 99%" in text
    assert "| widow | search | -0.200 | [-0.300, -0.100] | 2000 | behind at 99% |" in text
    assert "| widow | greedy |" in text and "ahead at 99%; 480 of the 2000 games the claim needs" in text
    assert "| pool | every agent |" in text and "no shipped model" in text
    done = {"trade_barter": {"model": {"greedy": row(0.1, 0.3, 20000)}}}
    assert suite.shortfalls(done) == []  # no heading with nothing under it: the headline says "yes" already
    page = suite.markdown({"trade_barter": {**done["trade_barter"], "built_in": BUILT_IN_TABLE, "command": "c",
                                            "seed": 1, "quick": False, "seconds": 1.0, "versions": {}}},
                          Path("docs/benchmark"), Path("docs"))
    lines = [line for line in page.splitlines() if line.strip()]
    for here, after in zip(lines, [*lines[1:], ""], strict=True):
        assert not here.startswith("#") or (after and not after.startswith("#")), f"{here!r}: nothing under it"


BUILT_IN_TABLE = {"agents": {"greedy": {"mean": 0.1, "ci95": [0.0, 0.2]}}, "pairwise": [], "games": 24,
                  "groups": 4, "deals_played": 24, "warnings": []}


def test_the_page_names_versions_not_machines():
    assert "platform" not in suite.versions()
    assert suite.versions()["commerce-rl"] == importlib.metadata.version("commerce-rl")
    shown = suite._versions({"python": "3.11.7", "platform": "Linux-6.1-x86_64-with-glibc2.36", "commerce-rl": "0.2.0"})
    assert "Linux" not in shown and "commerce-rl: 0.2.0" in shown


def test_the_page_says_when_the_model_plays_with_test_time_search(tmp_path, models, monkeypatch):
    monkeypatch.setattr(suite, "QUICK", {"table_games": 24, "model_games": 8, "match_games": 8})
    monkeypatch.setattr(suite, "BUILT_IN", ("greedy", "random"))
    path = models / "old_game" / "model.json"
    meta = json.loads(path.read_text())
    meta["search"] = {"worlds": 2, "margin": 1.0}
    path.write_text(json.dumps(meta))
    md = tmp_path / "benchmark.md"
    assert suite.main(["--quick", "--variants", "old_game", "--workers", "1", "--readme", str(tmp_path / "R.md"),
                       "--models", str(models), "--out", str(tmp_path / "bench"), "--markdown", str(md)]) == 0
    # a search of another budget than the built-in one's is said with the ratio (here 2 of 24 worlds)
    assert "playing with test-time search (`search` with the network as its prior, 2 worlds, margin 1.0; the " \
        "built-in `search` samples 24 worlds per decision, so the model's search does 0.0833333 times its " \
        "rollouts), against each built-in agent" in md.read_text()
    meta["search"] = {"worlds": 24, "margin": 1.0}
    path.write_text(json.dumps(meta))
    assert suite.main(["--quick", "--variants", "old_game", "--workers", "1", "--readme", str(tmp_path / "R.md"),
                       "--models", str(models), "--out", str(tmp_path / "bench24"), "--markdown", str(md)]) == 0
    assert "24 worlds, margin 1.0), against" in md.read_text() and "times its rollouts" not in md.read_text()


def test_a_part_kept_from_another_release_is_flagged_with_the_command_that_plays_it_again():
    made = {"command": "python -m benchmarks.suite --variants widow", "seed": 1, "quick": False,
            "versions": {"python": "3.11.7", "commerce-rl": "0.1.0", "numpy": "2.4.6", "openskill": "6.2.0"}}
    now = {"python": "3.11.7", "commerce-rl": "0.2.0", "numpy": "2.4.6"}
    text = suite.kept_part(made, now, "The shipped model's games are the ones", "the built-in table",
                           "--variants widow --model-only")
    assert text.startswith("**Made with commerce-rl 0.1.0**")
    assert "`python -m benchmarks.suite --variants widow --model-only`" in text
    assert "openskill" not in text  # a package the page no longer lists
    same = suite.kept_part({**made, "versions": now}, now, "The built-in table is the one", "the model",
                           "--variants widow --table-only")
    assert "Made with" not in same and "the same versions" in same


def test_a_run_into_another_folder_leaves_the_published_page_and_the_readme_alone(tmp_path):
    """A page made from reports outside docs/benchmark goes beside them; the README's headline and
    docs/benchmark.md are only rewritten from the published reports."""
    import shutil

    out = tmp_path / "mine"
    (out / "trade_barter").mkdir(parents=True)
    shutil.copy(suite.PUBLISHED / "trade_barter" / "section.json", out / "trade_barter" / "section.json")
    readme, page = suite.ROOT / "README.md", suite.ROOT / "docs" / "benchmark.md"
    before = readme.read_bytes(), page.read_bytes()
    assert suite.main(["--write-only", "--out", str(out)]) == 0
    assert (readme.read_bytes(), page.read_bytes()) == before
    assert "trade_barter" in (out / "benchmark.md").read_text()


def test_the_headline_takes_the_best_response_gain_surest_above_zero(tmp_path):
    agent = "model:models/widow(search=false)"
    rows = {"a__widow.json": {"agent": agent, "variant": "widow", "margin": -0.1, "ci95": [-0.2, 0.0]},
            "search__a__widow.json": {"agent": agent, "variant": "widow", "margin": 0.03, "ci95": [-0.01, 0.07],
                                      "method": "search"},
            "b__pool.json": {"agent": "greedy", "variant": "pool", "margin": 2.0, "ci95": [1.9, 2.1]}}
    for name, row in rows.items():
        (tmp_path / name).write_text(json.dumps(row))
    # a positive margin whose interval reaches 0 is no bound found
    unsure = "none found (+0.030 [-0.010, +0.070], search best response)"
    assert suite.exploitability("widow", agent, tmp_path) == unsure
    assert suite.exploitability("pool", "model:models/pool(search=false)", tmp_path) == "not measured"
    (tmp_path / "c__widow.json").write_text(json.dumps({"agent": agent, "variant": "widow", "margin": 0.02,
                                                        "ci95": [0.01, 0.03]}))
    assert suite.exploitability("widow", agent, tmp_path) == "+0.020 [+0.010, +0.030], learned best response"


def test_the_shipped_model_is_its_network_alone_too_where_it_ships_without_search(tmp_path):
    # a model that ships without test-time search is the same policy as its network alone
    for variant, search in (("widow", {"worlds": 192, "margin": 1.0}), ("old_game", None)):
        (tmp_path / variant).mkdir()
        (tmp_path / variant / "model.json").write_text(json.dumps({"search": search}))
    assert suite.shipped_names("widow", tmp_path) == ["model:models/widow"]
    assert suite.shipped_names("old_game", tmp_path) == ["model:models/old_game", "model:models/old_game(search=false)"]
    rows = tmp_path / "rows"
    rows.mkdir()
    (rows / "a__old_game.json").write_text(json.dumps({"agent": "model:models/old_game(search=false)",
                                                       "variant": "old_game", "margin": 0.2, "ci95": [0.1, 0.3],
                                                       "method": "search"}))
    names = suite.shipped_names("old_game", tmp_path)
    assert suite.exploitability("old_game", names, rows) == "+0.200 [+0.100, +0.300], search best response"
    (rows / "b__old_game.json").write_text(json.dumps({"agent": "model:models/old_game", "variant": "old_game",
                                                       "margin": -0.05, "ci95": [-0.1, 0.0]}))
    assert suite.exploitability("old_game", ["model:models/old_game"], rows).startswith("none found (-0.050")
    assert suite.exploitability("widow", suite.shipped_names("widow", tmp_path), rows) == "not measured"
