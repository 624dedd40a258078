"""Commerce as OpenSpiel games (extra ``openspiel``); see docs/openspiel.md.

``import commerce_env.openspiel`` registers ``python_commerce_<variant>`` for
every variant, so ``pyspiel.load_game("python_commerce_widow", {"players": 4})``
works and OpenSpiel's algorithms run on it; ``pyspiel.load_game`` is wrapped so that
a number beyond pyspiel's C ints is refused as the engines refuse it (:mod:`.loading`).
"""

from __future__ import annotations

from .game import GAME_CLASSES, CommerceGame, CommerceState, game_name, register, state_from_engine
from .loading import install
from .params import parameter_specification, parameters_from_rules, rules_from_parameters
from .small import register as register_small

register()
register_small()  # python_small_commerce_<variant>: the research-size games (commerce_env.small_game)
install()

__all__ = ["GAME_CLASSES", "CommerceGame", "CommerceState", "game_name", "parameter_specification",
           "parameters_from_rules", "register", "rules_from_parameters", "state_from_engine"]
