"""The single-file PPO (``training/ppo.py``) beside stable-baselines3's MaskablePPO, in one run.

``python -m benchmarks.ppo_speed [--steps N] [--repeats R] [--seeds S]``.  Both train
on the batched engine (the Gymnasium vector env for ``training/ppo.py``, the SB3
VecEnv adapter over the same engine for MaskablePPO) with the same settings: 128
games, 32 steps a game per rollout, minibatches of 512, 4 epochs, [128, 128]
tanh MLPs for actor and critic, one torch thread, 4-player trade and barter
against ``greedy``.  The runs take turns, so load from other processes falls on
both alike.  Printed: env-steps/s of the whole training loop (collection and
updates) and the ratio; with ``--seeds`` each trained policy's margin over
``greedy`` on the same duplicate deals (learning curves within noise at equal
steps is the target).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

SETTINGS = dict(variant="trade_barter", num_players=4, opponents=["greedy"], features=["hand_strength"],
                num_envs=128, num_steps=32, batch_size=512, update_epochs=4, hidden=[128, 128])


def single_file(steps: int, seed: int, folder: Path) -> tuple[float, Path]:
    """Seconds to train ``training/ppo.py`` for ``steps``, and its model folder."""
    from training.ppo import Args, train

    started = time.perf_counter()
    model = train(Args(**SETTINGS, total_timesteps=steps, seed=seed, output=str(folder), eval_deals=0), quiet=True)
    return time.perf_counter() - started, model


def maskable(steps: int, seed: int, folder: Path) -> tuple[float, Path]:
    """Seconds to train MaskablePPO (sb3-contrib) for ``steps`` on the same engine, and its model folder."""
    from agents import save_policy

    from .algorithms import maskable_actor, maskable_model

    model, env = maskable_model(seed=seed, **SETTINGS)
    started = time.perf_counter()
    model.learn(total_timesteps=steps)
    seconds = time.perf_counter() - started
    env.close()
    return seconds, save_policy(folder, maskable_actor(model), variant=SETTINGS["variant"],
                                num_players=SETTINGS["num_players"], features=SETTINGS["features"])


def margin(model: Path, deals: int) -> tuple[float, list[float]]:
    """The model's margin over greedy, one against three, on fixed duplicate deals."""
    from agents import evaluate_agent

    versus = evaluate_agent(f"model:{model}", ["greedy"], variant=SETTINGS["variant"],
                            num_players=SETTINGS["num_players"], deals=deals, seed=2026)["vs"]["greedy"]
    return versus["difference"], versus["ci95"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ppo_speed", description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=131_072, help="env steps a run (default 131,072)")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs of each, taking turns (default 2)")
    parser.add_argument("--seeds", type=int, default=0, help="also train this many seeds of each and compare "
                        "their margins over greedy (default 0: speed only)")
    parser.add_argument("--deals", type=int, default=2000, help="duplicate deals of each margin (default 2000)")
    args = parser.parse_args(argv)
    runners = {"training/ppo.py": single_file, "MaskablePPO (sb3-contrib)": maskable}
    speed: dict[str, list[float]] = {name: [] for name in runners}
    margins: dict[str, list[tuple[float, list[float]]]] = {name: [] for name in runners}
    with tempfile.TemporaryDirectory() as scratch:
        for run in runners.values():  # imports, compiled kernels, torch's first optimizer: not timed
            run(SETTINGS["num_envs"] * SETTINGS["num_steps"], 0, Path(scratch) / f"warm_{run.__name__}")
        for repeat in range(max(args.repeats, args.seeds)):
            for name, run in runners.items():
                seconds, model = run(args.steps, repeat, Path(scratch) / f"{len(speed[name])}_{run.__name__}")
                if repeat < args.repeats:
                    speed[name].append(args.steps / seconds)
                if repeat < args.seeds:
                    margins[name].append(margin(model, args.deals))
    print(f"{args.steps:,} env steps a run, 4-player trade and barter against greedy, 128 games, one torch thread")
    best = {name: statistics.median(rates) for name, rates in speed.items()}
    for name, rate in best.items():
        print(f"  {name:<28} {rate:>9,.0f} env-steps/s (median of {len(speed[name])})")
    ours, theirs = best["training/ppo.py"], best["MaskablePPO (sb3-contrib)"]
    print(f"  ratio training/ppo.py / MaskablePPO: {ours / theirs:.2f}x")
    for name, rows in margins.items():
        for seed, (mean, (low, high)) in enumerate(rows):
            print(f"  {name:<28} seed {seed}: {mean:+.3f} per deal over greedy [{low:+.3f}, {high:+.3f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
