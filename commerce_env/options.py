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

from .checks import flag, is_whole, one_of, whole_number
from .hands import COMBINATIONS, normalize_combinations

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
MONEY = (0, 10**9)


@dataclass(frozen=True)
class Option:
    """One rule option, declared once: what values it takes, and the rule that says what it does.

    Its default is each variant's (:attr:`Variant.defaults`, R12's columns); :attr:`default` is
    the value where a variant declares none: the same everywhere (``deck_size``, ``reward``), or
    what :class:`Rules` holds for an option its variant does not take.
    ``make_rules``, the batched engine's row, OpenSpiel's parameters, the web's form and the
    command line's help read this record; docs/rules.md's R12 table is checked against it."""

    name: str
    kind: str
    """``one_of`` (:attr:`choices`), ``flag`` (true/false, or on/off), ``whole`` (within
    :attr:`bounds`), ``deals`` (within :attr:`bounds`, or ``until_out``), ``combinations`` (R2's names)."""
    rule: str
    """The section of docs/rules.md that says what it does."""
    choices: tuple[Any, ...] = ()
    bounds: tuple[int, int] | None = None
    default: Any = None

    def check(self, value: Any) -> Any:
        """``value`` as the rules keep it; a ``ValueError`` naming the option and the value if it is
        not one this option takes (whether the variant takes it is :func:`commerce_env.rules.make_rules`'s)."""
        label = f"option {self.name!r}"
        if self.kind == "one_of":
            return one_of(label, value, self.choices)
        if self.kind == "flag":
            return flag(label, value, words=True)
        if self.kind == "deals" and value == UNTIL_OUT:
            return value
        if self.kind in ("whole", "deals"):
            return whole_number(label, value, *self.bounds)
        if value is None:  # combinations: not "all five", say which count
            raise ValueError("bad value None for option 'combinations'; give a list of names such as "
                             "[tricon, sequence, point]")
        return normalize_combinations(value)

    @property
    def values(self) -> str:
        """The values it takes, as docs/rules.md's R12 table writes them."""
        if self.kind == "one_of":
            return ", ".join(map(str, self.choices))
        if self.kind == "flag":
            return "on, off"
        if self.kind == "combinations":
            return "names (R2)"
        low, high = self.bounds
        return f"{low:,} to {high:,}" + (", or until_out" if self.kind == "deals" else "")


# R12: every option, in docs/rules.md's order (the batched engine's row keeps its parameters in it).
OPTION_TABLE: tuple[Option, ...] = (
    Option("combinations", "combinations", "R2", default=FOSTER_COMBINATIONS),
    Option("tie_break", "one_of", "R3.3", choices=TIE_BREAKS, default="dealer"),
    Option("discard", "one_of", "R5.3", choices=DISCARDS, default="table"),
    Option("stand_after_trade", "flag", "R5.6", default=False),
    Option("dealer_pays", "one_of", "R5.8", choices=DEALER_PAYS, default="foster"),
    Option("allow_pass", "flag", "R6.3", default=True),
    Option("match_end", "one_of", "R6.5", choices=MATCH_ENDS, default="whiskey"),
    Option("deals", "deals", "R4.5", bounds=(1, 10_000), default=1),
    Option("max_rounds", "whole", "R4.4", bounds=(1, 1_000), default=10),
    Option("entry", "whole", "R9.2", bounds=MONEY, default=12),
    Option("payout", "whole", "R9.3", bounds=MONEY, default=1),
    Option("horse_price", "whole", "R9.4", bounds=MONEY, default=4),  # a variant's default None: entry // 3
    Option("deck_size", "one_of", "R1.1", choices=(52, 32), default=52),
    Option("reward", "one_of", "R12", choices=REWARDS, default="counters"),
)
OPTION_RECORDS: Mapping[str, Option] = MappingProxyType({option.name: option for option in OPTION_TABLE})
# Views of the table, for readers that want one fact of every option.
OPTION_BOUNDS: dict[str, tuple[int, int]] = {o.name: o.bounds for o in OPTION_TABLE if o.bounds is not None}


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
    return whole_number(f"option {name!r}", value, *OPTION_BOUNDS[name])


DEFAULT_VARIANT = "trade_barter"  # the game when none is named
DEFAULT_PLAYERS = 4  # the table when no player count is named


@dataclass(frozen=True)
class Rules:
    """Every option of one variant, with R12 defaults filled in (built by :func:`commerce_env.rules.make_rules`)."""

    variant: str = DEFAULT_VARIANT
    combinations: frozenset[str] = OPTION_RECORDS["combinations"].default
    tie_break: str = OPTION_RECORDS["tie_break"].default
    discard: str = OPTION_RECORDS["discard"].default
    stand_after_trade: bool = OPTION_RECORDS["stand_after_trade"].default
    dealer_pays: str = OPTION_RECORDS["dealer_pays"].default
    allow_pass: bool = OPTION_RECORDS["allow_pass"].default
    match_end: str = OPTION_RECORDS["match_end"].default
    deals: int | str = OPTION_RECORDS["deals"].default
    max_rounds: int = OPTION_RECORDS["max_rounds"].default
    entry: int = OPTION_RECORDS["entry"].default
    payout: int = OPTION_RECORDS["payout"].default
    horse_price: int = OPTION_RECORDS["horse_price"].default
    deck_size: int = OPTION_RECORDS["deck_size"].default
    reward: str = OPTION_RECORDS["reward"].default

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
        if not is_whole(num_players):
            raise TypeError(f"num_players must be an int, got {num_players!r}")
        if not 2 <= num_players <= limit:
            raise ValueError(
                f"num_players={num_players} is out of range: 2 to {limit} players with a {self.deck_size}-card pack"
            )
