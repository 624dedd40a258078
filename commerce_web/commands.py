"""``commerce replay`` (a saved game as a GIF) and ``commerce serve`` (the web app)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DEFAULT_PORT = 8765
PICTURE_SUFFIXES = (".gif", ".mp4")  # what commerce_env.frames.save_animation writes


def register(subparsers: argparse._SubParsersAction) -> None:
    replay = subparsers.add_parser("replay", help="draw a saved game (commerce arena --save-games) as a GIF or MP4")
    replay.add_argument("file", help="a replay file: JSON lines, one game per line")
    replay.add_argument("--game", type=int, default=1, help="which game of the file, from 1 (default 1)")
    replay.add_argument("--out", required=True, help="the picture to write: game.gif (or .mp4 with imageio-ffmpeg)")
    replay.add_argument("--seat", type=int, default=None,
                        help="draw what one seat saw (R11); default: everything, every hand face up")
    replay.add_argument("--seconds", type=float, default=1.2, help="seconds per action (default 1.2)")
    replay.set_defaults(func=replay_command)

    serve = subparsers.add_parser("serve", help="play against agents and watch replays in the browser")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: local "
                       "connections only); the server answers only requests addressed to this address or localhost")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    serve.add_argument("--models", default="models", metavar="DIR",
                       help="the models the page offers as opponents: each folder DIR/<name> holding a model.json "
                            "is offered as model:<name> (default models/); a request names a model only this way, "
                            "never by a path")
    serve.add_argument("--agents", default=None, metavar="SPECS",
                       help="more agents the page offers, comma separated, each by the name given here: your own "
                            "module:attribute (my_agents:MyAgent, imported from the current folder or PYTHONPATH), "
                            "or a built-in with arguments beyond the page's limits (search(worlds=500))")
    serve.set_defaults(func=serve_command)


def replay_command(args: argparse.Namespace) -> int:
    from commerce_env.frames import save_animation
    from commerce_env.replay import load_replay

    try:
        if Path(args.out).suffix.lower() not in PICTURE_SUFFIXES:
            raise ValueError(f"--out {args.out}: write a .gif or an .mp4 (the picture's kind follows its name)")
        if args.seconds <= 0:
            raise ValueError(f"--seconds must be positive, got {args.seconds}")
        replayed = load_replay(args.file, args.game)
        n = replayed.game.num_players
        if args.seat is not None and not 0 <= args.seat < n:
            raise ValueError(f"--seat must be a seat from 0 to {n - 1}, got {args.seat}")
        scenes = replayed.scenes(args.seat)
        save_animation(scenes, args.out, seconds=args.seconds)
    except (ValueError, OSError) as error:
        print(f"commerce replay: {error}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}: {len(scenes)} frames of game {args.game} "
          f"({replayed.record['variant']}, {n} players)")
    return 0


def serve_command(args: argparse.Namespace) -> int:
    try:
        from .app import create_app
    except ImportError as error:
        print(f"commerce serve: needs Flask ({error}); pip install 'commerce-rl[web]'", file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        print(f"commerce serve: --port must be from 1 to 65535, got {args.port}", file=sys.stderr)
        return 2
    models = Path(args.models)
    if not models.is_dir():
        print(f"commerce serve: no models folder {models}; the built-in agents only", file=sys.stderr)
    try:
        from .opponents import command_line_agents

        agents = command_line_agents(args.agents) if args.agents is not None else {}
    except (ValueError, TypeError) as error:
        print(f"commerce serve: --agents: {error}", file=sys.stderr)
        return 2
    app = create_app(models, host=args.host, port=args.port, agents=agents)
    print(f"Commerce: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops the server)")
    try:
        app.run(host=args.host, port=args.port, threaded=True)
    except KeyboardInterrupt:
        pass
    return 0
