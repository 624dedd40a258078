"""Small value checks shared by the training configs: an error names the key and the bad value."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
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


def merge_sections(data: Any, defaults: Mapping[str, Any], source: str, allowed: Callable[[str], set[str] | None],
                   arguments: str, keys_are: str = "keys are") -> dict[str, Any]:
    """``data`` (a config file's mapping) over a deep copy of ``defaults``, its keys checked.

    A key of ``defaults`` whose default is a mapping is a section: it must be a mapping (or null:
    the defaults) of the keys ``allowed(section)`` gives (None: not checkable here); ``arguments``
    names what the ``ppo`` section holds.  An unknown key is a ``ValueError`` naming it.
    """
    if not isinstance(data, dict):
        raise ValueError(f"{source}: a training config must be a mapping of sections, got {type(data).__name__}")
    config = copy.deepcopy(dict(defaults))
    for key, value in data.items():
        if key not in defaults:
            raise ValueError(f"{source}: unknown key {key!r}; {keys_are} {', '.join(defaults)}")
        if not isinstance(defaults[key], dict):
            config[key] = value
            continue
        if value is None:
            continue
        if not isinstance(value, dict):
            raise ValueError(f"{source}: section {key!r} must be a mapping, got {value!r}")
        keys = allowed(key)
        for sub in value:
            if keys is not None and sub not in keys:
                hint = arguments if key == "ppo" else ", ".join(defaults[key])
                raise ValueError(f"{source}: unknown key '{key}.{sub}'; allowed: {hint}")
        config[key].update(value)
    return config
