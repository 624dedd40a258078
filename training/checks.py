"""Small value checks shared by the training configs: an error names the key and the bad value."""

from __future__ import annotations

from typing import Any


def require(ok: bool, key: str, value: Any, expected: str, source: str) -> None:
    if not ok:
        raise ValueError(f"{source}: bad value {value!r} for {key!r}; expected {expected}")


def is_int(value: Any, minimum: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def check_agent_names(names: list, key: str, source: str) -> None:
    """Every entry a built-in agent name (or ``{agent: name, ...}``), or ``model:<path>``."""
    from agents.base import AGENTS

    for entry in names:
        name = entry.get("agent") if isinstance(entry, dict) else entry
        if not isinstance(name, str) or (not name.startswith("model:") and name not in AGENTS):
            raise ValueError(f"{source}: unknown agent {name!r} in {key}; built-in agents are "
                             f"{', '.join(sorted(AGENTS))}, or give model:<path>")
