"""Reference results for RL algorithms on Commerce: ``python -m benchmarks.algorithms``.

For each algorithm x variant (4 players, R12 defaults) x seed, one training run
of the same env-step budget; the policy is saved every tenth of the budget and
measured at each checkpoint on the same fixed duplicate deals against the
reference panel (``random``, ``greedy``, ``expected_value``, ``search``), one
seat against three copies of each.  Every run is cached: its curve (one JSON
line per measured checkpoint) and its record are in
``benchmarks/results/algorithms/<algorithm>/<variant>/seed_<k>/``, so the table
builds across many invocations and a finished run is never trained again.
``--report`` turns what is cached into the table (interquartile means with
stratified-bootstrap intervals across seeds and variants, from ``rliable``)
and the curves (``docs/benchmark/algorithms_<variant>.png``).

Adding an algorithm is one function (docs/algorithms.md): ``train(run)`` trains
for ``run.budget`` env steps and calls ``run.checkpoint(steps, network)`` every
``run.every`` steps with its policy network (a torch ``Sequential`` on the
observation, as ``agents.save_policy`` takes).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from commerce_env.rules import VARIANTS

from .algorithms_report import LEVELS

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "algorithms"
PANEL = ("random", "greedy", "expected_value", "search")
NUM_PLAYERS = 4
OPPONENTS = ["greedy"]  # every learner trains against copies of greedy in the other seats
FEATURES = ["hand_strength"]
EVAL_SEED = 424242  # the same duplicate deals for every algorithm, seed and checkpoint
# non-learning agents measured on the curves' deals: greedy against random (the unit of the normalised
# scores), search and IS-MCTS against the curves' levels (horizontal lines beside the curves)
REFERENCES = ("greedy", "search", "openspiel:ismcts")
# The published table's budget and measure: 5 algorithms x 5 variants x 3 seeds at 2,000,000 steps is
# about 25 core-hours with the measures (NFSP and RLlib's PPO the most); at 5,000,000, over 80.
BUDGET = 2_000_000
DEALS = 200


STATE_NOTE = "steps"  # in a run's state folder, written last: the checkpoint the state is of


def state_folder(folder: Path) -> Path:
    """Where the run in ``folder`` keeps the state it resumes from."""
    return folder / "resume"


def state_note(steps: int, budget: int) -> str:
    return f"{steps} of {budget}"


@dataclass
class Run:
    """One training run as an algorithm sees it."""

    algorithm: str
    variant: str
    seed: int
    budget: int
    every: int
    folder: Path  # scratch space for the algorithm (models, logs); not committed
    checkpoint: Callable[[int, Any], None]
    start: int = 0
    """steps already trained and measured: a run stopped midway goes on from its state (:meth:`save_state`)"""

    @property
    def state(self) -> Path:
        """Where an algorithm that can resume keeps its state (``start`` > 0: restore it from there)."""
        return state_folder(self.folder)

    def save_state(self, steps: int, save: Callable[[Path], Any]) -> None:
        """After the checkpoint at ``steps`` is measured: ``save(folder)`` writes the algorithm's state, then
        the steps are noted, last, so that a state cut off while being written is never read back."""
        import shutil

        shutil.rmtree(self.state, ignore_errors=True)  # the run's own previous state
        save(self.state)
        (self.state / STATE_NOTE).write_text(state_note(steps, self.budget))


# ------------------------------------------------------------------ the algorithms
def single_file_ppo(run: Run) -> None:
    """training/ppo.py with its defaults (those of the shipped MaskablePPO runs)."""
    from training.ppo import Args, train

    train(Args(variant=run.variant, num_players=NUM_PLAYERS, opponents=OPPONENTS, features=FEATURES, seed=run.seed,
               total_timesteps=run.budget, checkpoint_every=run.every, output=str(run.folder), eval_deals=0),
          on_checkpoint=run.checkpoint, quiet=True)


def single_file_dqn(run: Run) -> None:
    """training/dqn.py with its defaults (CleanRL's DQN, its greedy choice and target over legal actions)."""
    from training.dqn import Args, train

    train(Args(variant=run.variant, num_players=NUM_PLAYERS, opponents=OPPONENTS, features=FEATURES, seed=run.seed,
               total_timesteps=run.budget, checkpoint_every=run.every, output=str(run.folder), eval_deals=0),
          on_checkpoint=run.checkpoint, quiet=True)


def openspiel_nfsp(run: Run) -> None:
    """training/nfsp.py: OpenSpiel's NFSP, every seat learning (an env step is any seat's decision), on
    the pyspiel game; seat 0's average policy is measured."""
    from training.nfsp import Args, train

    train(Args(variant=run.variant, num_players=NUM_PLAYERS, seed=run.seed, total_timesteps=run.budget,
               checkpoint_every=run.every, output=str(run.folder), eval_deals=0),
          on_checkpoint=run.checkpoint, quiet=True)


def maskable_model(variant: str, seed: int, *, num_players: int = NUM_PLAYERS, opponents: list[str] = OPPONENTS,
                   features: list[str] = FEATURES, num_envs: int = 128, num_steps: int = 32, batch_size: int = 512,
                   update_epochs: int = 4, hidden: Sequence[int] = (128, 128)) -> tuple[Any, Any]:
    """sb3-contrib's MaskablePPO on the SB3 adapter over the batched engine, one torch thread, with the
    settings of ``training/ppo.py`` (its ``Args`` names; tanh MLPs for actor and critic): the model and
    its env (close it after)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.batched import batched_agent
    from training.vec_env import make_vec_env

    torch.set_num_threads(1)
    env = VecMonitor(make_vec_env(variant=variant, num_players=num_players, num_envs=num_envs, opponents=opponents,
                                  features=features, seed=seed, resolver=batched_agent))
    model = MaskablePPO("MlpPolicy", env, n_steps=num_steps, batch_size=batch_size, n_epochs=update_epochs, gamma=1.0,
                        gae_lambda=0.95, ent_coef=0.01, learning_rate=3e-4, seed=seed, device="cpu", verbose=0,
                        policy_kwargs=dict(net_arch=dict(pi=list(hidden), vf=list(hidden)),
                                           activation_fn=torch.nn.Tanh))
    return model, env


def maskable_actor(model: Any) -> Any:
    """A MaskablePPO model's actor as a torch ``Sequential`` (what ``agents.save_policy`` takes)."""
    import torch

    policy = model.policy
    return torch.nn.Sequential(*policy.mlp_extractor.policy_net, policy.action_net)


def maskable_ppo(run: Run) -> None:
    """sb3-contrib's MaskablePPO on the SB3 adapter over the batched engine, the same settings."""
    from stable_baselines3.common.callbacks import BaseCallback

    model, env = maskable_model(run.variant, run.seed)

    class Every(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.next = run.every

        def _on_rollout_end(self) -> None:
            if self.num_timesteps >= self.next:
                self.next += run.every
                run.checkpoint(self.num_timesteps, maskable_actor(model))

        def _on_step(self) -> bool:
            return True

    model.learn(total_timesteps=run.budget, callback=Every())
    env.close()


def rllib_ppo(run: Run) -> None:
    """RLlib's PPO in self-play (its multi-agent API, a local Ray instance): every seat of an episode is the
    learning policy but for a fifth of the seats, drawn per episode, played by ``greedy``; an env step is
    any seat's decision.  The learning policy is saved at each checkpoint in the safe format."""
    import torch

    from agents.model_files import save_model
    from agents.ray_connect import connect, shutdown
    from training.rllib_config import validate
    from training.rllib_train import algorithm_config, policy_agent, sampled_steps

    config = validate({"backend": "rllib", "name": f"rllib_ppo_{run.variant}", "seed": run.seed,
                       "output": str(run.folder), "env": {"variant": run.variant, "num_players": NUM_PLAYERS,
                                                          "features": FEATURES},
                       "league": {"shared": 0.8, "heuristics": {"greedy": 0.2}},
                       "ray": {"num_cpus": 2, "num_env_runners": 1, "num_envs_per_env_runner": 8},
                       "policy": {"net_arch": [128, 128], "activation": "tanh"}}, "rllib_ppo")
    torch.set_num_threads(config.training.torch_threads)  # as `commerce train`: two threads collapse beside a busy core
    started = connect(None, config.ray.num_cpus)
    try:
        algo = algorithm_config(config).build_algo()
        steps = run.start
        if steps:
            algo.restore_from_path(run.state.resolve())  # its own state (pickled by RLlib), written below
        next_checkpoint = (steps // run.every + 1) * run.every
        while steps < run.budget:
            steps = max(sampled_steps(algo.train()), steps)
            if steps >= next_checkpoint or steps >= run.budget:
                while next_checkpoint <= steps:
                    next_checkpoint += run.every
                _, weights, meta = policy_agent(algo, config, steps)
                run.checkpoint(steps, save_model(run.folder / "checkpoints" / f"step_{steps}", weights, meta))
                run.save_state(steps, lambda folder: algo.save_to_path(folder.resolve()))
        algo.stop()
    finally:
        shutdown(started)


ALGORITHMS: dict[str, Callable[[Run], None]] = {"ppo": single_file_ppo, "maskable_ppo": maskable_ppo,
                                                 "dqn": single_file_dqn, "nfsp": openspiel_nfsp, "rllib_ppo": rllib_ppo}


# ------------------------------------------------------------------ measuring
def measure(model: str, variant: str, deals: int, panel: tuple[str, ...] = PANEL) -> dict[str, Any]:
    """The model's margin over each panel agent per deal, one seat against three, on fixed deals."""
    from agents import evaluate_agent

    margins = {}
    for agent in panel:
        versus = evaluate_agent(model, [agent], variant=variant, num_players=NUM_PLAYERS, deals=deals,
                                seed=EVAL_SEED)["vs"][agent]
        margins[agent] = {"margin": versus["difference"], "ci95": list(versus["ci95"])}
    return margins


def run_reference(agent: str, variant: str, deals: int, results: Path = RESULTS,
                  levels: tuple[str, ...] = LEVELS) -> Path:
    """Measure a non-learning reference (``search``, OpenSpiel's IS-MCTS) against the curves' levels on
    the same deals as the checkpoints, unless cached; its file (a horizontal line in the plots).
    ``greedy`` is measured against ``random``: the unit of the normalised scores."""
    path = results / "references" / variant / f"{agent.replace(':', '_')}.json"
    if path.is_file() and json.loads(path.read_text()).get("deals") == deals:
        return path
    started = time.perf_counter()
    levels = ("random", *levels) if agent == "greedy" else levels
    margins = measure(agent, variant, deals, tuple(level for level in levels if level != agent))
    if agent in levels:  # itself, one seat against three copies: level by symmetry
        margins[agent] = {"margin": 0.0, "ci95": [0.0, 0.0]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"agent": agent, "variant": variant, "deals": deals, "margins": margins,
                                "seconds": round(time.perf_counter() - started, 1)}, indent=2) + "\n")
    return path


def resumable(folder: Path, steps: int, budget: int) -> bool:
    """Whether the run in ``folder`` saved its state at its last measured checkpoint, ``steps`` of ``budget``."""
    noted = state_folder(folder) / STATE_NOTE
    return noted.is_file() and noted.read_text() == state_note(steps, budget)


def run_cell(algorithm: str, variant: str, seed: int, budget: int, deals: int, scratch: Path,
             results: Path = RESULTS, panel: tuple[str, ...] = PANEL) -> Path:
    """Train and measure one (algorithm, variant, seed), unless its record is cached; its folder."""
    from agents import save_policy

    cell = results / algorithm / variant / f"seed_{seed}"
    record = cell / "run.json"
    if record.is_file() and json.loads(record.read_text()).get("budget") == budget:
        return cell
    cell.mkdir(parents=True, exist_ok=True)
    curve = cell / "curve.jsonl"
    folder = scratch / algorithm / variant / f"seed_{seed}"
    points = [json.loads(line) for line in curve.read_text().splitlines()] if curve.is_file() else []
    start = points[-1]["steps"] if points and resumable(folder, points[-1]["steps"], budget) else 0
    if not start:
        curve.write_text("")  # an unfinished run that kept no state is trained again: its points go with it
    clock = {"train": points[-1]["train_seconds"] if start else 0.0, "since": time.perf_counter()}

    def checkpoint(steps: int, network: Any) -> None:
        clock["train"] += time.perf_counter() - clock["since"]
        saved = network if isinstance(network, Path) else save_policy(
            folder / "checkpoints" / f"step_{steps}", network, variant=variant, num_players=NUM_PLAYERS,
            features=FEATURES)
        point = {"steps": int(steps), "train_seconds": round(clock["train"], 1),
                 "margins": measure(f"model:{saved}", variant, deals, panel)}
        with open(curve, "a") as out:
            out.write(json.dumps(point) + "\n")
        clock["since"] = time.perf_counter()

    every = max(budget // 10, 1)
    ALGORITHMS[algorithm](Run(algorithm, variant, seed, budget, every, folder, checkpoint, start))
    clock["train"] += time.perf_counter() - clock["since"]
    measured = curve.read_text().splitlines()
    last = json.loads(measured[-1])["steps"] if measured else 0
    if last <= budget - every:  # a final policy unmeasured would make the table's "final" an earlier one's
        raise RuntimeError(f"{algorithm} {variant} seed {seed}: its last checkpoint is at {last:,} steps of "
                           f"{budget:,}; an algorithm calls run.checkpoint once more at the end of its budget")
    record.write_text(json.dumps({"algorithm": algorithm, "variant": variant, "seed": seed, "budget": budget,
                                  "deals": deals, "panel": list(panel), "opponents": OPPONENTS,
                                  "train_seconds": round(clock["train"], 1)}, indent=2) + "\n")
    return cell


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.algorithms", description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS), help=f"comma separated: {', '.join(ALGORITHMS)}")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma separated (default: all five)")
    parser.add_argument("--seeds", type=int, default=3, help="training seeds per cell (default 3)")
    parser.add_argument("--budget", type=int, default=BUDGET, help=f"env steps per run (default {BUDGET:,})")
    parser.add_argument("--deals", type=int, default=DEALS, help=f"duplicate deals per measure (default {DEALS})")
    parser.add_argument("--scratch", default="runs/algorithms", help="models and logs (not kept with the results)")
    parser.add_argument("--quick", action="store_true", help="a smoke test: a tiny budget, few deals, results in "
                        "the scratch folder only")
    parser.add_argument("--report", action="store_true", help="only make the table and curves from the cache")
    parser.add_argument("--references", nargs="?", const=",".join(REFERENCES), default="", metavar="NAMES",
                        help=f"also measure the non-learning references (comma separated; alone: "
                        f"{', '.join(REFERENCES)}) on the same deals, cached: the curves' horizontal lines")
    parser.add_argument("--exploit", action="store_true", help="also measure a search best response against each "
                        "cached run's final policy (its first seed; benchmarks/algorithms_exploit.py), cached")
    parser.add_argument("--first-seed", type=int, default=0, help="the first training seed (default 0; a sweep's "
                        "seeds start at 100 and stay out of the table)")
    args = parser.parse_args(argv)
    algorithms = [a for a in args.algorithms.split(",") if a]
    variants = [v for v in args.variants.split(",") if v]
    references = [r for r in args.references.split(",") if r]
    for name, given, known in (("algorithm", algorithms, ALGORITHMS), ("variant", variants, VARIANTS),
                               ("reference", references, REFERENCES)):
        unknown = [x for x in given if x not in known]
        if unknown:
            parser.error(f"unknown {name} {unknown[0]!r}; choose from {', '.join(known)}")
    if args.seeds < 1:
        parser.error(f"bad value {args.seeds} for --seeds; expected a whole number of at least 1")
    if args.first_seed < 0:
        parser.error(f"bad value {args.first_seed} for --first-seed; expected a whole number of at least 0")
    results, panel = RESULTS, PANEL
    if args.quick:
        args.budget, args.deals, args.seeds = 8_192, 8, 1
        results, panel = Path(args.scratch) / "quick_results", ("random", "greedy")
    if args.quick and not references:
        references = ["greedy"]  # the unit of the normalised scores, so that the smoke run ends with them
    if not args.report:
        levels = tuple(level for level in LEVELS if level in panel)
        for variant in variants:
            for agent in references:
                print(f"{agent} {variant}: {run_reference(agent, variant, args.deals, results, levels)}", flush=True)
    if not args.report:
        for variant in variants:
            for algorithm in algorithms:
                for seed in range(args.first_seed, args.first_seed + args.seeds):
                    started = time.perf_counter()
                    cell = run_cell(algorithm, variant, seed, args.budget, args.deals, Path(args.scratch), results,
                                    panel)
                    print(f"{algorithm} {variant} seed {seed}: {cell} ({time.perf_counter() - started:.0f} s)",
                          flush=True)
    if args.exploit:
        from .algorithms_exploit import DEALS as EXPLOIT_DEALS
        from .algorithms_exploit import exploit_cell

        for variant in variants:
            for algorithm in algorithms:
                cell = results / algorithm / variant / f"seed_{args.first_seed}"
                if (cell / "run.json").is_file():
                    found = exploit_cell(cell, Path(args.scratch), deals=8 if args.quick else EXPLOIT_DEALS)
                    print(f"{algorithm} {variant}: a search best response gains "
                          + ("nothing measured: the run's checkpoints are not in the scratch folder" if found is None
                             else f"{found['margin']:+.3f} [{found['ci95'][0]:+.3f}, {found['ci95'][1]:+.3f}]"),
                          flush=True)
    from .algorithms_report import publish, report

    print("\n".join(report(results, algorithms, variants)))
    if not args.quick:  # the page is the whole cache's, whichever cells this run chose
        publish(results, list(ALGORITHMS), list(VARIANTS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
