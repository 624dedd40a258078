"""What a variant is, declared once, and the record of a variant's options (docs/rules.md R12).

Each engine module declares its variant with :func:`register` (as OpenSpiel's Python games
declare ``_GAME_TYPE`` / ``_GAME_INFO`` and register them): its name, title, a few lines of how
to play, its options with their defaults, whether presets and lives apply, its engine class and
the code of its batched kernel.  Everything else (rules, guide, pictures, the batched engine,
benchmarks, tests) iterates :func:`registered`, so adding a variant touches its own modules only.

This module sits below the engine (which registers into it) and below :mod:`commerce_env.rules`
(which validates options against it); it imports neither.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from typing import Any

from .hands import COMBINATIONS

UNTIL_OUT = "until_out"
FOSTER_COMBINATIONS = frozenset({"tricon", "sequence", "point"})
ALL_COMBINATIONS = frozenset(COMBINATIONS)
TIE_BREAKS = ("dealer", "eldest", "split")
DISCARDS = ("table", "bottom")
DEALER_PAYS = ("foster", "peel_each", "peel_better", "none")
MATCH_ENDS = ("whiskey", "freeze_out")
REWARDS = ("counters", "outcome")
PRESETS = ("foster", "peel")
COMMON_OPTIONS = frozenset({"tie_break", "max_rounds", "deals", "deck_size", "reward"})  # R12: every variant's
# R5.9 / R12: what a preset sets; for a variant only the options it has.
PRESET_OPTIONS: dict[str, dict[str, Any]] = {
    "foster": dict(combinations=FOSTER_COMBINATIONS, tie_break="dealer", discard="table",
                   stand_after_trade=False, dealer_pays="foster"),
    "peel": dict(combinations=ALL_COMBINATIONS, discard="bottom", stand_after_trade=True, dealer_pays="none"),
}
# R12: the lowest and highest value of each numeric option.  At the highest, with 12 players, no amount
# of a whole match overflows the batched engine's int64 kernels, which keep rewards in 1/27720ths: money
# moves at most deals * (1 + 12 * (max_rounds + 2)) * 12 ~ 1.4e9 counters (R5.3, R5.8) and pool commerce
# holds at most 12 * entry + horse_price ~ 1.3e10 (R9.2, R9.4); times 27720 both stay below 2**53, so
# rewards are exact floats too.  Every bound fits OpenSpiel's int parameters, and so does its bound on a
# match's length, deals * (36 * max_rounds + 14) ~ 3.6e8 < 2**31.
OPTION_BOUNDS: dict[str, tuple[int, int]] = {
    "deals": (1, 10_000),
    "max_rounds": (1, 1_000),
    "entry": (0, 10**9),
    "payout": (0, 10**9),
    "horse_price": (0, 10**9),
}


@dataclass(frozen=True)
class Variant:
    """A variant's facts, declared once in its engine module."""

    name: str
    """The id: ``commerce_env.env(variant=name)``."""
    title: str
    """What a table calls it (pictures, the web app)."""
    guide: str
    """How to play in a few lines, citing docs/rules.md (the terminal's and the web app's help)."""
    options: frozenset[str]
    """The R12 options it takes beyond :data:`COMMON_OPTIONS`."""
    defaults: Mapping[str, Any]
    """R12's default of every option it takes."""
    engine: type
    """The readable engine class (a :class:`commerce_env.engine.base.Game`)."""
    kernel: int
    """The code the batched engine's kernels switch on (commerce_env.vector)."""
    presets: bool = True
    """Whether ``preset="foster"`` / ``"peel"`` apply (R12)."""
    has_lives: bool = False
    """Counters are lives, three each (R6.1, R7.1, R9.3)."""
    all_options: frozenset[str] = field(init=False)
    """:data:`COMMON_OPTIONS` and :attr:`options`."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "all_options", COMMON_OPTIONS | self.options)
        object.__setattr__(self, "defaults", MappingProxyType(dict(self.defaults)))
        if getattr(self.engine, "variant", None) != self.name:
            raise ValueError(f"variant {self.name!r}: its engine class says variant {self.engine.variant!r}")
        missing = self.all_options - {"deck_size", "reward"} - set(self.defaults)
        if missing:
            raise ValueError(f"variant {self.name!r}: no default for {sorted(missing)}")


_REGISTRY: dict[str, Variant] = {}


def register(variant: Variant) -> Variant:
    """Make ``variant`` known to the whole library (its engine module calls this once, on import)."""
    if variant.name in _REGISTRY and _REGISTRY[variant.name] != variant:
        raise ValueError(f"variant {variant.name!r} is registered twice")
    if any(v.kernel == variant.kernel and v.name != variant.name for v in _REGISTRY.values()):
        raise ValueError(f"variant {variant.name!r}: kernel code {variant.kernel} is another variant's")
    _REGISTRY[variant.name] = variant
    return variant


def registered() -> Mapping[str, Variant]:
    """Every registered variant, in the order of their kernel codes (docs/rules.md's order; read-only)."""
    return MappingProxyType(dict(sorted(_REGISTRY.items(), key=lambda item: item[1].kernel)))


def variant_info(name: str) -> Variant:
    """The declared facts of variant ``name``; a ``ValueError`` naming it if there is no such variant."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown variant {name!r}; choose from {', '.join(_REGISTRY)}") from None


def check_bounds(name: str, value: Any) -> int:
    """``value`` if it is a whole number within the bounds of option ``name`` (R12)."""
    low, high = OPTION_BOUNDS[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"bad value {value!r} for option {name!r}; expected a whole number from {low} to {high}")
    return value


DEFAULT_VARIANT = "trade_barter"  # the game when none is named
DEFAULT_PLAYERS = 4  # the table when no player count is named


@dataclass(frozen=True)
class Rules:
    """Every option of one variant, with R12 defaults filled in (built by :func:`commerce_env.rules.make_rules`)."""

    variant: str = DEFAULT_VARIANT
    combinations: frozenset[str] = FOSTER_COMBINATIONS
    tie_break: str = "dealer"
    discard: str = "table"
    stand_after_trade: bool = False
    dealer_pays: str = "foster"
    allow_pass: bool = True
    match_end: str = "whiskey"
    deals: int | str = 1
    max_rounds: int = 10
    entry: int = 12
    payout: int = 1
    horse_price: int = 4
    deck_size: int = 52
    reward: str = "counters"

    def __post_init__(self) -> None:
        for name in OPTION_BOUNDS:  # R12: rules built directly are bounded as make_rules bounds them
            value = getattr(self, name)
            if not (name == "deals" and value == UNTIL_OUT):
                check_bounds(name, value)

    @property
    def info(self) -> Variant:
        """The declared facts of this variant."""
        return variant_info(self.variant)

    @property
    def has_lives(self) -> bool:
        return self.info.has_lives

    def options(self) -> dict[str, Any]:
        """The options that apply to this variant, as plain values (for YAML/JSON)."""
        values = asdict(self)
        out: dict[str, Any] = {"variant": self.variant}
        for name in sorted(self.info.all_options):
            value = values[name]
            if name == "combinations":
                value = [c for c in COMBINATIONS if c in value]
            out[name] = value
        return out

    def check_players(self, num_players: int) -> None:
        """R1.4: 2 to 12 players with 52 cards, 2 to 7 with 32."""
        limit = 12 if self.deck_size == 52 else 7
        if isinstance(num_players, bool) or not isinstance(num_players, int):
            raise TypeError(f"num_players must be an int, got {num_players!r}")
        if not 2 <= num_players <= limit:
            raise ValueError(
                f"num_players={num_players} is out of range: 2 to {limit} players with a {self.deck_size}-card pack"
            )
