"""Saved games: one match per line of a JSON-lines file, replayed through the engine.

A record holds what makes a match exact (the engine is deterministic given
its packs, first dealer and actions) and what the match showed:

.. code-block:: json

    {"format": "commerce-replay", "version": 1, "variant": "widow", "num_players": 4,
     "options": {"allow_pass": true, ...}, "names": ["search", "greedy", ...], "dealer": 0,
     "packs": ["AS KD ...", ...], "actions": [[0, "keep_hand"], [1, "exchange 2C AS"], ...],
     "showdowns": [{"deal": 1, "hands": ["4S 7H AS", ...], "categories": [...],
                    "winners": [3], "counters": [...], "money": [...]}, ...],
     "returns": [-1.0, 1.0, ...], "losers": [0]}

``packs`` has one full pack (R1.5, top first) per deal dealt; ``returns`` and
``losers`` are null for a match that is not over (what it has played is replayed); ``actions`` every
action with its actor, in canonical text (R12); ``showdowns`` every showdown
(R11: all hands are public there).  Plain JSON, never pickle.
:func:`replay` rebuilds the match from packs and actions and checks
everything else in the record against it, so a file that does not describe a
real game is refused with a :class:`ValueError` naming its line and problem.
"""

from __future__ import annotations

import errno
import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .cards import format_cards
from .checks import is_whole
from .engine import new_game
from .engine.base import Game
from .engine.settlement import Showdown
from .rules import Rules, make_rules
from .scene import Scene, build_scene, history_lines

FORMAT, VERSION = "commerce-replay", 1
KEYS = ("format", "version", "variant", "num_players", "options", "names", "dealer", "packs", "actions",
        "showdowns", "returns", "losers")


def _showdown_record(shown: Showdown, money: bool) -> dict[str, Any]:
    record = {"deal": shown.deal, "dealer": shown.dealer, "hands": [format_cards(h) for h in shown.hands],
              "table": format_cards(shown.table), "categories": list(shown.categories),
              "winners": list(shown.winners), "counters": list(shown.counters_after), "pool": shown.pool}
    if money:
        record["money"] = list(shown.money_after)
    return record


@dataclass
class Replayed:
    """A match rebuilt from a record: the finished game, and its states on demand (stepped forward
    from the first, so going through them costs one pass over the actions, not a copy per action)."""

    record: dict[str, Any]
    rules: Rules
    game: Game  # the match after its last action
    actions: list[int]  # the engine's action numbers, in order
    start: Callable[[], Game]  # a new game before the first action
    names: list[str]  # for display: an agent holding several seats is told apart by its seat

    def iter_states(self) -> Iterator[Game]:
        """The match before its first action, then after each action: one game stepped forward, so
        each state is gone at the next step (clone one to keep it)."""
        game = self.start()
        yield game
        for action in self.actions:
            game.apply(action)
            yield game

    @property
    def states(self) -> list[Game]:
        """A copy of every state (``states[k]``: after action k); each copy holds the record so far,
        so this is for short matches: :meth:`iter_states` and :meth:`iter_scenes` go through any."""
        return [state.clone() for state in self.iter_states()]

    def iter_scenes(self, viewer: int | None = None) -> Iterator[Scene]:
        """One scene per state; a deal's showdown gets its own scene before the next deal's."""
        for state in self.iter_states():
            scene = build_scene(state, viewer, self.names)
            yield scene
            if scene.showdown and not state.over:
                yield build_scene(state, viewer, self.names, showdown=False)

    def scenes(self, viewer: int | None = None) -> list[Scene]:
        """:meth:`iter_scenes` as a list."""
        return list(self.iter_scenes(viewer))

    def lines(self) -> list[str]:
        """Every action of the match, every card named (a finished game hides nothing)."""
        return history_lines(self.game.history, self.names)


def record_game(game: Game, names: Sequence[str] | None = None) -> dict[str, Any]:
    """The record of a match played on the engine (finished or not): every pack it dealt,
    every action with its actor, every showdown."""
    n = game.num_players
    if names is not None and (len(names) != n or not all(isinstance(x, str) for x in names)):
        raise ValueError(f"names must be {n} strings, got {names!r}")
    options = game.rules.options()
    variant = options.pop("variant")
    over = game.over
    money = game.plays_for_money
    return {
        "format": FORMAT, "version": VERSION, "variant": variant, "num_players": n, "options": options,
        "names": list(names) if names else [f"player_{s}" for s in range(n)], "dealer": game.first_dealer,
        "packs": [format_cards(p) for p in game.packs_dealt],
        "actions": [[seat, text] for seat, text in game.history_texts()],
        "showdowns": [_showdown_record(s, money) for s in game.showdowns],
        "returns": game.returns() if over else None, "losers": list(game.match_losers) if over else None,
    }


# ----------------------------------------------------------------- files
def write_records(path: str | Path, records: Sequence[dict[str, Any]]) -> None:
    """Write records as JSON lines to a new file, all or nothing (an existing file is never overwritten,
    and a full folder leaves no truncated file that a second try would refuse to replace)."""
    from .files import atomic_write, writing_to

    text = "".join(json.dumps(record, separators=(",", ":")) + "\n" for record in records)
    try:
        with writing_to(Path(path).parent):
            Path(path).parent.mkdir(parents=True, exist_ok=True)  # runs/games.jsonl in a fresh clone
            atomic_write(path, text, overwrite=False)
    except FileExistsError:
        raise FileExistsError(errno.EEXIST, "exists; give a new file name", str(path)) from None


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Every record of a replay file, each checked by replaying it (:func:`replay`)."""
    return [replay(record, line=number).record for number, record in _lines(path)]


def load_replay(path: str | Path, game: int = 1, max_actions: int | None = None) -> Replayed:
    """Game number ``game`` (from 1) of a replay file, rebuilt and checked (:func:`replay`)."""
    _check_game_number(game)
    count = 0
    for number, record in _lines(path):
        count += 1
        if count == game:
            return replay(record, line=number, max_actions=max_actions)
    raise ValueError(f"{path}: game {game} asked for, but the file has {count} game(s)")


def parse_replay_text(text: str, game: int = 1, max_actions: int | None = None) -> Replayed:
    """As :func:`load_replay`, from the text of a file (the web app's upload)."""
    _check_game_number(game)
    count = 0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        count += 1
        if count == game:
            return replay(_parse_line(line, number), line=number, max_actions=max_actions)
    raise ValueError(f"game {game} asked for, but the file has {count} game(s)")


def _check_game_number(game: Any) -> None:
    if not is_whole(game) or game < 1:
        raise ValueError(f"game must be a number from 1, got {game!r}")


def _lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    with open(path, "rb") as lines:
        for number, raw in enumerate(lines, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"replay line {number}: not JSON (not UTF-8 text)") from None
            if line.strip():
                yield number, _parse_line(line, number)


def _parse_line(line: str, number: int) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"replay line {number}: not JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise ValueError(f"replay line {number}: nested too deeply to be a replay record") from None


# ---------------------------------------------------------------- replay
def replay(record: Any, line: int | None = None, max_actions: int | None = None) -> Replayed:
    """Rebuild a record's match through the engine; a record that does not match raises ValueError,
    as does one of more than ``max_actions`` actions (checked before any is replayed)."""
    where = f"replay line {line}" if line is not None else "replay"

    def fail(problem: str) -> ValueError:
        return ValueError(f"{where}: {problem}")

    if not isinstance(record, dict):
        raise fail(f"a record is a JSON object, got {type(record).__name__}")
    missing = [k for k in KEYS if k not in record]
    if missing:
        raise fail(f"missing {', '.join(missing)}")
    unknown = sorted(set(record) - set(KEYS))
    if unknown:
        raise fail(f"unknown keys {', '.join(unknown)}")
    if record["format"] != FORMAT or not is_whole(record["version"]) or record["version"] != VERSION:
        raise fail(f"not a {FORMAT} version {VERSION} record (format {_short(record['format'])}, "
                   f"version {_short(record['version'])})")
    options, n = record["options"], record["num_players"]
    for key in ("num_players", "dealer"):
        if not is_whole(record[key]):
            raise fail(f"{key} must be a whole number, got {json.dumps(record[key])}")
    if not isinstance(options, dict) or "variant" in options:
        raise fail(f"options must be an object of rule options, got {_short(options)}")
    try:
        rules = make_rules(record["variant"], **options)
        rules.check_players(n)
    except (ValueError, TypeError) as error:
        raise fail(str(error)) from None
    names, packs, actions = record["names"], record["packs"], record["actions"]
    if not (isinstance(names, list) and len(names) == n and all(isinstance(x, str) for x in names)):
        raise fail(f"names must be {n} strings, got {_short(names)}")
    if not (isinstance(packs, list) and packs and all(isinstance(p, str) for p in packs)):
        raise fail("packs must be a non-empty list of pack texts")
    if not isinstance(actions, list):
        raise fail("actions must be a list of [seat, text]")
    if max_actions is not None and len(actions) > max_actions:
        raise fail(f"{len(actions)} actions; at most {max_actions} are replayed here")

    def start() -> Game:
        return new_game(rules, n, decks=packs, dealer=record["dealer"], rng=random.Random(0))

    try:
        game = start()
    except (ValueError, TypeError) as error:
        raise fail(str(error)) from None
    played = []
    for index, item in enumerate(actions):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], str)):
            raise fail(f"action {index}: expected [seat, text], got {_short(item)}")
        if not is_whole(item[0]):
            raise fail(f"action {index}: its seat must be a whole number, got {_short(item[0])}")
        seat, text = item
        if game.over:
            raise fail(f"action {index} ({seat}, {text!r}): the match is already over")
        if seat != game.current_player:
            raise fail(f"action {index} ({text!r}) is by seat {seat}, but seat {game.current_player} is to act")
        try:
            action = game.action_from_text(text, seat)
            if action not in game.legal_actions():
                legal = ", ".join(game.action_text(a, seat) for a in game.legal_actions())
                raise ValueError(f"not legal now; legal: {legal}")
        except ValueError as error:
            raise fail(f"action {index} ({seat}, {text!r}): {error}") from None
        game.apply(action)
        played.append(action)
        if game.deals_dealt > len(packs):
            raise fail(f"action {index} starts deal {game.deals_dealt}, but only {len(packs)} pack(s) are given")
    if not game.over and record["returns"] is not None:  # returns null: a match not yet over
        raise fail(f"the actions stop before the match is over ({len(actions)} actions, seat "
                   f"{game.current_player} to act)")
    rebuilt = record_game(game, names)
    if len(packs) != game.deals_dealt:
        raise fail(f"{len(packs)} packs for {game.deals_dealt} deal(s)")
    for key in ("showdowns", "returns", "losers"):
        flag = _find_bool(record[key], key)
        if flag:
            raise fail(f"{flag} must be a number, not true or false")
        if record[key] != rebuilt[key]:
            raise fail(f"{key} do not match the game: the file has {_short(record[key])}, "
                       f"the game {_short(rebuilt[key])}")
    shown = [f"{name} ({seat})" if names.count(name) > 1 else name for seat, name in enumerate(names)]
    return Replayed(record, rules, game, played, start, shown)


def _find_bool(value: Any, where: str) -> str:
    """Where in ``value`` a bool is (``showdowns[0].winners[1]``), or "": no count, seat or amount is one."""
    stack = [(value, where)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, bool):
            return where
        if isinstance(value, dict):
            stack.extend((item, f"{where}.{key}") for key, item in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{index}]") for index, item in reversed(list(enumerate(value))))
    return ""


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 200 else text[:200] + "..."
