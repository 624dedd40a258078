"""The Gymnasium vector env beside Gymnasium's SyncVectorEnv and the SB3 adapter, in one run.

``python -m benchmarks.vector_env_speed``: env-steps per second (learner decisions, all envs
counted) with masked random actions, trade and barter, 4 players, greedy opponents, for

* ``gymnasium.make_vec("commerce/Commerce-v0", num_envs=N)``: the batched vector env;
* ``gymnasium.make_vec(..., vectorization_mode="sync")``: a SyncVectorEnv of N single-agent envs;
* ``training.vec_env.make_vec_env``: the SB3 ``VecEnv`` adapter over the first.

Runs take turns (:func:`benchmarks.timing.interleaved`); ratios are per round, medians.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np

from .timing import interleaved, paired_ratio, speed_arguments, until

KWARGS = {"variant": "trade_barter", "num_players": 4, "opponents": ["greedy"]}


def gym_vector_run(num_envs: int, mode: str | None) -> Callable[[float], int]:
    """Env-steps of a Gymnasium vector env (``mode`` None: the batched one; "sync": SyncVectorEnv)."""
    import gymnasium

    import commerce_env

    if mode is None:
        env = gymnasium.make_vec(commerce_env.GYM_ENV_ID, num_envs=num_envs, **KWARGS)
        masks = lambda obs, infos: obs["action_mask"].astype(bool)  # noqa: E731
    else:
        env = gymnasium.make_vec(commerce_env.GYM_ENV_ID, num_envs=num_envs, vectorization_mode=mode, **KWARGS)
        masks = lambda obs, infos: np.stack(env.call("action_masks"))  # noqa: E731 - the single env's method
    rng = np.random.default_rng(0)
    obs, infos = env.reset(seed=0)

    def run(seconds: float) -> int:
        nonlocal obs, infos
        done, steps = until(seconds), 0
        while not done():
            mask = masks(obs, infos)
            obs, _, _, _, infos = env.step((rng.random(mask.shape) * mask).argmax(axis=1))
            steps += num_envs
        return steps

    return run


def sb3_run(num_envs: int) -> Callable[[float], int]:
    """Env-steps of the SB3 adapter, as MaskablePPO drives it (action_masks, step)."""
    from training.vec_env import make_vec_env

    env = make_vec_env(KWARGS["variant"], KWARGS["num_players"], num_envs, opponents=KWARGS["opponents"], seed=0)
    env.reset()
    rng = np.random.default_rng(0)

    def run(seconds: float) -> int:
        done, steps = until(seconds), 0
        while not done():
            mask = env.action_masks()
            env.step((rng.random(mask.shape) * mask).argmax(axis=1))
            steps += num_envs
        return steps

    return run


def figures(num_envs_list: tuple[int, ...] = (32, 256), repeats: int = 3, seconds: float = 2.0) -> list[dict[str, Any]]:
    """One row per ``num_envs``: each env's steps/s and the ratios against SyncVectorEnv."""
    rows = []
    for num_envs in num_envs_list:
        runs = {"vector_env": gym_vector_run(num_envs, None), "sync_vector_env": gym_vector_run(num_envs, "sync")}
        try:
            runs["sb3_adapter"] = sb3_run(num_envs)
        except ImportError:  # the train extra (stable_baselines3) is not installed
            pass
        series = interleaved(runs, repeats, seconds)
        row: dict[str, Any] = {"num_envs": num_envs}
        for name, s in series.items():
            row[f"{name}_steps_per_s"] = float(np.median(s.rates))
        row["vector_env_vs_sync"] = paired_ratio(series["vector_env"], series["sync_vector_env"])
        if "sb3_adapter" in series:
            row["sb3_adapter_vs_vector_env"] = paired_ratio(series["sb3_adapter"], series["vector_env"])
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = speed_arguments(__doc__.splitlines()[0], ("trade_barter",), 2.0)
    parser.add_argument("--num-envs", type=int, nargs="+", default=[32, 256])
    args = parser.parse_args(argv)
    rows = figures(tuple(args.num_envs), args.repeats, args.seconds)
    print(f"{'num_envs':>8} {'vector env':>12} {'SyncVectorEnv':>14} {'SB3 adapter':>12} {'vector/sync':>12}")
    for row in rows:
        print(f"{row['num_envs']:>8} {row['vector_env_steps_per_s']:>12,.0f} "
              f"{row['sync_vector_env_steps_per_s']:>14,.0f} "
              f"{row.get('sb3_adapter_steps_per_s', float('nan')):>12,.0f} "
              f"{row['vector_env_vs_sync']:>11.1f}x")
    if args.out:
        from commerce_env.files import atomic_write

        atomic_write(args.out, json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
