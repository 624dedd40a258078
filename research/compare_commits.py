"""Several commits of ``commerce_env`` timed side by side in one process.

``python -m research.compare_commits d11284b HEAD --what env`` (``--what engine``: the
readable engine's random play; ``--what vector``: the batched engine's compiled random play,
1,024 games, as :class:`benchmarks.vector_speed.BatchRun`; each commit's kernels compile once,
into the temporary folder; ``--what odds``: the ``exchange_odds`` feature's kernel for the
player to act in 256 random games of a variant with a face-up table, one numba thread, in feature
rows per CPU-second; these two need the ``vector`` extra; ``--what view``: the seat views of one
long My Ship Sails match, as
:mod:`benchmarks.view_speed`, microseconds per view, the commits' matches taking turns)

Each commit's ``commerce_env`` is extracted with ``git archive`` (the working
tree is not touched) into a temporary folder as a package of its own name
(``commerce_env_<commit>``; the package uses relative imports only), and the
versions run the same workload in turns, as :mod:`benchmarks.timing` does, so
that "what an optimisation bought" is a ratio measured under one load.
"""

from __future__ import annotations

import argparse
import importlib
import io
import random
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from benchmarks import view_speed
from benchmarks.timing import Run, interleaved, paired_ratio, until
from benchmarks.workloads import NUM_PLAYERS, VARIANTS, agent_iter_run, pettingzoo_run

ROOT = Path(__file__).resolve().parent.parent


def extract(commit: str, into: Path) -> str:
    """``commerce_env`` of ``commit`` as package ``commerce_env_<sha>`` under ``into``; returns its name."""
    sha = subprocess.run(["git", "rev-parse", "--short", commit], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.strip()
    archive = subprocess.run(["git", "archive", sha, "commerce_env"], cwd=ROOT, check=True, capture_output=True)
    target = into / sha
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        try:
            tar.extractall(target, filter="data")
        except TypeError:  # a Python without extraction filters (before 3.10.12); our own archive
            tar.extractall(target)
    name = f"commerce_env_{sha}"
    (target / "commerce_env").rename(target / name)
    sys.path.insert(0, str(target))
    return name


def engine_run(package: str, variant: str) -> Run:
    engine = importlib.import_module(f"{package}.engine")
    rules = importlib.import_module(f"{package}.rules").make_rules(variant)
    rng = random.Random(0)

    def run(seconds: float) -> int:
        done, decisions = until(seconds), 0
        while not done():
            game = engine.new_game(rules, NUM_PLAYERS, rng=rng)
            while not game.over:
                legal = game.legal_actions()
                game.apply(legal[int(rng.random() * len(legal))])
                decisions += 1
        return decisions

    return run


def vector_run(package: str, variant: str, games: int = 1024, chunk: int = 20) -> Run:
    import numpy as np

    vector = importlib.import_module(f"{package}.vector")
    kernels = importlib.import_module(f"{package}.vector.kernels")
    engine = vector.BatchEngine(variant, NUM_PLAYERS, games, seed=1)
    engine.reset()
    totals = np.zeros((games, NUM_PLAYERS), dtype=np.int64)
    kernels.random_play(engine._st, engine.params, engine.keys, 1, engine._masks, totals)  # compile first

    def run(seconds: float) -> int:
        done, decisions = until(seconds), 0
        while decisions == 0 or not done():
            decisions += kernels.random_play(engine._st, engine.params, engine.keys, chunk, engine._masks, totals)
        return decisions

    return run


def odds_run(package: str, variant: str, games: int = 256) -> Run:
    """The ``exchange_odds`` feature (``BatchExchangeOdds``) for the player to act in ``games``
    random games, one numba thread; counts the rows with an exchange to make."""
    import numba
    import numpy as np

    numba.set_num_threads(1)  # the kernel's own speed; CPU-seconds would hide threads anyway
    vector = importlib.import_module(f"{package}.vector")
    features = importlib.import_module(f"{package}.vector.features")
    actions = importlib.import_module(f"{package}.engine.actions")
    engine = vector.BatchEngine(variant, NUM_PLAYERS, games, seed=1)
    engine.reset()
    feature = features.BatchExchangeOdds(engine.rules, NUM_PLAYERS)
    rng = np.random.default_rng(0)
    everyone = np.arange(games)

    def step() -> int:
        over = np.flatnonzero(engine.over)
        if over.size:
            engine.reset_games(over)
        seats = engine.current_player.copy()
        vectors = engine.observe(seats, everyone)
        feature(vectors, engine, everyone, seats)
        masks = engine.action_mask
        rows = int(masks[:, actions.EXCHANGE:actions.EXCHANGE + 9].any(axis=1).sum())
        engine.step((rng.random(masks.shape) * masks).argmax(axis=1))
        return rows

    step()  # compile first

    def run(seconds: float) -> int:
        done, rows = until(seconds), 0
        while rows == 0 or not done():
            rows += step()
        return rows

    return run


def env_run(package: str, variant: str) -> Run:
    aec = importlib.import_module(f"{package}.aec_env")
    return agent_iter_run(lambda: aec.env(variant=variant, num_players=NUM_PLAYERS))


def print_views(commits: list[str], packages: list[str], repeats: int) -> None:
    """:mod:`benchmarks.view_speed`'s figures for each commit, beside the first's."""
    costs = view_speed.measure(packages, repeats)
    first = m = costs[packages[0]]
    print(f"seat_view, {view_speed.VARIANT} seed {view_speed.SEED} ({m['views']:.0f} views, {m['deals']:.0f} deals, "
          f"{m['entries']:.0f} record entries): us per view (x: against {commits[0]}), medians of {repeats} matches")
    for label, key in (("first deal", "first_us"), (f"after deal {view_speed.LATE}", "late_us"),
                       ("whole match (mean)", "all_us")):
        cells = [f"{c}: {costs[p][key]:,.1f} x{costs[p][key] / first[key]:.2f}"
                 for c, p in zip(commits, packages, strict=True)]
        print(f"{label:<20}" + " | ".join(cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commits", nargs="+", help="the first is the baseline")
    parser.add_argument("--what", choices=("engine", "env", "vector", "odds", "view"), default="env")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.3)
    args = parser.parse_args(argv)
    variants = args.variants.split(",")
    with tempfile.TemporaryDirectory() as folder:
        packages = [extract(c, Path(folder)) for c in args.commits]
        if args.what == "view":
            print_views(args.commits, packages, args.repeats)
            return 0
        runs: dict[str, Run] = {}
        if args.what == "env":
            runs["leduc"] = pettingzoo_run("leduc_holdem_v4")
        make = {"engine": engine_run, "env": env_run, "vector": vector_run, "odds": odds_run}[args.what]
        for variant in variants:
            for package in packages:
                runs[f"{package} {variant}"] = make(package, variant)
        series = interleaved(runs, args.repeats, args.seconds)
    unit = {"env": "agent-steps", "odds": "feature rows"}.get(args.what, "decisions")
    print(f"{args.what}: {unit} per CPU-second (x: against {args.commits[0]}"
          + ("; L: against leduc_holdem_v4" if args.what == "env" else "") + "), medians of interleaved runs")
    for variant in variants:
        first = series[f"{packages[0]} {variant}"]
        cells = []
        for commit, package in zip(args.commits, packages, strict=True):
            s = series[f"{package} {variant}"]
            cell = f"{commit}: {s.cpu_median:,.0f} x{paired_ratio(s, first):.2f}"
            if args.what == "env":
                cell += f" L{paired_ratio(s, series['leduc']):.2f}"
            cells.append(cell)
        print(f"{variant:<14}" + " | ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
