"""MaskablePPO training throughput on the Foster game beside PettingZoo's connect_four_v3.

``python -m benchmarks.train_speed`` (also the ``training`` section of
``python -m benchmarks``).  Same algorithm, network and rollout settings for
every workload (``configs/train/foster_trade_barter.yaml``'s), one
``torch`` thread, runs taking turns so that load from other processes falls
on all alike:

* ``foster/dummy``: 4-player Foster trade and barter against ``greedy``
  (``random`` if greedy is not there), with the config's observation
  features, 4 envs in one process (DummyVecEnv); each env step is one
  learner decision plus the three opponents' moves until its next one;
* ``foster/subproc``: the same with one process per env (SubprocVecEnv);
* ``connect_four``: connect_four_v3 through the PettingZoo SB3 tutorial's
  ``SB3ActionMaskWrapper`` + ``ActionMasker``, 4 envs in a DummyVecEnv (the
  learner plays both sides: one move per env step, no opponent to compute).

A figure is env-steps per second of ``model.learn`` (collection and updates).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

N_ENVS = 4
ROUNDS_PER_RUN = 1  # rollouts per timed chunk; a run repeats chunks until its time is up


def _ppo_settings() -> dict[str, Any]:
    from training.config import load_config

    config = load_config(Path(__file__).resolve().parent.parent / "configs" / "train" / "foster_trade_barter.yaml")
    return config


def _foster_env(opponent: str, features: list[str]):
    def build():
        from agents import make_agent
        from commerce_env.single_agent import CommerceEnv

        return CommerceEnv(variant="trade_barter", num_players=4, preset="foster", opponents=[opponent],
                           features=features, resolver=make_agent)
    return build


def _connect_four_env():
    """connect_four_v3 as in PettingZoo's SB3 action-masking tutorial."""
    import gymnasium
    import pettingzoo.utils
    from pettingzoo.classic import connect_four_v3
    from sb3_contrib.common.wrappers import ActionMasker

    class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
        """The tutorial's wrapper (its reward is the last mover's, the trap our env avoids)."""

        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action):
            current_agent = self.agent_selection
            super().step(action)
            next_agent = self.agent_selection
            return (self.observe(next_agent), self._cumulative_rewards[current_agent],
                    self.terminations[current_agent], self.truncations[current_agent], self.infos[current_agent])

        def observe(self, agent):
            return super().observe(agent)["observation"]

        def action_mask(self):
            return super().observe(self.agent_selection)["action_mask"]

    def build():
        env = SB3ActionMaskWrapper(connect_four_v3.env())
        env.reset(seed=0)
        return ActionMasker(env, lambda e: e.action_mask())
    return build


def _model(factories, vec: str, config: dict[str, Any]):
    import torch.nn as nn
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    venv = DummyVecEnv(factories) if vec == "dummy" else SubprocVecEnv(factories, start_method="spawn")
    arch = list(config["policy"]["net_arch"])
    return MaskablePPO("MlpPolicy", venv, seed=0, device="cpu", verbose=0,
                       policy_kwargs=dict(net_arch=dict(pi=arch, vf=arch), activation_fn=nn.Tanh),
                       **config["ppo"])


def _runner(model):
    """``run(seconds) -> steps``: ``model`` learns in whole rollouts until ``seconds`` are up
    (after one warm-up rollout, untimed); the training benchmarks' timed loop."""
    chunk = model.n_steps * model.n_envs * ROUNDS_PER_RUN
    model.learn(chunk)  # warm-up: first rollout, optimizer state

    def run(seconds: float) -> int:
        steps, start = 0, time.perf_counter()
        while steps == 0 or time.perf_counter() - start < seconds:
            model.learn(chunk, reset_num_timesteps=False)
            steps += chunk
        return steps
    return run


def measure(repeats: int = 3, seconds: float = 5.0) -> dict[str, Any]:
    """Median env-steps/s of each workload over ``repeats`` interleaved runs."""
    import torch

    from agents import AGENTS

    torch.set_num_threads(1)
    config = _ppo_settings()
    opponent = "greedy" if "greedy" in AGENTS else "random"
    features = list(config["env"]["features"])
    models = {
        "foster/dummy": _model([_foster_env(opponent, features)] * N_ENVS, "dummy", config),
        "foster/subproc": _model([_foster_env(opponent, features)] * N_ENVS, "subproc", config),
        "connect_four": _model([_connect_four_env()] * N_ENVS, "dummy", config),
    }
    runs = {name: _runner(model) for name, model in models.items()}
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.perf_counter()
            steps = run(seconds)
            rates[name].append(steps / (time.perf_counter() - start))
    for model in models.values():
        model.env.close()
    ratios = [a / b for a, b in zip(rates["foster/dummy"], rates["connect_four"], strict=True)]
    vec_ratios = [a / b for a, b in zip(rates["foster/dummy"], rates["foster/subproc"], strict=True)]
    return {"opponent": opponent, "features": features, "n_envs": N_ENVS, "ppo": dict(config["ppo"]),
            "net_arch": config["policy"]["net_arch"],
            "rates": rates, "median": {k: statistics.median(v) for k, v in rates.items()},
            "foster_vs_connect_four": statistics.median(ratios),
            "dummy_vs_subproc": statistics.median(vec_ratios)}


def benchmark_rows(Row, repeats: int = 3, seconds: float = 5.0) -> list:  # noqa: N803 - a class passed in
    """Rows for ``python -m benchmarks`` (its ``training`` section)."""
    r = measure(repeats, max(seconds, 3.0))
    m = r["median"]
    return [
        Row("training", f"MaskablePPO, Foster 4p vs {r['opponent']}, DummyVecEnv x{N_ENVS}", m["foster/dummy"],
            "env-steps/s", "connect_four_v3 (SB3 tutorial wrapper)", m["connect_four"], r["foster_vs_connect_four"]),
        Row("training", f"MaskablePPO, Foster 4p vs {r['opponent']}, SubprocVecEnv x{N_ENVS}", m["foster/subproc"],
            "env-steps/s", "the same on DummyVecEnv", m["foster/dummy"], 1 / r["dummy_vs_subproc"]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--out", default="docs/training/train_speed.json")
    args = parser.parse_args()
    result = measure(args.repeats, args.seconds)
    for name, rate in result["median"].items():
        print(f"{name:<16}{rate:>10.0f} env-steps/s   runs: {', '.join(f'{x:.0f}' for x in result['rates'][name])}")
    print(f"Foster (dummy) / connect_four: {result['foster_vs_connect_four']:.2f}x; "
          f"DummyVecEnv / SubprocVecEnv on Foster: {result['dummy_vs_subproc']:.2f}x")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
