"""Ray beside the local peers: ``python -m benchmarks.ray_speed [--seconds S] [--out FILE]``.

In one run, in this order (then the local figures again, to show how the
machine's load drifted):

* SB3: MaskablePPO's ``learn`` env-steps/s with the Foster SB3 config's settings
  (benchmarks/train_speed.py's ``foster/dummy``): an env step is one learner
  decision plus the opponents' moves until its next one;
* the local arena: deals/s with 1 and 2 worker processes;
* the Ray arena: deals/s on a local Ray with 1 and 2 CPUs (one task per CPU at a time),
  Ray's start not counted;
* RLlib: env-steps/s of ``algo.train()`` (sampling and the PPO update) with 1 and 2
  env runners, configs/train/rllib_selfplay_foster.yaml's settings, no evaluation:
  an env step is one decision of any seat.

Same lineup for every arena figure.  Rates vary with the machine's load:
compare figures of the same run.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

LINEUP = ["expected_value", "greedy", "random"]
ROOT = Path(__file__).resolve().parent.parent


def sb3_rate(seconds: float) -> float:
    from .train_speed import _foster_env, _model, _ppo_settings, _runner

    config = _ppo_settings()
    model = _model([_foster_env("greedy", list(config["env"]["features"]))] * 4, "dummy", config)
    run = _runner(model)
    start = time.perf_counter()
    steps = run(seconds)
    rate = steps / (time.perf_counter() - start)
    model.env.close()
    return rate


def arena_rate(seconds: float, **kwargs: Any) -> float:
    from agents.arena import run_arena

    probe = run_arena(LINEUP, deals=24, seed=0, progress=False)
    deals = max(48, int(probe["games_per_second"] * seconds))
    return run_arena(LINEUP, deals=deals, seed=1, progress=False, **kwargs)["deals_per_second"]


def rllib_rate(num_env_runners: int, seconds: float) -> dict[str, float]:
    """Env steps per second of ``train()`` after one warm-up iteration, and the start-up's cost."""
    from training.config import load_config
    from training.rllib_train import _steps, algorithm_config

    config = load_config(ROOT / "configs" / "train" / "rllib_selfplay_foster.yaml")
    config.ray.num_env_runners = num_env_runners
    began = time.perf_counter()
    algo = algorithm_config(config).build_algo()
    built = time.perf_counter() - began
    try:
        first = _steps(algo.train())
        start, steps = time.perf_counter(), first
        while steps == first or time.perf_counter() - start < seconds:
            steps = _steps(algo.train())
        return {"env_steps_per_second": (steps - first) / (time.perf_counter() - start), "build_seconds": built}
    finally:
        algo.stop()


def measure(seconds: float) -> dict[str, Any]:
    import ray
    import torch

    from agents.ray_connect import PROJECT_ROOT

    torch.set_num_threads(1)
    out: dict[str, Any] = {"lineup": LINEUP, "seconds": seconds}
    out["sb3_env_steps_per_second"] = sb3_rate(seconds)
    out["local_arena_deals_per_second"] = {w: arena_rate(seconds, workers=w) for w in (1, 2)}
    runtime_env = {"env_vars": {"PYTHONPATH": str(PROJECT_ROOT)}}
    out["ray_arena_deals_per_second"] = {}
    out["rllib"] = {}
    for cpus in (1, 2):
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, log_to_driver=False,
                 runtime_env=runtime_env)
        try:
            out["ray_arena_deals_per_second"][cpus] = arena_rate(seconds, backend="ray")
            out["rllib"][cpus] = rllib_rate(cpus, 3 * seconds)  # runners <= CPUs, or RLlib waits forever
        finally:
            ray.shutdown()
    out["again"] = {"sb3_env_steps_per_second": sb3_rate(seconds),
                    "local_arena_deals_per_second": {w: arena_rate(seconds, workers=w) for w in (1, 2)}}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="about this long per figure")
    parser.add_argument("--out", default="docs/distributed_speed.json")
    args = parser.parse_args(argv)
    r = measure(args.seconds)
    print(f"{'workload':<58}{'rate':>12}")
    print(f"{'SB3 MaskablePPO, Foster vs greedy, DummyVecEnv x4 (env-steps/s)':<58}"
          f"{r['sb3_env_steps_per_second']:>12.0f}")
    for n in (1, 2):
        print(f"{f'RLlib PPO self-play, {n} env runner(s) x 8 envs (env-steps/s)':<58}"
              f"{r['rllib'][n]['env_steps_per_second']:>12.0f}")
    for n in (1, 2):
        print(f"{f'arena, local, {n} worker process(es) (deals/s)':<58}{r['local_arena_deals_per_second'][n]:>12.1f}")
    for n in (1, 2):
        print(f"{f'arena, Ray, {n} CPU(s) (deals/s)':<58}{r['ray_arena_deals_per_second'][n]:>12.1f}")
    again = r["again"]
    print(f"again at the end: SB3 {again['sb3_env_steps_per_second']:.0f} env-steps/s, local arena "
          + ", ".join(f"{n} worker(s) {v:.1f}" for n, v in again["local_arena_deals_per_second"].items()) + " deals/s")
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(r, indent=2) + "\n")
    print(f"written to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
