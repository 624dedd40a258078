"""The algorithms' table and curves from the cached runs of :mod:`benchmarks.algorithms`.

Final scores are each run's margin per deal over ``greedy`` and over ``search``
at its last checkpoint.  Across seeds and variants they are aggregated as the
field does (Agarwal et al., 2021, with their ``rliable`` package): the
interquartile mean with a 95% stratified-bootstrap interval.  "Reaches X" is the
first checkpoint whose 95% interval of the margin over X lies above 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "benchmark"
LEVELS = ("greedy", "search")


def load(results: Path, algorithm: str, variant: str) -> list[dict[str, Any]]:
    """The finished runs of one cell: each its record and its curve, in seed order."""
    runs = []
    folder = results / algorithm / variant
    for cell in sorted(folder.glob("seed_*")) if folder.is_dir() else []:
        record = cell / "run.json"
        if record.is_file():
            curve = [json.loads(line) for line in (cell / "curve.jsonl").read_text().splitlines() if line.strip()]
            runs.append({**json.loads(record.read_text()), "curve": curve})
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

    points, intervals = library.get_interval_estimates(scores, aggregate, reps=2000)
    return {a: (float(points[a][0]), float(intervals[a][0][0]), float(intervals[a][1][0])) for a in scores}


def report(results: Path, algorithms: list[str], variants: list[str], plots: bool = True) -> list[str]:
    """The table as lines (and, with ``plots``, the curves as PNGs and the summary as JSON in docs/benchmark/)."""
    lines, summary = [], {}
    for level in LEVELS:
        scores = {}
        for algorithm in algorithms:
            per_variant = [[run["curve"][-1]["margins"][level]["margin"] for run in load(results, algorithm, v)
                            if run["curve"] and level in run["curve"][-1]["margins"]] for v in variants]
            seeds = min((len(s) for s in per_variant), default=0)
            if seeds:
                scores[algorithm] = np.array([s[:seeds] for s in per_variant]).T  # runs x variants
        if not scores:
            continue
        lines.append(f"final margin per deal over {level}: IQM over seeds and {len(variants)} variant(s), 95% "
                     "stratified bootstrap")
        for algorithm, (point, low, high) in iqm(scores).items():
            lines.append(f"  {algorithm:<14} {point:+.3f} [{low:+.3f}, {high:+.3f}]  ({scores[algorithm].shape[0]} "
                         "seed(s) each)")
            summary.setdefault(algorithm, {})[f"iqm_over_{level}"] = [point, low, high]
    for variant in variants:
        for reference in references(results, variant):
            lines.append(f"{reference['agent']} {variant} (a reference, no training): " + ", ".join(
                f"{reference['margins'][level]['margin']:+.3f} over {level}" for level in LEVELS
                if level in reference["margins"]))
    for algorithm in algorithms:
        for variant in variants:
            runs = load(results, algorithm, variant)
            if not runs:
                continue
            minutes = [run["train_seconds"] / 60 for run in runs]
            steps = {level: [reached(run["curve"], level) for run in runs] for level in LEVELS}
            lines.append(f"{algorithm} {variant}: {len(runs)} seed(s), {np.mean(minutes):.1f} min a run; "
                         + ", ".join(_reach_text(level, steps[level]) for level in LEVELS))
            summary.setdefault(algorithm, {})[variant] = {"minutes": minutes, "reaches": steps}
    if plots and summary:
        DOCS.mkdir(parents=True, exist_ok=True)
        for variant in variants:
            _plot(results, algorithms, variant, DOCS / f"algorithms_{variant}.png")
        (DOCS / "algorithms.json").write_text(json.dumps(summary, indent=2) + "\n")
    return lines or ["no finished run in the cache yet"]


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
    for k, reference in enumerate(references(results, variant)):
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
