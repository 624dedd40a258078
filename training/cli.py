"""The ``commerce`` command.

Subcommands are registered by the packages that own them, through the
``commerce_rl.commands`` entry points: each names a ``register(subparsers)``
adding its parsers with ``set_defaults(func=...)``; ``func(args)`` returns the
exit code.  Only the module of the command given is imported, so that
``commerce --help`` stays fast; every other command still appears in the
parser (from :data:`COMMAND_HELP`), so usage and errors list them all.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from commerce_env.rules import DEFAULT_PLAYERS, DEFAULT_VARIANT

# The subcommands come from the `commerce_rl.commands` entry points (pyproject.toml): each package
# registers its own, so this module imports none of the packages beside or above it.
COMMANDS_GROUP = "commerce_rl.commands"
COMMAND_HELP = {
    "play": "play in the terminal against agents",
    "arena": "agents against each other on duplicate deals",
    "train": "train MaskablePPO from a YAML config (configs/train/)",
    "demo": "train a small agent for a few minutes, then evaluate it in the arena",
    "export": "export a run's checkpoint as a safe model (no pickle)",
    "exploit": "how much a learned best response gains against an agent (exploitability, a lower bound)",
    "bench": "speed and memory beside PettingZoo / RLCard peers (needs the bench extra)",
    "replay": "draw a saved game (commerce arena --save-games) as a GIF or MP4",
    "serve": "the web table: play in the browser against agents and models, watch replays",
}


def command_entry_points() -> dict[str, Any]:
    """The subcommands installed packages offer, by name, in the order of :data:`COMMAND_HELP`."""
    from importlib.metadata import entry_points

    found = {entry.name: entry for entry in entry_points(group=COMMANDS_GROUP)}
    return {name: found[name] for name in sorted(found, key=lambda n: (list(COMMAND_HELP).index(n)
                                                                     if n in COMMAND_HELP else len(COMMAND_HELP), n))}


def version() -> str:
    """The installed distribution's version (``pyproject.toml``), or the package's own when not installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("commerce-rl")
    except PackageNotFoundError:
        import commerce_env

        return f"{commerce_env.__version__} (not installed)"


def random_deal(args: argparse.Namespace) -> int:
    """Play and print one deal between random players."""
    import commerce_env

    try:
        env = commerce_env.env(variant=args.variant, num_players=args.players, render_mode="ansi", deals=1)
        env.reset(seed=args.seed)
    except (TypeError, ValueError) as error:
        print(f"commerce random-deal: {error}", file=sys.stderr)
        return 2
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


def seed_type(text: str) -> int:
    """An argparse type: a seed from 0 to 2**32 - 1."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"expected a whole number from 0 to {2**32 - 1}, got {text!r}")
    return value


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="commerce", description="Commerce RL: play, train, evaluate.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    from commerce_env.rules import VARIANTS

    p = sub.add_parser("random-deal", help="play and print one deal between random players",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--variant", default=DEFAULT_VARIANT, choices=VARIANTS, help="the game")
    p.add_argument("--players", type=int, default=DEFAULT_PLAYERS, help="number of players")
    p.add_argument("--seed", type=seed_type, default=0, help="the deal's seed")
    p.set_defaults(func=random_deal)
    wanted = (argv or [None])[0]
    entries = command_entry_points()
    if wanted in entries:  # its module registers all of its commands (agents.cli: play and arena)
        try:
            register = entries[wanted].load()
        except ModuleNotFoundError as error:  # its extra is not installed: listed below, refused by its stub
            if not (error.name and entries[wanted].module.startswith(error.name)):
                raise
        else:
            register(sub)
    for name in entries:  # the others: listed in usage, help and errors; built only when asked for
        if name not in sub.choices:
            sub.add_parser(name, help=COMMAND_HELP.get(name, ""), add_help=False)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, as Ctrl-C raises KeyboardInterrupt: one way to stop cleanly."""


def _terminate(signum: int, frame: Any) -> None:
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand.  Ctrl-C (SIGINT) and SIGTERM stop it cleanly: the command saves what it
    has (it notes what in the exception's ``stop_notes``), one or two lines say so, and the exit
    status is 130 or 143, without a traceback."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # the subcommand's own error, with its usage (argparse would show the top-level one)
        subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        subparsers.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    import signal
    import threading

    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return args.func(args)
    except KeyboardInterrupt as stop:
        how = "SIGTERM" if isinstance(stop, Terminated) else "Ctrl-C"
        notes = getattr(stop, "stop_notes", None) or ["nothing was saved"]
        print(f"\ncommerce {args.command}: stopped ({how}); " + notes[0], file=sys.stderr)
        for note in notes[1:]:
            print(f"  {note}", file=sys.stderr)
        return 143 if isinstance(stop, Terminated) else 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
