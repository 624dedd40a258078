"""A Commerce game's numeric parameters checked before pyspiel converts them (docs/openspiel.md).

pyspiel turns every parameter into a C ``int`` before a Python game sees it, so a number beyond
one (2**31 and up, or below -2**31) failed there with pybind11's ``Unable to cast Python instance
... to C++ type '?'`` (or a ``SpielError`` in a game string) instead of R12's message.
:func:`install` wraps ``pyspiel.load_game`` so that for a ``python_commerce_<variant>`` game such
a number is refused first, as the engines refuse it (``bad value ... for option 'max_rounds';
expected a whole number from 1 to 1000``): every bound of R12 fits a C int.  Every other call
goes to pyspiel unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pyspiel

from ..checks import is_whole
from .params import rules_from_parameters

C_INT = (-2**31, 2**31 - 1)  # pyspiel's int parameters
PREFIX = "python_commerce_"
_WRAPPED = "_commerce_checks_parameters"  # marks the wrapper: installed once
_STRING = re.compile(r"\s*python_commerce_(\w+)\s*\((.*)\)\s*", re.S)  # python_commerce_pool(entry=12,...)
_WHOLE = re.compile(r"[+-]?\d+")


def _beyond_c_int(value: Any) -> bool:
    return is_whole(value) and not C_INT[0] <= value <= C_INT[1]


def check_parameters(name: Any, params: Any = None) -> None:
    """Refuse, as the engines do (``ValueError`` naming it), a number beyond a C int among the
    parameters of a Commerce game: ``name`` is a game name (``params`` a dict) or a game string
    ``python_commerce_<variant>(key=value,...)``.  Anything else is left to pyspiel."""
    if not isinstance(name, str):
        return
    big: dict[str, int] = {}
    if isinstance(params, Mapping) and name.startswith(PREFIX):
        variant = name[len(PREFIX):]
        big = {key: value for key, value in params.items() if _beyond_c_int(value)}
    elif params is None and (match := _STRING.fullmatch(name)):
        variant = match.group(1)
        for part in match.group(2).split(","):
            key, _, text = part.partition("=")
            if _WHOLE.fullmatch(text.strip()) and _beyond_c_int(int(text)):
                big[key.strip()] = int(text)
    if not big:
        return
    rules_from_parameters(variant, big)  # R12's bounds all fit a C int: this names the first such value
    key, value = next(iter(big.items()))  # pragma: no cover - a parameter without a bound
    raise ValueError(f"bad value {value!r} for parameter {key!r}; beyond OpenSpiel's int parameters")


def install() -> None:
    """Wrap ``pyspiel.load_game`` with :func:`check_parameters` (once)."""
    load_game = pyspiel.load_game
    if getattr(load_game, _WRAPPED, False):
        return

    def checked_load_game(*args: Any, **kwargs: Any) -> Any:
        if args:
            check_parameters(args[0], args[1] if len(args) > 1 else None)
        return load_game(*args, **kwargs)

    checked_load_game.__doc__ = load_game.__doc__
    setattr(checked_load_game, _WRAPPED, True)
    pyspiel.load_game = checked_load_game
