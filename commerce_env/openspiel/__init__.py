"""Commerce as OpenSpiel games (extra ``openspiel``); see docs/openspiel.md.

``import commerce_env.openspiel`` registers ``python_commerce_<variant>`` for
every variant, so ``pyspiel.load_game("python_commerce_widow", {"players": 4})``
works and OpenSpiel's algorithms run on it.
"""

from __future__ import annotations

from .game import GAME_CLASSES, CommerceGame, CommerceState, game_name, register, state_from_engine
from .params import parameter_specification, parameters_from_rules, rules_from_parameters

register()

__all__ = ["GAME_CLASSES", "CommerceGame", "CommerceState", "game_name", "parameter_specification",
           "parameters_from_rules", "register", "rules_from_parameters", "state_from_engine"]
