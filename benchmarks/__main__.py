"""``python -m benchmarks`` / ``commerce bench``: speed and memory beside peers.

Sections (``--only`` picks some): ``hands``, ``engine``, ``env``, ``arena``,
``training``, ``vector`` (the batched engine, benchmarks/vector_speed.py), ``search``
(``search`` beside ``search(engine=readable)``, benchmarks/search_speed.py), ``memory``,
``import``.  Each figure is the median of
``--repeats`` runs of about ``--seconds`` each; runs of ours and of the peer
take turns, and the ratio is the median of the round-by-round ratios, so that
load from other processes on a shared machine falls on both alike.  The table
is printed with rich and written as JSON (``benchmarks/results/latest.json``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from . import resources, view_speed, workloads
from .timing import interleaved, paired_ratio

SECTIONS = ("hands", "engine", "env", "arena", "training", "vector", "search", "memory", "import")
RESULTS = Path(__file__).resolve().parent / "results" / "latest.json"
ENGINE_TARGET = 100_000  # decisions/s per core
ENV_TARGET_RATIO = 5.0  # x PettingZoo's leduc_holdem_v4
MEMORY_TARGET_MB = 50.0
SEARCH_TARGET_RATIO = 20.0  # x search(engine=readable), per decision


@dataclass
class Row:
    """One figure of the table; ``ratio`` is ours / peer from the same run."""

    section: str
    name: str
    value: float | None
    unit: str
    peer: str = ""
    peer_value: float | None = None
    ratio: float | None = None
    per_cpu_second: float | None = None  # ``value`` per CPU-second of the process: the rate per core
    target: str = ""
    met: bool | None = None
    note: str = ""


@dataclass
class Settings:
    repeats: int
    seconds: float
    episodes: int  # episodes played by the memory measurement
    import_repeats: int


def hands_section(s: Settings) -> list[Row]:
    runs = {"hand_key": workloads.hand_key_run(), "evaluate": workloads.evaluate_run(),
            "batched": workloads.batched_run(), "rlcard": workloads.rlcard_hand_run()}
    series = interleaved(runs, s.repeats, s.seconds)
    peer, peer_name = series["rlcard"], "RLCard Hand.evaluateHand (7 cards)"
    rows = [
        Row("hands", "one at a time: hand_key", series["hand_key"].median, "hands/s", peer_name, peer.median,
            paired_ratio(series["hand_key"], peer), series["hand_key"].cpu_median, ">= 1,000,000/s",
            series["hand_key"].cpu_median >= 1e6),
        Row("hands", "one at a time: evaluate() (validating)", series["evaluate"].median, "hands/s", peer_name,
            peer.median, paired_ratio(series["evaluate"], peer), series["evaluate"].cpu_median),
        Row("hands", "batched: evaluate_batch (numpy)", series["batched"].median, "hands/s", peer_name, peer.median,
            paired_ratio(series["batched"], peer), series["batched"].cpu_median, ">= 20,000,000/s",
            series["batched"].cpu_median >= 2e7),
    ]
    return rows


def engine_section(s: Settings) -> list[Row]:
    runs: dict[str, Callable] = {v: workloads.EngineRun(v) for v in workloads.VARIANTS}
    runs["rlcard_leduc"] = peer_run = workloads.RLCardLeducRun()
    series = interleaved(runs, s.repeats, s.seconds)
    peer = series["rlcard_leduc"]
    rows = []
    for variant in workloads.VARIANTS:
        ours, run = series[variant], runs[variant]
        rows.append(Row("engine", f"{variant} ({workloads.NUM_PLAYERS} players): decisions", ours.median,
                        "decisions/s", "RLCard leduc game (raw)", peer.median, paired_ratio(ours, peer),
                        ours.cpu_median, f">= {ENGINE_TARGET:,}/s per core", ours.cpu_median >= ENGINE_TARGET))
        per_deal = run.deals_per_decision
        rows.append(Row("engine", f"{variant} ({workloads.NUM_PLAYERS} players): deals", ours.median * per_deal,
                        "deals/s", "RLCard leduc game (raw)", peer.median * peer_run.deals_per_decision,
                        paired_ratio(ours, peer) * per_deal / peer_run.deals_per_decision,
                        ours.cpu_median * per_deal))
    return rows


def env_section(s: Settings) -> list[Row]:
    runs = {"leduc_holdem_v4": workloads.pettingzoo_run("leduc_holdem_v4"),
            "texas_holdem_v4": workloads.pettingzoo_run("texas_holdem_v4")}
    runs.update({v: workloads.commerce_env_run(v) for v in workloads.VARIANTS})
    series = interleaved(runs, s.repeats, s.seconds)
    leduc = series["leduc_holdem_v4"]
    rows = [Row("env", "PettingZoo texas_holdem_v4 (peer)", series["texas_holdem_v4"].median, "agent-steps/s",
                "PettingZoo leduc_holdem_v4", leduc.median, paired_ratio(series["texas_holdem_v4"], leduc),
                series["texas_holdem_v4"].cpu_median)]
    for variant in workloads.VARIANTS:
        ratio = paired_ratio(series[variant], leduc)
        rows.append(Row("env", f"commerce_v0 {variant} ({workloads.NUM_PLAYERS} players)", series[variant].median,
                        "agent-steps/s", "PettingZoo leduc_holdem_v4", leduc.median, ratio,
                        series[variant].cpu_median, f">= {ENV_TARGET_RATIO:g}x leduc", ratio >= ENV_TARGET_RATIO))
    return rows


def _optional(module: str) -> object | None:
    """A module another helper provides, or None when it is not there (yet)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name and module.startswith(error.name):
            return None
        raise


def arena_section(s: Settings) -> list[Row]:
    """The local arena on one process and on all cores; the cost of its seat views late in a long
    match beside early (:mod:`benchmarks.view_speed`); then, per variant, the batched
    path (where it applies: greedy and learned players) beside the local path on one process,
    for two greedy agents (six seatings a group, as an evaluation: :func:`workloads.greedy_pair`)."""
    label = "greedy players, trade_barter (4 players), duplicate deals"
    if _optional("agents.arena") is None:
        return [Row("arena", label, None, "deals/s", note="n/a: agents/arena.py is not there")]
    cores = os.cpu_count() or 1
    runs = {"one": workloads.ArenaRun(workers=1), "all": workloads.ArenaRun(workers=cores)}
    series = interleaved(runs, s.repeats, max(s.seconds, 0.5) * 2)
    one, every = series["one"], series["all"]
    rows = [Row("arena", f"{label}: 1 process", one.median, "deals/s"),
            Row("arena", f"{label}: {cores} processes", every.median, "deals/s", "the arena on 1 process",
                one.median, paired_ratio(every, one))]
    rows += view_speed.benchmark_rows(Row, repeats=s.repeats)  # the local path's seat views, a long match
    if _optional("numba") is None:
        return rows + [Row("arena", "batched path", None, "deals/s", note="n/a: install the extra `vector` (numba)")]
    for variant in workloads.VARIANTS:
        runs = {"local": workloads.ArenaRun(workers=1, variant=variant, lineup=workloads.greedy_pair()),
                "batched": workloads.ArenaRun(workers=1, variant=variant, batched=True,
                                              lineup=workloads.greedy_pair())}
        series = interleaved(runs, s.repeats, max(s.seconds, 0.5) * 2)
        local, batched = series["local"], series["batched"]
        rows.append(Row("arena", f"greedy vs greedy_0.8, {variant} (4 players): batched path", batched.median,
                        "deals/s", "the local path, 1 process", local.median, paired_ratio(batched, local),
                        batched.cpu_median))
    return rows


def training_section(s: Settings) -> list[Row]:
    train_speed = _optional("benchmarks.train_speed")
    if train_speed is None:
        return [Row("training", "MaskablePPO env-steps (Foster game)", None, "env-steps/s",
                    note="n/a: benchmarks/train_speed.py is not there")]
    return train_speed.benchmark_rows(Row, repeats=s.repeats, seconds=s.seconds)


def vector_section(s: Settings) -> list[Row]:
    """The batched engine and its vector env (benchmarks/vector_speed.py) beside their peers."""
    import importlib.util

    vector_speed = _optional("benchmarks.vector_speed") if importlib.util.find_spec("numba") else None
    if vector_speed is None:
        return [Row("vector", "batched engine", None, "decisions/s", note="n/a: install the extra `vector` (numba)")]
    rows = vector_speed.benchmark_rows(Row, repeats=s.repeats, seconds=max(s.seconds, 0.2))
    if _optional("sb3_contrib") is not None:
        t = vector_speed.training_figures(repeats=max(1, s.repeats - 1), seconds=max(4 * s.seconds, 1.0))
        rates, ratios = t["per_cpu_second"], t["cpu_ratios"]
        for name, rate in rates.items():
            if name.startswith("batch"):
                n = name.split("x")[1]
                today = ratios[f"{name} / dummy x4 (today)"]
                rows.append(Row("vector", f"MaskablePPO, Foster 4p vs greedy, {name}", rate, "env-steps/CPU-s",
                                "DummyVecEnv x4 (today)", rates["dummy x4 (today)"], today, target=">= 5x",
                                met=today >= 5))
                zero = ratios[f"{name} / zero-cost x{n}"]
                rows.append(Row("vector", f"MaskablePPO, {name} vs its ceiling", rate, "env-steps/CPU-s",
                                f"zero-cost VecEnv x{n}", rates[f"zero-cost x{n}"], zero, target=">= 0.8x",
                                met=zero >= 0.8))
    return rows


def search_section(s: Settings) -> list[Row]:
    """``search`` (rollouts on the batched engine) beside ``search(engine=readable)`` per variant, and
    the shipped models with test-time search beside their readable rollouts (benchmarks/search_speed.py)."""
    import importlib.util

    if importlib.util.find_spec("numba") is None:
        return [Row("search", "search on the batched engine", None, "decisions/s",
                    note="n/a: install the extra `vector` (numba)")]
    from . import search_speed

    rows = []
    for r in search_speed.measure(search_speed.VARIANTS, s.repeats, max(s.seconds, 0.3)):
        players = f"({search_speed.NUM_PLAYERS} players)"
        rows.append(Row("search", f"search, {r['variant']} {players}", r["search"], "decisions/s",
                        "search(engine=readable)", r["readable"], r["ratio"], r["search_cpu"],
                        f">= {SEARCH_TARGET_RATIO:g}x", r["ratio"] >= SEARCH_TARGET_RATIO,
                        f"same choices: {'yes' if r['same_choices'] else 'NO'}"))
        rows.append(Row("search", f"search, {r['variant']}: worlds in search(engine=readable)'s time per decision",
                        r["worlds_in_readable_time"], "worlds", "search(engine=readable)", search_speed.WORLDS,
                        r["worlds_in_readable_time"] / search_speed.WORLDS))
        if r["model_searches"]:
            rows.append(Row("search", f"models/{r['variant']} with its test-time search", r["model"], "decisions/s",
                            "its rollouts on the readable engine", r["model_readable"],
                            r["model"] / r["model_readable"]))
    return rows


def memory_section(s: Settings) -> list[Row]:
    ours = resources.commerce_memory(episodes=s.episodes)
    peer = resources.leduc_memory(episodes=s.episodes)

    def beyond(m: dict) -> float:
        return (m["peak_kb"] - m["start_kb"]) / 1024

    return [
        Row("memory", "one env (trade_barter, 4 players): peak RSS beyond the interpreter", beyond(ours), "MB",
            "PettingZoo leduc_holdem_v4", beyond(peer), beyond(ours) / beyond(peer),
            target=f"< {MEMORY_TARGET_MB:g} MB", met=beyond(ours) < MEMORY_TARGET_MB,
            note="imports (numpy, gymnasium, pettingzoo) included"),
        Row("memory", "one env: peak RSS beyond its imports", (ours["peak_kb"] - ours["imported_kb"]) / 1024, "MB",
            "PettingZoo leduc_holdem_v4", (peer["peak_kb"] - peer["imported_kb"]) / 1024),
        Row("memory", "one env: tracemalloc peak (env and play only)", ours["traced_peak_bytes"] / 2**20, "MB",
            "PettingZoo leduc_holdem_v4", peer["traced_peak_bytes"] / 2**20),
    ]


def import_section(s: Settings) -> list[Row]:
    times = resources.import_times({"core": resources.OURS_IMPORT, "env": resources.OURS_ENV_IMPORT,
                                    "leduc": resources.LEDUC_IMPORT}, s.import_repeats)
    peer = times["leduc"]["seconds"]
    rows = []
    for name, label in (("core", "import commerce_env"), ("env", "import commerce_env.aec_env (PettingZoo)")):
        heavy = times[name]["heavy"]
        rows.append(Row("import", label, times[name]["seconds"] * 1000, "ms", "import pettingzoo leduc_holdem_v4",
                        peer * 1000, times[name]["seconds"] / peer, target="no torch / SB3", met=not heavy,
                        note=f"imports {', '.join(heavy)}" if heavy else "imports neither torch nor SB3"))
    return rows


RUNNERS: dict[str, Callable[[Settings], list[Row]]] = {
    "hands": hands_section, "engine": engine_section, "env": env_section, "arena": arena_section,
    "training": training_section, "vector": vector_section, "search": search_section, "memory": memory_section,
    "import": import_section,
}


def machine() -> dict:
    """What the figures ran on, in general terms (no platform string: kernel builds name a machine)."""
    return {"python": sys.version.split()[0], "system": platform.system(), "machine": platform.machine(),
            "cpus": os.cpu_count()}


def _number(value: float | None, unit: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if unit in ("MB", "ms") or abs(value) < 100:
        return f"{value:,.1f}"
    return f"{value:,.0f}"


def print_table(rows: list[Row], title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for column, justify in (("section", "left"), ("measure", "left"), ("ours", "right"), ("unit", "left"),
                            ("peer", "left"), ("peer value", "right"), ("ratio", "right"),
                            ("ours per CPU-s", "right"), ("target", "left"), ("met", "center")):
        table.add_column(column, justify=justify)
    for row in rows:
        met = "" if row.met is None else ("yes" if row.met else "[red]no[/red]")
        ratio = "" if row.ratio is None else ("n/a" if math.isnan(row.ratio) else f"{row.ratio:.2f}x")
        ours = _number(row.value, row.unit) if row.value is not None else f"n/a ({row.note})"
        cpu = "" if row.per_cpu_second is None else _number(row.per_cpu_second)
        table.add_row(row.section, row.name, ours, row.unit, row.peer, _number(row.peer_value, row.unit) if row.peer
                      else "", ratio, cpu, row.target, met)
    console = Console()
    if not console.is_terminal:  # a log file or a pipe: do not squeeze the table into 80 columns
        console = Console(width=200)
    console.print(table)


def run(sections: list[str], settings: Settings, json_path: Path | None, command_line: str = "python -m benchmarks",
        log: Callable[[str], None] = print) -> dict:
    """Run ``sections``, print the table, write the JSON; returns what was written."""
    rows: list[Row] = []
    started = time.time()
    for section in sections:
        log(f"[bench] {section} ...")
        rows.extend(RUNNERS[section](settings))
    report = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command_line,
        "settings": asdict(settings), "machine": machine(), "seconds": round(time.time() - started, 1),
        "rows": [_finite(asdict(r)) for r in rows],
    }
    print_table(rows, f"commerce-rl benchmarks: medians of {settings.repeats} runs, ratios within this run")
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(report, indent=2, allow_nan=False, default=_json_default) + "\n")
        log(f"[bench] wrote {json_path}")
    return report


def _finite(row: dict) -> dict:
    """``row`` with each number that is not finite (a measure that could not be made, say a
    rate whose two timings came out in the wrong order) as None: JSON ``null``."""
    return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in row.items()}


def _json_default(value: object) -> object:
    raise TypeError(f"not JSON serialisable: {value!r}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true", help="fewer and shorter runs (about a minute)")
    parser.add_argument("--only", action="append", choices=SECTIONS, metavar="SECTION",
                        help=f"run only this section (repeatable): {', '.join(SECTIONS)}")
    parser.add_argument("--repeats", type=int, help="runs per figure (default 5, quick 3)")
    parser.add_argument("--seconds", type=float, help="seconds per run (default 1.0, quick 0.3)")
    parser.add_argument("--json", type=Path, default=RESULTS, help=f"where to write the JSON (default {RESULTS})")


def settings_from(args: argparse.Namespace) -> Settings:
    repeats = args.repeats if args.repeats is not None else (3 if args.quick else 5)
    seconds = args.seconds if args.seconds is not None else (0.3 if args.quick else 1.0)
    if repeats < 1 or seconds <= 0:
        raise ValueError(f"--repeats must be >= 1 and --seconds > 0, got {repeats} and {seconds}")
    return Settings(repeats=repeats, seconds=seconds, episodes=50 if args.quick else 200,
                    import_repeats=3 if args.quick else 5)


# What each section imports besides the core, and the extra that installs it.
NEEDS = {
    "hands": {"bench": ("rlcard",)},
    "engine": {"bench": ("rlcard",)},
    "env": {"bench": ("rlcard", "pygame", "pettingzoo.classic")},
    "training": {"bench": ("pygame", "pettingzoo.classic"), "train": ("torch", "sb3_contrib")},
    "memory": {"bench": ("rlcard", "pygame", "pettingzoo.classic")},
    "import": {"bench": ("rlcard", "pygame", "pettingzoo.classic")},
}


def missing_extras(sections: list[str]) -> dict[str, list[str]]:
    """``{extra: [modules that do not import]}`` for the chosen sections (empty when all is there)."""
    import importlib

    missing: dict[str, list[str]] = {}
    for section in sections:
        for extra, modules in NEEDS.get(section, {}).items():
            for module in modules:
                try:
                    importlib.import_module(module)
                except ImportError:
                    if module not in missing.get(extra, []):
                        missing.setdefault(extra, []).append(module)
    return missing


def command(args: argparse.Namespace) -> int:
    sections = [s for s in SECTIONS if s in args.only] if args.only else list(SECTIONS)
    missing = missing_extras(sections)
    if missing:
        extras = ",".join(missing)
        modules = ", ".join(m for ms in missing.values() for m in ms)
        print(f"commerce bench: the benchmarks' peers need the {extras} extra: pip install -e \".[{extras}]\" "
              f"(or `make bench`); missing: {modules}", file=sys.stderr)
        return 2
    command_line = getattr(args, "command_line", None) or " ".join(["commerce", *sys.argv[1:]])
    run(sections, settings_from(args), args.json, command_line)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``commerce bench`` (see :mod:`training.cli`)."""
    parser = subparsers.add_parser("bench", help="speed and memory beside PettingZoo / RLCard peers")
    add_arguments(parser)
    parser.set_defaults(func=command)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    args.command_line = " ".join(["python -m benchmarks", *(sys.argv[1:] if argv is None else argv)])
    return command(args)


if __name__ == "__main__":
    sys.exit(main())
