"""``commerce train``, ``commerce demo`` and ``commerce export`` (registered by :mod:`training.cli`)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import TrainConfig
    from .rllib_config import RLlibConfig

CONFIG_DIR = Path(__file__).resolve().parent.parent / "configs" / "train"


class HELP_FORMAT(argparse.ArgumentDefaultsHelpFormatter):  # noqa: N801 - argparse's formatter_class
    """Defaults shown, but not for flags (``--force (default: False)`` says nothing)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if isinstance(action, argparse._StoreTrueAction) or action.default is None:
            return action.help or ""
        return super()._get_help_string(action)


def positive_int(text: str) -> int:
    """An argparse type: a whole number >= 1 (``--steps 0`` is refused, not ignored)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def positive_minutes(text: str) -> float:
    """An argparse type: minutes > 0 (``--minutes 0`` is refused, not ignored)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of minutes > 0, got {text!r}")
    return value


def allowed_modules(args: argparse.Namespace) -> list[str]:
    """The modules ``--allow-module`` lets the config name agents of (imported from the current folder)."""
    return list(args.allow_module)


def add_allow_module(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--allow-module", action="append", default=[], metavar="MODULE",
                        help="let the config name agents of this Python module of yours (module:attribute, e.g. "
                        "my_agents:MyAgent in opponents.pool), imported from the current folder or PYTHONPATH; "
                        "repeatable. A config alone never imports a module")


def _train(args: argparse.Namespace) -> int:
    from .config import load_config

    overrides: dict = {}
    if args.output is not None:
        overrides["output"] = args.output
    if args.steps is not None:
        overrides["training"] = {"total_timesteps": args.steps}
    if args.minutes is not None:
        overrides.setdefault("training", {})["time_limit_minutes"] = args.minutes
    if args.no_progress:
        overrides.setdefault("training", {})["progress_bar"] = False
    if args.seed is not None:
        overrides["seed"] = args.seed
    config = None
    try:
        config = load_config(args.config, overrides, allowed_modules(args))
        if config.backend == "rllib":
            from .rllib_train import train as train_rllib

            report = train_rllib(config, resume=args.resume, force=args.force)
        else:
            from .train import train

            report = train(config, resume=args.resume, force=args.force)
    except ValueError as error:
        print(f"commerce train: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        if config is not None:
            stop.stop_notes = stopped_notes(stop, config, f"commerce train --config {shlex.quote(args.config)}"
                                            + (f" --output {shlex.quote(args.output)}" if args.output else ""))
        raise
    print(next_steps(config))
    if isinstance(report, dict) and report.get("verdict"):  # the last words: what the evaluation showed
        print("\n" + report["verdict"])
    return 0


def stopped_notes(stop: KeyboardInterrupt, config: TrainConfig | RLlibConfig, command: str) -> list[str]:
    """What a stopped run saved, and how to go on from it."""
    out = Path(config.output)
    steps = getattr(stop, "checkpoint_steps", None)
    expert = getattr(config, "expert_iteration", None)
    if expert is not None and expert.rounds > 0:  # training.expert_iteration: every finished part is kept
        return [f"the rounds' finished parts, fits and measures are saved in {out / 'rounds'}",
                f"go on with: {command} --resume"]
    if steps is None:
        return ["no checkpoint was written at the stop" + (f"; the last one is in {out / 'checkpoints'}"
                                                            if (out / "checkpoints").is_dir() else "")]
    return [f"a checkpoint at {steps:,} steps is saved in {out / 'checkpoints'}",
            f"go on with: {command} --resume", f"or export it: commerce export --run {out} --out <folder>"]


def next_steps(config: TrainConfig | RLlibConfig) -> str:
    """Where a finished run put its model, report and curves, and the commands that use them."""
    out = Path(config.output)
    env = config.env
    model = f"model:{out / 'model'}"
    table = f"--variant {env['variant']} --players {env['num_players']}" + "".join(
        f" --option {key}={shlex.quote(json.dumps(value) if not isinstance(value, str) else value)}"
        for key, value in env.rules.items())
    found = [f"report: {out / 'report.txt'}"] if (out / "report.txt").exists() else []
    found += [f"learning curves: tensorboard --logdir {out / 'tb'}"] if (out / "tb").is_dir() else []
    return "\n".join([
        f"Model (safe format): {out / 'model'}",
        *(["; ".join(found)] if found else []),
        "Next:",
        f"  commerce play {table} --opponents {model}",
        f"  commerce arena {table} --agents {model},greedy,search",
    ])


def _demo(args: argparse.Namespace) -> int:
    from .config import load_config
    from .train import train

    overrides = {"output": args.output, "training": {"time_limit_minutes": args.minutes}}
    config = None
    try:
        config = load_config(args.config, overrides, allowed_modules(args))
        out = Path(config.output)
        print(f"Training a MaskablePPO agent on {config.env.variant} ({config.env.num_players} players) against "
              f"{', '.join(map(str, config.opponents.pool))} for up to {args.minutes:g} minutes; "
              f"TensorBoard logs in {out / 'tb'}")
        report = train(config, force=args.force)
    except ValueError as error:
        print(f"commerce demo: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        if config is not None:
            stop.stop_notes = stopped_notes(stop, config, f"commerce train --config {shlex.quote(args.config)} "
                                            f"--output {shlex.quote(args.output)}")
        raise
    print("\n" + next_steps(config))
    if isinstance(report, dict) and report.get("verdict"):  # the last words: what the evaluation showed
        print("\n" + report["verdict"])
    return 0


def _export(args: argparse.Namespace) -> int:
    """Checkpoint zip (our own run: trusted) -> safe model folder."""
    from .config import validate

    run = Path(args.run)
    checkpoint = Path(args.checkpoint) if args.checkpoint else run / "checkpoints" / "last.zip"
    try:
        out = Path(args.out)
        if out.exists() and (not out.is_dir() or any(out.iterdir())) and not args.force:
            raise ValueError(f"--out {out} exists and is not empty; give a new folder, or --force to replace the "
                             "model in it (a folder holding anything but a model is never touched)")
        import yaml

        config = validate(yaml.safe_load((run / "config.yaml").read_text()), str(run / "config.yaml"),
                          allowed_modules(args))
        if config.backend == "rllib":  # RLlib's checkpoint folder (training/rllib_train.py)
            from .rllib_train import export_checkpoint

            folder, steps = export_checkpoint(run, config, args.out)
            print(json.dumps({"model": str(folder), "steps": steps}))
            return 0
        if not checkpoint.is_file():
            raise ValueError(f"no checkpoint at {checkpoint}")
    except (OSError, ValueError) as error:
        print(f"commerce export: {error}", file=sys.stderr)
        return 2
    from sb3_contrib import MaskablePPO

    from .train import export_model

    model = MaskablePPO.load(str(checkpoint), device="cpu")
    try:
        folder = export_model(model, config.env, config.name, args.out, search=config.policy.search)
    except ValueError as error:
        print(f"commerce export: {error}", file=sys.stderr)
        return 2
    print(json.dumps({"model": str(folder), "steps": int(model.num_timesteps)}))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("train", formatter_class=HELP_FORMAT,
                              help="train from a YAML config (configs/train/): MaskablePPO, or RLlib "
                              "self-play with backend: rllib")
    p.add_argument("--config", required=True, help="training config YAML")
    p.add_argument("--resume", action="store_true", help="continue the run from its last checkpoint")
    p.add_argument("--output", help="run folder (overrides the config's output)")
    p.add_argument("--steps", type=positive_int, help="total env steps (overrides training.total_timesteps)")
    p.add_argument("--minutes", type=positive_minutes,
                   help="wall-clock budget (overrides training.time_limit_minutes)")
    p.add_argument("--seed", type=int, help="the run's seed (overrides the config's seed): one config, several "
                   "training seeds")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--force", action="store_true", help="replace a previous run in the output folder (removes "
                   "only the files that run wrote)")
    add_allow_module(p)
    p.set_defaults(func=_train)

    p = subparsers.add_parser("demo", formatter_class=HELP_FORMAT,
                              help="train a small agent for a few minutes, then evaluate it in the arena")
    p.add_argument("--minutes", type=positive_minutes, default=3.0, help="training wall-clock budget")
    p.add_argument("--config", default=str(CONFIG_DIR / "demo.yaml"), help="the demo's training config")
    p.add_argument("--output", default="runs/demo", help="run folder")
    p.add_argument("--force", action="store_true", help="replace a previous demo in the output folder (removes "
                   "only the files that run wrote; `make demo` passes it)")
    add_allow_module(p)
    p.set_defaults(func=_demo)

    p = subparsers.add_parser("export", formatter_class=HELP_FORMAT,
                              help="export a run's checkpoint as a safe model (no pickle)")
    p.add_argument("--run", required=True, help="the run folder (holds config.yaml and checkpoints/)")
    p.add_argument("--checkpoint", help="a checkpoint zip of that run (default: checkpoints/last.zip)")
    p.add_argument("--out", required=True, help="a new folder for model.json and the weights")
    p.add_argument("--force", action="store_true", help="replace the model already in --out (a folder holding "
                   "anything else is refused)")
    add_allow_module(p)
    p.set_defaults(func=_export)
