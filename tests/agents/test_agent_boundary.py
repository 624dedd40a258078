"""The agent boundary (docs/rules.md R11, docs/agents.md): agents get seat views only.

Cheaters try each known attack (read the other hands, the stock, the
packs of later deals and the random generator; change balances; take actions
on the game) and gain nothing: what they read holds no hidden card, what they
write changes no outcome.  The twin tests: two games that differ only in cards
a seat has not seen give it byte-identical pickled views, at every decision of
every variant.
"""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

from agents.arena import play_game
from agents.heuristics import GreedyAgent
from agents.search import SearchAgent
from commerce_env.cards import CARDS, Card
from commerce_env.engine import new_game
from commerce_env.rules import VARIANTS, make_rules
from commerce_env.view import SeatView, seat_view

# Option sets that open other phases and moves: R5.3 bottom discards, R5.6 stand or continue,
# R6.3 without pass, R2.7 limited combinations, R4.5 short matches.
OPTION_SETS = {
    "trade_barter": [{}, {"discard": "bottom", "stand_after_trade": True, "max_rounds": 4}],
    "widow": [{"deals": 3}, {"allow_pass": False, "deals": 2}],
    "my_ship_sails": [{"deals": 2}],
    "old_game": [{}, {"combinations": ["tricon", "sequence", "point"]}],
    "pool": [{"deals": 3}],
}
CASES = [(variant, options) for variant in VARIANTS for options in OPTION_SETS[variant]]


def _objects(root):
    """Every object reachable from ``root`` through containers, dataclass fields and ``__dict__``."""
    seen, stack, found = set(), [root], []
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (int, float, str, bool, type(None), type)):
            continue
        seen.add(id(obj))
        found.append(obj)
        if isinstance(obj, dict):
            stack += list(obj.keys()) + list(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack += list(obj)
        elif hasattr(obj, "__dict__"):
            stack += list(vars(obj).values())
    return found


def _hidden_places(game, seat):
    """``card -> place`` for every card whose place ``seat`` does not know now (R11)."""
    view = seat_view(game, seat)
    places = game.where_are_cards()
    return {card: places[card] for card in view.unseen}


# ------------------------------------------------------------------ cheaters
class HandReader(GreedyAgent):
    """Looks for the other hands, the stock and the generator in what it is given."""

    name = "hand_reader"
    finds: list

    def reset(self, seat, num_players, rules, seed=None):
        self.seat, self.finds = seat, []

    def act(self, view):
        for name in ("game", "hands", "stock", "discards", "rng", "decks", "record", "unwrapped"):
            if hasattr(view, name):
                self.finds.append(name)
        for obj in _objects(view):
            if isinstance(obj, random.Random):
                self.finds.append("a random generator")
        return super().act(view)


class Mutator(GreedyAgent):
    """Writes whatever it can reach: balances, the pool, the arrays, a sampled world."""

    name = "mutator"

    def act(self, view):
        action = super().act(view)
        if not view.over:
            world = view.sample_world(random.Random(0))
            world.counters[view.seat] += 5  # R4.3 broken in its own world only
            world.apply(world.legal_actions()[0])
        with pytest.raises(AttributeError):  # frozen
            view.counters = tuple(c + 5 for c in view.counters)
        object.__setattr__(view, "counters", tuple(c + 5 for c in view.counters))  # forced: its own copy
        object.__setattr__(view, "pool", 0)
        view.observation[:] = 1.0
        view.action_mask[:] = 1
        for obj in _objects(view):
            if isinstance(obj, list):
                obj.append(0)
            elif isinstance(obj, dict):
                obj[-1] = 0
        return action


def _returns(agents, rules, packs, seed=5):
    game = new_game(rules, len(agents), decks=packs, dealer=0, rng=random.Random(seed))
    return play_game(game, agents, seeds=list(range(len(agents)))), game


@pytest.mark.parametrize("variant, options", CASES)
def test_a_hand_reader_finds_nothing_hidden(variant, options):  # R11
    rules = make_rules(variant, **options)
    readers = [HandReader() for _ in range(4)]
    _returns(readers, rules, None)
    assert all(reader.finds == [] for reader in readers)


@pytest.mark.parametrize("variant, options", CASES)
def test_writes_to_a_view_change_no_outcome(variant, options):  # R4.3: no counters from nothing
    rules = make_rules(variant, **options)
    for seed in range(3):
        rng = random.Random(seed)
        packs = [rng.sample(list(range(52)), 52) for _ in range(3)]
        honest, _ = _returns([GreedyAgent() for _ in range(4)], rules, packs, seed)
        cheats, game = _returns([Mutator(), GreedyAgent(), Mutator(), GreedyAgent()], rules, packs, seed)
        assert cheats == honest
        assert sum(cheats) == pytest.approx(0.0)


@pytest.mark.parametrize("variant, options", CASES)
def test_a_view_names_no_card_its_seat_never_saw(variant, options):  # R11
    # Every card the view names anywhere (but the list of unseen cards and the pack) is one the
    # seat has held while seeing its hand, seen face up, or seen shown at a showdown.
    rules = make_rules(variant, **options)
    for seed in range(4):
        game = new_game(rules, 4, rng=random.Random(seed))
        rng = random.Random(seed)
        seen = [set() for _ in range(4)]
        done = 0
        while not game.over:
            for _, kind, cards, _ in game.record[done:]:
                if kind in ("exchange", "take_widow", "show"):  # face up (R6.2, R6.3, R8.2, R11)
                    for s in range(4):
                        seen[s].update(cards)
            done = len(game.record)
            for s in range(4):
                if game.sees_own_hand(s):
                    seen[s].update(game.hands[s])
                seen[s].update(game.table)
            seat = game.current_player
            view = seat_view(game, seat)
            never = set(game.pack) - seen[seat]
            for obj in _objects(view):
                if isinstance(obj, (tuple, list)) and obj is not view.unseen and obj is not game.pack:
                    assert not never & {c for c in obj if isinstance(c, Card)}, obj
            game.apply(rng.choice(game.legal_actions()))


def test_the_next_pack_cannot_be_predicted():  # R1.5, R11: later packs and the generator are hidden
    rules = make_rules("widow")
    hits = 0
    for seed in range(20):
        rng = random.Random(seed)
        packs = [rng.sample(list(range(52)), 52) for _ in range(2)]
        game = new_game(rules, 4, decks=packs, dealer=0, rng=random.Random(seed))
        view = seat_view(game, game.current_player)
        world = view.sample_world(random.Random(1))
        assert world.decks == []
        world.apply(world.legal_actions()[0])
        while not world.over and world.deals_dealt == 1:
            world.apply(world.legal_actions()[0])
        if not world.over and list(world.deal_pack) == packs[1]:
            hits += 1
    assert hits == 0


def test_a_view_shares_no_mutable_object_with_the_game():
    for variant in VARIANTS:
        game = new_game(make_rules(variant), 4, seed=3)
        rng = random.Random(3)
        for _ in range(6):
            if game.over:
                break
            mutable = {id(o) for o in _objects(game) if isinstance(o, (list, dict, set, np.ndarray, random.Random))}
            mutable.add(id(game.rules))  # frozen, but object.__setattr__ writes it: the view has its own copy
            view = seat_view(game, game.current_player)
            shared = [o for o in _objects(view) if id(o) in mutable]
            assert shared == [] and view.rules == game.rules
            game.apply(rng.choice(game.legal_actions()))


def test_a_view_pickles_and_reads_like_the_env_observation():
    game = new_game(make_rules("trade_barter"), 4, seed=1)
    view = seat_view(game, game.current_player)
    again = pickle.loads(pickle.dumps(view))
    assert isinstance(again, SeatView)
    assert np.array_equal(again["observation"], view.observation)
    assert np.array_equal(again["action_mask"], view.action_mask)
    assert list(np.flatnonzero(view["action_mask"])) == list(view.legal_actions) == game.legal_actions()
    with pytest.raises(KeyError):
        view["hands"]
    with pytest.raises(ValueError, match="seat"):
        seat_view(game, 4)


# --------------------------------------------------------------------- twins
def _replay_twin(game, seat, pack, texts, rng):
    """The first deal replayed from ``pack`` with the cards ``seat`` has not seen permuted, or None.

    The permuted cards are those never in its hand while it could see it and
    never face up, found by watching the true replay (not from the record)."""
    rules, n, dealer = game.rules, game.num_players, game.record[0][0]
    seen = set()
    check = new_game(rules, n, decks=[pack], dealer=dealer)
    for actor, text in [*texts, (None, None)]:
        if check.sees_own_hand(seat):
            seen.update(check.hands[seat])
        seen.update(check.table)
        if actor is not None:
            check.apply(check.action_from_text(text, actor))
    hidden = [c for c in pack if c not in seen]
    moved = hidden[:]
    rng.shuffle(moved)
    mapping = dict(zip(hidden, moved, strict=True))
    twin = new_game(rules, n, decks=[[mapping.get(c, c) for c in pack]], dealer=dealer)
    for actor, text in texts:
        verb, *cards = text.split()
        mapped = " ".join([verb, *(str(mapping.get(c, c)) for c in _cards(cards))])
        if twin.over or twin.current_player != actor:
            return None  # the hidden cards changed the course of play (R7.3's flush): no twin
        try:
            twin.apply(twin.action_from_text(mapped, actor))
        except ValueError:
            return None
    return twin if twin.current_player == game.current_player and twin.deals_dealt == 1 else None


def _cards(tokens):
    from commerce_env.cards import parse_cards

    return parse_cards(" ".join(tokens)) if tokens else ()


@pytest.mark.parametrize("variant, options", CASES)
def test_twins_give_byte_identical_views_at_every_decision(variant, options):  # R11
    rules = make_rules(variant, **options)
    compared = 0
    for seed in range(4):
        rng = random.Random(seed)
        pack = rng.sample(range(52), 52) if rules.deck_size == 52 else None
        if pack is None:
            continue
        game = new_game(rules, 4, decks=[pack], dealer=seed % 4, rng=random.Random(seed))
        while not game.over and game.deals_dealt == 1:
            texts = game.history_texts()
            for seat in range(game.num_players):
                twin = _replay_twin(game, seat, pack, texts, random.Random(seed * 100 + seat))
                if twin is None:
                    continue
                assert pickle.dumps(seat_view(twin, seat)) == pickle.dumps(seat_view(game, seat))
                compared += 1
            game.apply(rng.choice(game.legal_actions()))
    assert compared > 0


@pytest.mark.parametrize("variant, options", CASES)
def test_a_sampled_world_looks_the_same_to_the_seat(variant, options):  # R11, for search
    rules = make_rules(variant, **options)
    for seed in range(3):
        rng = random.Random(seed)
        game = new_game(rules, 4, rng=random.Random(seed))
        while not game.over:
            seat = game.current_player
            view = seat_view(game, seat)
            world = view.sample_world(rng)
            assert pickle.dumps(seat_view(world, seat)) == pickle.dumps(view)  # the same, to the byte
            assert world.total_value() == game.total_value()
            game.apply(rng.choice(game.legal_actions()))


def _restored(game, rng=None):
    """``game`` built again by ``Game.restore`` from its public state and its true cards."""
    return type(game).restore(game.public_state(), hands=[list(h) for h in game.hands], table=list(game.table),
                              stock=list(game.stock), discards=list(game.discards), offer=game.offer,
                              record=list(game.record), deal_start=game.deal_start,
                              rng=rng or random.Random(0))


@pytest.mark.parametrize("variant, options", CASES)
def test_a_restored_game_plays_on_as_the_game_does(variant, options):  # R11: Game.restore, for search
    rules = make_rules(variant, **options)
    for seed in range(3):
        rng = random.Random(seed)
        game = new_game(rules, 4, rng=random.Random(seed))
        for _ in range(rng.randrange(8)):
            if not game.over:
                game.apply(rng.choice(game.legal_actions()))
        if game.over:
            continue
        world = _restored(game, copy.deepcopy(game.rng))  # the same later packs (R1.5)
        assert world.where_are_cards() == game.where_are_cards()
        while not game.over:
            assert world.legal_actions() == game.legal_actions()
            for seat in range(4):
                assert pickle.dumps(seat_view(world, seat)) == pickle.dumps(seat_view(game, seat))
            action = rng.choice(game.legal_actions())
            game.apply(action)
            world.apply(action)
        assert world.over and world.returns() == game.returns() and world.balances() == game.balances()


def test_restore_shares_nothing_and_takes_no_hidden_field():
    from commerce_env.engine.base import HIDDEN_FIELDS

    game = new_game(make_rules("trade_barter"), 4, rng=random.Random(0))
    assert not HIDDEN_FIELDS & set(dict(game.public_state()))  # R11: no hidden card, no generator
    world = _restored(game)
    world.counters[0] += 5
    world.apply(world.legal_actions()[0])
    assert game.counters == _restored(game).counters != world.counters and game.record != world.record
    with pytest.raises(ValueError, match="hidden fields \\['hands'\\]"):
        type(game).restore((*game.public_state(), ("hands", game.hands)), hands=[], table=[], stock=[],
                           discards=[], offer=None, record=[], deal_start=1, rng=random.Random(0))


def test_search_plays_from_views_only():
    # A search agent never needs the game: a pickled copy of its view gives the same choice.
    game = new_game(make_rules("trade_barter"), 4, seed=4)
    view = seat_view(game, game.current_player)
    copy = pickle.loads(pickle.dumps(view))
    assert SearchAgent(worlds=4, seed=1).act(view) == SearchAgent(worlds=4, seed=1).act(copy)


class _ViewChecker(GreedyAgent):
    """Fails unless it is handed a seat view of its own seat."""

    def __init__(self):
        super().__init__()
        self.calls, self.seats = 0, set()

    def act(self, view):
        assert type(view) is SeatView and view.seat == view.current_player
        self.calls += 1
        self.seats.add(view.seat)
        return super().act(view)


def test_the_arena_and_the_single_agent_env_hand_out_views_only():
    game = new_game(make_rules("widow", deals=2), 4, seed=2)
    checkers = [_ViewChecker() for _ in range(4)]
    play_game(game, checkers)
    assert all(c.seats == {seat} for seat, c in enumerate(checkers))
    from commerce_env.single_agent import CommerceEnv

    checker = _ViewChecker()
    env = CommerceEnv(variant="trade_barter", num_players=3, opponents=[checker], seat=0)
    env.reset(seed=1)
    for _ in range(5):
        _, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if done:
            env.reset()
    assert checker.calls and 0 not in checker.seats  # the learner's seat is never the opponents'


# ------------------------------------------------- decode/encode for others
def _aec(variant, dealer=0, **options):
    import commerce_env

    env = commerce_env.env(variant=variant, num_players=4, **options)
    env.reset(seed=3, options={"dealer": dealer})
    return env, env.unwrapped


def test_decode_action_names_no_card_of_another_agent():  # R11
    env, raw = _aec("trade_barter")
    me = env.agent_selection
    other = next(a for a in raw.possible_agents if a != me)
    seat = raw.possible_agents.index(other)
    assert raw.decode_action(9) == f"ready_money {CARDS[raw.game.hands[raw.game.current_player][0]]}"
    for action in (9, 12, 15):
        text = raw.decode_action(action, other)
        assert text.endswith("<hand card 0>")
        assert not any(str(c) in text.split() for c in raw.game.hands[seat])
    assert raw.decode_action(9, other, full_information=True) == f"ready_money {CARDS[raw.game.hands[seat][0]]}"


def test_encode_action_is_no_membership_oracle():  # R11
    env, raw = _aec("trade_barter")
    other = next(a for a in raw.possible_agents if a != env.agent_selection)
    seat = raw.possible_agents.index(other)
    held = raw.game.hands[seat][0]
    missing = next(c for c in CARDS if c not in raw.game.hands[seat])
    errors = []
    for card in (held, missing):
        with pytest.raises(ValueError) as error:
            raw.encode_action(f"offer {card}", other)
        errors.append(str(error.value).replace(str(card), "X"))
    assert errors[0] == errors[1]  # the same answer whether he holds the card or not
    assert raw.encode_action("knock", other) == 0  # a text naming no card is fine
    assert raw.encode_action(f"offer {held}", other, full_information=True) == 12 + raw.game.hands[seat].index(held)


def test_the_widow_dealer_decodes_no_card_before_his_choice():  # R6.2, R11
    env, raw = _aec("widow", dealer=1)
    assert raw.game.phase == "widow_choice" and env.agent_selection == "player_1"
    assert raw.decode_action(18) == "exchange <hand card 0> <table card 0>"
    with pytest.raises(ValueError, match="hidden"):
        raw.encode_action(f"exchange {CARDS[raw.game.hands[1][0]]} {CARDS[raw.game.table[0]]}")


def test_public_history_hides_the_face_down_cards_of_others():  # R11
    env, raw = _aec("trade_barter")
    actor = env.agent_selection
    env.step(9)  # ready money: a face-down discard
    watcher = next(a for a in raw.possible_agents if a != actor)
    assert raw.public_history(watcher)[-1] == (actor, "ready_money")
    assert raw.public_history(actor)[-1] == raw.history[-1] != (actor, "ready_money")
