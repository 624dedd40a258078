"""The algorithms' table and curves from the cached runs of :mod:`benchmarks.algorithms`.

Final scores are each run's margin per deal over ``greedy`` and over ``search``
at its last checkpoint.  The variants pay on different scales (pool's money
spans counters where My Ship Sails' margins are hundredths), so across variants
each score is normalised, as Atari's are by a human's: the margin over
``greedy`` divided by ``greedy``'s own margin over ``random`` on the same deals
(0 plays as ``greedy``; 1 is as far above ``greedy`` as ``greedy`` is above
``random``), a unit measured tightly in every variant, where ``search``'s lead
over ``greedy`` is not (its normalised score is given beside).  Those are aggregated as the field does
(Agarwal et al., 2021, with their ``rliable`` package): the interquartile mean
over runs x variants with a 95% stratified-bootstrap interval.  "Reaches X" is
the first checkpoint whose 95% interval of the margin over X lies above 0.
Seeds from :data:`SWEEP_SEEDS` on are a sweep's, never the table's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "benchmark"
LEVELS = ("greedy", "search")
SWEEP_SEEDS = 100  # ``--first-seed 100`` and up: tuning runs, kept out of the reported table


def load(results: Path, algorithm: str, variant: str) -> list[dict[str, Any]]:
    """The finished runs of one cell: each its record, its curve and its folder, in seed order."""
    runs = []
    folder = results / algorithm / variant
    cells = sorted(folder.glob("seed_*"), key=lambda c: int(c.name[5:])) if folder.is_dir() else []
    for cell in cells:
        record = cell / "run.json"
        if int(cell.name[5:]) >= SWEEP_SEEDS:
            continue
        if record.is_file():
            curve = [json.loads(line) for line in (cell / "curve.jsonl").read_text().splitlines() if line.strip()]
            runs.append({**json.loads(record.read_text()), "curve": curve, "cell": cell})
    return runs


def references(results: Path, variant: str) -> list[dict[str, Any]]:
    """The non-learning references measured on ``variant``'s deals (``--references``)."""
    return [json.loads(path.read_text()) for path in sorted((results / "references" / variant).glob("*.json"))]


def reached(curve: list[dict[str, Any]], level: str) -> int | None:
    """The steps of the first checkpoint that beats ``level`` at 95%, or None."""
    for point in curve:
        row = point["margins"].get(level)
        if row is not None and row["ci95"][0] > 0:
            return point["steps"]
    return None


def _reach_text(level: str, steps: list[int | None]) -> str:
    found = [s for s in steps if s is not None]
    if not found:
        return f"never beats {level}"
    return f"beats {level} in {len(found)}/{len(steps)} seed(s), first at {min(found):,} steps"


def iqm(scores: dict[str, np.ndarray]) -> dict[str, tuple[float, float, float]]:
    """Each algorithm's IQM and its 95% stratified-bootstrap interval (``scores[a]``: runs x variants)."""
    from rliable import library, metrics

    def aggregate(x: np.ndarray) -> np.ndarray:
        return np.array([metrics.aggregate_iqm(x)])

    # rliable's resampling draws from numpy's global generator (it ignores its random_state argument): seeded
    # here and put back after, so that the page made again from the same runs is the same page
    saved = np.random.get_state()
    np.random.seed(0)
    try:
        points, intervals = library.get_interval_estimates(scores, aggregate, reps=2000)
    finally:
        np.random.set_state(saved)
    return {a: (float(points[a][0]), float(intervals[a][0][0]), float(intervals[a][1][0])) for a in scores}


def unit(results: Path, variant: str) -> float | None:
    """``greedy``'s margin over ``random`` on the curves' deals (its reference), the unit of a normalised
    score; None where it is not measured or not above 0."""
    for reference in references(results, variant):
        if reference["agent"] == "greedy":
            margin = reference["margins"].get("random", {}).get("margin")
            return margin if margin is not None and margin > 0 else None
    return None


def final(run: dict[str, Any], level: str) -> float | None:
    """A run's margin over ``level`` at its last checkpoint."""
    row = run["curve"][-1]["margins"].get(level) if run["curve"] else None
    return None if row is None else row["margin"]


def normalised_scores(results: Path, algorithms: list[str],
                      variants: list[str]) -> tuple[dict[str, np.ndarray], list[str]]:
    """Each algorithm's normalised final scores (runs x variants, as many seeds as every variant has) over
    the variants whose ``search`` reference is measured; and those variants."""
    scaled = [v for v in variants if unit(results, v) is not None]
    scores = {}
    for algorithm in algorithms:
        per_variant = [[final(run, "greedy") / unit(results, v) for run in load(results, algorithm, v)
                        if final(run, "greedy") is not None] for v in scaled]
        seeds = min((len(s) for s in per_variant), default=0)
        if seeds:
            scores[algorithm] = np.array([s[:seeds] for s in per_variant]).T
    return scores, scaled


def report(results: Path, algorithms: list[str], variants: list[str]) -> list[str]:
    """The table of the chosen algorithms and variants as lines (what a run prints)."""
    lines = _summarise(results, algorithms, variants)[0]
    return lines or ["no finished run in the cache yet"]


def publish(results: Path, algorithms: list[str], variants: list[str]) -> None:
    """The curves (PNGs), the summary (JSON) and the table (``algorithms.md``, which the benchmark page
    includes) in docs/benchmark/, of every algorithm and variant given: the whole table each time, so that
    a run of one cell never writes a page of that cell alone."""
    _, table, rows, summary, scaled = _summarise(results, algorithms, variants)
    if not summary:
        return
    DOCS.mkdir(parents=True, exist_ok=True)
    for variant in variants:
        _plot(results, algorithms, variant, DOCS / f"algorithms_{variant}.png")
    (DOCS / "algorithms.json").write_text(json.dumps(summary, indent=2) + "\n")
    (DOCS / "algorithms.md").write_text(_page(table, rows, results, algorithms, variants, scaled))


def _summarise(results: Path, algorithms: list[str],
               variants: list[str]) -> tuple[list[str], list[str], list[str], dict[str, Any], list[str]]:
    """The printed lines, the IQM table's rows, the per-variant rows, the JSON summary and the scaled variants."""
    lines, table, summary = [], [], {}
    scores, scaled = normalised_scores(results, algorithms, variants)
    if scores:
        lines.append(f"normalised final score (0: greedy, -1: random), IQM over seeds x {len(scaled)} variant(s) "
                     f"({', '.join(scaled)}), 95% stratified bootstrap")
        table += ["| algorithm | IQM of the normalised score | 95% interval | seeds x variants |",
                  "|---|---:|---|---:|"]
        for algorithm, (point, low, high) in iqm(scores).items():
            runs, cells = scores[algorithm].shape
            lines.append(f"  {algorithm:<14} {point:+.3f} [{low:+.3f}, {high:+.3f}]  ({runs} seed(s) x {cells})")
            interval = f"[{low:+.2f}, {high:+.2f}]" if runs > 1 else "none: one seed"
            table.append(f"| `{algorithm}` | {point:+.2f} | {interval} | {runs} x {cells} |")
            summary.setdefault(algorithm, {})["iqm_normalised"] = [point, low, high]
    rows = []
    for variant in variants:
        for reference in references(results, variant):
            lines.append(f"{reference['agent']} {variant} (a reference, no training): " + ", ".join(
                f"{reference['margins'][level]['margin']:+.3f} over {level}" for level in LEVELS
                if level in reference["margins"]))
        for algorithm in algorithms:
            runs = load(results, algorithm, variant)
            if not runs:
                continue
            minutes = [run["train_seconds"] / 60 for run in runs]
            steps = {level: [reached(run["curve"], level) for run in runs] for level in LEVELS}
            lines.append(f"{algorithm} {variant}: {len(runs)} seed(s), {np.mean(minutes):.1f} min a run; "
                         + ", ".join(_reach_text(level, steps[level]) for level in LEVELS))
            summary.setdefault(algorithm, {})[variant] = {"minutes": minutes, "reaches": steps}
            finals = {level: [final(run, level) for run in runs] for level in LEVELS}
            exploited = _exploited(runs[0]["cell"])  # the first seed's
            rows.append(f"| {variant} | `{algorithm}` | {len(runs)} | " + " | ".join(
                _seeds_cell(finals[level]) for level in LEVELS) + " | " + " | ".join(
                _reach_cell(steps[level]) for level in LEVELS) + f" | {np.mean(minutes):.1f} | {exploited} |")
    return lines, table, rows, summary, scaled


def _exploited(cell: Path) -> str:
    """A search best response's gain against the run's final policy, with its 95% interval ('-' where
    not measured: ``--exploit``)."""
    path = cell / "exploit.json"
    if not path.is_file():
        return "-"
    found = json.loads(path.read_text())
    low, high = found["ci95"]
    return f"{found['margin']:+.3f} [{low:+.3f}, {high:+.3f}]"


def _seeds_cell(margins: list[float | None]) -> str:
    """The mean over seeds, then each seed's margin."""
    found = [m for m in margins if m is not None]
    if not found:
        return "-"
    each = ", ".join(f"{m:+.2f}" for m in found)
    return f"{np.mean(found):+.3f} ({each})" if len(found) > 1 else f"{found[0]:+.3f}"


def _reach_cell(steps: list[int | None]) -> str:
    found = [s for s in steps if s is not None]
    return f"{len(found)}/{len(steps)}, first at {min(found):,}" if found else f"0/{len(steps)}"


def _units(results: Path, variants: list[str]) -> list[str]:
    """One line per variant: the unit of its normalised scores and ``search``'s score in it."""
    lines = []
    for variant in variants:
        scale = unit(results, variant)
        if scale is None:
            continue
        found = {r["agent"]: r["margins"].get("greedy") for r in references(results, variant)}
        search = found.get("search")
        beside = f"; `search` {search['margin'] / scale:+.2f}" if search is not None else ""
        lines.append(f"- {variant}: `greedy` {scale:+.3f} a deal over `random`{beside}")
    return lines


def _page(table: list[str], rows: list[str], results: Path, algorithms: list[str], variants: list[str],
          scaled: list[str]) -> str:
    """The benchmark page's section on the algorithms (made by ``python -m benchmarks.algorithms --report``)."""
    unscaled = [v for v in variants if v not in scaled]
    runs = [run for algorithm in algorithms for variant in variants for run in load(results, algorithm, variant)]
    budgets = " or ".join(f"{b:,}" for b in sorted({run["budget"] for run in runs}))
    deals = " or ".join(f"{d:,}" for d in sorted({run["deals"] for run in runs}))
    lines = ["## Reference results for RL algorithms", "",
             f"Each run trains for {budgets} env steps (4 players, R12 defaults) and is measured every tenth of its "
             f"budget on the same {deals} duplicate deals, one seat against three copies of each reference "
             "([algorithms.md](algorithms.md) says how, and how to add an algorithm). Remade by "
             "`python -m benchmarks.algorithms --report` from the cached runs.", ""]
    if table:
        lines += ["The variants pay on different scales, so across them a run's final margin over `greedy` is divided "
                  "by `greedy`'s own margin over `random` on the same deals: 0 plays as `greedy`, -1 as `random`, "
                  "+1 is as far above `greedy` as `greedy` is above `random`. The units, and `search`'s score in "
                  "them:", "", *_units(results, variants), "",
                  f"The interquartile mean of the scores over seeds and variants ({', '.join(scaled)}; an "
                  "algorithm counts where it has runs in every one), with its 95% stratified-bootstrap interval "
                  "(`rliable`):", "", *table, ""]
        if unscaled:
            lines += [f"Not in the aggregate: {', '.join(unscaled)} (no unit measured on its deals yet: "
                      "`--references greedy`).", ""]
    lines += ["Each variant's runs: the final margin per deal over each reference (the mean over seeds, then each "
              "seed's), how many seeds beat it at 95% at some checkpoint and the first steps at which one did, "
              "the training minutes a run, and what a search best response gains against the first seed's final "
              "policy, a lower bound on its exploitability (its own later moves the policy's, 400 duplicate deals, "
              "95% interval; `--exploit`, benchmarks/algorithms_exploit.py).", "",
              "| variant | algorithm | seeds | final margin over greedy | over search | reaches greedy | "
              "reaches search | minutes a run | a best response's gain |", "|---|---|---:|---|---|---|---|---:|---|",
              *rows, ""]
    lines += ["Curves (mean and 95% band over seeds): " + ", ".join(
        f"[{v}](benchmark/algorithms_{v}.png)" for v in variants) + ".", ""]
    return "\n".join(lines)


def _plot(results: Path, algorithms: list[str], variant: str, path: Path) -> None:
    """Margin over greedy and over search against env steps: mean and 95% band over seeds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(LEVELS), figsize=(10, 3.6), sharex=True)
    drawn = False
    for algorithm in algorithms:
        runs = [run for run in load(results, algorithm, variant) if run["curve"]]
        if not runs:
            continue
        length = min(len(run["curve"]) for run in runs)
        steps = [point["steps"] for point in runs[0]["curve"][:length]]
        for axis, level in zip(axes, LEVELS, strict=True):
            values = np.array([[p["margins"][level]["margin"] for p in run["curve"][:length]] for run in runs])
            mean = values.mean(axis=0)
            half = 1.96 * values.std(axis=0, ddof=1) / np.sqrt(len(runs)) if len(runs) > 1 else np.zeros(length)
            axis.plot(steps, mean, label=algorithm)
            axis.fill_between(steps, mean - half, mean + half, alpha=0.2)
            drawn = True
    if not drawn:
        plt.close(figure)
        return
    lines = [r for r in references(results, variant) if r["agent"] != "greedy"]  # greedy: the 0 line itself
    for k, reference in enumerate(lines):
        for axis, level in zip(axes, LEVELS, strict=True):
            if level not in reference["margins"]:
                continue
            axis.axhline(reference["margins"][level]["margin"], color=f"C{len(algorithms) + k}", linestyle="--",
                         linewidth=1.2, label=f"{reference['agent']} (no training)")
    for axis, level in zip(axes, LEVELS, strict=True):
        axis.axhline(0, color="grey", linewidth=0.8)
        axis.set_title(f"{variant}: margin over {level} per deal")
        axis.set_xlabel("env steps")
    axes[0].legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
