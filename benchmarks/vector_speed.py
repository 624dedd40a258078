"""The batched engine (``commerce_env.vector``) beside its peers, in one run.

``python -m benchmarks.vector_speed`` (also the ``vector`` section of
``python -m benchmarks``):

* engine: random legal play, decisions per CPU-second (the rate per core), of
  the batched engine (1,024 games, 4 players, the whole loop compiled:
  ``kernels.random_play``; and through the public ``step`` with numpy choosing
  from the masks) for every variant, beside the readable engine and beside
  OpenSpiel's ``leduc_poker``: its C++ ``random_sim_test`` and a Python loop
  over ``pyspiel`` states (states per CPU-second, chance moves included);
* the numpy prototype (:mod:`benchmarks.vector_numpy`) on the same workload
  as the numba engine: the measurement behind the choice of numba;
* memory: bytes of 1,024 games' state, and the process's RSS growth;
* training: MaskablePPO (the Foster config's network and PPO settings, one
  torch thread, a rollout of 4,096 steps whatever ``n_envs``) on Foster
  trade and barter, 4 players, vs greedy, with ``hand_strength``: the batched
  vector env at several ``n_envs``, beside today's DummyVecEnv x4 and beside
  a zero-cost VecEnv replaying recorded steps of the same env at the same
  ``n_envs`` (the learner's own ceiling);
* ``--profile``: where the time of the fastest batched training goes.

Runs of the workloads take turns (:func:`benchmarks.timing.interleaved`),
so load from other processes falls on all alike.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from commerce_env.rules import VARIANTS

from .timing import interleaved, paired_ratio, until
from .train_speed import _foster_env, _runner  # the SB3 env and timed learning loop of the training benchmark

GAMES = 1024
# docs/performance.md's targets (decisions per CPU-second), the default elsewhere; the 4x over
# OpenSpiel's leduc loop is set for trade and barter only.
SPEED_TARGETS = {"trade_barter": 2e6}
SPEED_TARGET = 1e6
PEER_TARGETS = {"trade_barter": 4.0}
ROLLOUT = 4096


# ------------------------------------------------------------------ engine
class BatchRun:
    """Random legal play of ``GAMES`` matches, all in compiled code (finished matches restart)."""

    def __init__(self, variant: str, num_players: int = 4, games: int = GAMES, chunk: int = 20):
        from commerce_env.vector import BatchEngine, kernels

        self.engine = BatchEngine(variant, num_players, games, seed=1)
        self.engine.reset()
        self.kernels = kernels
        self.totals = np.zeros((games, num_players), dtype=np.int64)
        self.chunk = chunk
        self(0.0)  # compile (or load the cache) outside the timing

    def __call__(self, seconds: float) -> int:
        done, e, decisions = until(seconds), self.engine, 0
        while decisions == 0 or not done():
            decisions += self.kernels.random_play(e._st, e.params, e.keys, self.chunk, e._masks, self.totals)
        return decisions


class BatchApiRun:
    """The same through the public API: masks out, numpy picks, ``step`` in, ``reset_games``."""

    def __init__(self, variant: str, num_players: int = 4, games: int = GAMES):
        from commerce_env.vector import BatchEngine

        self.engine = BatchEngine(variant, num_players, games, seed=2)
        self.engine.reset()
        self.rng = np.random.default_rng(0)
        self(0.0)

    def __call__(self, seconds: float) -> int:
        done, e, decisions = until(seconds), self.engine, 0
        while decisions == 0 or not done():
            masks = e.action_mask
            running = masks.any(axis=1)
            e.step((self.rng.random(masks.shape) * masks).argmax(axis=1))
            decisions += int(running.sum())
            finished = np.flatnonzero(e.over)
            if finished.size:
                e.reset_games(finished)
        return decisions


class OpenSpielSimRun:
    """OpenSpiel's C++ ``random_sim_test`` on leduc_poker: states (moves, chance included) per second."""

    def __init__(self, sims: int = 200):
        import pyspiel

        self.pyspiel = pyspiel
        self.game = pyspiel.load_game("leduc_poker")
        self.sims = sims
        self.states_per_game = OpenSpielLoopRun(self.game).states_per_game(2000)

    def __call__(self, seconds: float) -> int:
        done, games = until(seconds), 0
        while games == 0 or not done():
            self.pyspiel.random_sim_test(self.game, num_sims=self.sims, serialize=False, verbose=False)
            games += self.sims
        return int(games * self.states_per_game)


class OpenSpielLoopRun:
    """A Python loop over pyspiel's C++ states (leduc_poker), uniform random moves and chance."""

    def __init__(self, game: Any = None, seed: int = 0):
        if game is None:
            import pyspiel

            game = pyspiel.load_game("leduc_poker")
        self.game = game
        self.rng = random.Random(seed)

    def _play(self) -> int:
        state, rng, moves = self.game.new_initial_state(), self.rng, 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
            moves += 1
        return moves

    def states_per_game(self, games: int) -> float:
        return sum(self._play() for _ in range(games)) / games

    def __call__(self, seconds: float) -> int:
        done, states = until(seconds), 0
        while states == 0 or not done():
            for _ in range(100):
                states += self._play()
        return states


def engine_figures(repeats: int = 3, seconds: float = 2.0) -> dict[str, Any]:
    from .workloads import EngineRun

    runs: dict[str, Any] = {}
    for variant in VARIANTS:
        runs[f"batch/{variant}"] = BatchRun(variant)
        runs[f"readable/{variant}"] = EngineRun(variant)
    runs["batch_api/trade_barter"] = BatchApiRun("trade_barter")
    try:
        from .vector_numpy import NumpyTradeBarterRun

        runs["numpy_prototype/trade_barter"] = NumpyTradeBarterRun(GAMES)
    except ImportError:
        pass
    try:
        runs["openspiel_leduc/random_sim_test"] = OpenSpielSimRun()
        runs["openspiel_leduc/python_loop"] = OpenSpielLoopRun()
    except ImportError:  # open_spiel (extra bench) not installed
        pass
    series = interleaved(runs, repeats, seconds)
    out: dict[str, Any] = {"per_cpu_second": {k: s.cpu_median for k, s in series.items()},
                           "per_second": {k: s.median for k, s in series.items()}, "ratios": {}}
    for variant in VARIANTS:
        out["ratios"][f"batch/readable {variant}"] = paired_ratio(series[f"batch/{variant}"],
                                                                  series[f"readable/{variant}"])
    if "openspiel_leduc/python_loop" in series:
        peer = max(("openspiel_leduc/random_sim_test", "openspiel_leduc/python_loop"),
                   key=lambda k: series[k].cpu_median)
        out["openspiel_peer"] = peer
        for variant in VARIANTS:
            out["ratios"][f"batch {variant} / openspiel leduc"] = paired_ratio(series[f"batch/{variant}"],
                                                                               series[peer])
    if "numpy_prototype/trade_barter" in series:
        out["ratios"]["numba/numpy trade_barter"] = paired_ratio(series["batch/trade_barter"],
                                                                 series["numpy_prototype/trade_barter"])
    return out


def rss_kb() -> int:
    """This process's resident set size (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def memory_figures(games: int = GAMES) -> dict[str, Any]:
    """State bytes of ``games`` games (4 and 12 players) and the RSS growth of building and playing them."""
    out = {}
    for players in (4, 12):
        before = rss_kb()
        run = BatchRun("trade_barter", players, games)
        run(0.5)
        out[f"trade_barter {players}p"] = {"state_bytes": run.engine.nbytes(),
                                           "key_table_bytes": run.engine.keys.nbytes,
                                           "rss_growth_kb": rss_kb() - before}
    return out


# ---------------------------------------------------------------- training
def _config() -> dict[str, Any]:
    from training.config import load_config

    return load_config(Path(__file__).resolve().parent.parent / "configs" / "train" / "foster_trade_barter.yaml")


def _ppo(venv: Any, config: dict[str, Any], n_envs: int):
    import torch.nn as nn
    from sb3_contrib import MaskablePPO

    arch = list(config["policy"]["net_arch"])
    ppo = dict(config["ppo"], n_steps=max(8, ROLLOUT // n_envs))
    return MaskablePPO("MlpPolicy", venv, seed=0, device="cpu", verbose=0,
                       policy_kwargs=dict(net_arch=dict(pi=arch, vf=arch), activation_fn=nn.Tanh), **ppo)


def recorded_steps(features: list[str], steps: int = 8192, n_envs: int = 64) -> dict[str, np.ndarray]:
    """Real observations, masks, rewards and ends of the Foster env (random legal learner moves),
    for the zero-cost env to replay: the learner then sees the data it would see, at no cost.
    (Constant zero observations and rewards would not do: torch's backward pass slows down
    tenfold on the denormal numbers they lead to.)"""
    env = _batch_env(n_envs, features)
    rng = np.random.default_rng(0)
    obs, masks, rewards, dones = [env.reset()], [], [], []
    for _ in range(steps // n_envs):
        mask = env.action_masks()
        masks.append(mask)
        o, r, d, _ = env.step((rng.random(mask.shape) * mask).argmax(axis=1))
        obs.append(o)
        rewards.append(r)
        dones.append(d)
    return {"obs": np.concatenate(obs[:-1]), "masks": np.concatenate(masks), "rewards": np.concatenate(rewards),
            "dones": np.concatenate(dones)}


class ZeroCostVecEnv:
    """A VecEnv whose steps cost nothing: it replays :func:`recorded_steps` (same spaces, same data)."""

    def __new__(cls, n_envs: int, recorded: dict[str, np.ndarray]):
        from gymnasium import spaces
        from stable_baselines3.common.vec_env.base_vec_env import VecEnv

        size = recorded["obs"].shape[1]
        total = len(recorded["obs"]) // n_envs * n_envs

        class _ZeroCost(VecEnv):
            def __init__(self):
                self.render_mode = None
                super().__init__(n_envs, spaces.Box(-np.inf, np.inf, (size,), np.float32), spaces.Discrete(27))
                self.t = 0

            def _rows(self) -> slice:
                start = (self.t * n_envs) % total
                return slice(start, start + n_envs)

            def reset(self):
                self.t = 0
                return recorded["obs"][self._rows()]

            def step_async(self, actions):
                pass

            def step_wait(self):
                rows = self._rows()
                rewards, dones = recorded["rewards"][rows], recorded["dones"][rows]
                self.t += 1
                obs = recorded["obs"][self._rows()]
                infos = [{"terminal_observation": obs[i]} if d else {} for i, d in enumerate(dones)]
                return obs, rewards, dones, infos

            def close(self):
                pass

            def get_attr(self, name, indices=None):
                return [getattr(self, name)] * self.num_envs

            def set_attr(self, name, value, indices=None):
                setattr(self, name, value)

            def env_method(self, name, *args, indices=None, **kwargs):
                if name == "action_masks":
                    return list(self.action_masks())
                return [getattr(self, name)(*args, **kwargs)] * self.num_envs

            def env_is_wrapped(self, wrapper_class, indices=None):
                return [False] * self.num_envs

            def action_masks(self):
                return recorded["masks"][self._rows()]

        return _ZeroCost()


def _batch_env(n_envs: int, features: list[str]):
    from agents.batched import batched_agent
    from training.vec_env import make_vec_env

    return make_vec_env("trade_barter", 4, n_envs, opponents=["greedy"], seed=0, resolver=batched_agent,
                        features=features, preset="foster")


def training_figures(n_envs_list=(4, 64, 256), repeats: int = 2, seconds: float = 8.0) -> dict[str, Any]:
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(1)
    config = _config()
    features = list(config["env"]["features"])
    recorded = recorded_steps(features)
    models = {"dummy x4 (today)": _ppo(DummyVecEnv([_foster_env("greedy", features)] * 4), config, 4)}
    for n in n_envs_list:
        models[f"batch x{n}"] = _ppo(_batch_env(n, features), config, n)
        models[f"zero-cost x{n}"] = _ppo(ZeroCostVecEnv(n, recorded), config, n)
    runs = {name: _runner(model) for name, model in models.items()}
    series = interleaved(runs, repeats, seconds)
    rates = {k: s.median for k, s in series.items()}
    cpu = {k: s.cpu_median for k, s in series.items()}
    out: dict[str, Any] = {"rates": rates, "per_cpu_second": cpu, "rollout": ROLLOUT, "ppo": dict(config["ppo"]),
                           "features": features, "ratios": {}, "cpu_ratios": {}}
    for n in n_envs_list:
        for peer in ("dummy x4 (today)", f"zero-cost x{n}"):
            out["ratios"][f"batch x{n} / {peer}"] = paired_ratio(series[f"batch x{n}"], series[peer])
            out["cpu_ratios"][f"batch x{n} / {peer}"] = cpu[f"batch x{n}"] / cpu[peer]
    return out


def profile_training(n_envs: int, seconds: float = 20.0, top: int = 25) -> str:
    """cProfile of batched training at ``n_envs``: the top functions by own time, and the split."""
    import cProfile
    import io
    import pstats

    import torch

    torch.set_num_threads(1)
    config = _config()
    model = _ppo(_batch_env(n_envs, list(config["env"]["features"])), config, n_envs)
    run = _runner(model)
    profiler = cProfile.Profile()
    profiler.enable()
    steps = run(seconds)
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = max(v[3] for v in stats.stats.values())  # the outermost call's cumulative time

    def cumulative(filename_part: str, function: str) -> float:
        return sum(v[3] for (f, _, name), v in stats.stats.items() if name == function and filename_part in f)

    update = cumulative("ppo_mask", "train")
    rollout = cumulative("ppo_mask", "collect_rollouts")
    env = cumulative("commerce_env/vector", "step_wait") + cumulative("commerce_env/vector", "reset")
    stream = io.StringIO()
    stream.write(f"batched training, n_envs={n_envs}: {steps} steps in {seconds:.0f}s of profiling\n")
    for name, value in (("PPO update (MaskablePPO.train)", update),
                        ("rollout: policy forward passes, buffer", rollout - env),
                        ("rollout: the vector env (engine, opponents, features)", env),
                        ("other", total - update - rollout)):
        stream.write(f"  {name:<56} {100 * value / total:5.1f}%\n")
    stream.write("\n")
    pstats.Stats(profiler, stream=stream).sort_stats("tottime").print_stats(top)
    return stream.getvalue()


# -------------------------------------------------------------------- rows
def benchmark_rows(Row, repeats: int = 3, seconds: float = 2.0) -> list:  # noqa: N803 - a class passed in
    """Rows for ``python -m benchmarks`` (its ``vector`` section)."""
    e = engine_figures(repeats, seconds)
    cpu, ratios = e["per_cpu_second"], e["ratios"]
    rows = []
    peer = e.get("openspiel_peer")
    for variant in VARIANTS:
        target = SPEED_TARGETS.get(variant, SPEED_TARGET)
        rows.append(Row("vector", f"batched engine {variant} 4p x{GAMES}, random play", cpu[f"batch/{variant}"],
                        "decisions/CPU-s", f"readable engine {variant}", cpu[f"readable/{variant}"],
                        ratios[f"batch/readable {variant}"], cpu[f"batch/{variant}"], f">= {target:,.0f}/s",
                        cpu[f"batch/{variant}"] >= target))
        if peer:
            ratio = ratios[f"batch {variant} / openspiel leduc"]
            rows.append(Row("vector", f"batched engine {variant} vs OpenSpiel", cpu[f"batch/{variant}"],
                            "decisions/CPU-s", f"OpenSpiel leduc_poker ({peer.split('/')[1]})", cpu[peer], ratio,
                            target=f">= {PEER_TARGETS[variant]:g}x" if variant in PEER_TARGETS else "",
                            met=ratio >= PEER_TARGETS[variant] if variant in PEER_TARGETS else None))
    rows.append(Row("vector", "batched engine trade_barter through step()", cpu["batch_api/trade_barter"],
                    "decisions/CPU-s", "compiled loop", cpu["batch/trade_barter"],
                    cpu["batch_api/trade_barter"] / cpu["batch/trade_barter"]))
    memory = memory_figures()
    for name, m in memory.items():
        megabytes = (m["state_bytes"] + m["key_table_bytes"]) / 1e6
        rows.append(Row("vector", f"memory: {GAMES} games {name}", megabytes, "MB (state + key table)",
                        note=f"RSS growth {m['rss_growth_kb'] / 1024:.1f} MB", target="< 50 MB", met=megabytes < 50))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0, help="per engine run (training runs: 4x)")
    parser.add_argument("--skip-training", action="store_true")
    parser.add_argument("--only-training", action="store_true")
    parser.add_argument("--profile", type=int, metavar="N_ENVS", help="profile batched training at N_ENVS")
    parser.add_argument("--out", default="benchmarks/results/vector.json")
    args = parser.parse_args()
    if args.profile:
        print(profile_training(args.profile))
        return
    result: dict[str, Any] = {}
    if not args.only_training:
        result = {"memory": memory_figures(), "engine": engine_figures(args.repeats, args.seconds)}
    for name, rate in result.get("engine", {}).get("per_cpu_second", {}).items():
        print(f"{name:<36}{rate:>14,.0f} /CPU-s")
    for name, ratio in result.get("engine", {}).get("ratios", {}).items():
        print(f"{name:<44}{ratio:>8.2f}x")
    for name, m in result.get("memory", {}).items():
        print(f"memory {name}: state {m['state_bytes'] / 1e6:.2f} MB + key table {m['key_table_bytes'] / 1e6:.2f} MB;"
              f" RSS growth {m['rss_growth_kb'] / 1024:.1f} MB")
    if not args.skip_training:
        result["training"] = training_figures(repeats=max(2, args.repeats - 1), seconds=4 * args.seconds)
        t = result["training"]
        for name, rate in t["rates"].items():
            print(f"{name:<24}{rate:>10,.0f} env-steps/s {t['per_cpu_second'][name]:>10,.0f} /CPU-s")
        for name, ratio in t["ratios"].items():
            print(f"{name:<40}{ratio:>8.2f}x (paired, wall) {t['cpu_ratios'][name]:>6.2f}x (CPU)")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, default=float) + "\n")
    print(f"written to {out}")


if __name__ == "__main__":
    main()

