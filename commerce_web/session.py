"""One person's match against agents, as the web app plays it (no Flask here).

A :class:`Match` holds the engine game, the agents of the other seats and the
human's seat.  Everything it sends out (:meth:`Match.state`) is built from
the human seat's point of view (:func:`commerce_env.scene.build_scene`, R11):
no card the human has not seen is ever in it.  Agents are driven through the
project's agent API in one place, :meth:`Match.step`: one agent move at a time,
the agent thinking outside the match's lock, so that the match can be read
(``"thinking": true``) while an agent decides.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import yaml

from commerce_env import guide
from commerce_env.cards import format_cards
from commerce_env.checks import is_whole
from commerce_env.engine import new_game
from commerce_env.engine.actions import CARD_VERBS, READY_MONEY, action_kind
from commerce_env.engine.base import DEAL, SHOW
from commerce_env.engine.settlement import Showdown
from commerce_env.knowledge import masked
from commerce_env.policies import listens
from commerce_env.replay import record_game
from commerce_env.rules import ALL_OPTIONS, OPTION_RECORDS, OPTIONS, VARIANTS, make_rules
from commerce_env.scene import build_scene, showdown_scene
from commerce_env.view import public_text, seat_view

from .errors import QUOTE_LIMIT, BusyError, RequestError, quote

if TYPE_CHECKING:
    from .opponents import Opponent

__all__ = ["BusyError", "Match", "RequestError", "parse_options", "variants_info"]

BUILT_IN_AGENTS = ("random", "greedy", "expected_value", "search")
MAX_ACTIONS = 100_000  # a runaway guard: no real match comes near it
# What one match may cost the agent threads every client shares (a decision's cost grows with the deal):
MAX_DEAL_TURNS = 500  # max_rounds x players: a deal of that many turns, its longest (R4.4)
MAX_DEAL_ACTIONS = 1_500  # a runaway guard on one deal: a turn takes one to three actions
AGENT_SECONDS = 120.0  # the agents' thinking in one match, in all
TRAINING_OPTIONS = frozenset({"reward"})  # how a learner is scored: not a table's rule, so not on the form
MAX_OPTION_TEXT = QUOTE_LIMIT
MAX_ACTION_TEXT = QUOTE_LIMIT  # the longest action text is about 20 characters
log = logging.getLogger(__name__)


def parse_options(variant: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Rule options from the form: each value a JSON/YAML text (``1``, ``until_out``, ``[pair, point]``)
    or already a value; an empty text keeps the default.  A text is short and read without YAML's
    aliases (``*a``), which would let a few bytes stand for millions of values."""
    if not isinstance(raw, Mapping):
        raise RequestError(f"options must be an object of option names and values, got {quote(raw)}")
    options: dict[str, Any] = {}
    for name, value in raw.items():
        if len(name) > MAX_OPTION_TEXT:  # no option's name is near it
            raise RequestError(f"unknown option {quote(name)}; the options are {', '.join(sorted(ALL_OPTIONS))}")
        if isinstance(value, str):
            if not value.strip():
                continue
            if len(value) > MAX_OPTION_TEXT:
                raise RequestError(f"option {name!r}: longer than {MAX_OPTION_TEXT} characters, "
                                   f"got {quote(value)}")
            try:
                value = yaml.load(value, Loader=NoAliasLoader)  # noqa: S506 - a SafeLoader
            except yaml.YAMLError:
                raise RequestError(f"option {name!r}: cannot read {quote(value)}") from None
        if len(repr(value)) > MAX_OPTION_TEXT:  # the rules quote a bad value whole
            raise RequestError(f"option {name!r}: longer than {MAX_OPTION_TEXT} characters, got {quote(value)}")
        options[name] = value
    return options


class NoAliasLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing aliases."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("aliases are not read here")
        return super().compose_node(parent, index)


def variants_info() -> dict[str, Any]:
    """The variants, their options with R12 defaults, and the built-in agents (for the form)."""
    out = {}
    for variant in VARIANTS:
        rules = make_rules(variant)
        defaults = rules.options()
        defaults.pop("variant")
        shown = sorted(OPTIONS[variant] - TRAINING_OPTIONS)
        out[variant] = {"options": {name: defaults[name] for name in shown},
                        "option_values": {name: f"{OPTION_RECORDS[name].values} ({OPTION_RECORDS[name].rule})"
                                          for name in shown},
                        "help": guide.variant_help(variant), "title": guide.variant_title(variant)}
    return {"variants": out, "agents": list(BUILT_IN_AGENTS), "actions": guide.ACTIONS,
            "action_names": guide.ACTION_NAMES}


class Match:
    """A match: the human in ``seat``, agents elsewhere; thread-safe per match.

    The agents move through :meth:`step` (a worker thread calls it, one agent move at a time),
    so that a request waits for them only as long as it chooses; meanwhile ``thinking`` is set
    and the human's action is refused with :class:`BusyError`."""

    def __init__(self, variant: str, num_players: int, seat: int, opponents: Sequence[Opponent],
                 options: Mapping[str, Any] | None = None, seed: int | None = None, *,
                 agent_seconds: float = AGENT_SECONDS, clock: Callable[[], float] = time.monotonic):
        if variant not in VARIANTS:
            raise RequestError(f"unknown variant {quote(variant)}; choose from {', '.join(VARIANTS)}")
        try:
            self.rules = make_rules(variant, **parse_options(variant, options or {}))
            self.rules.check_players(num_players)
        except (ValueError, TypeError) as error:
            raise RequestError(str(error)) from None
        turns = self.rules.max_rounds * num_players
        if turns > MAX_DEAL_TURNS:
            raise RequestError(f"option 'max_rounds': {self.rules.max_rounds} rounds of {num_players} players make "
                               f"deals of up to {turns} turns; this table plays deals of at most {MAX_DEAL_TURNS} "
                               f"turns (max_rounds up to {MAX_DEAL_TURNS // num_players} with {num_players} players)")
        if not is_whole(seat) or not 0 <= seat < num_players:
            raise RequestError(f"seat must be a number from 0 to {num_players - 1}, got {quote(seat)}")
        if not opponents:
            raise RequestError("opponents must be a non-empty list of agent names or model:<name>")
        self.seat = seat
        self.num_players = num_players
        self.seed = random.randrange(2**31) if seed is None else seed
        self.agents: list[Any] = [None] * num_players
        self.names = ["you"] * num_players
        seats = [s for s in range(num_players) if s != seat]
        for k, s in enumerate(seats):
            opponent = opponents[k % len(opponents)]
            self.agents[s] = self._make(opponent, variant, num_players)
            self.names[s] = f"{short_name(opponent.spec)} ({s})"
        # The human is the eldest hand of the first deal, so he acts first (R3.1: the eldest sits at the
        # dealer's left); with a knock before his turn he would otherwise see a deal end without him.
        self.game = new_game(self.rules, num_players, dealer=(seat - 1) % num_players, rng=random.Random(self.seed))
        for s, agent in enumerate(self.agents):
            if agent is not None:
                try:
                    agent.reset(s, num_players, self.rules, self.seed + s)
                except ValueError as error:  # e.g. a model trained for other rules
                    raise RequestError(f"opponent {self.names[s]}: {error}") from None
        self.watchers = [(s, a) for s, a in enumerate(self.agents) if a is not None and _listens(a)]
        self.lock = threading.Lock()
        self.since = 0  # the number of actions taken when the human last acted
        self.error = ""  # why the match cannot go on (an agent failed), for the page
        self.thinking = False  # the agents are moving (see step)
        self.idle = threading.Event()  # set while the agents are not moving
        self.idle.set()
        self.stopped = False
        self.agent_seconds, self.clock = agent_seconds, clock
        self.agent_time = 0.0  # the agents' thinking so far, in seconds
        self.deals_done, self.deal_start = 0, 0  # deals shown down; the actions taken when this deal began

    @staticmethod
    def _make(opponent: Opponent, variant: str, num_players: int) -> Any:
        if opponent.variant is not None and (opponent.variant, opponent.players) != (variant, num_players):
            raise RequestError(f"opponent {opponent.spec!r} plays {opponent.variant} with {opponent.players} "
                               f"players, not {variant} with {num_players}")
        try:
            return opponent.make()
        except Exception:  # a model file the server holds: the log says why, the page only that it failed
            log.exception("opponent %r could not be made", opponent.spec)
            raise RequestError(f"opponent {opponent.spec!r} could not be loaded (the server's log says why)") from None

    # -------------------------------------------------------------- play
    def act(self, text: Any) -> None:
        """The human's action, given by its canonical text (R12); the agents move after it (:meth:`step`)."""
        game = self.game
        if self.error:
            raise RequestError(self.error)
        if game.over:
            raise RequestError("the match is over; start a new one")
        if self.thinking or game.current_player != self.seat:
            raise BusyError("the other players are still moving; ask for the match again and play when it is "
                            "your turn")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_ACTION_TEXT:
            raise RequestError(f"an action is a text such as 'knock' or 'offer 10H', got {quote(text)}")
        legal = game.legal_actions()
        words = text.split()
        if words[0] == "exchange" and len(words) < 3:
            raise RequestError(f"To exchange, choose one of your cards and a {game.table_name} card first.")
        if words[0] in CARD_VERBS and len(words) == 1:
            raise RequestError(f"To {guide.ACTION_NAMES[words[0]]}, choose one of your cards first.")
        try:
            action = game.action_from_text(text, self.seat)
        except (ValueError, TypeError) as error:
            raise RequestError(str(error)) from None
        if action not in legal:
            choices = guide.join_or([self._choice(a) for a in legal])
            raise RequestError(f"{quote(text)} is not one of your choices now: {choices}.")
        self._apply(self.seat, action)
        self.since = game.actions_taken

    def start_thinking(self) -> bool:
        """Mark the agents as moving if one is to move now; True if they were not moving before
        (the caller then has :meth:`step` called until it returns False)."""
        with self.lock:
            if self.thinking or not self._agent_to_move():
                return False
            self.thinking = True
            self.idle.clear()
            return True

    def step(self) -> bool:
        """One agent move; True while agents are still to move.  The agent decides outside the lock,
        from its seat's view only (R11); an agent that fails or answers an illegal action ends the
        match with an error (logged, and a plain message for the page)."""
        with self.lock:
            if not self._agent_to_move():
                return self._done()
            seat = self.game.current_player
            view = seat_view(self.game, seat)
        agent = self.agents[seat]
        started = self.clock()
        try:
            action = agent.act(view)  # the one call of the agent API
        except Exception:
            log.exception("opponent %s failed to move", self.names[seat])
            action = None
        spent = self.clock() - started
        with self.lock:
            self.agent_time += spent
            if self.stopped:
                return self._done()
            if not is_whole(action) or int(action) not in view.legal_actions:
                log.error("opponent %s answered %r, not one of %s", self.names[seat], action, view.legal_actions)
                self.error = f"opponent {self.names[seat]} failed to move; the match cannot go on (start a new one)"
                return self._done()
            self._apply(seat, int(action))
            return self._agent_to_move() or self._done()

    def play_agents(self) -> None:
        """The agents' moves until the human's turn, in this thread (scripts and tests)."""
        if self.start_thinking():
            while self.step():
                pass

    def fail(self, message: str) -> None:
        """End the match with ``message`` for the page (what went wrong is logged, not sent)."""
        with self.lock:
            self.error = message
            self._done()

    def stop(self) -> None:
        """No more agent moves (the match was dropped)."""
        with self.lock:
            self.stopped = True

    def _agent_to_move(self) -> bool:
        game = self.game
        if not self.error:
            self.error = self._over_budget()
        return not (self.stopped or self.error or game.over or game.current_player == self.seat)

    def _over_budget(self) -> str:
        """Why the match has cost all it may (counters only, never the history rebuilt), or ''."""
        game = self.game
        if len(game.showdowns) != self.deals_done:
            self.deals_done, self.deal_start = len(game.showdowns), game.actions_taken
        if game.actions_taken > MAX_ACTIONS:
            log.error("a match passed %d actions", MAX_ACTIONS)
            return f"the match did not end within {MAX_ACTIONS:,} moves; start a new one"
        if game.actions_taken - self.deal_start > MAX_DEAL_ACTIONS:
            log.error("a deal passed %d actions", MAX_DEAL_ACTIONS)
            return f"the deal did not end within {MAX_DEAL_ACTIONS:,} moves; start a new match"
        if self.agent_time > self.agent_seconds and not game.over:
            return (f"the other players have thought for {self.agent_seconds:g} seconds in this match, the most "
                    "this table gives a match; start a new one (with faster opponents or fewer deals)")
        return ""

    def _done(self) -> bool:
        self.thinking = False
        self.idle.set()
        return False

    def _apply(self, seat: int, action: int) -> None:
        game = self.game
        entry = len(game.record)
        game.apply(action)
        for watcher_seat, agent in self.watchers:
            agent.observe(seat, public_text(game, entry, watcher_seat))  # R11

    # ------------------------------------------------------------- views
    def state(self) -> dict[str, Any]:
        """Everything the page shows, from the human seat's point of view only (R11); call it
        holding :attr:`lock`.  ``thinking``: the agents are moving, ask again for the rest."""
        game, seat = self.game, self.seat
        current = build_scene(game, seat, self.names, showdown=False)
        recent = [s for s in game.showdowns if s.actions >= self.since]  # since the human's last action
        shown = showdown_scene(game, recent[-1], seat, self.names) if recent else None
        my_turn = game.current_player == seat and not self.error
        legal = []
        if my_turn:
            for action in game.legal_actions():
                kind = action_kind(action)
                cards = [str(c) for c in game.action_cards(action, seat)] if action >= READY_MONEY else []
                legal.append({"text": game.action_text(action, seat), "verb": kind, "cards": cards,
                              "words": self._choice(action)})
        return {
            "scene": current.to_dict(), "showdown": shown.to_dict() if shown else None, "intro": current.intro,
            "seat": seat, "names": self.names, "my_turn": my_turn, "legal": legal, "thinking": self.thinking,
            "error": self.error or None,
            "since": self.events(self.since), "deals": [self._deal_result(s) for s in game.showdowns],
            "over": game.over, "actions": game.actions_taken,
            "returns": game.returns() if game.over else None,
        }

    def events(self, start: int) -> list[str]:
        """What happened from action ``start`` on: actions as the human knows them (the engine's
        record through :func:`commerce_env.view.public_text`, R11), showdowns and new deals, in order."""
        game = self.game
        record = game.record
        showdowns = iter(game.showdowns)
        lines: list[str] = []
        actions = deals = 0
        bit = game.seat_bits[self.seat]
        previous = None  # the actor of the action before, for a card given to the human
        for index, (actor, kind, _, _) in enumerate(record):
            if kind == DEAL:
                deals += 1
                if actions >= start:
                    lines.append(guide.deal_line(deals, self.names[actor], game))
            elif kind == SHOW:
                if index + 1 == len(record) or record[index + 1][1] != SHOW:  # the showdown's last hand
                    shown = next(showdowns)
                    if actions >= start:
                        lines.append(self._showdown_line(shown))
            else:
                if actions >= start:
                    cards = masked(record[index], bit)[2]  # R11
                    lines.append(guide.move_text(self.names[actor], kind, cards, you=actor == self.seat,
                                                 to_you=kind == "give" and previous == self.seat,
                                                 table_name=game.table_name))
                actions += 1
                previous = actor
        return lines

    def _choice(self, action: int) -> str:
        """One of the human's choices, in words (commerce_env.guide)."""
        game = self.game
        return guide.choice_text(action_kind(action), game.action_cards(action, self.seat), game.table_name)

    def _showdown_line(self, shown: Showdown) -> str:
        rules = self.game.rules
        hands = "; ".join(f"{self.names[s]} {format_cards(h)} ({guide.category_text(shown.categories[s], h, rules)})"
                          for s, h in enumerate(shown.hands) if h)
        winners = guide.who_does([self.names[w] for w in shown.winners], "win")
        return f"Deal {shown.deal}, the hands shown: {hands}. {winners}."

    def _deal_result(self, shown: Showdown) -> dict[str, Any]:
        money = self.game.plays_for_money
        before, after = (shown.money_before, shown.money_after) if money else (shown.counters_before,
                                                                                 shown.counters_after)
        category = shown.categories[shown.winners[0]]
        return {"deal": shown.deal, "winners": [self.names[w] for w in shown.winners], "category": category,
                "with": guide.CATEGORIES.get(category, category),
                "changes": {self.names[s]: after[s] - before[s] for s in range(self.num_players) if shown.hands[s]}}

    def replay_record(self) -> dict[str, Any]:
        """The finished match as a replay record (commerce_env.replay)."""
        return record_game(self.game, self.names)


def short_name(spec: str) -> str:
    """A short label: ``model:models/widow`` is ``model widow``."""
    from agents.specs import short_label

    return short_label(spec)


def _listens(agent: Any) -> bool:
    return listens(agent)
