"""What the single-file trainers (:mod:`training.ppo`, :mod:`training.dqn`, :mod:`training.nfsp`) share
outside their loop: the table a vector-env learner plays at, flags from their ``Args`` dataclass, the
run's record, and the closing evaluation."""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from commerce_env.rules import DEFAULT_PLAYERS, DEFAULT_VARIANT


@dataclass
class TableArgs:
    """The ``Args`` a learner on the Gymnasium vector env begins with (:mod:`training.ppo`,
    :mod:`training.dqn`): the game, the other seats, the budget and the games played at once."""

    variant: str = DEFAULT_VARIANT
    """the game"""
    num_players: int = DEFAULT_PLAYERS
    """players at the table"""
    opponents: list[str] = field(default_factory=lambda: ["greedy"])
    """batched agents in the other seats: random, greedy, model:<folder>"""
    features: list[str] = field(default_factory=lambda: ["hand_strength"])
    """extra observation features (docs/training.md)"""
    seed: int = 0
    """the seed of the envs, the network and the draws"""
    total_timesteps: int = 2_000_000
    """env steps (the learner's decisions) in all"""
    num_envs: int = 64
    """games played at once"""


def make_envs(args: TableArgs):
    """``args.num_envs`` games in one batched engine, the learner in one rotating seat."""
    import gymnasium

    import commerce_env  # noqa: F401 - registers commerce/Commerce-v0

    return gymnasium.make_vec("commerce/Commerce-v0", num_envs=args.num_envs, variant=args.variant,
                              num_players=args.num_players, opponents=list(args.opponents),
                              features=list(args.features))


def parse_fields(cls: type, prog: str, description: str, argv: list[str] | None = None) -> Any:
    """An instance of the dataclass ``cls`` from the command line: one ``--flag`` per field
    (booleans as ``--x/--no-x``, lists comma separated)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    for item in dataclasses.fields(cls):
        default = item.default_factory() if item.default_factory is not dataclasses.MISSING else item.default
        flag = "--" + item.name.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default)
        elif isinstance(default, list):
            kind = int if default and isinstance(default[0], int) else str
            parser.add_argument(flag, default=default, metavar="A,B",
                                type=lambda text, kind=kind: [kind(x) for x in text.split(",") if x])
        else:
            parser.add_argument(flag, type=type(default), default=default)
    return cls(**vars(parser.parse_args(argv)))


def write_run_record(out: Path, args: Any, steps: int, started: float) -> None:
    """``<out>/run.json``: the run's ``Args``, the steps it took and its seconds since ``started``
    (a ``time.perf_counter()`` reading)."""
    (out / "run.json").write_text(json.dumps({"args": dataclasses.asdict(args), "steps": steps,
                                              "seconds": time.perf_counter() - started}, indent=2) + "\n")


def report_model(folder: Path, variant: str, num_players: int, opponents: list[str], deals: int) -> None:
    """Print the saved model's margin per deal over each opponent, one seat against three, on duplicate deals."""
    from agents import evaluate_agent

    print(f"model: {folder} (plays as model:{folder})")
    if not deals:
        return
    for opponent in dict.fromkeys(opponents):
        versus = evaluate_agent(f"model:{folder}", [opponent], variant=variant, num_players=num_players,
                                deals=deals, seed=2026)["vs"][opponent]
        low, high = versus["ci95"]
        print(f"against {opponent}: {versus['difference']:+.3f} per deal [{low:+.3f}, {high:+.3f}] (95%)")
