"""What the single-file trainers (:mod:`training.ppo`, :mod:`training.dqn`, :mod:`training.nfsp`) share
outside their loop: flags from their ``Args`` dataclass, the run's record, and the closing evaluation."""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path
from typing import Any


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
