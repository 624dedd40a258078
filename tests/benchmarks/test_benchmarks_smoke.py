"""A quick run of the benchmark code with tiny sizes: it runs and reports; no timing is asserted."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from commerce_env.rules import VARIANTS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))  # benchmarks/ is run from the checkout, not installed
    import benchmarks.__main__ as bench

    return bench


def _rows(path: Path) -> list[dict]:
    report = json.loads(path.read_text())
    assert report["machine"]["cpus"] >= 1 and report["command"].startswith("python -m benchmarks --")
    return report["rows"]


def test_speed_sections_report_every_variant_beside_peers(bench, tmp_path):
    pytest.importorskip("rlcard")  # the peers: pip install -e ".[bench]"
    out = tmp_path / "latest.json"
    assert bench.main(["--seconds", "0.02", "--repeats", "1", "--only", "hands", "--only", "engine",
                       "--only", "env", "--json", str(out)]) == 0
    rows = _rows(out)
    names = [r["name"] for r in rows]
    for variant in VARIANTS:
        assert any(variant in n and r["section"] == "engine" for n, r in zip(names, rows, strict=True))
        assert any(variant in n and r["section"] == "env" for n, r in zip(names, rows, strict=True))
    assert any("texas_holdem_v4" in n for n in names)
    for row in rows:
        assert row["value"] > 0 and math.isfinite(row["value"]), row
        assert row["ratio"] > 0 and row["peer"], row  # every speed figure has a peer from the same run
    env_rows = [r for r in rows if r["section"] == "env" and "commerce_v0" in r["name"]]
    assert all(r["peer"] == "PettingZoo leduc_holdem_v4" and r["met"] in (True, False) for r in env_rows)


def test_memory_and_import_sections(bench, tmp_path):
    pytest.importorskip("rlcard")
    out = tmp_path / "latest.json"
    assert bench.main(["--quick", "--only", "import", "--only", "memory", "--json", str(out)]) == 0
    rows = {r["name"]: r for r in _rows(out)}
    imports = [r for r in rows.values() if r["section"] == "import"]
    assert len(imports) == 2
    for row in imports:  # The contract: the library does not pull in torch or SB3
        assert row["met"] is True and "neither torch nor SB3" in row["note"], row
    memory = [r for r in rows.values() if r["section"] == "memory"]
    assert memory and all(r["value"] > 0 for r in memory)


def test_missing_optional_parts_print_n_a(bench, monkeypatch):
    monkeypatch.setitem(sys.modules, "benchmarks.train_speed", None)  # as if the file were absent
    settings = bench.Settings(repeats=1, seconds=0.01, episodes=1, import_repeats=1)
    assert bench._optional("benchmarks.not_a_module") is None
    rows = bench.training_section(settings)
    assert rows[0].value is None and rows[0].note.startswith("n/a")


def test_a_measure_that_could_not_be_made_is_written_as_null(bench, monkeypatch, tmp_path):
    def section(settings):
        return [bench.Row("search", "two timings in the wrong order", float("nan"), "worlds", "a peer", 24.0,
                          float("nan"))]

    monkeypatch.setitem(bench.RUNNERS, "search", section)
    out = tmp_path / "latest.json"
    assert bench.main(["--quick", "--only", "search", "--json", str(out)]) == 0
    (row,) = _rows(out)
    assert row["value"] is None and row["ratio"] is None and row["peer_value"] == 24.0


def test_commerce_bench_is_registered(bench):
    from training.cli import build_parser

    args = build_parser(["bench", "--quick", "--only", "hands"]).parse_args(["bench", "--quick", "--only", "hands"])
    assert args.func is bench.command and args.only == ["hands"] and args.quick


def test_bad_options_are_refused(bench):
    with pytest.raises(SystemExit):
        bench.main(["--only", "nonsense"])
    with pytest.raises(ValueError, match="repeats"):
        bench.main(["--repeats", "0", "--only", "hands"])


def test_vector_section_rows(bench, monkeypatch):
    # The batched engine's section builds its rows (training figures stubbed: they take minutes).
    pytest.importorskip("numba")
    import benchmarks.vector_speed as vector_speed

    monkeypatch.setattr(vector_speed, "engine_figures", lambda repeats, seconds: {
        "per_cpu_second": {**{f"{k}/{v}": 1e6 for k in ("batch", "readable") for v in vector_speed.VARIANTS},
                           "batch_api/trade_barter": 5e5},
        "ratios": {f"batch/readable {v}": 20.0 for v in vector_speed.VARIANTS}})
    monkeypatch.setattr(vector_speed, "training_figures", lambda repeats, seconds: {
        "per_cpu_second": {"dummy x4 (today)": 1.0, "batch x64": 7.0, "zero-cost x64": 8.0},
        "cpu_ratios": {"batch x64 / dummy x4 (today)": 7.0, "batch x64 / zero-cost x64": 0.875}})
    rows = bench.vector_section(bench.Settings(repeats=1, seconds=0.01, episodes=1, import_repeats=1))
    names = [row.name for row in rows]
    assert any("trade_barter" in name for name in names) and any("memory" in name for name in names)
    assert [row.met for row in rows if "x64" in row.name] == [True, True]


def test_arena_section_puts_the_batched_path_beside_the_local_one(bench, monkeypatch):
    pytest.importorskip("numba")
    import benchmarks.workloads as workloads

    monkeypatch.setattr(workloads, "VARIANTS", ("old_game",))
    monkeypatch.setattr(bench.os, "cpu_count", lambda: 1)
    rows = bench.arena_section(bench.Settings(repeats=1, seconds=0.01, episodes=1, import_repeats=1))
    batched = [row for row in rows if "batched" in row.name]
    assert [row.name for row in batched] == ["greedy vs greedy_0.8, old_game (4 players): batched path"]
    assert batched[0].peer == "the local path, 1 process" and batched[0].ratio > 0


def test_seat_view_figures_put_late_views_beside_early_ones(bench, capsys):
    import benchmarks.view_speed as view_speed

    rows = view_speed.benchmark_rows(bench.Row, repeats=1)
    late = rows[0]
    assert "after deal" in late.name and late.peer == "the same match's first deal"
    assert late.value > 0 and late.peer_value > 0 and late.ratio == late.value / late.peer_value
    assert view_speed.main(["--repeats", "1"]) == 0
    assert "us per view: first deal" in capsys.readouterr().out


def test_long_deal_figures_put_late_actions_beside_early_ones(bench, capsys):
    # benchmarks.long_deal_speed: per measure, microseconds per action early and late in one deal, and
    # their ratio; the deal played only as far as the late window.
    from benchmarks import long_deal_speed

    figures = long_deal_speed.measure(repeats=1, early=20, late=300, window=30)
    assert list(figures) == list(long_deal_speed.MEASURES)
    for m in figures.values():
        assert m["early_us"] > 0 and m["late_us"] > 0 and m["ratio"] == pytest.approx(m["late_us"] / m["early_us"])
    assert long_deal_speed.main(["--repeats", "1", "--late", "300", "--window", "30"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in long_deal_speed.MEASURES)


def test_end_when_out_speed_measures_both_settings_of_each_variant(monkeypatch):
    # benchmarks.end_when_out_speed: one row per variant and workload, rates of both settings, their ratio.
    pytest.importorskip("numba")
    pytest.importorskip("sb3_contrib")
    from benchmarks import end_when_out_speed

    monkeypatch.setattr(end_when_out_speed, "ENVS", 8)
    rows = end_when_out_speed.measure(("my_ship_sails",), repeats=1, seconds=0.01)
    assert [(r["variant"], r["workload"]) for r in rows] == [("my_ship_sails", "env"),
                                                             ("my_ship_sails", "MaskablePPO")]
    for row in rows:
        assert row["off"] > 0 and row["on"] > 0 and row["ratio"] > 0
    # Every variant's league builds, the shipped models with test-time search (pool, My Ship
    # Sails) among them: as networks alone, which the batched engine can run.
    for variant in end_when_out_speed.VARIANTS:
        env = end_when_out_speed.make_env(variant, True)
        assert env.num_envs == 8
        env.close()


def test_search_speed_times_both_engines_and_checks_their_choices(capsys):
    # benchmarks.search_speed: decisions with a choice, the batched and the readable search and the
    # yardstick timed, and the two searches' choices compared decision by decision.
    from benchmarks import search_speed

    views = search_speed.decisions("old_game", 5)
    assert len(views) == 5 and all(len(v.legal_actions) > 1 for v in views)
    rows = search_speed.measure(("old_game",), repeats=1, seconds=0.01, views=5)
    row = rows[0]
    assert row["search"] > 0 and row["readable"] > 0 and row["expected_value"] > 0 and row["ratio"] > 0
    assert row["same_choices"] is True
    assert row["model"] > 0 and row["model_searches"] is False  # the shipped old-game model: its network
    search_speed.main(["--variants", "widow", "--repeats", "1", "--seconds", "0.01"])
    assert "widow" in capsys.readouterr().out


def test_search_speed_times_a_shipped_model_with_its_search(monkeypatch, tiny_model, tmp_path):
    from benchmarks import search_speed

    folder = tiny_model("pool", 4, tmp_path / "models" / "pool")
    meta = json.loads((folder / "model.json").read_text())
    meta["search"] = {"worlds": 2, "margin": 1.0}
    (folder / "model.json").write_text(json.dumps(meta))
    monkeypatch.setattr(search_speed, "MODELS", tmp_path / "models")
    row = search_speed.measure(("pool",), repeats=1, seconds=0.01, views=3)[0]
    assert row["model"] > 0 and row["model_searches"] is True and row["model_readable"] > 0
    monkeypatch.setattr(search_speed, "MODELS", tmp_path / "none")
    assert search_speed.measure(("pool",), repeats=1, seconds=0.01, views=3)[0]["model"] is None
