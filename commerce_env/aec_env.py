"""The PettingZoo AEC environment ``commerce_v0`` over the engine.

Agents are ``player_0`` ... in seat order (seats run clockwise, play passes
left, R3.1).  An episode is one match (R4.5).  Every variant shares one
action table of 27 actions (see :mod:`commerce_env.engine.actions`):

====== =========================================== ==========================
number text                                        when
====== =========================================== ==========================
0      ``knock``                                   R5.2, R5.4, R6.3
1      ``stand``                                   R5.6, R8.2
2      ``continue``                                R5.6
3      ``pass``                                    R6.3, R8.2, R8.3
4      ``decline``                                 R7.2
5, 6   ``take_widow``, ``keep_hand``               R6.2
7, 8   ``buy_horse``, ``no_horse``                 R9.4
9-11   ``ready_money <hand card 0-2>``             R5.3
12-14  ``offer <hand card 0-2>``                   R5.4, R7.2
15-17  ``give <hand card 0-2>``                    R5.4, R7.2
18-26  ``exchange <hand card i> <table card j>``   R6.3, R8.2 (18 + 3i + j)
====== =========================================== ==========================

A hand is kept sorted (low to high, clubs before diamonds, hearts, spades
within a rank); table cards keep their places.  ``decode_action`` and
``encode_action`` translate to and from R12's canonical texts.

The observation is ``{"observation": float32 vector, "action_mask": int8
vector of 27}``; the vector's sections are in :func:`commerce_env.observation.layout`.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import observation as obs
from .cards import CARDS
from .checks import whole_number
from .engine import IllegalActionError, new_game
from .engine.actions import NUM_ACTIONS, BadActionError, action_from_text, describe_action
from .engine.base import Game
from .env_arguments import check_config, checked_illegal_action, checked_seed, reset_decks, reset_options
from .rules import DEFAULT_PLAYERS, resolve_rules
from .view import SeatView, seat_view

RESET_OPTIONS = ("deck", "decks", "dealer")


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """Commerce as a PettingZoo AEC env; see the module docstring."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "name": "commerce_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, variant: str | None = None, num_players: int | None = None,
                 render_mode: str | None = None, config: Any = None,
                 illegal_action: str = "raise", **options: Any):
        super().__init__()
        self.rules, extra = resolve_rules(variant, check_config(config), options)
        if num_players is None:
            num_players = extra.get("num_players", DEFAULT_PLAYERS)
        self.rules.check_players(num_players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"bad render_mode {render_mode!r}; choose from human, ansi, rgb_array or None")
        self.render_mode = render_mode
        self.illegal_action = checked_illegal_action(illegal_action)
        self.num_players = num_players
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        size = obs.observation_size(num_players)
        observation_space = spaces.Dict({
            "observation": spaces.Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
        })
        action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = {a: observation_space for a in self.possible_agents}
        self.action_spaces = {a: action_space for a in self.possible_agents}
        self.state_space = spaces.Box(low=-np.inf, high=np.inf, shape=(obs.state_size(num_players),),
                                      dtype=np.float32)
        self._rng = random.Random()
        self.game: Game | None = None

    # ------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        seed = checked_seed(seed)
        options = reset_options(options)
        unknown = [key for key in options if key not in RESET_OPTIONS]
        if unknown:  # PettingZoo's api_test passes options of its own: warn, don't fail
            import gymnasium

            gymnasium.logger.warn(f"ignoring unknown reset options {unknown}; known: {', '.join(RESET_OPTIONS)}")
        decks = reset_decks(options)
        dealer = options.get("dealer", 0)
        rng = random.Random(seed) if seed is not None else self._rng
        game = new_game(self.rules, self.num_players, decks=decks, dealer=dealer, rng=rng)
        # Only now that everything is valid does the env change (bad input changes nothing).
        self._rng = rng
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        if game.over:  # a whole match settled by dealt ships (R7.3, R4.5): nothing to decide
            # No step will follow, so what the match paid is paid now: every agent's
            # ``last()`` then shows it (PettingZoo reads ``_cumulative_rewards``).
            self.rewards = dict(zip(self.possible_agents, game.take_rewards(), strict=True))
            self._cumulative_rewards = dict(self.rewards)
            self._finish_match(game)
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        if self.render_mode == "human":
            self.render()

    def _finish_match(self, game: Game) -> None:
        """Every agent is terminated; the match's returns go into ``infos``."""
        self.terminations = dict.fromkeys(self.agents, True)
        returns = game.returns()
        losers = [self.possible_agents[s] for s in game.match_losers]
        for a in self.agents:
            self.infos[a] = {"returns": returns[self._seat[a]], "losers": losers}
        self.agent_selection = self.agents[0]

    # ------------------------------------------------------------ observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._require_game()
        seat = self._seat_of(agent)
        return {"observation": obs.encode(game, seat), "action_mask": obs.action_mask(game, seat)}

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        return self.observe(agent or self.agent_selection)["action_mask"]

    def state(self) -> np.ndarray:
        """The full state (all hands) for centralised critics: full information, for
        training and debugging only; an agent must get :meth:`seat_view` instead."""
        return obs.encode_state(self._require_game())

    def seat_view(self, agent: str) -> SeatView:
        """What ``agent`` knows now (R11), as agents get it (:mod:`commerce_env.view`)."""
        return seat_view(self._require_game(), self._seat_of(agent))

    # --------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        game = self._require_game()
        if game.over:
            raise ValueError("the match is over: step(None) for each agent, then reset()")
        try:
            game.apply(action)
        except BadActionError:
            raise  # not an action number at all: refused the same way in both modes
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._terminate_illegal(agent)
            return
        self._cumulative_rewards[agent] = 0.0
        rewards = game.take_rewards()
        self.rewards = dict(zip(self.possible_agents, rewards, strict=True))
        if game.over:
            self._finish_match(game)
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _terminate_illegal(self, agent: str) -> None:
        """PettingZoo's convention: the offender gets -1 and the episode ends."""
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: (-1.0 if a == agent else 0.0) for a in self.possible_agents}
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos[agent] = {"illegal_action": True}
        self.game.abandon()  # the mask is empty and every observation shows the match over
        self._accumulate_rewards()

    # ------------------------------------------------------------ actions
    def encode_action(self, text: str, agent: str | None = None, full_information: bool = False) -> int:
        """The action number of a canonical text (R12) for ``agent`` now.

        A text that names cards works for the agent to act, who sees his own
        cards; for any other agent (or the widow dealer before his blind
        choice, R6.2) it would tell whoever calls whether that agent holds the
        card (R11), so it is refused unless ``full_information=True``."""
        game = self._require_game()
        seat = self._seat_of(agent or self.agent_selection)
        if full_information or self._sees_own_cards(seat):
            return game.action_from_text(text, seat)
        try:
            return action_from_text(text, (), game.table)  # names no card of his: fine
        except ValueError:
            raise ValueError(f"action text {text!r} names cards of {self.possible_agents[seat]}, whose hand is "
                             "hidden from the caller (R11): only the agent to act may name his cards; pass "
                             "full_information=True for debugging") from None

    def decode_action(self, action: int, agent: str | None = None, full_information: bool = False) -> str:
        """The canonical text (R12) of an action number for ``agent`` now.

        For the agent to act it names his cards (``offer 10H``); for any other
        agent, or the widow dealer before his blind choice (R6.2), it names
        only the slots (``offer <hand card 0>``) unless ``full_information=True``:
        the cards of another hand are hidden from the caller (R11)."""
        game = self._require_game()
        if isinstance(action, np.integer):
            action = int(action)
        seat = self._seat_of(agent or self.agent_selection)
        if full_information or self._sees_own_cards(seat):
            return game.action_text(action, seat)
        return describe_action(whole_number("action", action, 0, NUM_ACTIONS - 1))

    def _sees_own_cards(self, seat: int) -> bool:
        """Whether the caller may be told ``seat``'s cards: he is the agent to act and sees them."""
        game = self._require_game()
        return seat == game.current_player and game.sees_own_hand(seat)

    def legal_actions(self) -> list[int]:
        return list(self._require_game().legal_actions())

    def public_history(self, agent: str) -> list[tuple[str, str]]:
        """``(agent, text)`` of every action of this match as ``agent`` knows it (R11): the
        cards of face-down moves he did not see are left out (``offer``, not ``offer 10H``)."""
        return [(self.possible_agents[s], text) for s, text in self.seat_view(agent).history_texts()]

    @property
    def history(self) -> list[tuple[str, str]]:
        """``(agent, text)`` of every action taken in this match, in order.

        Full information, for debugging and replays: it names every card, face
        down or not.  Agents get :meth:`public_history` or :meth:`seat_view`."""
        game = self._require_game()
        return [(self.possible_agents[s], text) for s, text in game.history_texts()]

    # ------------------------------------------------------------- render
    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":  # the whole table, every hand face up (commerce_env.frames)
            from .frames import render_frame

            return render_frame(self._require_game(), None, self.possible_agents)
        text = render_text(self._require_game(), self.possible_agents)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    # ------------------------------------------------------------ helpers
    def _require_game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the env")
        return self.game

    def _seat_of(self, agent: str) -> int:
        try:
            return self._seat[agent]
        except KeyError:
            raise ValueError(f"unknown agent {agent!r}; agents are {', '.join(self.possible_agents)}") from None


class _OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper with a shorter path for the calls of the
    ``agent_iter`` loop (speed, see docs/performance.md).

    Through the wrapper, ``last()`` and ``agents`` / ``agent_selection`` reach
    the env by two ``__getattr__`` layers per attribute, eight per step.  Here
    they go straight to the wrapped env; before ``reset`` they still raise
    the wrapper's own AttributeError (a property that raises AttributeError
    falls back to ``__getattr__``, which raises it).
    """

    def last(self, observe: bool = True) -> tuple:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    @property
    def agents(self) -> list[str]:
        return self.env.agents

    @property
    def agent_selection(self) -> str:
        return self.env.agent_selection

    def __str__(self) -> str:
        return str(self.env)  # as PettingZoo prints its own OrderEnforcingWrapper


def render_text(game: Game, names: list[str]) -> str:
    """A readable table of the game: hands of the player to act, face-up cards, counters."""
    def cards(seq: list[int]) -> str:
        return " ".join(CARDS[c].symbol() for c in seq) or "-"

    rules = game.rules
    lines = [f"Commerce: {rules.variant}, deal {game.deals_dealt}, round {game.rounds_done + 1}, "
             f"phase {game.phase}, pool {game.pool}"]
    if game.table:
        lines.append(f"table: {cards(game.table)}")
    if game.has_stock:
        lines.append(f"stock: {len(game.stock)} cards")
    money = game.plays_for_money
    lines.append(f"{'':2}{'player':<10}{'lives' if rules.has_lives else 'counters':>9}"
                 + (f"{'money':>7}" if money else "") + "  hand")
    for seat, name in enumerate(names):
        marks = ("D" if seat == game.dealer else " ") + (">" if seat == game.current_player else " ")
        status = "out" if game.out[seat] else ""
        if game.hands[seat] and (game.shown or (seat == game.current_player and game.sees_own_hand(seat))):
            hand = cards(game.hands[seat])
        elif game.hands[seat]:
            hand = "[hidden]"
        else:
            hand = "-"
        lines.append(f"{marks}{name:<10}{game.counters[seat]:>9}"
                     + (f"{game.money[seat]:>7}" if money else "") + f"  {hand} {status}".rstrip())
    if game.over:
        lines.append("match over; returns: " + ", ".join(
            f"{names[s]} {r:+g}" for s, r in enumerate(game.returns())))
    else:
        lines.append(f"to act: {names[game.current_player]}; legal: " + ", ".join(
            game.action_text(a) for a in game.legal_actions()))
    return "\n".join(lines)


def env(variant: str | None = None, num_players: int | None = None, render_mode: str | None = None,
        config: Any = None, illegal_action: str = "raise", **options: Any) -> AECEnv:
    """``commerce_v0`` with PettingZoo's order-enforcing wrapper.

    Illegal actions are handled by ``raw_env`` alone (``illegal_action``), not also
    by PettingZoo's ``TerminateIllegalWrapper``: only the env can end the engine's
    match, so that after the end the mask is empty and the observations say so, and
    refuse a value that is no action number with the same error in both modes.
    """
    environment: AECEnv = raw_env(variant=variant, num_players=num_players, render_mode=render_mode,
                                  config=config, illegal_action=illegal_action, **options)
    environment = _OrderEnforcingWrapper(environment)
    return environment
