"""The ``commerce`` command: ``commerce demo`` and more subcommands as they land."""

from __future__ import annotations

import argparse
import random
import sys


def demo(args: argparse.Namespace) -> int:
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="commerce", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="play a deal between random players")
    p.add_argument("--variant", default="trade_barter")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=demo)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
