"""Variants, options and their defaults (RULES.md R12), validated once.

:class:`Rules` is a frozen record of every option of a variant.  It is built
by :func:`make_rules` from keyword options (or a YAML file, :func:`load_rules`)
and rejects unknown options, options of another variant and bad values with a
``ValueError`` naming them, before any game state exists.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .hands import COMBINATIONS, normalize_combinations

VARIANTS = ("trade_barter", "widow", "my_ship_sails", "old_game", "pool")
VARIANTS_WITH_LIVES = frozenset({"widow", "my_ship_sails", "pool"})
TIE_BREAKS = ("dealer", "eldest", "split")
DISCARDS = ("table", "bottom")
DEALER_PAYS = ("foster", "peel_each", "peel_better", "none")
MATCH_ENDS = ("whiskey", "freeze_out")
REWARDS = ("counters", "outcome")
PRESETS = ("foster", "peel")
FOSTER_COMBINATIONS = frozenset({"tricon", "sequence", "point"})
ALL_COMBINATIONS = frozenset(COMBINATIONS)
UNTIL_OUT = "until_out"

# R12: the options of each variant and their defaults.
_COMMON = {"tie_break", "max_rounds", "deals", "deck_size", "reward"}
OPTIONS: dict[str, frozenset[str]] = {
    "trade_barter": frozenset(_COMMON | {"combinations", "discard", "stand_after_trade", "dealer_pays"}),
    "widow": frozenset(_COMMON | {"combinations", "allow_pass", "match_end"}),
    "my_ship_sails": frozenset(_COMMON | {"match_end"}),
    "old_game": frozenset(_COMMON | {"combinations"}),
    "pool": frozenset(_COMMON | {"combinations", "entry", "payout", "horse_price"}),
}
# R12: the variants a preset applies to (not My Ship Sails).
PRESET_VARIANTS = frozenset({"trade_barter", "widow", "old_game", "pool"})
ALL_OPTIONS = frozenset().union(*OPTIONS.values()) | {"preset"}
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
DEFAULTS: dict[str, dict[str, Any]] = {
    "trade_barter": dict(combinations=FOSTER_COMBINATIONS, tie_break="dealer", discard="table",
                         stand_after_trade=False, dealer_pays="foster", deals=1, max_rounds=10),
    "widow": dict(combinations=FOSTER_COMBINATIONS, tie_break="dealer", allow_pass=True,
                  match_end="whiskey", deals=UNTIL_OUT, max_rounds=10),
    "my_ship_sails": dict(tie_break="eldest", match_end="freeze_out", deals=UNTIL_OUT, max_rounds=2),
    "old_game": dict(combinations=ALL_COMBINATIONS, tie_break="split", deals=1, max_rounds=10),
    "pool": dict(combinations=ALL_COMBINATIONS, tie_break="split", deals=UNTIL_OUT, max_rounds=10,
                 entry=12, payout=1, horse_price=None),
}
# R5.9 / R12: what a preset sets; for the other variants only the combinations.
PRESET_OPTIONS: dict[str, dict[str, Any]] = {
    "foster": dict(combinations=FOSTER_COMBINATIONS, tie_break="dealer", discard="table",
                   stand_after_trade=False, dealer_pays="foster"),
    "peel": dict(combinations=ALL_COMBINATIONS, discard="bottom", stand_after_trade=True, dealer_pays="none"),
}


@dataclass(frozen=True)
class Rules:
    """Every option of one variant, with R12 defaults filled in."""

    variant: str = "trade_barter"
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
                _count(name, value)

    @property
    def has_lives(self) -> bool:
        return self.variant in VARIANTS_WITH_LIVES

    def options(self) -> dict[str, Any]:
        """The options that apply to this variant, as plain values (for YAML/JSON)."""
        values = asdict(self)
        out: dict[str, Any] = {"variant": self.variant}
        for name in sorted(OPTIONS[self.variant]):
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


def _choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"bad value {value!r} for option {name!r}; choose from {', '.join(choices)}")
    return value


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value in ("on", "off"):
        return value == "on"
    raise ValueError(f"bad value {value!r} for option {name!r}; expected true/false (or 'on'/'off')")


def _count(name: str, value: Any) -> int:
    """``value`` if it is a whole number within the bounds of option ``name`` (R12)."""
    low, high = OPTION_BOUNDS[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"bad value {value!r} for option {name!r}; expected a whole number from {low} to {high}")
    return value


def make_rules(variant: str = "trade_barter", **options: Any) -> Rules:
    """Validated rules of ``variant`` with ``options`` over R12's defaults."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
    allowed = OPTIONS[variant]
    for name in options:
        if name not in ALL_OPTIONS:
            raise ValueError(f"unknown option {name!r}; options are {', '.join(sorted(ALL_OPTIONS))}")
        if name not in allowed and not (name == "preset" and variant in PRESET_VARIANTS):
            raise ValueError(f"option {name!r} does not apply to variant {variant!r}")

    values: dict[str, Any] = dict(DEFAULTS[variant])
    preset = options.pop("preset", None)
    if preset is not None:
        _choice("preset", preset, PRESETS)
        values.update({k: v for k, v in PRESET_OPTIONS[preset].items() if k in allowed})
    values.update(options)

    rules = dict(variant=variant)
    if "combinations" in values:
        if values["combinations"] is None:  # not "all five": say which combinations count
            raise ValueError("bad value None for option 'combinations'; give a list of names such as "
                             "[tricon, sequence, point]")
        rules["combinations"] = normalize_combinations(values["combinations"])
    rules["tie_break"] = _choice("tie_break", values["tie_break"], TIE_BREAKS)
    if "discard" in values:
        rules["discard"] = _choice("discard", values["discard"], DISCARDS)
    if "stand_after_trade" in values:
        rules["stand_after_trade"] = _flag("stand_after_trade", values["stand_after_trade"])
    if "dealer_pays" in values:
        rules["dealer_pays"] = _choice("dealer_pays", values["dealer_pays"], DEALER_PAYS)
    if "allow_pass" in values:
        rules["allow_pass"] = _flag("allow_pass", values["allow_pass"])
    if "match_end" in values:
        rules["match_end"] = _choice("match_end", values["match_end"], MATCH_ENDS)
    deals = values["deals"]
    if deals == UNTIL_OUT:
        if variant not in VARIANTS_WITH_LIVES:
            raise ValueError(f"bad value 'until_out' for option 'deals': variant {variant!r} has no lives")
    else:
        _count("deals", deals)
    rules["deals"] = deals
    rules["max_rounds"] = _count("max_rounds", values["max_rounds"])
    rules["deck_size"] = values.get("deck_size", 52)
    if type(rules["deck_size"]) is not int or rules["deck_size"] not in (52, 32):
        raise ValueError(f"bad value {rules['deck_size']!r} for option 'deck_size'; choose 52 or 32")
    rules["reward"] = _choice("reward", values.get("reward", "counters"), REWARDS)
    if "entry" in allowed:  # R9.2-R9.4: pool commerce's money options
        rules["entry"] = _count("entry", values["entry"])
        rules["payout"] = _count("payout", values["payout"])
        price = values["horse_price"]
        rules["horse_price"] = rules["entry"] // 3 if price is None else _count("horse_price", price)
    return Rules(**rules)


def load_rules(path: str | Path) -> tuple[Rules, dict[str, Any]]:
    """Rules from a YAML file: ``variant``, optional ``num_players``, options.

    Returns the rules and the remaining settings (``num_players``,
    ``name``, ``description``).  Any error names the file and the bad key.
    """
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{path}: cannot read rules file ({error})") from None
    except (yaml.YAMLError, RecursionError) as error:
        raise ValueError(f"{path}: not valid YAML ({error})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a rules file must be a mapping of option names to values")
    data = dict(data)
    for key in data:
        if not isinstance(key, str):
            raise ValueError(f"{path}: option names must be text, got {key!r}")
    extra = {k: data.pop(k) for k in ("num_players", "name", "description") if k in data}
    variant = data.pop("variant", "trade_barter")
    try:
        rules = make_rules(variant, **data)
        if "num_players" in extra:
            rules.check_players(extra["num_players"])
    except (ValueError, TypeError) as error:
        raise ValueError(f"{path}: {error}") from None
    return rules, extra


def with_options(rules: Rules, **options: Any) -> Rules:
    """``rules`` with some options changed, validated again."""
    current = {k: v for k, v in rules.options().items() if k != "variant"}
    current.update(options)
    return make_rules(rules.variant, **current)


def resolve_rules(variant: str | None, config: Any, options: dict[str, Any]) -> tuple[Rules, dict[str, Any]]:
    """The rules an env is built with: a YAML ``config`` (if any) under explicit
    ``options``, else ``variant`` (default trade and barter) with ``options``.

    Returns the rules and the config's other settings (``num_players`` ...).
    """
    if config is None:
        return make_rules("trade_barter" if variant is None else variant, **options), {}
    rules, extra = load_rules(config)
    if variant is not None and variant != rules.variant:
        raise ValueError(f"variant {variant!r} contradicts the config's variant {rules.variant!r}")
    if options:
        rules = with_options(rules, **options)
    return rules, extra


__all__ = ["Rules", "make_rules", "load_rules", "resolve_rules", "with_options", "VARIANTS"]
