"""``BatchEngine``: many matches of one variant stepped together (docs/architecture.md).

The state of every game lives in a few numpy arrays; :mod:`.kernels` (numba)
moves them.  The readable engine (:mod:`commerce_env.engine`) is the
reference: same rules, action numbers, observation layout and rewards, which
tests/vector/test_vector_engine.py checks step by step.

A finished game stays finished (``over``, ``current_player`` -1, an all-zero
mask) until it is restarted: :meth:`reset` restarts all games,
:meth:`reset_games` some of them.  Auto-reset is the vector env's job
(:mod:`commerce_env.vector_env`), so that nothing of one match can leak into the next
without the caller asking for it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..cards import make_pack, parse_pack
from ..checks import flag
from ..engine import ENGINES
from ..engine.actions import NUM_ACTIONS, describe_action
from ..engine.determinize import TIME_LIMIT
from ..env_arguments import check_game_count
from ..observation import observation_size
from ..rules import Rules, make_rules
from . import kernels as K
from .access import KernelState
from .row import (
    B_DISCARDED,
    G_AWAITING,
    G_DEALER,
    G_DEALS_DEALT,
    G_DEALS_PLAYED,
    G_DISCARDS,
    G_NUM_DECKS,
    G_OVER,
    G_PHASE,
    G_POOL,
    G_RNG,
    G_STOCK,
    G_TO_ACT,
    MEMORY_SETS,
    NUM_PS,
    P_DECKS_AT,
    P_DISCARDS_AT,
    P_HANDS_AT,
    P_MEMORY_AT,
    P_REWARDS_AT,
    P_SEATS_AT,
    P_STOCK_AT,
    P_TABLE_AT,
    P_WIDTH,
    REWARD_UNIT,
    S_COUNTERS,
    S_MONEY,
    layout_params,
    rule_params,
)

if TYPE_CHECKING:
    from ..view import SeatView

_FULL_PACKS = {size: list(make_pack(size)) for size in (32, 52)}


def _pack_row(pack: Any, size: int) -> Any:
    """A pack as :func:`commerce_env.cards.parse_pack` reads it; a list of plain card indices
    that is already a whole pack is taken as it is (fast: the arena gives thousands)."""
    if type(pack) is list and len(pack) == size and all(type(c) is int for c in pack) \
            and sorted(pack) == _FULL_PACKS[size]:
        return pack
    return parse_pack(pack, size)


class BatchEngine:
    """``num_games`` matches of ``variant`` with one set of options, stepped together.

    ``options`` are the R12 options of :func:`commerce_env.env` (or ``rules=``
    a :class:`~commerce_env.rules.Rules`).  ``seed`` seeds each game's own
    shuffles (a different generator from the readable engine's: given packs
    agree exactly, shuffled ones need not).  With ``wait_for_packs=True`` a game
    whose given packs are used up does not shuffle: it waits (:attr:`awaiting_pack`,
    no player to act, not over) until :meth:`supply_packs` deals it its next pack,
    as the readable engine's ``wait_for_packs`` / ``supply_pack`` (a caller that
    deals itself: the arena gives the readable engine's own shuffles).
    """

    def __init__(self, variant: str, num_players: int, num_games: int, seed: int = 0,
                 rules: Rules | None = None, wait_for_packs: bool = False, **options: Any):
        if rules is None:
            rules = make_rules(variant, **options)
        elif options or rules.variant != variant:
            raise ValueError("give either rules= for the same variant, or options, not both")
        rules.check_players(num_players)
        check_game_count("num_games", num_games)
        engine = ENGINES[variant]
        needed = 3 * num_players + (3 if engine.has_table else 0)
        if needed > rules.deck_size:
            raise ValueError(f"{num_players} players need {needed} cards; the pack has {rules.deck_size}")
        self.rules = rules
        self.variant = variant
        self.num_players = n = num_players
        self.num_games = g = int(num_games)
        self.obs_size = observation_size(n)
        flag("wait_for_packs", wait_for_packs)
        self.params = rule_params(rules, n, wait_for_packs)  # the kernels' parameters (row.PARAMS)
        self.plays_for_money = engine.plays_for_money  # R9: rewards count money
        self.keys = engine.value_table(rules.combinations).astype(np.int32)  # R2, or R7.4's values
        self.wait_for_packs = wait_for_packs
        seeds = np.random.SeedSequence(seed).generate_state(g, dtype=np.uint64).view(np.int64)
        self._layout(0)
        self._st[:, G_RNG] = seeds
        self._masks = np.zeros((g, NUM_ACTIONS), dtype=np.int8)
        self._rewards = np.zeros((g, n), dtype=np.float64)
        self._all = np.arange(g, dtype=np.int64)
        self._started = False

    def _layout(self, num_decks: int) -> None:
        """(Re)size the rows for ``num_decks`` given packs per game, keeping the state."""
        for key, value in layout_params(self.num_players, num_decks).items():
            self.params[key] = value
        old = getattr(self, "_st", None)
        self._st = np.zeros((self.num_games, int(self.params[P_WIDTH])), dtype=np.int64)
        if old is not None:
            width = min(old.shape[1], self._st.shape[1])
            self._st[:, :width] = old[:, :width]
        self.num_decks = num_decks

    # ----------------------------------------------------------------- reset
    def _parse_decks(self, decks: Sequence[Sequence[Any]], games: np.ndarray) -> np.ndarray:
        if isinstance(decks, (str, bytes)) or not isinstance(decks, Sequence) or len(decks) != len(games):
            raise ValueError(f"decks must be one list of packs per game ({len(games)}), got {decks!r:.80}")
        size = self.rules.deck_size
        parsed = []
        for k, packs in enumerate(decks):
            if isinstance(packs, (str, bytes)) or not isinstance(packs, Sequence):
                raise ValueError(f"decks[{k}] must be a list of packs (texts or card-index lists), got {packs!r:.80}")
            try:
                parsed.append([_pack_row(p, size) for p in packs])
            except (ValueError, TypeError) as error:
                raise ValueError(f"decks[{k}]: {error}") from None
        most = max((len(p) for p in parsed), default=0)
        if most > self.num_decks:
            self._layout(most)
        at = int(self.params[P_DECKS_AT])
        counts = self._st[:, G_NUM_DECKS].copy()
        for g, packs in zip(games, parsed, strict=True):
            counts[g] = len(packs)
            if packs:
                self._st[g, at:at + 52 * len(packs)] = 0
                rows = np.zeros((len(packs), 52), dtype=np.int64)
                rows[:, :size] = np.asarray(packs, dtype=np.int64)
                self._st[g, at:at + 52 * len(packs)] = rows.ravel()
        return counts

    def _dealers(self, dealer: int | Sequence[int], count: int) -> np.ndarray:
        dealers = np.broadcast_to(np.asarray(dealer), (count,)) if np.ndim(dealer) == 0 else np.asarray(dealer)
        if (dealers.shape != (count,) or not np.issubdtype(dealers.dtype, np.integer)
                or dealers.dtype == np.bool_ or dealers.min(initial=0) < 0
                or dealers.max(initial=0) >= self.num_players):
            raise ValueError(f"dealer must be a seat from 0 to {self.num_players - 1} (or one per game), "
                             f"got {dealer!r}")
        return np.ascontiguousarray(dealers, dtype=np.int64)

    def reset(self, decks: Sequence[Sequence[Any]] | None = None, dealer: int | Sequence[int] = 0) -> None:
        """A new match in every game: ``decks`` None (shuffled) or one list of packs per game
        for its successive deals (pack texts or card-index lists, top card first)."""
        self.reset_games(self._all, decks=decks, dealer=dealer)

    def reset_games(self, games: Sequence[int] | np.ndarray, decks: Sequence[Sequence[Any]] | None = None,
                    dealer: int | Sequence[int] = 0) -> None:
        """A new match in each of ``games`` (indices); the others are untouched."""
        games = np.asarray(games)
        if games.ndim != 1 or (games.size and (not np.issubdtype(games.dtype, np.integer)
                                               or games.min() < 0 or games.max() >= self.num_games)):
            raise ValueError(f"games must be indices from 0 to {self.num_games - 1}, got {games!r:.80}")
        games = games.astype(np.int64)
        dealers = self._dealers(dealer, len(games))
        if decks is not None:
            counts = self._parse_decks(decks, games)
        else:
            counts = self._st[:, G_NUM_DECKS].copy()
            counts[games] = 0
        self._st[:, G_NUM_DECKS] = counts
        self._rewards[games] = 0.0
        K.reset_games(self._st, self.params, self.keys, games, dealers, self._masks, self._rewards)
        self._started = True

    # ------------------------------------------------------------------ step
    def _require_started(self) -> None:
        if not self._started:
            raise RuntimeError("call reset() before using the batch engine")

    def step(self, actions: Sequence[int] | np.ndarray, where: np.ndarray | None = None) -> None:
        """One action per game (ignored where the match is over or waits for a pack, or where
        ``where`` is False).
        An illegal action raises ``ValueError`` naming the game and the action, and changes nothing."""
        self._require_started()
        actions = np.asarray(actions)
        if actions.shape != (self.num_games,) or not (np.issubdtype(actions.dtype, np.integer)
                                                      and actions.dtype != np.bool_):
            raise ValueError(f"actions must be an int array of shape ({self.num_games},), "
                             f"got {actions.dtype} {actions.shape}")
        running = ~self.over & ~self.awaiting_pack
        active = running if where is None else (np.asarray(where, dtype=np.bool_) & running)
        clipped = np.clip(actions, 0, NUM_ACTIONS - 1)
        legal = (self._masks[self._all, clipped] == 1) & (actions == clipped)
        bad = np.flatnonzero(active & ~legal)
        if bad.size:
            g = int(bad[0])
            a = int(actions[g])
            what = f"{a} ({describe_action(a)})" if 0 <= a < NUM_ACTIONS else f"{a}"
            raise ValueError(f"game {g}: illegal action {what} for seat {int(self.current_player[g])}; "
                             f"legal: {np.flatnonzero(self._masks[g]).tolist()}")
        K.step_games(self._st, self.params, self.keys, actions.astype(np.int64, copy=False), active, self._masks,
                     self._rewards)

    def load_games(self, games: Sequence[Any], where: Sequence[int] | np.ndarray | None = None,
                   knowledge: bool = True) -> None:
        """Put readable engine games (:class:`commerce_env.engine.base.Game`, any state: mid-deal,
        mid-match, over) into game indices ``where`` (default ``0 .. len(games) - 1``), to be
        stepped on from there exactly as the readable engine would (search's sampled worlds).

        Each game must be of this engine's variant, players and rules; its ``deals`` may
        differ, and this engine's then decides when the match ends.  Its given packs come
        along; past them its later deals are this engine's (shuffled from its own seed, or
        waited for).  A game that waits for a pack needs ``wait_for_packs``, and one told to
        stop after its deal (``stop_after_deal``) cannot be loaded.  ``knowledge=False``
        leaves out what each seat remembers of the deal (R11: its gifts, discards and where it
        knows cards to be): faster, for players that read no observation.  A refused game
        raises ``ValueError`` naming its index and why, before anything changes.  The loaded
        games' :attr:`rewards` are zero; what they had not yet paid comes with their next step."""
        from .load import checked_places, game_row, unloadable

        places = checked_places(self._all[:len(games)] if where is None else where, len(games), self.num_games)
        flag("knowledge", knowledge)
        seen: dict[int, int] = {}  # id(game) -> its row below: a game given many times is read once
        distinct: list[Any] = []
        for k, game in enumerate(games):
            if id(game) not in seen:
                why = unloadable(game, self)
                if why is not None:
                    raise ValueError(f"games[{k}] cannot be loaded: {why}")
                seen[id(game)] = len(distinct)
                distinct.append(game)
        most = max(len(game.decks) for game in distinct) if distinct else 0
        if most > self.num_decks:
            self._layout(most)
        offsets = self.params.tolist()
        rows = np.array([game_row(game, offsets, knowledge) for game in distinct], dtype=np.int64)
        rows = rows.reshape(len(distinct), int(self.params[P_WIDTH]))
        self.load_rows(rows[[seen[id(game)] for game in games]], places)

    def sample_rows(self, view: SeatView, rng: random.Random, count: int,
                    time_limit: float | None = TIME_LIMIT) -> np.ndarray:
        """The worlds ``view.sample_worlds(rng, count)`` deals (R11), drawn alike, as rows for
        :meth:`load_rows` (:func:`commerce_env.vector.sampled.sampled_rows`): search's worlds;
        ``NoConsistentDealError`` where one is not found within ``time_limit`` seconds."""
        from .load import other_rules
        from .sampled import sampled_rows

        differs = other_rules(view.rules, view.num_players, self)
        if differs is not None:
            raise ValueError(f"the view's worlds cannot be games of this engine: {differs}")
        return sampled_rows(view, rng, count, self.params, time_limit)

    def load_rows(self, rows: np.ndarray, where: Sequence[int] | np.ndarray) -> None:
        """Put rows of this engine's layout into game indices ``where``: rows that
        :func:`commerce_env.vector.load.game_row` wrote for :meth:`load_games`, or that
        :func:`commerce_env.vector.sampled.sampled_rows` made for search (trusted input: a row
        is not checked to be a state the rules can reach).  Each game keeps its own random
        generator; the loaded games' :attr:`rewards` are zero."""
        from .load import checked_places, refresh_masks

        width = int(self.params[P_WIDTH])
        rows = np.asarray(rows)
        if rows.ndim != 2 or rows.shape[1] != width or rows.dtype != np.int64:
            raise ValueError(f"rows must be int64 of shape (games, {width}), got {rows.dtype} {rows.shape}")
        places = checked_places(where, len(rows), self.num_games)
        if len(places):
            rng = self._st[places, G_RNG]
            self._st[places] = rows
            self._st[places, G_RNG] = rng
        self._rewards[places] = 0.0
        refresh_masks(self._st, self.params, places, self._masks)
        self._started = True

    def supply_packs(self, games: Sequence[int] | np.ndarray, packs: Sequence[Any]) -> None:
        """Deal each of ``games`` (all :attr:`awaiting_pack`) its next deal from its pack in
        ``packs`` (pack texts or card-index lists, top card first; or an integer array, one pack a
        row).  A deal settled as it is dealt (a dealt flush, R7.3) makes the game wait for the next
        pack again.  Sets :attr:`rewards` of those games to what the deal paid; the others' are
        untouched (as by :meth:`reset_games`)."""
        self._require_started()
        games = np.asarray(games)
        if games.ndim != 1 or (games.size and (not np.issubdtype(games.dtype, np.integer)
                                               or games.min() < 0 or games.max() >= self.num_games)):
            raise ValueError(f"games must be indices from 0 to {self.num_games - 1}, got {games!r:.80}")
        if len(np.unique(games := games.astype(np.int64))) != len(games):
            raise ValueError(f"games must not repeat a game, got {games.tolist()!r:.80}")
        idle = games[~self.awaiting_pack[games]]
        if idle.size:
            raise ValueError(f"game {int(idle[0])} is not waiting for a pack (awaiting_pack is False)")
        size = self.rules.deck_size
        rows = np.zeros((len(games), 52), dtype=np.int64)
        if isinstance(packs, np.ndarray):  # card indices, one pack a row: checked all at once (search's worlds)
            if (packs.shape != (len(games), size) or not np.issubdtype(packs.dtype, np.integer)
                    or packs.dtype == np.bool_ or (np.sort(packs, axis=1) != _FULL_PACKS[size]).any()):
                raise ValueError(f"packs must be one whole {size}-card pack per game ({len(games)}), each card once, "
                                 f"got {packs.dtype} {packs.shape}")
            rows[:, :size] = packs
        elif isinstance(packs, (str, bytes)) or not isinstance(packs, Sequence) or len(packs) != len(games):
            raise ValueError(f"packs must be one pack per game ({len(games)}), got {packs!r:.80}")
        else:
            for k, pack in enumerate(packs):
                try:
                    rows[k, :size] = _pack_row(pack, size)
                except (ValueError, TypeError) as error:
                    raise ValueError(f"packs[{k}]: {error}") from None
        self._rewards[games] = 0.0
        K.supply_packs(self._st, self.params, self.keys, games, rows, self._masks, self._rewards)

    # ------------------------------------------------------------- read-outs
    @property
    def current_player(self) -> np.ndarray:
        """The seat to act in each game, -1 where the match is over (or waits for a pack)."""
        return self._st[:, G_TO_ACT].copy()

    @property
    def action_mask(self) -> np.ndarray:
        """``(num_games, 27)`` int8: the legal actions of each game's player to act."""
        return self._masks.copy()

    @property
    def rewards(self) -> np.ndarray:
        """``(num_games, num_players)``: what the last step (or reset) paid, by seat."""
        return self._rewards.copy()

    @property
    def over(self) -> np.ndarray:
        return self._st[:, G_OVER] == 1

    @property
    def awaiting_pack(self) -> np.ndarray:
        """Where a game waits for :meth:`supply_packs` (only with ``wait_for_packs``)."""
        return self._st[:, G_AWAITING] == 1

    @property
    def deals_played(self) -> np.ndarray:
        """Each match's deals so far that count toward `deals` (R4.5), as ``Game.deals_played``."""
        return self._st[:, G_DEALS_PLAYED].copy()

    @property
    def deals_dealt(self) -> np.ndarray:
        """Each match's deals dealt so far, settled-at-once ones included (R7.3): the index of
        the pack its next deal takes."""
        return self._st[:, G_DEALS_DEALT].copy()

    def _section(self, offset: int, width: int) -> np.ndarray:
        at = int(self.params[offset])
        return self._st[:, at:at + width]

    def _field(self, field: int) -> np.ndarray:
        """``(num_games, num_players)`` view of one per-seat field."""
        at = int(self.params[P_SEATS_AT])
        return self._st[:, at:at + self.num_players * NUM_PS].reshape(
            self.num_games, self.num_players, NUM_PS)[:, :, field]

    def returns(self) -> np.ndarray:
        """Each match's total rewards so far, by seat."""
        n = self.num_players
        return self._section(P_REWARDS_AT, 2 * n)[:, n:] / REWARD_UNIT

    def finished_for(self, seats: int | Sequence[int] | np.ndarray) -> np.ndarray:
        """``(num_games,)`` bool: the readable engine's ``Game.finished_for`` for each game's seat
        in ``seats`` (one seat for all, or one per game): over, or, with counter rewards, that
        seat out for good (R4.6, R9.4)."""
        seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), (self.num_games,))
        if seats.min(initial=0) < 0 or seats.max(initial=0) >= self.num_players:
            raise ValueError(f"seats must be one seat from 0 to {self.num_players - 1} per game, got {seats!r:.80}")
        out = np.empty(self.num_games, dtype=np.bool_)
        K.finished_games(self._st, self.params, np.ascontiguousarray(seats), out)
        return out

    def _games_and_seats(self, seats: int | Sequence[int] | np.ndarray,
                         games: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """The games asked for (all by default) and one checked seat per game, as int64 arrays."""
        self._require_started()
        games = self._all if games is None else np.asarray(games, dtype=np.int64)
        seats = np.broadcast_to(np.asarray(seats, dtype=np.int64), games.shape) if np.ndim(seats) == 0 \
            else np.asarray(seats, dtype=np.int64)
        if seats.shape != games.shape or seats.min(initial=0) < 0 or seats.max(initial=0) >= self.num_players:
            raise ValueError(f"seats must be one seat from 0 to {self.num_players - 1} per game, got {seats!r:.80}")
        return games, np.ascontiguousarray(seats)

    def observe(self, seats: int | Sequence[int] | np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
        """``(num_games, obs_size)`` float32: each game's observation for its seat in ``seats``
        (one seat for all, or one per game); ``games`` picks some games only."""
        games, seats = self._games_and_seats(seats, games)
        out = np.empty((len(games), self.obs_size), dtype=np.float32)
        K.observe_games(self._st, self.params, games, seats, out)
        return out

    def known_cards(self, seats: int | Sequence[int] | np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
        """``(num_games, 52 * (num_players - 1))`` float32: for each game, the cards its seat in
        ``seats`` knows to be in each other player's hand, 52 per player from his left
        (``seat_view(...).public_hands``, R11; :class:`commerce_env.features.KnownHands`)."""
        games, seats = self._games_and_seats(seats, games)
        out = np.empty((len(games), 52 * (self.num_players - 1)), dtype=np.float32)
        K.known_games(self._st, self.params, games, seats, out)
        return out

    def kernel_state(self) -> KernelState:
        """The engine's arrays for a compiled (numba) loop that reads and moves the games through
        :mod:`commerce_env.vector.access` (shared, not copied; see there).  Take it again after a
        call that may resize the rows (``reset`` or ``load_games`` with more packs)."""
        self._require_started()
        return KernelState(self._st, self.params, self.keys, self._masks)

    # Views for batched agents, features and tests (read-only by convention).
    @property
    def hands(self) -> np.ndarray:
        """``(num_games, num_players, 3)`` sorted hands, -1 for a seat dealt nothing."""
        return self._section(P_HANDS_AT, 3 * self.num_players).reshape(self.num_games, self.num_players, 3)

    @property
    def table(self) -> np.ndarray:
        """``(num_games, 3)`` face-up table or widow, -1 in variants without one."""
        return self._section(P_TABLE_AT, 3)

    @property
    def phase(self) -> np.ndarray:
        """The phase of each game, an index into ``commerce_env.engine.base.PHASES``."""
        return self._st[:, G_PHASE]

    @property
    def pool(self) -> np.ndarray:
        return self._st[:, G_POOL]

    @property
    def dealer(self) -> np.ndarray:
        return self._st[:, G_DEALER]

    @property
    def stock_size(self) -> np.ndarray:
        return self._st[:, G_STOCK]

    def balances(self) -> np.ndarray:
        """``(num_games, num_players)``: counters, or money in pool commerce (R4.1)."""
        return self._field(S_MONEY if self.plays_for_money else S_COUNTERS).copy()

    def counters(self) -> np.ndarray:
        """``(num_games, num_players)``: counters (lives where the variant keeps them, R4.1)."""
        return self._field(S_COUNTERS).copy()

    def money(self) -> np.ndarray:
        """``(num_games, num_players)``: money apart from lives (pool commerce, R9; zero elsewhere)."""
        return self._field(S_MONEY).copy()

    def discarded_bits(self) -> np.ndarray:
        """``(num_games, num_players)`` int64 bit sets of each seat's own discards (R11)."""
        sets = len(MEMORY_SETS)
        return self._section(P_MEMORY_AT, sets * self.num_players).reshape(
            self.num_games, self.num_players, sets)[:, :, B_DISCARDED]

    def card_places(self, game: int) -> dict[int, str]:
        """Every card of one game and where it is (for invariant checks); a card in two places raises."""
        places: dict[int, str] = {}

        def put(card: int, place: str) -> None:
            if card in places:
                raise AssertionError(f"game {game}: card {card} is both in {places[card]} and {place}")
            places[card] = place

        for seat in range(self.num_players):
            for c in self.hands[game, seat]:
                if c >= 0:
                    put(int(c), f"hand {seat}")
        for c in self.table[game]:
            if c >= 0:
                put(int(c), "table")
        for c in self._section(P_STOCK_AT, 52)[game, :self._st[game, G_STOCK]]:
            put(int(c), "stock")
        for c in self._section(P_DISCARDS_AT, 52)[game, :self._st[game, G_DISCARDS]]:
            put(int(c), "discards")
        return places

    def total_value(self) -> np.ndarray:
        """Balances plus pool, per game: constant through a match (R4.3)."""
        return self.balances().sum(axis=1) + self.pool

    def nbytes(self) -> int:
        """Bytes held by this batch's own arrays (the key table is shared)."""
        return self._st.nbytes + self._masks.nbytes + self._rewards.nbytes
