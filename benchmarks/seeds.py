"""Several training seeds of one config, judged together: ``python -m benchmarks.seeds``.

One config trained with several seeds (``commerce train --config ... --seed N``)
gives one model per seed.  Each model plays every built-in agent in the
arena's standard lineup (the model in one seat, the opponent in the others,
every seating, duplicate deals).  The report gives, for each opponent, every
seed's margin with 95% and 99% intervals and p-values, and the aggregate over
seeds x duplicate groups: mean and interquartile mean with stratified
bootstrap intervals (each seed's groups resampled within that seed, as
rliable does; :func:`agents.stats.stratified_bootstrap`).  The best seed is
the one whose *smallest* margin over the opponents is largest; ``--ship``
copies its model to ``models/<variant>/`` and the report says it is the best
of N.  With the run folders' ``eval_history.jsonl`` it also plots the
training curves of all seeds.

The seeds are judged on other deals than those of the benchmark page
(arena seed :data:`SELECTION_SEED`, the page :data:`benchmarks.suite.BENCHMARK_SEED`):
a group ``g`` of an arena seed is the same deals however many groups are
played, so judging on the page's seed would pick the best seed on the first
games of the very sample that then measures it (a winner's curse).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.model_files import WEIGHT_FILES

ROOT = Path(__file__).resolve().parent.parent
MODEL_FILES = ("model.json", *WEIGHT_FILES)  # what a model folder holds (agents.model_files)
BUILT_IN = ("random", "greedy", "expected_value", "search")
SELECTION_SEED = 7  # not benchmarks.suite.BENCHMARK_SEED: the best seed is chosen on other deals


def model_of(run: Path) -> Path:
    """A run folder's exported model (``<run>/model``), or a model folder itself."""
    for folder in (run / "model", run):
        if (folder / "model.json").is_file():
            return folder
    raise ValueError(f"{str(run)!r} is neither a model folder nor a run folder with model/model.json")


def shown_path(text: str | Path) -> str:
    """How the report names a run or model folder: relative to the repository when inside it, else as
    given, except that an absolute path outside it is named by its last part: the report records no
    machine's layout."""
    path = Path(text)
    if not path.is_absolute():
        return path.as_posix()
    try:
        return path.resolve().relative_to(ROOT.resolve()).as_posix()
    except ValueError:
        return path.name


def portable(report: dict[str, Any]) -> dict[str, Any]:
    """The report as ``seeds.json`` keeps it: its folders (each seed's ``run`` and ``model``) and the
    absolute paths of its ``command`` named by :func:`shown_path`."""
    seeds = [{**row, "run": shown_path(row["run"]), "model": shown_path(row["model"])} for row in report["seeds"]]
    out = {**report, "seeds": seeds}
    if "command" in report:
        out["command"] = " ".join(shown_path(word) if word.startswith("/") else word
                                  for word in report["command"].split(" "))
    return out


def margins(report: dict, learner: str, opponent: str) -> np.ndarray:
    """Per duplicate group: the learner's mean per deal minus the opponent's."""
    agents = report["result"]["agents"]
    return np.asarray(agents[learner]["group_means"]) - np.asarray(agents[opponent]["group_means"])


def evaluate_seeds(runs: list[Path], variant: str, opponents: list[Any], games: int, seed: int,
                   workers: int) -> dict[str, Any]:
    """Every seed's model against every opponent (a spec: ``search`` or ``{"agent": "search",
    "worlds": 96}``, reported by its name at the table); per-seed rows and the stratified aggregate."""
    from agents.evaluate import evaluate_agent
    from agents.specs import spec_name
    from agents.stats import stratified_bootstrap

    specs = dict(zip((spec_name(o) for o in opponents), opponents, strict=True))
    opponents = list(specs)

    seeds: list[dict[str, Any]] = []
    group_margins: dict[str, list[np.ndarray]] = {o: [] for o in opponents}
    group_deals: dict[str, list[np.ndarray]] = {o: [] for o in opponents}  # the learner's, per group
    for run in runs:
        folder = model_of(run)
        spec = f"model:{folder}"
        row: dict[str, Any] = {"run": str(run), "model": str(folder), "vs": {}}
        config = run / "config.yaml"
        if config.is_file():
            import yaml

            row["training_seed"] = yaml.safe_load(config.read_text()).get("seed")
        for opponent in opponents:
            started = time.monotonic()
            report = evaluate_agent(spec, [specs[opponent]], variant=variant, deals=games, seed=seed,
                                    workers=workers)
            versus = report["vs"][opponent]
            group_margins[opponent].append(margins(report, report["name"], opponent))
            group_deals[opponent].append(np.asarray(report["result"]["agents"][report["name"]]["group_deals"]))
            # Each duplicate group's margin and deals, so that other aggregates can be made from seeds.json.
            row["vs"][opponent] = {"difference": versus["difference"], "ci95": versus["ci95"],
                                   "ci99": versus["ci99"], "p_value": versus["p_value"],
                                   "games": report["result"]["games"], "groups": report["result"]["groups"],
                                   "group_margins": group_margins[opponent][-1].tolist(),
                                   "group_deals": group_deals[opponent][-1].tolist(),
                                   "seconds": time.monotonic() - started}
            print(f"seeds: {folder}: vs {opponent}: {versus['difference']:+.3f} "
                  f"[{versus['ci99'][0]:+.3f}, {versus['ci99'][1]:+.3f}] (99%)", file=sys.stderr, flush=True)
        row["worst_margin"] = min(v["difference"] for v in row["vs"].values())
        seeds.append(row)
    # Weighted by deals: a seed's aggregate is then its per-deal margin (match variants' groups differ in deals).
    aggregate = {o: stratified_bootstrap(group_margins[o], weights=group_deals[o], seed=seed) for o in opponents}
    best = max(range(len(seeds)), key=lambda k: seeds[k]["worst_margin"])
    return {"variant": variant, "games": games, "seed": seed, "opponents": opponents, "seeds": seeds,
            "aggregate": aggregate, "best": best}


def plot_curves(runs: list[Path], path: Path) -> bool:
    """The seeds' training curves (margin over each evaluation baseline against steps)."""
    histories = []
    for run in runs:
        history = run / "eval_history.jsonl"
        if history.is_file():
            histories.append((run.name, [json.loads(line) for line in history.read_text().splitlines() if line]))
    if not any(points for _, points in histories):
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for name, points in histories:
        for opponent in points[0]["opponents"] if points else []:
            steps = [p["steps"] for p in points]
            ax.plot(steps, [p["opponents"][opponent]["diff"] for p in points], marker="o",
                    label=f"{name} vs {opponent}")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel("environment steps")
    ax.set_ylabel("learner - opponent per deal")
    ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def markdown(report: dict[str, Any], command: str, curves: str | None, shipped: str | None = None) -> str:
    """The seeds section of docs/benchmark.md for one variant; ``shipped``: where ``--ship`` copied
    the best seed's model (None: nowhere, and the page says so)."""
    n = len(report["seeds"])
    lines = [f"Training seeds: {n} runs of one config; each model against each agent in the table below over "
             f"{report['games']} games (duplicate deals, standard lineup, arena seed {report['seed']}).", "",
             f"`{command}`", "",
             "| seed | run | " + " | ".join(f"vs {o} (99% CI)" for o in report["opponents"]) + " |",
             "|---|---|" + "---:|" * len(report["opponents"])]
    for k, row in enumerate(report["seeds"]):
        cells = [f"{v['difference']:+.3f} [{v['ci99'][0]:+.3f}, {v['ci99'][1]:+.3f}]"
                 for v in (row["vs"][o] for o in report["opponents"])]
        mark = (" **(best, shipped)**" if shipped else " **(best)**") if k == report["best"] else ""
        lines.append(f"| {row.get('training_seed', k)} | `{Path(row['run']).name}`{mark} | " + " | ".join(cells)
                     + " |")
    level = level_shares(report)
    lines += ["", "Aggregate over seeds x duplicate groups (stratified bootstrap, 95%):", "",
              "| opponent | mean margin | 95% CI | IQM margin | 95% CI |" + (" level groups |" if level else ""),
              "|---|---:|---|---:|---|" + ("---:|" if level else "")]
    for o, agg in report["aggregate"].items():
        lines.append(f"| {o} | {agg['mean']:+.3f} | [{agg['mean_ci'][0]:+.3f}, {agg['mean_ci'][1]:+.3f}] | "
                     f"{agg['iqm']:+.3f} | [{agg['iqm_ci'][0]:+.3f}, {agg['iqm_ci'][1]:+.3f}] |"
                     + (f" {level[o]:.0%} |" if level else ""))
    lines += ["", iqm_note(level)]
    lines += ["", f"The shipped model (`{shipped}`) is the best of {n} seeds (largest smallest margin over the "
                  "opponents)." if shipped else
              f"The best of {n} seeds (largest smallest margin over the opponents); no model was shipped (no "
              "`--ship`)."]
    from .suite import BENCHMARK_SEED

    if report["seed"] == BENCHMARK_SEED:
        lines += ["", f"These games used the benchmark page's own arena seed, so they are the first "
                      f"{report['games']} of the games that measure the shipped model above: it was chosen on "
                      f"part of its own test sample, and its margins there may be a little high (a winner's "
                      f"curse). `benchmarks.seeds` now judges on arena seed {SELECTION_SEED}."]
    if report.get("note"):  # what the table's rows need said that the command does not say
        lines += ["", report["note"]]
    if curves:
        lines += ["", f"![training curves]({curves})"]
    return "\n".join(lines) + "\n"


def level_shares(report: dict[str, Any]) -> dict[str, float]:
    """Per opponent, the share of duplicate groups (all seeds) in which the model and the opponent scored
    the same; empty when the report keeps no group margins."""
    if not all("group_margins" in row["vs"][o] for row in report["seeds"] for o in report["opponents"]):
        return {}
    shares = {}
    for o in report["opponents"]:
        margins = np.concatenate([np.asarray(row["vs"][o]["group_margins"], dtype=float) for row in report["seeds"]])
        shares[o] = float(np.mean(np.abs(margins) < 1e-9))
    return shares


def iqm_note(level: dict[str, float]) -> str:
    """What the IQM column means, and where it says little (most groups level: its middle half is zeros)."""
    note = ("The IQM margin is the mean of the middle half of the groups' margins (rliable's interquartile mean): "
            "robust to a few outlying groups.")
    mostly = [o for o, share in level.items() if share >= 0.5]
    if mostly:
        names = " and ".join(filter(None, [", ".join(mostly[:-1]), mostly[-1]]))
        note += (f" A group is level when the model and the opponent scored the same in it; against {names} "
                 "half the groups or more are level, so the middle half is mostly zeros and the IQM is near 0 "
                 "whatever the model's edge: the mean margin is the measure there.")
    elif not level:
        note += (" Where half the groups or more are level (the model and the opponent scored the same), the "
                 "middle half is mostly zeros and the IQM is near 0 whatever the model's edge: the mean margin "
                 "is the measure there.")
    return note


def ship(model: Path, destination: Path, force: bool) -> None:
    """Copy the best seed's model files to ``destination``; refuse to replace files unless ``force``
    (and then replace only a model's own files)."""
    existing = [name for name in MODEL_FILES if (destination / name).exists()]
    if existing and not force:
        raise ValueError(f"{str(destination)!r} already holds {', '.join(existing)}: --force replaces them")
    if destination.is_dir() and model.resolve() == destination.resolve():  # the best seed is already shipped
        return
    destination.mkdir(parents=True, exist_ok=True)
    for name in MODEL_FILES:
        if (model / name).is_file():
            shutil.copyfile(model / name, destination / name)
        elif (destination / name).is_file():  # a replaced model's other weight file would be ambiguous
            (destination / name).unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.seeds", description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", required=True)
    parser.add_argument("--runs", nargs="+", help="run folders (or model folders), one per seed")
    parser.add_argument("--games", type=int, default=2000, help="games per seed and opponent")
    parser.add_argument("--opponents", default=",".join(BUILT_IN),
                        help="comma separated agents, arguments in brackets: search,search(worlds=192)")
    parser.add_argument("--seed", type=int, default=SELECTION_SEED,
                        help="the arena's seed (the same deals for every seed; by default not the benchmark "
                             "page's, so the best seed is not chosen on the games that then measure it)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", help="folder for seeds.json, seeds.md, training.png "
                        "(default docs/benchmark/<variant>/seeds)")
    parser.add_argument("--ship", help="copy the best seed's model here (e.g. models/<variant>)")
    parser.add_argument("--force", action="store_true", help="with --ship: replace a model already there")
    parser.add_argument("--write-only", action="store_true",
                        help="play nothing: rewrite seeds.md from the seeds.json in --out")
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else ROOT / "docs" / "benchmark" / args.variant / "seeds"
    if args.write_only:
        return rewrite(out)
    if not args.runs:
        parser.error("--runs is required (unless --write-only)")
    runs = [Path(r) for r in args.runs]
    from .suite import BENCHMARK_SEED

    if args.ship and args.seed == BENCHMARK_SEED:
        print(f"benchmarks.seeds: warning: --seed {args.seed} is the benchmark page's arena seed; the shipped "
              f"seed is then chosen on the first games of the sample that measures it", file=sys.stderr)
    try:
        from agents.specs import parse_spec, split_top_level

        opponents = [parse_spec(o) for o in split_top_level(args.opponents)]
        for run in runs:
            model_of(run)
        if args.ship and not args.force:
            ship_to = Path(args.ship)
            if any((ship_to / name).exists() for name in MODEL_FILES):
                raise ValueError(f"{args.ship!r} already holds a model: --force replaces it")
        report = evaluate_seeds(runs, args.variant, opponents, args.games, args.seed, args.workers)
    except ValueError as error:
        print(f"benchmarks.seeds: {error}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    curves = "training.png" if plot_curves(runs, out / "training.png") else None
    command = " ".join(["python -m benchmarks.seeds", *(argv if argv is not None else sys.argv[1:])])
    report["command"] = command
    saved = portable(report)
    (out / "seeds.json").write_text(json.dumps(saved, indent=2) + "\n")
    (out / "seeds.md").write_text(markdown(saved, saved["command"], curves, args.ship))
    if args.ship:
        ship(model_of(runs[report["best"]]), Path(args.ship), args.force)
    print(f"wrote {out}/seeds.md; best seed: {report['seeds'][report['best']]['run']}", file=sys.stderr)
    return 0


def rewrite(out: Path) -> int:
    """``--write-only``: ``seeds.md`` again from ``seeds.json`` (its command says where the best seed went)."""
    import shlex

    path = out / "seeds.json"
    if not path.is_file():
        print(f"benchmarks.seeds: --write-only: no {path}", file=sys.stderr)
        return 2
    report = json.loads(path.read_text())
    words = shlex.split(report.get("command", ""))
    shipped = words[words.index("--ship") + 1] if "--ship" in words[:-1] else None
    curves = "training.png" if (out / "training.png").is_file() else None
    (out / "seeds.md").write_text(markdown(report, report.get("command", ""), curves, shipped))
    print(f"wrote {out}/seeds.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
