"""``commerce play`` (a human against agents) and ``commerce arena`` (agents against each other)."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from commerce_env.rules import DEFAULT_PLAYERS, DEFAULT_VARIANT

DEFAULT_LINEUP = "search,expected_value,greedy,random"


def option_help() -> str:
    """``--option``'s help: every rule option and the values it takes (R12's table)."""
    from commerce_env.rules import OPTION_TABLE

    listed = "; ".join(f"{o.name}: {o.values}" for o in OPTION_TABLE)
    return f"a rule option NAME=VALUE, repeatable (R12, docs/rules.md; not every variant takes each): {listed}"


def _options(pairs: list[str] | None) -> dict[str, Any]:
    """``key=value`` rule options; values are read as YAML (``deals=1``, ``allow_pass=false``)."""
    import yaml

    options: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"bad --option {pair!r}: expected name=value, e.g. deals=1")
        options[key.strip()] = yaml.safe_load(value)
    return options


def _agents(text: str) -> list[str | dict]:
    """Comma separated specs; an agent's arguments in brackets: ``search(worlds=96),greedy``.  Typed
    by the user, so a ``module:attribute`` of theirs is allowed (:mod:`agents.module_agents`)."""
    from .module_agents import command_line_specs

    return command_line_specs(text)


def register(subparsers: argparse._SubParsersAction) -> None:
    from commerce_env.rules import VARIANTS

    play = subparsers.add_parser("play", help="play in the terminal against agents")
    play.add_argument("--variant", default=None, choices=VARIANTS,
                      help="the variant (default: a model opponent's own, else trade_barter)")
    play.add_argument("--opponents", default="greedy", help="agents for the other seats, comma separated "
                      "(names, model paths or your own module:attribute, arguments in brackets: "
                      "search(worlds=96)); repeated to fill the seats")
    play.add_argument("--players", type=int, default=None, help="default: a model opponent's own player count, "
                      "else you plus one seat per opponent")
    play.add_argument("--seat", type=int, default=0, help="your seat (default 0); the seat on your right deals "
                      "first, so you are the eldest hand and act first")
    play.add_argument("--seed", type=int, default=None, help="the first match's seed (default: a fresh one)")
    play.add_argument("--option", action="append", metavar="NAME=VALUE", help=option_help())
    play.set_defaults(func=play_command)

    arena = subparsers.add_parser("arena", help="agents against each other on duplicate deals")
    arena.add_argument("--agents", default=DEFAULT_LINEUP, help="comma separated names, model paths or your "
                       "own module:attribute (my_agents:MyAgent, imported from the current folder or PYTHONPATH), "
                       "arguments in brackets (search(worlds=96), model:models/widow(search=false)); "
                       "repeated to fill the seats")
    arena.add_argument("--variant", default=DEFAULT_VARIANT, choices=VARIANTS,
                   help=f"the game (default {DEFAULT_VARIANT})")
    arena.add_argument("--players", type=int, default=DEFAULT_PLAYERS,
                   help=f"players at the table (default {DEFAULT_PLAYERS})")
    arena.add_argument("--games", dest="games", type=int, default=1000,
                       help="games to play (each a deal, or a whole match when the rules play matches), "
                       "rounded up to whole duplicate groups")
    arena.add_argument("--deals", dest="games", type=int, help=argparse.SUPPRESS)  # the older name, kept working
    arena.add_argument("--seed", type=int, default=None, help="the seed of the deals and the agents (default 0; "
                       "with --isolate a fresh secret seed, recorded in the result after the run)")
    arena.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    arena.add_argument("--backend", choices=("local", "ray"), default="local",
                       help="ray: duplicate groups as Ray tasks (the 'distributed' extra), same result")
    arena.add_argument("--address", default=None, help="with --backend ray: the cluster to join "
                       "(default: RAY_ADDRESS, else a local instance)")
    arena.add_argument("--engine", choices=("auto", "batched", "local"), default="auto",
                       help="batched: many groups at once on the batched engine (greedy, learned agents and search "
                       "with a number of worlds; the extra `vector`; same result); auto (default): wherever it "
                       "applies")
    arena.add_argument("--out", default=None, help="folder for result.json, report.md, mean_reward.png")
    arena.add_argument("--force", action="store_true", help="replace result.json, report.md and mean_reward.png "
                       "already in --out (nothing else there is touched)")
    arena.add_argument("--option", action="append", metavar="NAME=VALUE", help=option_help())
    arena.add_argument("--no-duplicate", action="store_true", help="plain random deals instead of duplicates")
    arena.add_argument("--no-progress", action="store_true", help="no progress bar")
    arena.add_argument("--isolate", action="store_true", help="each agent in a process of its own, handed pickled "
                       "views, answering action numbers only: for agents you do not trust (one worker, local)")
    arena.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                       help="with --isolate: seconds each decision may take; an agent slower than that stops "
                       "the run, named (default: no limit)")
    arena.add_argument("--save-games", nargs=2, metavar=("N", "FILE"), default=None,
                       help="also write the first N games as replays (JSON lines) to the new FILE")
    arena.set_defaults(func=arena_command)


def arena_command(args: argparse.Namespace) -> int:
    from .arena import crash_warning, report_markdown, run_arena
    from .boundary import AgentError

    try:
        if args.save_games and args.isolate:  # saved games are played again in this process
            raise ValueError("--save-games plays the games again in this process: not with --isolate")
        if args.save_games:  # a bad N or an existing FILE fails before the arena runs
            from .saved_games import check_save_games

            check_save_games(*args.save_games)
        with _ray_workers(args) as workers:
            result = run_arena(_agents(args.agents), variant=args.variant, num_players=args.players,
                               options=_options(args.option), games=args.games, seed=args.seed,
                               workers=workers, duplicate=not args.no_duplicate, out_dir=args.out,
                               overwrite=args.force,
                               progress=not args.no_progress, backend=args.backend, address=args.address,
                               batched={"auto": None, "batched": True, "local": False}[args.engine],
                               isolate=args.isolate, time_limit=args.time_limit)
    except AgentError as error:  # an agent failed before any duplicate group was finished
        print(f"commerce arena: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as stop:  # the `commerce` command says it stopped, and exits 130 or 143
        kept = getattr(stop, "arena_result", None)
        if kept is not None:
            print(report_markdown(kept))
            stop.stop_notes = [f"the results above are of the {kept['groups']} duplicate group(s) finished before"
                               + (f"; written to {args.out}" if args.out else "")]
        else:
            stop.stop_notes = ["no duplicate group was finished"]
        raise
    except (ValueError, TypeError) as error:
        crash = getattr(error, "arena_crash", None)
        if isinstance(crash, dict):  # not a bad argument: the run stopped before a group was finished
            print(crash["traceback"], end="", file=sys.stderr)
            print(f"commerce arena: {crash_warning(crash, 0)}", file=sys.stderr)
            return 1
        print(f"commerce arena: {error}", file=sys.stderr)
        return 2
    for warning in result["warnings"]:
        print(f"commerce arena: warning: {warning}", file=sys.stderr)
    print(report_markdown(result))
    if args.out:
        print(f"wrote {args.out}/result.json, report.md, mean_reward.png")
    if result["crash"] is not None:
        return 1  # the results above are of the groups finished before an agent failed
    if args.save_games:
        from .saved_games import save_games_command

        return save_games_command(args, _agents(args.agents), _options(args.option))
    return 0


@contextmanager
def _ray_workers(args: argparse.Namespace) -> Iterator[int]:
    """The workers the run uses: ``--workers``, or with ``--backend ray`` every CPU of the cluster (its
    tasks take one CPU each), so that the report and ``result.json`` say what played."""
    if args.backend != "ray":
        yield args.workers
        return
    from .ray_connect import cluster_cpus, connect, shutdown

    started = connect(args.address)
    try:
        yield cluster_cpus()
    finally:
        shutdown(started)


def play_command(args: argparse.Namespace, read=input, write=print) -> int:
    """Matches in the terminal: the human in ``--seat``, agents elsewhere; "play again?" after each."""
    try:
        while True:
            _play(args, read, write)
            try:
                again = read("Play again? [y/N] ")
            except EOFError:
                again = ""
            if again.strip().lower() not in ("y", "yes"):
                return 0
            args.seed = None  # a new deal of the cards
    except (ValueError, TypeError) as error:
        print(f"commerce play: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: leave quietly
        write("\nLeft the game.")
        return 130


def _play(args: argparse.Namespace, read, write) -> int:
    from commerce_env import guide
    from commerce_env.engine import new_game
    from commerce_env.knowledge import masked
    from commerce_env.rules import make_rules
    from commerce_env.view import seat_view

    from .human import HumanAgent, fit
    from .specs import make_agent, short_label

    opponents = _agents(args.opponents)
    variant, players = _table_for(opponents, args.variant, args.players)
    rules = make_rules(variant, **_options(args.option))
    rules.check_players(players)
    if not 0 <= args.seat < players:
        raise ValueError(f"--seat must be a seat from 0 to {players - 1}, got {args.seat}")
    you = args.seat
    names = [f"player_{s}" for s in range(players)]
    names[you] = "you"
    seats, k = [], 0
    for s in range(players):
        if s == you:
            seats.append(HumanAgent(read=read, write=write, names=names, news=False))  # moves are shown live
        else:
            seats.append(make_agent(opponents[k % len(opponents)], variant=rules.variant, num_players=players))
            names[s] = f"{short_label(opponents[k % len(opponents)])} ({s})"  # as the web table names them
            k += 1
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    # The seat on your right deals first, so you are the eldest hand and act first (R3.1): with
    # seat 0 dealing, the others could knock before your first turn.
    game = new_game(rules, players, dealer=(you - 1) % players, rng=random.Random(seed))
    for s, agent in enumerate(seats):
        agent.reset(s, players, rules, seed + s)
    say = lambda text: write(fit(text))  # noqa: E731 - lines that fit the terminal
    say(f"{guide.variant_title(rules.variant)}, {players} players, seed {seed}. You are seat {you}. "
        "Type help or ? at your turn for the rules.")
    say(guide.intro(game))
    deal = 0
    shown = 0
    while not game.over:
        if game.deals_dealt != deal and not game.shown:  # a new deal: its header before its moves
            deal = game.deals_dealt
            say(f"--- {guide.deal_line(deal, names[game.dealer], game)} ---")
        seat = game.current_player
        action = int(seats[seat].act(seat_view(game, seat)))
        start = len(game.record)
        offer = game.offer
        game.apply(action)
        if seat != you:  # what you see of it (R11)
            _, kind, cards, _ = masked(game.record[start], game.seat_bits[you])
            to_you = kind == "give" and offer is not None and offer[0] == you
            say(guide.move_text(names[seat], kind, cards, to_you=to_you, table_name=game.table_name) + ".")
        showdowns = game.showdowns
        for showdown in showdowns[shown:]:  # R11: at the showdown all hands are shown
            _show(game, showdown, names, say)
        shown = len(showdowns)
    say(guide.match_result(game, names))
    return 0


def _table_for(opponents: list, variant: str | None, players: int | None) -> tuple[str, int]:
    """The match's variant and player count.  A model opponent brings its own (read from its model.json,
    its weights left unread); a --variant or --players that contradicts it is refused, naming both.
    Without a model: --variant (default trade_barter), --players (default: you plus each opponent)."""
    from .model_files import read_meta
    from .specs import MODEL_PREFIX, is_model_spec

    models: dict[str, tuple[str, int]] = {}
    for spec in opponents:
        name = spec.get("agent") if isinstance(spec, dict) else spec
        if isinstance(name, str) and is_model_spec(name) and not name.endswith(".zip"):  # a .zip: the loader says
            path = name.removeprefix(MODEL_PREFIX)
            meta = read_meta(path)
            models[path] = (meta["variant"], meta["num_players"])
    if not models:
        return variant or DEFAULT_VARIANT, players if players is not None else 1 + len(opponents)
    if len(set(models.values())) > 1:
        raise ValueError("these models cannot play at one table: " + "; ".join(
            f"{path} plays {v} with {n} players" for path, (v, n) in models.items()))
    path, (own_variant, own_players) = next(iter(models.items()))
    if variant is not None and variant != own_variant:
        raise ValueError(f"--variant {variant}: the model {path} plays {own_variant} (leave --variant out)")
    if players is not None and players != own_players:
        raise ValueError(f"--players {players}: the model {path} plays with {own_players} players "
                         "(leave --players out)")
    return own_variant, own_players


def _show(game, showdown, names: list[str], say) -> None:
    """A showdown: every hand with its category, the winners, and what each won or paid."""
    from commerce_env import guide
    from commerce_env.cards import format_cards
    money = game.plays_for_money  # R9: money apart from lives
    before, after = ((showdown.money_before, showdown.money_after) if money
                     else (showdown.counters_before, showdown.counters_after))
    say(f"Deal {showdown.deal}: the hands are shown:")
    for s, hand in enumerate(showdown.hands):
        if hand:
            change = after[s] - before[s]
            say(f"  {names[s]}: {format_cards(hand)} ({guide.category_text(showdown.categories[s], hand, game.rules)})"
                + (f"  {change:+d}" if change else "") + ("  WINS" if s in showdown.winners else ""))
    now = showdown.money_after if money else showdown.counters_after
    best = guide.with_category(showdown.categories[showdown.winners[0]])
    say(f"{guide.who_does([names[w] for w in showdown.winners], 'win')} {best}."
        f" {guide.unit(game).capitalize()} now: " + ", ".join(f"{names[s]} {now[s]}" for s in range(game.num_players)))
