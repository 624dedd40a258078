"""What ``end_when_out`` buys in the match variants, in one run.

``python -m benchmarks.end_when_out_speed``: the batched vector env
(:mod:`commerce_env.vector_env`, 128 envs, 4 players, ``hand_strength``)
against a league like the shipped configs' (greedy and six copies of the
shipped model as the opponents), with the learner's episode ending at the
match's end (``end_when_out=False``, the old behaviour) and when the learner
is out for good (``True``).  Two workloads per variant: the env alone (the
learner's moves uniform over its mask) and MaskablePPO's ``learn`` on it
(the configs' PPO settings: 32 steps per env, batch 512, 4 epochs, 128x128
tanh, one torch thread).  Runs take turns (:func:`benchmarks.timing.interleaved`);
the ratio is the median of the round-by-round ratios, so load from other
processes falls on both alike.  Learner steps are the unit: the learner's
decisions are the same either way (tests/vector/test_vector_env.py), only the
opponents' deals after it is out are skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from .timing import interleaved, paired_ratio, speed_arguments, until

VARIANTS = ("pool", "my_ship_sails", "widow")  # widow ends at the first player out (R6.5 whiskey): a control
ENVS = 128
MODELS = Path(__file__).resolve().parent.parent / "models"


def make_env(variant: str, end_when_out: bool, seed: int = 0):
    from agents.batched import batched_agent
    from training.vec_env import BatchVecEnv

    # Six snapshots' worth of network opponents: the shipped networks alone (a league's snapshots
    # carry no test-time search, and the batched engine cannot run one).
    network = {"agent": f"model:{MODELS / variant}", "search": False}
    league = ["greedy"] + [network] * 6
    return BatchVecEnv(variant, 4, ENVS, opponents=league, seed=seed, resolver=batched_agent,
                       features=["hand_strength"], end_when_out=end_when_out)


def env_runner(variant: str, end_when_out: bool):
    env = make_env(variant, end_when_out)
    env.reset()
    rng = np.random.default_rng(0)

    def run(seconds: float) -> int:
        done, steps = until(seconds), 0
        while not done():
            masks = env.action_masks()
            env.step((rng.random(masks.shape) * masks).argmax(axis=1))
            steps += ENVS
        return steps
    return run


def ppo_runner(variant: str, end_when_out: bool):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    torch.set_num_threads(1)
    model = MaskablePPO("MlpPolicy", VecMonitor(make_env(variant, end_when_out)), n_steps=32, batch_size=512,
                        n_epochs=4, learning_rate=1e-4, gamma=1.0, seed=0, verbose=0,
                        policy_kwargs={"net_arch": [128, 128], "activation_fn": torch.nn.Tanh})

    def run(seconds: float) -> int:
        done, start = until(seconds), model.num_timesteps
        while not done():
            model.learn(ENVS * 32, reset_num_timesteps=False)
        return model.num_timesteps - start
    return run


def measure(variants: tuple[str, ...] = VARIANTS, repeats: int = 3, seconds: float = 8.0) -> list[dict[str, Any]]:
    rows = []
    for variant in variants:
        for workload, factory in (("env", env_runner), ("MaskablePPO", ppo_runner)):
            runs = {flag: factory(variant, flag) for flag in (False, True)}
            series = interleaved({str(flag): run for flag, run in runs.items()}, repeats, seconds)
            off, on = series["False"], series["True"]
            rows.append({"variant": variant, "workload": workload, "off": off.median, "on": on.median,
                         "ratio": paired_ratio(on, off), "rates_off": off.rates, "rates_on": on.rates})
    return rows


def main(argv: list[str] | None = None) -> None:
    args = speed_arguments(__doc__.splitlines()[0], VARIANTS, 8.0).parse_args(argv)
    rows = measure(tuple(args.variants), args.repeats, args.seconds)
    print(f"{'variant':<15}{'workload':<13}{'off (steps/s)':>15}{'on (steps/s)':>15}{'on / off':>10}")
    for row in rows:
        print(f"{row['variant']:<15}{row['workload']:<13}{row['off']:>15,.0f}{row['on']:>15,.0f}"
              f"{row['ratio']:>9.2f}x")
    if args.out is not None:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
