"""The checking vocabulary of every layer: a whole number, a bounded number, one of some choices, a flag.

Untrusted values (rule options, env arguments, web requests, arena settings, config
sections) are checked where they enter, each with an error that names the setting and
quotes the bad value.  The tests here (``is_whole``, ``is_number``) answer yes or no, for
callers that word their own error (the config sections say which file and key); the
checks (``whole_number``, ``bounded_number``, ``one_of``, ``flag``) return the value or
raise ``ValueError``.  A bool is never a number: ``True`` is not a seat.  This module
imports nothing of the project, so every layer can use it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

__all__ = ["bounded_number", "flag", "is_number", "is_whole", "one_of", "whole_number"]


def is_whole(value: Any) -> bool:
    """A whole number (a Python or numpy integer), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A finite real number (whole or not), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if low is not None:
        return f" of at least {low}"
    return "" if high is None else f" of at most {high}"


def whole_number(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int if it is a whole number within ``low`` and ``high`` (each included,
    None for no bound); else a ``ValueError`` naming ``name`` and the value."""
    if not is_whole(value) or (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"bad value {value!r} for {name}; expected a whole number{_range(low, high)}")
    return int(value)


def bounded_number(name: str, value: Any, low: float, high: float, *, above: bool = False) -> float:
    """``value`` as a float if it is a finite number from ``low`` (``above``: greater than it) to
    ``high``; else a ``ValueError`` naming ``name`` and the value."""
    inside = is_number(value) and (value > low if above else value >= low) and value <= high
    if not inside:
        bound = f"above {low:g} and at most {high:g}" if above else f"from {low:g} to {high:g}"
        raise ValueError(f"bad value {value!r} for {name}; expected a number {bound}")
    return float(value)


def one_of(name: str, value: Any, choices: Sequence[Any]) -> Any:
    """``value`` if it is one of ``choices`` (of the same type: ``True`` is not ``1``); else a
    ``ValueError`` naming ``name`` and listing the choices."""
    if not any(type(value) is type(choice) and value == choice for choice in choices):
        raise ValueError(f"bad value {value!r} for {name}; choose from {', '.join(map(str, choices))}")
    return value


def flag(name: str, value: Any, *, words: bool = False) -> bool:
    """``value`` if it is true or false (``words``: also 'on' or 'off', as rule files write them);
    else a ``ValueError`` naming ``name``."""
    if isinstance(value, bool):
        return value
    if words and value in ("on", "off"):
        return value == "on"
    expected = "true/false (or 'on'/'off')" if words else "true or false"
    raise ValueError(f"bad value {value!r} for {name}; expected {expected}")
