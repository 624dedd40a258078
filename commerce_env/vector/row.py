"""The batched engine's state, declared once: one int64 row per game.

Every game is one row of an int64 array ``st``: its own fields first, then sections whose sizes
depend on the number of players (and on how many given packs the rows hold), so that a game's
whole state sits together in memory and a kernel needs only ``(st, g, p)``.  The parameter
vector ``p`` holds the rules, the variant's flags and where each section starts.

Each table below is the one declaration of its names.  The constants the kernels index with are
generated from the tables, as module globals, which numba reads as compile-time constants:

* ``G_<FIELD>``: the column of a field of :data:`GAME_FIELDS`;
* ``S_<FIELD>``: a field of :data:`SEAT_FIELDS`, within a seat's block of the ``seats`` section
  (:func:`seat_field` gives its column);
* ``B_<SET>``: a card bit set of :data:`MEMORY_SETS`, within a seat's block of ``memory``;
* ``P_<NAME>``: a parameter of :data:`PARAMS`; ``P_<SECTION>_AT`` where a section of
  :data:`SECTIONS` starts, ``P_WIDTH`` the row's width;
* ``ACT`` ... ``OVER``: the phase column's values, each phase's index in engine/phases.py's PHASES.

Why numba and one row per game: docs/performance.md, "Batched engine".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..cards import DECK_SIZES
from ..engine.phases import PHASES
from ..options import OPTION_TABLE, UNTIL_OUT, Rules
from .compiled import inlined, kernel  # noqa: F401 - the kernels' decorators, imported from here by the engine

GAME_FIELDS = (  # (name, what it holds): the row's first columns
    ("phase", "the phase: its index in engine/phases.py's PHASES"),
    ("to_act", "the seat to act, -1 when none (over, or waiting for a pack)"),
    ("dealer", "the dealer's seat"),
    ("pool", "counters (money in pool commerce) in the pool (R4.2)"),
    ("deals_played", "deals that count toward `deals` (R4.5)"),
    ("deals_dealt", "deals dealt, settled-at-once ones included: the index of the next given pack"),
    ("rounds", "rounds completed in this deal (R4.4)"),
    ("m", "players in this deal (R3.1)"),
    ("stock", "cards in the stock (R5.3)"),
    ("discards", "cards discarded to the table (R5.3)"),
    ("offer_trader", "the seat whose face-down offer awaits a reply, -1 when none (R5.4, R7.2)"),
    ("offer_card", "the card offered, -1 when none"),
    ("over", "1 when the match is over"),
    ("stood", "how many stood in this deal (R8.3)"),
    ("lt_head", "the next entry of the last turns (R8.3)"),
    ("lt_len", "how many last turns there are"),
    ("horse_offered", "1 once the horse was offered (R9.4)"),
    ("has_losers", "1 once the match's losers are set"),
    ("num_decks", "how many given packs this game holds"),
    ("newly_out", "players who went out at the end of the last deal (R4.6)"),
    ("rng", "the game's own random generator's state (splitmix64)"),
    ("winners", "how many winners the last showdown had (R3.3)"),
    ("unshuffled", "stock cards on top not yet in random order (shuffle.draw_stock_top)"),
    ("awaiting", "1 while the game waits for its next pack (wait_for_packs)"),
)
SEAT_FIELDS = (  # (name, what it holds): a block per seat.  Lists by position: the i-th entry in seat i's block.
    ("counters", "counters, or lives where the variant keeps them (R4.1)"),
    ("money", "money apart from lives (pool commerce, R9)"),
    ("out", "1 when out of the match (R4.6)"),
    ("order", "the list of the deal's players, eldest first (R3.1)"),
    ("pos", "this seat's place in the order, -1 when not in the deal"),
    ("last_kind", "the kind of this seat's last action in the deal, -1 for none (engine/actions.py's KINDS)"),
    ("stood", "1 when this seat stood in the deal (R8.2)"),
    ("passed", "1 when this seat passed in the deal (R8.2)"),
    ("value", "this seat's hand value at the showdown, -1 without a hand"),
    ("paid", "the balance at the last payment of rewards"),
    ("loser", "1 when a loser of the match"),
    ("last_turns", "the list of the seats given a last turn (R8.3)"),
    ("newly_out", "1 when out at the end of the last deal"),
    ("winner", "1 when a winner of the last showdown"),
    ("winners", "the list of the last showdown's winners, in preference order (R3.3)"),
)
MEMORY_SETS = ("gave_left", "gave_right", "discarded")  # a seat's own cards it gave away or discarded (R11)
SECTIONS = (  # (name, width for n players and d given packs, what it holds), in the row's order
    ("seats", lambda n, d: n * len(SEAT_FIELDS), "SEAT_FIELDS for each seat, seat 0 first"),
    ("hands", lambda n, d: 3 * n, "three cards per seat, sorted; -1 for a seat dealt nothing"),
    ("table", lambda n, d: 3, "the face-up table or widow (R1.5), -1 without one"),
    ("stock", lambda n, d: 52, "the stock, the top card last (R5.3)"),
    ("discards", lambda n, d: 52, "the cards discarded to the table (R5.3)"),
    ("memory", lambda n, d: len(MEMORY_SETS) * n, "MEMORY_SETS for each seat, as card bit sets (bit c: card c)"),
    ("rewards", lambda n, d: 2 * n, "by seat the rewards not yet taken, then the match's totals, in REWARD_UNIT"),
    ("known", lambda n, d: n * n, "for each observer, the card bit sets it knows in each holder's hand (R11)"),
    ("decks", lambda n, d: 52 * d, "the given packs of the match's deals, 52 columns each, top card first"),
)
# Of Rules: every option of R12's table but the combinations (the hand tables' keys, R2), then has_lives.
RULE_PARAMS = (*(o.name for o in OPTION_TABLE if o.kind != "combinations"), "has_lives")
FLAG_PARAMS = ("antes", "has_table", "plays_for_money", "pass_ends_turns")  # of the variant's engine class
PARAMS = ("variant", "num_players", "wait_for_packs", *RULE_PARAMS, *FLAG_PARAMS,
          *(f"{name}_at" for name, _, _ in SECTIONS), "width")
# An option with a few named choices is the index of its value among them (a number, deck_size, is itself).
CHOICES = {o.name: o.choices for o in OPTION_TABLE if o.kind == "one_of" and isinstance(o.choices[0], str)}
DEALS_UNTIL_OUT = -1  # `deals` is until_out (R4.5)
REWARD_UNIT = 27720  # rewards are kept in 1/27720ths: exact for counters and for 1/k with k <= 12

NUM_GS, NUM_PS, NUM_PARAMS = len(GAME_FIELDS), len(SEAT_FIELDS), len(PARAMS)
globals().update({f"G_{name.upper()}": i for i, (name, _) in enumerate(GAME_FIELDS)})
globals().update({f"S_{name.upper()}": i for i, (name, _) in enumerate(SEAT_FIELDS)})
globals().update({f"B_{name.upper()}": i for i, name in enumerate(MEMORY_SETS)})
globals().update({f"P_{name.upper()}": i for i, name in enumerate(PARAMS)})
globals().update({phase.upper(): i for i, phase in enumerate(PHASES)})


def choice(option: str, value: str) -> int:
    """The number of ``value`` of ``option`` in ``p`` (``choice("tie_break", "split")``)."""
    return CHOICES[option].index(value)


def section_widths(num_players: int, num_decks: int) -> dict[str, int]:
    """Each section's width for ``num_players`` and room for ``num_decks`` given packs."""
    return {name: width(num_players, num_decks) for name, width, _ in SECTIONS}


def layout_params(num_players: int, num_decks: int) -> dict[int, int]:
    """``{P_<SECTION>_AT: start, P_WIDTH: width}``: where each section of a row starts."""
    places, at = {}, NUM_GS
    for name, width in section_widths(num_players, num_decks).items():
        places[PARAMS.index(f"{name}_at")] = at
        at += width
    places[PARAMS.index("width")] = at
    return places


def rule_params(rules: Rules, num_players: int, wait_for_packs: bool = False) -> np.ndarray:
    """The parameters of :data:`PARAMS` but the sections' places: the rules, the variant's flags."""
    engine = rules.info.engine
    if rules.deck_size not in DECK_SIZES:  # a research pack (cards.RESEARCH_PACKS): the readable engine's only
        raise ValueError(f"the batched engine deals R1's packs (52 or 32 cards), not the {rules.deck_size}-card "
                         "research pack: play it on the readable engine")

    def value(name: str) -> Any:
        if name in RULE_PARAMS:
            found = getattr(rules, name)
            if name in CHOICES:
                return choice(name, found)
            return DEALS_UNTIL_OUT if name == "deals" and found == UNTIL_OUT else found
        return getattr(engine, name)

    p = np.zeros(NUM_PARAMS, dtype=np.int64)
    named = {"variant": rules.info.kernel, "num_players": num_players, "wait_for_packs": wait_for_packs}
    for i, name in enumerate(PARAMS[:3 + len(RULE_PARAMS) + len(FLAG_PARAMS)]):
        p[i] = int(named[name] if name in named else value(name))
    return p


_SEATS_AT = PARAMS.index("seats_at")


@kernel
def seat_field(p, seat, field):
    """The column of ``seat``'s ``field`` (an ``S_`` constant)."""
    return p[_SEATS_AT] + seat * NUM_PS + field
