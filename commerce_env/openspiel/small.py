"""The research-size games (:mod:`commerce_env.small_game`) as pyspiel games, chance dealing a whole
deal at once: ``python_small_commerce_<variant>``, small enough for OpenSpiel's algorithms that walk
the whole tree (CFR, ``best_response``, ``exploitability``, ``nash_conv``).

The game's trees are :mod:`commerce_env.game_tree`'s: the first chance node chooses a whole deal
(equally likely), a ready-money action is followed by a chance node that draws its card among
the stock cards nobody has drawn, and the information-state string is
:func:`commerce_env.game_tree.info_key` (what the seat has seen of the deal, R11).  Parameter
``deals``: 0 plays every deal, ``k`` only ``k`` of them spread evenly (a smaller game, for
tests).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ..cards import CARDS
from ..checks import whole_number
from ..engine.actions import NUM_ACTIONS, describe_action
from ..game_tree import draws_card, info_key, replayed, stock_top, unseen_stock
from ..small_game import SMALL_GAMES, SmallGame


def game_name(variant: str) -> str:
    return f"python_small_commerce_{variant}"


def _game_type(variant: str) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=game_name(variant),
        long_name=f"Python Commerce ({variant}), research size",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=False,
        provides_observation_tensor=False,
        parameter_specification={"deals": 0},
    )


class SmallCommerceGame(pyspiel.Game):
    """``python_small_commerce_<variant>``: one deal of :data:`commerce_env.small_game.SMALL_GAMES`."""

    small: SmallGame

    def __init__(self, params: dict[str, Any] | None = None):
        params = dict(params or {})
        unknown = sorted(set(params) - {"deals"})
        if unknown:
            raise ValueError(f"unknown parameter(s) {', '.join(unknown)}; the one parameter is deals")
        count = params.get("deals", 0)
        every = self.small.deals()
        whole_number("parameter 'deals' (0: every deal)", count, 0, len(every))
        self.deals = every if count == 0 else self.small.deals(count)
        self.top = stock_top(self.small)
        rules = self.small.rules()
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=max(len(self.deals), 52),  # a deal's index, or a card drawn
            num_players=self.small.num_players,
            min_utility=-float(1 + self.small.num_players * (rules.max_rounds + 2)),
            max_utility=float(self.small.num_players * (1 + self.small.num_players * (rules.max_rounds + 2))),
            utility_sum=0.0,
            max_game_length=3 * self.small.num_players * rules.max_rounds + 2,
        )
        super().__init__(_game_type(self.small.variant), info, {"deals": count})

    def new_initial_state(self) -> SmallCommerceState:
        return SmallCommerceState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _InformationStates:
        """Information-state strings only (what C++ algorithms such as ``TabularBestResponse`` ask for)."""
        if params:
            raise ValueError(f"observer parameters are not supported, got {params!r}")
        if iig_obs_type is not None and not iig_obs_type.perfect_recall:
            raise ValueError("these games give information states (perfect recall) only, not observations")
        return _InformationStates()


class _InformationStates:
    """An observer with no tensor whose string is the information state (:func:`info_key`)."""

    def __init__(self) -> None:
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: SmallCommerceState, player: int) -> None:
        """Nothing to set: there is no tensor."""

    def string_from(self, state: SmallCommerceState, player: int) -> str:
        return state.information_state_string(player)


class _Position:
    """Everything a state changes, in one attribute: pyspiel's ``Clone`` deep-copies each attribute,
    and this one copies through the engine's own ``clone``."""

    __slots__ = ("deal", "actions", "drawn", "waiting", "engine")

    def __init__(self) -> None:
        self.deal: int | None = None
        self.actions: tuple[int, ...] = ()
        self.drawn: tuple[int, ...] = ()
        self.waiting: int | None = None  # a ready-money action whose card chance has yet to draw
        self.engine = None

    def __deepcopy__(self, memo: dict) -> _Position:
        new = _Position()
        new.deal, new.actions, new.drawn, new.waiting = self.deal, self.actions, self.drawn, self.waiting
        new.engine = None if self.engine is None else self.engine.clone()
        return new


class SmallCommerceState(pyspiel.State):
    """A position: the deal chosen, the actions taken, the cards drawn, and the engine there."""

    def __init__(self, game: SmallCommerceGame):
        super().__init__(game)
        self._p = _Position()

    def _unseen(self) -> list[int]:
        p, game = self._p, self.get_game()
        return unseen_stock(p.engine, game.deals[p.deal], p.drawn, game.top)

    def current_player(self) -> int:
        p = self._p
        if p.deal is None or p.waiting is not None:
            return pyspiel.PlayerId.CHANCE
        if p.engine.over:
            return pyspiel.PlayerId.TERMINAL
        return p.engine.current_player

    def is_terminal(self) -> bool:
        return self._p.engine is not None and self._p.engine.over

    def _legal_actions(self, player: int) -> list[int]:
        return list(self._p.engine.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._p.deal is None:
            count = len(self.get_game().deals)
            return [(k, 1.0 / count) for k in range(count)]
        unseen = self._unseen()
        return [(c, 1.0 / len(unseen)) for c in unseen]

    def _apply_action(self, action: int) -> None:
        p, game = self._p, self.get_game()
        if p.deal is None:
            p.deal = action
            p.engine = game.small.new_game(game.deals[action])
        elif p.waiting is not None:  # the card drawn: the deal again with it on the stock
            p.drawn += (action,)
            engine = replayed(game.small, game.deals[p.deal], p.drawn, p.actions, game.top)
            engine.apply(p.waiting)
            p.actions += (p.waiting,)
            p.engine, p.waiting = engine, None
        elif draws_card(p.engine, action) and self._unseen():
            p.waiting = action
        else:
            p.engine.apply(action)
            p.actions += (action,)

    def _action_to_string(self, player: int, action: int) -> str:
        engine = self._p.engine
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}" if engine is None else str(CARDS[action])
        if engine is not None and player == engine.current_player:
            return engine.action_text(action, player)
        return describe_action(action)

    def information_state_string(self, player: int | None = None) -> str:
        seat = self.current_player() if player is None else player
        return str(info_key(self._p.engine, seat))

    def returns(self) -> list[float]:
        engine = self._p.engine
        if engine is None or not engine.over:
            return [0.0] * self.get_game().num_players()
        return engine.returns()

    def __str__(self) -> str:
        p = self._p
        return f"deal {p.deal}, actions {p.actions}, drawn {p.drawn}"


GAME_CLASSES = {variant: type(f"SmallCommerce_{variant}", (SmallCommerceGame,), {"small": small})
                for variant, small in SMALL_GAMES.items()}


def register() -> None:
    """Register ``python_small_commerce_<variant>`` for each small game with pyspiel (idempotent)."""
    registered = set(pyspiel.registered_names())
    for variant, cls in GAME_CLASSES.items():
        if game_name(variant) not in registered:
            pyspiel.register_game(_game_type(variant), cls)
