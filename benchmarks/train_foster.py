"""Does MaskablePPO, trained 30 minutes on 2 cores, beat the heuristics at Foster's game?

``python -m benchmarks.train_foster`` (not a test; about 30 minutes of
training plus the evaluation):

1. trains with ``configs/train/foster_benchmark.yaml`` (4-player Foster trade
   and barter) for at most ``--minutes`` of wall-clock time, evaluating every
   100,000 steps against ``greedy`` and ``expected_value`` on duplicate deals
   (the training curve); ``--resume`` continues a killed run;
2. evaluates the final policy in the arena over ``--deals`` (20,000) duplicate
   deals against a table of each heuristic, and asks: is the learner's mean
   reward per deal minus the heuristic's above zero with 99% confidence?
3. writes ``docs/training/foster_result.json``, ``foster_result.md`` and
   ``foster_curve.png`` (mean arena reward vs steps).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "train" / "foster_benchmark.yaml"
BASELINES = ("greedy", "expected_value")
Z95, Z99 = 1.959963984540054, 2.5758293035489004


def widen(interval: list[float], mean: float) -> list[float]:
    """A 95% normal interval around ``mean`` widened to 99%."""
    half = (interval[1] - interval[0]) / 2 * Z99 / Z95
    return [mean - half, mean + half]


def train_phase(args: argparse.Namespace) -> dict[str, Any]:
    from training.config import load_config
    from training.train import train

    overrides = {"output": args.run, "training": {"time_limit_minutes": args.minutes,
                                                  "progress_bar": not args.no_progress}}
    config = load_config(args.config, overrides)
    started = time.monotonic()
    train(config, resume=args.resume, quiet=args.no_progress)
    from .seeds import shown_path

    return {"config": shown_path(args.config), "training_wall_seconds": time.monotonic() - started}


def evaluate_phase(args: argparse.Namespace) -> dict[str, Any]:
    from agents.arena import write_outputs
    from agents.evaluate import evaluate_agent
    from agents.learned import load_agent

    run = Path(args.run)
    config_used = yaml.safe_load((run / "config.yaml").read_text())
    env = config_used["env"]
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    agent = load_agent(run / "model", variant=env["variant"], num_players=env["num_players"])
    result: dict[str, Any] = {"steps": state["num_timesteps"], "training_seconds": state["elapsed_seconds"],
                              "deals": args.deals, "versus": {}}
    for name in args.baselines.split(","):
        started = time.monotonic()
        report = evaluate_agent(agent, [name], variant=env["variant"], num_players=env["num_players"],
                                options=env["rules"], deals=args.deals, seed=args.seed, workers=args.workers)
        versus = report["vs"][name]
        diff99 = widen(versus["ci95"], versus["difference"])
        result["versus"][name] = {
            "learner_mean_reward": report["mean"], "learner_ci95": report["ci95"],
            "learner_ci99": widen(report["ci95"], report["mean"]),
            "difference": versus["difference"], "difference_ci95": versus["ci95"], "difference_ci99": diff99,
            "p_value": versus["p_value"], "beats_with_99_confidence": diff99[0] > 0,
            "deals_played": report["result"].get("deals_played"), "seconds": time.monotonic() - started,
        }
        write_outputs(report["result"], Path(args.docs) / f"arena_{name}")
    return result


def plot_curve(run: Path, out: Path, final: dict[str, Any] | None = None) -> None:
    """Mean arena reward (95% CI) against each baseline vs training steps; ``final``: the big evaluation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    history = [json.loads(line) for line in (run / "eval_history.jsonl").read_text().splitlines() if line]
    periodic_deals = yaml.safe_load((run / "config.yaml").read_text())["evaluation"]["deals"]
    fig, ax = plt.subplots(figsize=(7, 4))
    names = sorted({name for h in history for name in h["opponents"]})
    for name in names:
        points = [(h["steps"], h["opponents"][name]) for h in history if name in h["opponents"]]
        steps = [s for s, _ in points]
        means = [r["mean_reward"] for _, r in points]
        errors = [[r["mean_reward"] - r["ci95"][0] for _, r in points], [r["ci95"][1] - r["mean_reward"]
                                                                         for _, r in points]]
        line = ax.errorbar(steps, means, yerr=errors, marker="o", capsize=3,
                           label=f"vs a table of {name} ({periodic_deals} deals)")
        if final and name in final["versus"]:
            r = final["versus"][name]
            lo, hi = r["learner_ci95"]
            ax.errorbar([final["steps"]], [r["learner_mean_reward"]],
                        yerr=[[r["learner_mean_reward"] - lo], [hi - r["learner_mean_reward"]]], marker="*",
                        markersize=12, capsize=3, color=line[0].get_color(), linestyle="none",
                        label=f"final, {final['deals']:,} deals, vs {name}")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel("training steps (learner decisions)")
    ax.set_ylabel("learner's mean reward per deal (counters)")
    ax.set_title("MaskablePPO on Foster's trade and barter, 4 players (95% CI)")
    low = min(ax.get_ylim()[0], -0.1)
    ax.set_ylim(low - 0.15, ax.get_ylim()[1])  # room for the legend below the curves
    ax.legend(fontsize=8, loc="lower right", ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def markdown(result: dict[str, Any]) -> str:
    lines = [f"Trained {result['steps']:,} steps in {result['training_seconds'] / 60:.1f} minutes; "
             f"arena over {result['deals']:,} duplicate deals per baseline.", "",
             "| table of | learner mean reward (99% CI) | learner - baseline (99% CI) | p | beats it (99%) |",
             "|---|---|---|---|---|"]
    for name, r in result["versus"].items():
        lo, hi = r["learner_ci99"]
        dlo, dhi = r["difference_ci99"]
        lines.append(f"| {name} | {r['learner_mean_reward']:+.3f} [{lo:+.3f}, {hi:+.3f}] | "
                     f"{r['difference']:+.3f} [{dlo:+.3f}, {dhi:+.3f}] | {r['p_value']:.2g} | "
                     f"{'yes' if r['beats_with_99_confidence'] else 'no'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(CONFIG))
    parser.add_argument("--run", default="runs/bench_foster")
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=20_260)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--baselines", default=",".join(BASELINES), help="comma separated agents to beat")
    parser.add_argument("--docs", default=str(ROOT / "docs" / "training"))
    parser.add_argument("--resume", action="store_true", help="continue a killed training run")
    parser.add_argument("--skip-training", action="store_true", help="only evaluate the run's model")
    parser.add_argument("--plot-only", action="store_true", help="redraw the curve from the saved files")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    docs = Path(args.docs)
    docs.mkdir(parents=True, exist_ok=True)
    if args.plot_only:  # redraw from the saved run and result
        result = json.loads((docs / "foster_result.json").read_text())
        plot_curve(Path(args.run), docs / "foster_curve.png", result)
        return
    training = {} if args.skip_training else train_phase(args)
    result = evaluate_phase(args)
    result.update(training)
    plot_curve(Path(args.run), docs / "foster_curve.png", result)
    (docs / "foster_result.json").write_text(json.dumps(result, indent=2) + "\n")
    (docs / "foster_result.md").write_text(markdown(result))
    print(markdown(result))
    if any(not math.isfinite(r["difference"]) for r in result["versus"].values()):
        raise SystemExit("evaluation produced no numbers")


if __name__ == "__main__":
    main()
