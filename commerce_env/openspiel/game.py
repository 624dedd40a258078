"""Commerce as pyspiel games: one ``python_commerce_<variant>`` per variant, over the engine.

Chance deals every deal one card at a time in pack order, top first, all the
pack's cards (R1.5): choosing the outcomes reproduces any pack.  Player
actions are the engine's 27 (:mod:`commerce_env.engine.actions`), named by
their canonical R12 texts.  Returns are the AEC env's for the same ``reward``
option; ``rewards()`` at a decision is what was paid since the last one (a
deal settled on a chance step, R7.3, is paid at the next decision).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pyspiel

from ..cards import CARDS, format_cards, make_pack
from ..engine import ENGINES, new_game
from ..engine.actions import NUM_ACTIONS, TEXT_CARDS, describe_action
from ..engine.base import DEAL, SHOW, Game
from ..rules import UNTIL_OUT, VARIANTS, Rules
from ..view import seat_view
from .observer import CommerceObserver, deal_text, now_text
from .params import MAX_PLAYERS, parameter_specification, parameters_from_rules, rules_from_parameters

DECLARED_MAX_DEALS = 10_000
"""Deals assumed for ``max_game_length`` when a match is played until a player is out:
lives can cycle (widow, My Ship Sails, pool), so no finite bound exists; not enforced."""


def game_name(variant: str) -> str:
    return f"python_commerce_{variant}"


def game_type(variant: str) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=game_name(variant),
        long_name=f"Python Commerce ({variant})",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,  # R4.3: nothing is created or lost over a match
        reward_model=pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=MAX_PLAYERS,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(variant),
    )


def deal_steps(num_players: int, rules: Rules) -> int:
    """A bound on the decisions of one deal: the variant's own (the observation tensor's history rows)."""
    return ENGINES[rules.variant].deal_decisions_bound(num_players, rules)


def utility_bounds(num_players: int, rules: Rules) -> tuple[float, float]:
    """Bounds (not always reached) on a player's return over a match: the variant's own."""
    return ENGINES[rules.variant].return_bounds(num_players, rules)


class CommerceGame(pyspiel.Game):
    """``python_commerce_<variant>``: one match (R4.5) of a variant."""

    variant = ""

    def __init__(self, params: dict[str, Any] | None = None):
        self.rules, self.players, self.dealer = rules_from_parameters(self.variant, dict(params or {}))
        deals = DECLARED_MAX_DEALS if self.rules.deals == UNTIL_OUT else self.rules.deals
        low, high = utility_bounds(self.players, self.rules)
        self.deal_steps = deal_steps(self.players, self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=52,  # chance outcomes are card numbers (rank * 4 + suit)
            num_players=self.players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0,
            max_game_length=deals * self.deal_steps,
        )
        # The options as the rules resolved them (a preset spelt out), so that str(game) reloads the same game.
        super().__init__(game_type(self.variant), info, parameters_from_rules(self.rules, self.players, self.dealer))
        self.pack = tuple(int(c) for c in make_pack(self.rules.deck_size))

    def new_initial_state(self) -> CommerceState:
        return CommerceState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> CommerceObserver:
        return CommerceObserver(iig_obs_type, self.players, self.deal_steps, params)


class _Match:
    """Everything a state changes, in one attribute: pyspiel's ``Clone`` deep-copies each
    attribute, and this one copies through the engine's own ``clone``."""

    __slots__ = ("rules", "players", "dealer", "pack", "game", "dealt", "before", "past", "past_public", "closed")

    def __init__(self, game: CommerceGame):
        num_players = game.players
        self.rules, self.players, self.dealer, self.pack = game.rules, num_players, game.dealer, game.pack
        self.game: Game | None = None  # the engine, once the first pack is dealt
        self.dealt: tuple[int, ...] = ()  # cards of the pack being dealt, top first
        self.before = (0.0,) * num_players  # returns at the last decision (for rewards)
        self.past = ("",) * num_players  # the finished deals as each seat saw them (R11)
        self.past_public = ""  # ... and as everyone saw them
        self.closed = 0  # deals recorded in ``past``

    def __deepcopy__(self, memo: dict) -> _Match:
        new = object.__new__(_Match)
        new.rules, new.players, new.dealer, new.pack = self.rules, self.players, self.dealer, self.pack
        new.game = None if self.game is None else self.game.clone()
        new.dealt, new.before, new.past = self.dealt, self.before, self.past  # immutable: shared
        new.past_public, new.closed = self.past_public, self.closed
        return new

    def __getstate__(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict) -> None:
        for name in self.__slots__:
            setattr(self, name, state[name])

    def close_deal(self) -> None:
        """Record a deal that has ended (the engine waits for a pack, or the match is over)."""
        game = self.game
        if game.deals_dealt > self.closed and (game.awaiting_pack or game.over):
            self.past = tuple(p + deal_text(game, seat) for seat, p in enumerate(self.past))
            self.past_public += deal_text(game, None)
            self.closed = game.deals_dealt


class CommerceState(pyspiel.State):
    """A position in a match; chance deals the cards (see the module docstring)."""

    def __init__(self, game: CommerceGame):
        super().__init__(game)
        self._m = _Match(game)

    # ------------------------------------------------------------ engine
    @property
    def engine(self) -> Game | None:
        """The live engine state (full information: for adapters, never for a player's view)."""
        return self._m.game

    # --------------------------------------------------------- the game
    def current_player(self) -> int:
        game = self._m.game
        if game is None or game.awaiting_pack:
            return pyspiel.PlayerId.CHANCE
        if game.over:
            return pyspiel.PlayerId.TERMINAL
        return game.current_player

    def is_terminal(self) -> bool:
        game = self._m.game
        return game is not None and game.over

    def _legal_actions(self, player: int) -> list[int]:
        return list(self._m.game.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        dealt = set(self._m.dealt)
        cards = [c for c in self._m.pack if c not in dealt]
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]

    def _apply_action(self, action: int) -> None:
        m = self._m
        game = m.game
        if game is not None and not game.awaiting_pack:
            m.before = tuple(game.returns())
            game.apply(action)
        else:
            if action in m.dealt or action not in m.pack:
                raise ValueError(f"chance outcome {action} is not a card left to deal")
            m.dealt += (action,)
            if len(m.dealt) < len(m.pack):
                return
            pack, m.dealt = m.dealt, ()
            if game is None:
                m.game = new_game(m.rules, m.players, seed=0, decks=[pack], dealer=m.dealer, wait_for_packs=True)
            else:
                game.supply_pack(pack)
        m.close_deal()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return str(CARDS[action])
        game = self._m.game
        if game is not None and player == game.current_player:
            return game.action_text(action, player)
        return describe_action(action)  # another seat's cards are not named (R11)

    def returns(self) -> list[float]:
        game = self._m.game
        return [0.0] * self.num_players() if game is None else game.returns()

    def rewards(self) -> list[float]:
        return [r - b for r, b in zip(self.returns(), self._m.before, strict=True)]

    # -------------------------------------------------------- knowledge
    def information_text(self, seat: int) -> str:
        """The information-state string: the match as ``seat`` saw it (R11, perfect recall)."""
        m = self._m
        text = f"seat {seat}; " + m.past[seat]
        game = m.game
        if game is not None and game.deals_dealt > m.closed:
            text += deal_text(game, seat) + now_text(game, seat)
        elif m.dealt:
            text += f" dealing {len(m.dealt)}"
        return text

    def resample_from_infostate(self, player_id: int, probability_sampler) -> CommerceState:
        """A state ``player_id`` cannot tell from this one: hidden cards re-dealt by the
        engine's determinizer; the other seats' past deals become their public record.

        Between deals (a chance node) the finished deal's unseen cards, its stock included,
        are re-dealt as well: the world holds what the player knows, nothing more (R11)."""
        rng = random.Random(int(probability_sampler() * 2**53))
        m = self._m
        new = self.get_game().new_initial_state()
        world = new._m
        world.before, world.closed = m.before, m.closed
        world.past = tuple(p if s == player_id else m.past_public for s, p in enumerate(m.past))
        world.past_public = m.past_public
        if m.dealt:  # mid-deal: the cards dealt so far are unseen (they are shown only as a count)
            world.dealt = tuple(rng.sample(m.pack, len(m.dealt)))
        game = m.game
        if game is not None:
            world.game = game.clone() if game.over else seat_view(game, player_id).sample_world(rng)
        return new

    def __str__(self) -> str:
        m = self._m
        game = m.game
        if game is None:
            return f"dealing the first pack: {format_cards(m.dealt)}"
        lines = [f"deal {game.deals_dealt}, dealer {game.dealer}, phase {game.phase}, pool {game.pool}, "
                 f"balances {game.balances()}, counters {game.counters}, returns {game.returns()}"]
        lines += [f"seat {s}: {format_cards(h)}" for s, h in enumerate(game.hands)]
        lines.append(f"table: {format_cards(game.table)}; stock: {format_cards(game.stock)}; "
                     f"discards: {format_cards(game.discards)}")
        lines.append("history: " + "; ".join(f"{s} {t}" for s, t in game.history_texts()))
        if game.awaiting_pack:
            lines.append(f"dealing: {format_cards(m.dealt)}")
        else:
            lines.append(f"to act: {game.current_player}")
        return "\n".join(lines)


def state_from_engine(game: CommerceGame, engine: Game) -> CommerceState:
    """A state of ``game`` at the position of ``engine`` (same rules and players); later deals
    are dealt by chance.  Earlier deals are known only by the engine's history of actions, as
    each seat saw them, so this state's information strings differ from a state played from
    the start of the match once a deal has ended."""
    if engine.rules != game.rules or engine.num_players != game.players:
        raise ValueError(f"the engine plays {engine.rules.variant} with {engine.num_players} players and "
                         f"other options than {game}")
    state = game.new_initial_state()
    m = state._m
    world = engine.clone()
    world.await_later_packs()  # later packs are chance's, unknown to all
    m.game = world
    earlier = [(s, kind, cards[:TEXT_CARDS.get(kind, 0)]) for s, kind, cards, _ in engine.record[:engine.deal_start]
               if kind != DEAL and kind != SHOW]
    m.past = tuple("".join(f"{s} {kind}{' ' + _cards_known(cards) if cards and s == seat else ''}, "
                           for s, kind, cards in earlier) for seat in range(engine.num_players))
    m.past_public = "".join(f"{s} {kind}, " for s, kind, _ in earlier)
    m.closed = world.deals_dealt - 1
    m.before = tuple(engine.returns())
    return state


def _cards_known(cards: Sequence[int | None]) -> str:
    """Cards of an earlier deal as a sampled world keeps them: ``??`` where its seat never saw one (R11)."""
    return " ".join("??" if card is None else format_cards([card]) for card in cards)


def _game_class(variant: str) -> type[CommerceGame]:
    return type(f"Commerce_{variant}", (CommerceGame,), {"variant": variant, "__doc__": f"{game_name(variant)}."})


GAME_CLASSES = {variant: _game_class(variant) for variant in VARIANTS}


def register() -> None:
    """Register every variant with pyspiel (idempotent)."""
    registered = set(pyspiel.registered_names())
    for variant, cls in GAME_CLASSES.items():
        if game_name(variant) not in registered:
            pyspiel.register_game(game_type(variant), cls)
