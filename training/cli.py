"""The ``commerce`` command.

Subcommands are registered by the modules that own them: each module listed
in :data:`COMMAND_MODULES` has ``register(subparsers)`` adding its parsers
with ``set_defaults(func=...)``; ``func(args)`` returns the exit code.
Modules are imported lazily so that ``commerce --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys

# module -> the subcommands it provides (kept here so --help needs no imports)
COMMAND_MODULES = {
    "agents.cli": ("play", "arena"),
    "training.commands": ("train", "demo", "export"),
    "benchmarks.__main__": ("bench",),
    "commerce_web.commands": ("replay", "serve"),
}


def random_deal(args: argparse.Namespace) -> int:
    """Play and print one deal between random players."""
    import commerce_env

    env = commerce_env.env(variant=args.variant, num_players=args.players, render_mode="ansi")
    env.reset(seed=args.seed)
    rng = random.Random(args.seed)
    print(env.render())
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        legal = [i for i, ok in enumerate(observation["action_mask"]) if ok]
        action = rng.choice(legal)
        print(f"{agent}: {env.unwrapped.decode_action(action)}")
        env.step(action)
    print(env.render())
    return 0


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="commerce", description="Commerce RL: play, train, evaluate.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("random-deal", help="play and print one deal between random players")
    p.add_argument("--variant", default="trade_barter")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=random_deal)
    wanted = (argv or [None])[0]
    for module_name, commands in COMMAND_MODULES.items():
        if wanted is not None and wanted not in commands and wanted not in ("-h", "--help"):
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name and module_name.startswith(error.name):
                continue  # that part of the project is not there yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(argv).parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
