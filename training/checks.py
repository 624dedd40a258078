"""Small value checks shared by the training configs: an error names the key and the bad value."""

from __future__ import annotations

from typing import Any


def require(ok: bool, key: str, value: Any, expected: str, source: str) -> None:
    if not ok:
        raise ValueError(f"{source}: bad value {value!r} for {key!r}; expected {expected}")


def is_int(value: Any, minimum: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def check_agent_names(names: list, key: str, source: str) -> None:
    """Every entry an agent spec (:func:`agents.specs.check_spec`: names, models, mappings)."""
    from agents.specs import check_spec  # the one parser of agent specs

    for entry in names:
        try:
            check_spec(entry)
        except ValueError as error:
            raise ValueError(f"{source}: {key}: {error}") from None
